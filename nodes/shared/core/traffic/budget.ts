/**
 * The retry budget: retries may add at most a fixed share to the traffic a key (a host) sees,
 * plus a small floor. Pure: time is a parameter, the state is a plain JSON object that a store
 * keeps per key (in memory, or in Redis as the same JSON).
 *
 * Algorithm (port it step by step to the Redis Lua script; see window.ts for the buckets):
 *
 *   W = params.windowMs (clamped to >= 1 ms); B = 10 buckets; n(t) = floor(t * B / W)
 *   state = { windowMs, buckets: [[n, firstAttempts, retries], ...] } oldest first
 *   1. if state.windowMs != W: start from { windowMs: W, buckets: [] }
 *   2. current = max(n(now), newest n); drop buckets with n <= current - B
 *   3. F = sum of firstAttempts, R = sum of retries over the buckets left
 *   4. limit = floor(ratio * F + 1e-9) + minRetriesPerWindow
 *        (the 1e-9 keeps floor(0.29 * 100) at 29: in doubles 0.29 * 100 is 28.999999999999996)
 *   recordFirst: count 1 into bucket `current` (append [current, 0, 0] when the newest is older).
 *                Never refused.
 *   tryAcquire:  allowed iff R + 1 <= limit; if allowed, count 1 retry into bucket `current`.
 *   snapshot:    { firstAttempts: F, retries: R (after this step), available: max(0, limit - R), windowMs: W }
 *
 * A retry that is granted stays granted: when first attempts later slide out of the window, no
 * retry is taken back; the next request simply meets the smaller limit.
 */
import { addToBucket, clampWindowMs, currentBucket, liveBuckets, windowEmptyAt, windowTotals, WINDOW_BUCKETS, type Bucket } from './sliding-window';

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

interface BudgetVerdict {
	allowed: boolean;
	snapshot: BudgetSnapshot;
}

/** What a store keeps per budget key. Plain JSON. */
export interface BudgetData {
	/** The window the buckets were counted for; a different window starts afresh. */
	windowMs: number;
	/** At most 10 buckets, oldest first: [bucket number, first attempts, retries]. */
	buckets: Bucket[];
}

/**
 * Defaults: 10% like the Google SRE book's per-client retry budget, plus 40 retries per minute.
 *
 * The sizing case is a sustained outage: every request fails, and each item would retry up to
 * 4 times (Max Attempts 5), so without a budget the upstream sees 5 times the traffic. With the
 * budget, n items whose attempts fall in one window send n first attempts and at most
 * floor(0.1 * n) + 40 retries, whatever the order:
 *
 *   items     requests   x traffic
 *       1          5       5.0     (small runs keep every retry: the floor covers them)
 *      10         50       5.0
 *      40         84       2.1
 *     100        150       1.5     one execution of 100 items: at most 50 retries
 *     400        480       1.2
 *    1000       1140       1.14
 *   10000      11040       1.10    tends to 1 + ratio
 *
 * - ratio 0.1: Google SRE ("Handling Overload": a request is retried only while retries are below
 *   10% of a client's requests). Finagle allows 20%, but for RPCs between services it owns; a
 *   third-party API that is already failing deserves the stricter share.
 * - 40 per window: the largest floor that keeps one execution of 100 items at 1.5 times the
 *   traffic (100 + 10 + 40). A workflow with 10 failing items still retries all of them; a
 *   single failed call is never refused. Finagle's floor is 10 retries per second, for a
 *   service's RPC traffic; ours is per key (host) and per window.
 * - window 60 s: long enough to span one execution's retries (full jitter, base 1 s: the
 *   4 retries of an item wait 7.5 s on average, at most 15 s), short enough to recover a minute
 *   after the outage (a quiet window restores the full budget). Finagle keeps deposits 10 s, for
 *   requests far more frequent than a workflow's.
 */
export const BUDGET_DEFAULTS: Readonly<BudgetParams> = Object.freeze({
	ratio: 0.1,
	minRetriesPerWindow: 40,
	windowMs: 60_000,
});

interface BudgetStep<T> {
	data: BudgetData;
	result: T;
}

/** Steps 1-3: the window ending now, without changing `data`. */
function windowAt(data: BudgetData | undefined, nowMs: number, params: BudgetParams): { live: Bucket[]; current: number; windowMs: number } {
	const windowMs = clampWindowMs(params.windowMs);
	const buckets = data && data.windowMs === windowMs ? data.buckets : [];
	const current = currentBucket(buckets, nowMs, windowMs);
	return { live: liveBuckets(buckets, current), current, windowMs };
}

/** Step 4: retries the window allows in all (granted ones included). */
export function budgetLimit(firstAttempts: number, params: BudgetParams): number {
	const ratio = Number.isFinite(params.ratio) && params.ratio > 0 ? params.ratio : 0;
	const min = Number.isFinite(params.minRetriesPerWindow) && params.minRetriesPerWindow > 0 ? params.minRetriesPerWindow : 0;
	return Math.floor(ratio * firstAttempts + 1e-9) + min;
}

function snapshotOf(live: readonly Bucket[], windowMs: number, params: BudgetParams): BudgetSnapshot {
	const { a: firstAttempts, b: retries } = windowTotals(live);
	return { firstAttempts, retries, available: Math.max(0, Math.floor(budgetLimit(firstAttempts, params) - retries)), windowMs };
}

/** Counts a first attempt. Never refused: the budget only limits retries. */
export function recordFirst(data: BudgetData | undefined, nowMs: number, params: BudgetParams): BudgetStep<BudgetSnapshot> {
	const { live, current, windowMs } = windowAt(data, nowMs, params);
	addToBucket(live, current, 1, 0);
	return { data: { windowMs, buckets: live }, result: snapshotOf(live, windowMs, params) };
}

/** Takes one retry if the budget allows it: R + 1 <= floor(ratio * F) + min. */
export function tryAcquire(data: BudgetData | undefined, nowMs: number, params: BudgetParams): BudgetStep<BudgetVerdict> {
	const { live, current, windowMs } = windowAt(data, nowMs, params);
	const { a: firstAttempts, b: retries } = windowTotals(live);
	const allowed = retries + 1 <= budgetLimit(firstAttempts, params);
	if (allowed) addToBucket(live, current, 0, 1);
	return { data: { windowMs, buckets: live }, result: { allowed, snapshot: snapshotOf(live, windowMs, params) } };
}

/** The budget as it stands at `nowMs`, changing nothing. */
export function budgetSnapshot(data: BudgetData | undefined, nowMs: number, params: BudgetParams): BudgetSnapshot {
	const { live, windowMs } = windowAt(data, nowMs, params);
	return snapshotOf(live, windowMs, params);
}

/**
 * From this time on the state holds nothing: every count has left the window, and the budget is
 * as fresh as for a key never seen. A store may drop the state then without changing any answer.
 */
export function budgetForgetAt(data: BudgetData): number {
	return windowEmptyAt(data.buckets, data.windowMs);
}

/**
 * The earliest time a granted retry leaves the window (the budget then allows one more, unless
 * first attempts left with it); undefined when no retry is counted. A retry waiting for the budget
 * looks again then, or sooner when new first attempts raise the limit.
 */
export function budgetRetryReleaseAt(data: BudgetData | undefined, nowMs: number, params: BudgetParams): number | undefined {
	const { live, windowMs } = windowAt(data, nowMs, params);
	const oldest = live.find((bucket) => bucket[2] > 0);
	return oldest === undefined ? undefined : Math.ceil(((oldest[0] + WINDOW_BUCKETS) * windowMs) / WINDOW_BUCKETS);
}
