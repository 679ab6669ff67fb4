/**
 * Scenario 5, Retry-After: every item's first request gets 429 with `Retry-After: <seconds>`,
 * the next one 200. Does anybody come back before the server said so, how late, and how long does
 * the execution take? Lateness is measured on the upstream's clock: second arrival - first
 * arrival - Retry-After.
 */
import type { IDataObject } from 'n8n-workflow';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { percentile } from '../stats';
import { waitsOf, type WaitTotals } from '../stories';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, itemKey, items, perItemUrl, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, runOnce } from '../workflows';

export interface RetryAfterSettings {
	items: number;
	retryAfterSeconds: number;
	seed: number;
}

export interface RetryAfterRow {
	slug: string;
	name: string;
	/** Resilient at its defaults: the goal applies. */
	atDefaults: boolean;
	items: number;
	/** Items that sent a second request. */
	retried: number;
	/** Second requests that arrived before the Retry-After had passed. */
	early: number;
	latenessMs: { p50: number; p95: number; min: number };
	/** Items that came out without an error (a failed execution has none: Retry On Fail stops it). */
	succeeded: number;
	requests: number;
	durationMs: number;
	waits?: WaitTotals;
}

interface Variant {
	slug: string;
	name: string;
	atDefaults: boolean;
	resilient?: IDataObject;
}

export function retryAfterVariants(settings: RetryAfterSettings): Variant[] {
	return [
		{ slug: 'rof', name: 'HTTP Request + Retry On Fail, default (3 tries, 1000 ms)', atDefaults: false },
		{ slug: 'resilient', name: 'Resilient HTTP Request, defaults', atDefaults: true, resilient: {} },
		// as HTTP Request sends them: every item in flight, no window to learn
		{ slug: 'resilient-all', name: `Resilient, Adapt Items in Flight off, Max Items in Flight ${settings.items}`, atDefaults: false, resilient: { options: { maxConcurrency: settings.items, adaptConcurrency: false } } },
	];
}

async function runVariant(upstream: Upstream, variant: Variant, settings: RetryAfterSettings): Promise<RetryAfterRow> {
	await upstream.take();
	const url = perItemUrl(`${upstream.url}/429/${settings.retryAfterSeconds}`, `ra-${variant.slug}`);
	const http = variant.resilient ? resilientHttp(url, variant.resilient, 'continueRegularOutput') : coreHttp(url, RETRY_ON_FAIL_DEFAULT);
	const started = Date.now();
	const run = await runOnce(benchWorkflow(`retry-after-${variant.slug}`, http), items(0, settings.items), variant.resilient ? { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() } : undefined, 900_000);
	const durationMs = Date.now() - started;
	const log = await upstream.take();
	const lateness: number[] = [];
	for (let n = 0; n < settings.items; n++) {
		const [first, second] = log.filter((r) => r.key === itemKey(`ra-${variant.slug}`, n));
		if (first && second) lateness.push(second.time - first.time - settings.retryAfterSeconds * 1000);
	}
	const output = run.status === 'success' ? run.outputOf('HTTP') : [];
	return {
		slug: variant.slug,
		name: variant.name,
		atDefaults: variant.atDefaults,
		items: settings.items,
		retried: lateness.length,
		early: lateness.filter((ms) => ms < 0).length,
		latenessMs: { p50: percentile(lateness, 50), p95: percentile(lateness, 95), min: lateness.length > 0 ? Math.min(...lateness) : NaN },
		succeeded: output.filter((item) => item.json.error === undefined).length,
		requests: log.length,
		durationMs,
		...(variant.resilient ? { waits: waitsOf(output) } : {}),
	};
}

export async function runRetryAfter(upstream: Upstream, settings: RetryAfterSettings): Promise<RetryAfterRow[]> {
	const rows: RetryAfterRow[] = [];
	for (const variant of retryAfterVariants(settings)) rows.push(await runVariant(upstream, variant, settings));
	return rows;
}
