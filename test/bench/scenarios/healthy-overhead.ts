/**
 * Scenario 3, healthy upstream: one execution of many items, no failures. Wall time and CPU of
 * the engine process (the upstream runs in another process) for HTTP Request against Resilient
 * HTTP Request, in alternating runs; the figure is the median of each.
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

/**
 * core: HTTP Request (all items at once). resilientDefault: the node's defaults (adaptive window
 * from 10 up to 200 items in flight). resilientFixed10: Adapt off, 10 in flight (the default
 * before the adaptive window). resilientAll: Adapt off, all items in flight (as HTTP Request).
 */
export type HealthyVariant = 'core' | 'resilientDefault' | 'resilientFixed10' | 'resilientAll';

/** The options of each Resilient variant (empty: the node's defaults). */
function optionsOf(variant: HealthyVariant, items: number): Record<string, unknown> {
	if (variant === 'resilientFixed10') return { maxConcurrency: 10, adaptConcurrency: false };
	if (variant === 'resilientAll') return { maxConcurrency: items, adaptConcurrency: false };
	return {};
}

export interface HealthySample {
	wallMs: number;
	cpuMs: number;
}

export interface HealthyResult {
	items: number;
	runs: number;
	latencyMs: number;
	/** Medians per variant. */
	median: Record<HealthyVariant, HealthySample>;
	samples: Record<HealthyVariant, HealthySample[]>;
}

async function measure(upstream: Upstream, variant: HealthyVariant, settings: HealthySettings, run: number): Promise<HealthySample> {
	const slug = `healthy-${settings.latencyMs}-${variant}-${run}`;
	const url = perItemUrl(settings.latencyMs > 0 ? `${upstream.url}/slow/${settings.latencyMs}` : `${upstream.url}/ok`, slug);
	const options = optionsOf(variant, settings.items);
	const workflow = benchWorkflow(slug, variant === 'core' ? coreHttp(url, undefined) : resilientHttp(url, Object.keys(options).length === 0 ? {} : { options }));
	const input = items(0, settings.items);
	const resilient = variant === 'core' ? undefined : { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() };
	const cpu = process.cpuUsage();
	const started = performance.now();
	const result = await runOnce(workflow, input, resilient);
	const wallMs = performance.now() - started;
	const used = process.cpuUsage(cpu);
	const sent = (await upstream.take()).length;
	if (result.status !== 'success' || sent !== settings.items) {
		throw new Error(`healthy run ${slug}: status ${result.status}, ${sent} requests for ${settings.items} items`);
	}
	return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const VARIANTS: readonly HealthyVariant[] = ['core', 'resilientDefault', 'resilientFixed10', 'resilientAll'];

export async function runHealthyOverhead(upstream: Upstream, settings: HealthySettings): Promise<HealthyResult> {
	await upstream.take();
	// one untimed run each: loads n8n-nodes-base's HTTP Request and warms the JIT
	for (const variant of VARIANTS) await measure(upstream, variant, settings, -1);
	const samples: Record<HealthyVariant, HealthySample[]> = { core: [], resilientDefault: [], resilientFixed10: [], resilientAll: [] };
	for (let run = 0; run < settings.runs; run++) {
		// alternate the order, so that neither side always runs right after the other
		const order = run % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
		for (const variant of order) samples[variant].push(await measure(upstream, variant, settings, run));
	}
	const medianOf = (list: HealthySample[]): HealthySample => ({ wallMs: median(list.map((s) => s.wallMs)), cpuMs: median(list.map((s) => s.cpuMs)) });
	return {
		items: settings.items,
		runs: settings.runs,
		latencyMs: settings.latencyMs,
		median: { core: medianOf(samples.core), resilientDefault: medianOf(samples.resilientDefault), resilientFixed10: medianOf(samples.resilientFixed10), resilientAll: medianOf(samples.resilientAll) },
		samples,
	};
}
