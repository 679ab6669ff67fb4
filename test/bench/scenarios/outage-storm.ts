/**
 * Scenario 1, outage storm: a fleet of concurrent executions (one request each) against an
 * upstream that answers 503 for the first `outageMs`, on real time. Who hammers the upstream
 * when it comes back, and who gets through?
 */
import type { JitterStrategy } from '../../../nodes/shared/core/backoff';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { percentile, slidingPeak } from '../stats';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, perItemUrl, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, RETRY_ON_FAIL_MAX, runFleet, type RetryOnFail } from '../workflows';

export type StormStrategy =
	| { name: string; slug: string; kind: 'core'; retry: RetryOnFail }
	| { name: string; slug: string; kind: 'resilient'; jitter: JitterStrategy; budget: boolean };

export const STORM_STRATEGIES: readonly StormStrategy[] = [
	{ name: 'Retry On Fail, default (3 tries, 1000 ms)', slug: 'rof-default', kind: 'core', retry: RETRY_ON_FAIL_DEFAULT },
	{ name: 'Retry On Fail, max (5 tries, 5000 ms)', slug: 'rof-max', kind: 'core', retry: RETRY_ON_FAIL_MAX },
	{ name: 'Resilient, no jitter', slug: 'none', kind: 'resilient', jitter: 'none', budget: false },
	{ name: 'Resilient, full jitter', slug: 'full', kind: 'resilient', jitter: 'full', budget: false },
	{ name: 'Resilient, equal jitter', slug: 'equal', kind: 'resilient', jitter: 'equal', budget: false },
	{ name: 'Resilient, decorrelated jitter', slug: 'decorrelated', kind: 'resilient', jitter: 'decorrelated', budget: false },
	{ name: 'Resilient, full jitter + retry budget', slug: 'full-budget', kind: 'resilient', jitter: 'full', budget: true },
];

export interface StormSettings {
	fleet: number;
	outageMs: number;
	seed: number;
}

export interface StormResult {
	strategy: StormStrategy;
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
}

export async function runStormStrategy(upstream: Upstream, strategy: StormStrategy, settings: StormSettings): Promise<StormResult> {
	await upstream.take();
	const until = Date.now() + settings.outageMs;
	const url = perItemUrl(`${upstream.url}/outage/${until}`, strategy.slug);
	// one workflow id per strategy: all its executions share one retry budget
	const id = `storm-${strategy.slug}`;
	const { startedAt, executions } =
		strategy.kind === 'core'
			? await runFleet(settings.fleet, benchWorkflow(id, coreHttp(url, strategy.retry)))
			: await runFleet(settings.fleet, benchWorkflow(id, resilientHttp(url, { retryOptions: { jitter: strategy.jitter }, sharedLimits: { budget: strategy.budget } })), {
					runtime: realTimeRuntime(settings.seed),
					store: new MemoryStateStore(),
				});
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
		strategy,
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
	};
}

/** Loads both node types and warms the JIT, so that no strategy's first wave waits for that. */
async function warmUp(upstream: Upstream, settings: StormSettings): Promise<void> {
	const url = perItemUrl(`${upstream.url}/ok`, 'storm-warm-up');
	await runFleet(Math.min(settings.fleet, 20), benchWorkflow('storm-warm-up', coreHttp(url, undefined)));
	await runFleet(Math.min(settings.fleet, 20), benchWorkflow('storm-warm-up', resilientHttp(url)), { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() });
}

export async function runOutageStorm(upstream: Upstream, settings: StormSettings, strategies: readonly StormStrategy[] = STORM_STRATEGIES): Promise<StormResult[]> {
	await warmUp(upstream, settings);
	const results: StormResult[] = [];
	for (const strategy of strategies) results.push(await runStormStrategy(upstream, strategy, settings));
	return results;
}
