/**
 * Scenario 4, healthy upstream: one execution of many items, no failures. Wall time and CPU of
 * the engine process (the upstream runs in another process) for HTTP Request against Resilient
 * HTTP Request at its defaults: its first execution on a fresh store (the API's window starts at
 * 10 in flight), then a second execution on the same store (it starts from the window the first
 * learned). Alternating runs; the figures are medians.
 */
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { median } from '../stats';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, items, perItemUrl, realTimeRuntime, resilientHttp, runOnce } from '../workflows';

export interface HealthySettings {
	items: number;
	runs: number;
	seed: number;
	/** How long the upstream takes to answer each request (0: at once, on loopback). */
	latencyMs: number;
}

/** core: HTTP Request (all items at once). first / second: Resilient at its defaults, on a fresh store, then on the same store again. */
export type HealthyVariant = 'core' | 'first' | 'second';
export const HEALTHY_VARIANTS: readonly HealthyVariant[] = ['core', 'first', 'second'];

export interface HealthySample {
	wallMs: number;
	cpuMs: number;
	/** Resilient: the API's window (requests in flight allowed) when the execution's first and last requests went. */
	windowAtStart?: number;
	windowAtEnd?: number;
}

export interface HealthyResult {
	items: number;
	runs: number;
	latencyMs: number;
	/** Medians per variant. */
	median: Record<HealthyVariant, HealthySample>;
	samples: Record<HealthyVariant, HealthySample[]>;
}

/**
 * The memory store, noting the window each request was admitted under, in order (a story tells of
 * the window only where it made an attempt wait: a healthy run's stories carry none).
 */
class WindowWatchingStore extends MemoryStateStore {
	readonly admitted: number[] = [];

	override async traffic<T>(...args: Parameters<MemoryStateStore['traffic']>): Promise<T> {
		const result = (await super.traffic(...args)) as T;
		const admission = result as { go?: boolean; window?: unknown } | undefined;
		if (admission?.go === true && typeof admission.window === 'number') this.admitted.push(admission.window);
		return result;
	}
}

async function measure(upstream: Upstream, variant: HealthyVariant, settings: HealthySettings, tag: string, store?: WindowWatchingStore): Promise<HealthySample> {
	const slug = `healthy-${settings.latencyMs}-${variant}-${tag}`;
	const url = perItemUrl(settings.latencyMs > 0 ? `${upstream.url}/slow/${settings.latencyMs}` : `${upstream.url}/ok`, slug);
	const workflow = benchWorkflow(slug, variant === 'core' ? coreHttp(url, undefined) : resilientHttp(url));
	const input = items(0, settings.items);
	const resilient = store ? { runtime: realTimeRuntime(settings.seed), store } : undefined;
	store?.admitted.splice(0);
	const cpu = process.cpuUsage();
	const started = performance.now();
	const result = await runOnce(workflow, input, resilient);
	const wallMs = performance.now() - started;
	const used = process.cpuUsage(cpu);
	const sent = (await upstream.take()).length;
	if (result.status !== 'success' || sent !== settings.items) {
		throw new Error(`healthy run ${slug}: status ${result.status}, ${sent} requests for ${settings.items} items`);
	}
	const sample: HealthySample = { wallMs, cpuMs: (used.user + used.system) / 1000 };
	if (store) {
		sample.windowAtStart = store.admitted[0];
		sample.windowAtEnd = store.admitted[store.admitted.length - 1];
	}
	return sample;
}

/** HTTP Request alone, or Resilient's first execution on a fresh store followed by its second on it. */
async function measureSide(upstream: Upstream, side: 'core' | 'resilient', settings: HealthySettings, tag: string, samples: Record<HealthyVariant, HealthySample[]>): Promise<void> {
	if (side === 'core') {
		samples.core.push(await measure(upstream, 'core', settings, tag));
		return;
	}
	const store = new WindowWatchingStore();
	samples.first.push(await measure(upstream, 'first', settings, tag, store));
	samples.second.push(await measure(upstream, 'second', settings, tag, store));
}

export async function runHealthyOverhead(upstream: Upstream, settings: HealthySettings): Promise<HealthyResult> {
	await upstream.take();
	// one untimed round: loads n8n-nodes-base's HTTP Request and warms the JIT
	const warm: Record<HealthyVariant, HealthySample[]> = { core: [], first: [], second: [] };
	await measureSide(upstream, 'core', settings, 'warm', warm);
	await measureSide(upstream, 'resilient', settings, 'warm', warm);
	const samples: Record<HealthyVariant, HealthySample[]> = { core: [], first: [], second: [] };
	for (let run = 0; run < settings.runs; run++) {
		// alternate the order, so that neither side always runs right after the other
		const order: Array<'core' | 'resilient'> = run % 2 === 0 ? ['core', 'resilient'] : ['resilient', 'core'];
		for (const side of order) await measureSide(upstream, side, settings, String(run), samples);
	}
	const medianOf = (list: HealthySample[]): HealthySample => ({
		wallMs: median(list.map((s) => s.wallMs)),
		cpuMs: median(list.map((s) => s.cpuMs)),
		...(list[0]?.windowAtStart !== undefined ? { windowAtStart: median(list.map((s) => s.windowAtStart ?? NaN)), windowAtEnd: median(list.map((s) => s.windowAtEnd ?? NaN)) } : {}),
	});
	return {
		items: settings.items,
		runs: settings.runs,
		latencyMs: settings.latencyMs,
		median: { core: medianOf(samples.core), first: medianOf(samples.first), second: medianOf(samples.second) },
		samples,
	};
}
