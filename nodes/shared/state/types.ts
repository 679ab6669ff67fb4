/**
 * Shared state of the traffic controllers (one per API: retry budget, outage hold, pause, learned
 * window and pace). Two stores implement it: in memory (default, per n8n process) and Redis (queue
 * mode, shared by all workers). Every step is atomic, so concurrent executions and workers never
 * lose an update.
 */
import type { Step, TrafficData, TrafficParams } from '../core/traffic/controller';

/** Retry budget: retries may be at most `ratio` of first attempts in the window, plus `minRetriesPerWindow`. */
export interface BudgetParams {
	/** e.g. 0.1: retries may add at most 10% to the traffic. */
	ratio: number;
	/** Retries always allowed per window, so quiet workflows can still retry. */
	minRetriesPerWindow: number;
	windowMs: number;
}

export interface BudgetSnapshot {
	firstAttempts: number;
	retries: number;
	/** Retries the budget still allows in the current window. */
	available: number;
	windowMs: number;
}

export interface BudgetVerdict {
	allowed: boolean;
	snapshot: BudgetSnapshot;
}

export interface BreakerParams {
	/** Opens after this many failures in a row (0: off). */
	consecutiveFailures: number;
	/** Or when failures / calls in the window reach this ratio (0: off)... */
	failureRatio: number;
	/** ...with at least this many calls in the window. */
	minimumCalls: number;
	windowMs: number;
	/** First open period; each re-open after a failed probe doubles it, up to maxBreakMs. */
	breakMs: number;
	maxBreakMs: number;
	/** A probe that has not reported for this long is given up, and the next call probes (default breakMs). */
	probeTimeoutMs?: number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSnapshot {
	state: BreakerState;
	/** When an open breaker lets a probe through (epoch ms). */
	openUntil?: number;
	consecutiveFailures: number;
	/** How many times it opened in a row without a success (drives the growing break). */
	openings: number;
}

export type BreakerVerdict =
	| { allowed: true; probe: boolean; snapshot: BreakerSnapshot }
	| { allowed: false; snapshot: BreakerSnapshot };

export interface BreakerChange {
	from: BreakerState;
	to: BreakerState;
	snapshot: BreakerSnapshot;
}

/** One atomic step on an API's traffic state (see core/traffic/controller.ts). */
export type TrafficStep<T> = (data: TrafficData | undefined) => Step<T>;

export interface StateStore {
	readonly kind: 'memory' | 'redis';
	/**
	 * Applies one pure step of the traffic controller to the state of `key` atomically: no other
	 * step on that key, of this process or another worker, runs in between. `params` tell the store
	 * when the resulting state may be dropped (trafficForgetAt).
	 */
	traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T>;
}
