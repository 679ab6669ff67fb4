/**
 * Scenario 1, outage storm: a fleet of executions started at once (one item each) against an
 * upstream that answers 503 for the first `outageMs`, in real time. The executions of a fleet run
 * in one process and share its memory store (one traffic controller for the API), as the
 * executions of one n8n process do. Who hammers the upstream, who gets through?
 */
import type { IDataObject } from 'n8n-workflow';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { percentile, slidingPeak } from '../stats';
import { addWaits, emptyWaits, type WaitTotals } from '../stories';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, perItemUrl, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, RETRY_ON_FAIL_MAX, runFleet, type RetryOnFail } from '../workflows';

export type StormRowSpec =
	| { name: string; slug: 'rof-default' | 'rof-max'; kind: 'core'; retry: RetryOnFail }
	| { name: string; slug: 'resilient' | 'resilient-tc-off'; kind: 'resilient'; parameters: IDataObject };

export const STORM_ROWS: readonly StormRowSpec[] = [
	{ name: 'HTTP Request + Retry On Fail, default (3 tries, 1000 ms)', slug: 'rof-default', kind: 'core', retry: RETRY_ON_FAIL_DEFAULT },
	{ name: 'HTTP Request + Retry On Fail, max (5 tries, 5000 ms)', slug: 'rof-max', kind: 'core', retry: RETRY_ON_FAIL_MAX },
	{ name: 'Resilient HTTP Request, defaults', slug: 'resilient', kind: 'resilient', parameters: {} },
	{ name: 'Resilient, Traffic Control off (no hold, no budget)', slug: 'resilient-tc-off', kind: 'resilient', parameters: { sharedLimits: { breaker: false, budget: false } } },
];

export interface StormSettings {
	fleet: number;
	outageMs: number;
	seed: number;
}

export interface StormResult {
	row: StormRowSpec;
	fleet: number;
	requests: number;
	/** Upstream requests / logical requests (one per execution). */
	amplification: number;
	succeeded: number;
	/** Most requests in any 100 ms window that starts at or after the upstream recovered. */
	peakAfterRecovery: number;
	/** Most retries (requests after an execution's first) in any 100 ms window: the synchronized storm. */
	retryPeak: number;
	completionMs: { p50: number; p95: number; max: number };
	/** Every request's arrival, ms after the fleet started (for the plot). */
	requestTimes: number[];
	/** The arrivals of retries (an execution's requests after its first) only. */
	retryTimes: number[];
	/** When the upstream recovered, ms after the fleet started. */
	recoveredAtMs: number;
	durationMs: number;
	/** Resilient rows: the waits at the API's controller of the executions that succeeded. */
	waits?: WaitTotals;
	/** The failed executions' errors, counted by their first words. */
	failures: Record<string, number>;
}

/** Error messages cut where they start to name one item (a time, a URL), counted. */
function countFailures(errors: ReadonlyArray<string | undefined>): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const error of errors) {
		if (error === undefined) continue;
		const head = error.split(/[:(]/)[0].trim().slice(0, 80) || error.slice(0, 80);
		counts[head] = (counts[head] ?? 0) + 1;
	}
	return counts;
}

export async function runStormRow(upstream: Upstream, row: StormRowSpec, settings: StormSettings): Promise<StormResult> {
	await upstream.take();
	const until = Date.now() + settings.outageMs;
	const url = perItemUrl(`${upstream.url}/outage/${until}`, `storm-${row.slug}`);
	const id = `storm-${row.slug}`;
	// one store per row: the fleet's executions share it (one n8n process), rows do not
	const { startedAt, executions } =
		row.kind === 'core'
			? await runFleet(settings.fleet, benchWorkflow(id, coreHttp(url, row.retry)))
			: await runFleet(settings.fleet, benchWorkflow(id, resilientHttp(url, row.parameters)), { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() });
	const log = await upstream.take();
	const recoveredAtMs = until - startedAt;
	const seen = new Set<string>();
	const retryTimes: number[] = [];
	for (const request of log) {
		if (seen.has(request.key)) retryTimes.push(request.time - startedAt);
		seen.add(request.key);
	}
	const requestTimes = log.map((r) => r.time - startedAt);
	const completed = executions.map((e) => e.completedMs);
	return {
		row,
		fleet: settings.fleet,
		requests: log.length,
		amplification: log.length / settings.fleet,
		succeeded: executions.filter((e) => e.succeeded).length,
		peakAfterRecovery: slidingPeak(
			requestTimes.filter((t) => t >= recoveredAtMs),
			100,
		),
		retryPeak: slidingPeak(retryTimes, 100),
		completionMs: { p50: percentile(completed, 50), p95: percentile(completed, 95), max: Math.max(...completed) },
		requestTimes,
		retryTimes,
		recoveredAtMs,
		durationMs: Math.max(...completed),
		failures: countFailures(executions.map((e) => e.error)),
		...(row.kind === 'resilient' ? { waits: addWaits(emptyWaits(), executions.flatMap((e) => e.output)) } : {}),
	};
}

/** Loads both node types and warms the JIT, so that no row's first wave waits for that. */
async function warmUp(upstream: Upstream, settings: StormSettings): Promise<void> {
	const url = perItemUrl(`${upstream.url}/ok`, 'storm-warm-up');
	await runFleet(Math.min(settings.fleet, 20), benchWorkflow('storm-warm-up', coreHttp(url, undefined)));
	await runFleet(Math.min(settings.fleet, 20), benchWorkflow('storm-warm-up', resilientHttp(url)), { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() });
	await upstream.take();
}

export async function runOutageStorm(upstream: Upstream, settings: StormSettings, rows: readonly StormRowSpec[] = STORM_ROWS): Promise<StormResult[]> {
	await warmUp(upstream, settings);
	const results: StormResult[] = [];
	for (const row of rows) results.push(await runStormRow(upstream, row, settings));
	return results;
}
