/**
 * Scenario 4, Retry-After: every item's first request gets 429 with `Retry-After: <seconds>`,
 * the next one 200. Does anybody come back before the server said so, and how late?
 * Lateness is measured on the upstream's clock: second arrival - first arrival - Retry-After.
 */
import type { IDataObject } from 'n8n-workflow';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { percentile } from '../stats';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, itemKey, items, perItemUrl, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, runOnce } from '../workflows';

export interface RetryAfterSettings {
	items: number;
	retryAfterSeconds: number;
	seed: number;
}

export interface RetryAfterRow {
	name: string;
	items: number;
	/** Items that sent a second request. */
	retried: number;
	/** Second requests that arrived before the Retry-After had passed. */
	early: number;
	latenessMs: { p50: number; p95: number; min: number };
	/** Items that came out without an error (a failed execution has none: Retry On Fail stops it). */
	succeeded: number;
}

interface Variant {
	name: string;
	slug: string;
	resilient?: IDataObject;
}

export function retryAfterVariants(settings: RetryAfterSettings): Variant[] {
	// all items in flight at once, like HTTP Request: with fewer in flight the waits would run in
	// series (the adaptive window halves on each round of 429s), and this scenario measures the waits
	const all = { options: { maxConcurrency: settings.items, adaptConcurrency: false } };
	return [
		{ name: 'Retry On Fail, default (3 tries, 1000 ms)', slug: 'rof' },
		{ name: `Resilient, defaults, ${settings.items} items in flight (Adapt off)`, slug: 'resilient', resilient: all },
		{ name: `Resilient, retry budget off, ${settings.items} items in flight (Adapt off)`, slug: 'resilient-nobudget', resilient: { ...all, sharedLimits: { budget: false } } },
	];
}

async function runVariant(upstream: Upstream, variant: Variant, settings: RetryAfterSettings): Promise<RetryAfterRow> {
	await upstream.take();
	const url = perItemUrl(`${upstream.url}/429/${settings.retryAfterSeconds}`, `ra-${variant.slug}`);
	const http = variant.resilient ? resilientHttp(url, variant.resilient, 'continueRegularOutput') : coreHttp(url, RETRY_ON_FAIL_DEFAULT);
	const run = await runOnce(benchWorkflow(`retry-after-${variant.slug}`, http), items(0, settings.items), variant.resilient ? { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() } : undefined);
	const log = await upstream.take();
	const lateness: number[] = [];
	for (let n = 0; n < settings.items; n++) {
		const [first, second] = log.filter((r) => r.key === itemKey(`ra-${variant.slug}`, n));
		if (first && second) lateness.push(second.time - first.time - settings.retryAfterSeconds * 1000);
	}
	return {
		name: variant.name,
		items: settings.items,
		retried: lateness.length,
		early: lateness.filter((ms) => ms < 0).length,
		latenessMs: { p50: percentile(lateness, 50), p95: percentile(lateness, 95), min: Math.min(...lateness) },
		succeeded: run.status === 'success' ? run.outputOf('HTTP').filter((item) => item.json.error === undefined).length : 0,
	};
}

export async function runRetryAfter(upstream: Upstream, settings: RetryAfterSettings): Promise<RetryAfterRow[]> {
	const rows: RetryAfterRow[] = [];
	for (const variant of retryAfterVariants(settings)) rows.push(await runVariant(upstream, variant, settings));
	return rows;
}
