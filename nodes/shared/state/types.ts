/**
 * Shared state for the retry budget and the circuit breakers. Two stores implement it: in memory
 * (default, per n8n process) and Redis (queue mode, shared by all workers). Every method is one
 * atomic step, so concurrent executions and workers never lose an update.
 */

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

export interface StateStore {
	readonly kind: 'memory' | 'redis';
	/** Counts a first attempt. Never refused. */
	recordFirstAttempt(key: string, nowMs: number, params: BudgetParams): Promise<BudgetSnapshot>;
	/** Takes one retry from the budget if it allows one (atomically checks and counts). */
	tryAcquireRetry(key: string, nowMs: number, params: BudgetParams): Promise<BudgetVerdict>;
	/** Asks the breaker before a call; a half-open breaker lets exactly one probe through. */
	breakerAllows(key: string, nowMs: number, params: BreakerParams): Promise<BreakerVerdict>;
	/** Records a call's outcome; returns the state change it caused, if any. */
	breakerRecord(key: string, nowMs: number, success: boolean, params: BreakerParams): Promise<BreakerChange | undefined>;
}
