/**
 * A sliding time window cut into a fixed number of buckets, each holding two counters. The retry
 * budget (first attempts, retries) and the circuit breaker (calls, failures) both count on it.
 *
 * Bucketed rather than a list of timestamps so that the state stays small (at most
 * WINDOW_BUCKETS tuples, whatever the traffic), is plain JSON, and the same steps can run in a
 * Redis Lua script:
 *
 *   B = 10 buckets; window W ms; bucket number of time t: n(t) = floor(t * B / W)
 *   (bucket n covers [n * W / B, (n + 1) * W / B), so the window is W long, not rounded)
 *   buckets = [[n, a, b], ...], oldest first, one per bucket number that saw traffic
 *   current = max(n(now), newest n in buckets)   -- a clock that steps back counts into the newest
 *   drop every bucket with n <= current - B      -- what is left is the window ending now
 *
 * The window moves one bucket at a time: a count leaves it between (B - 1) / B and 1 window
 * after it was made. That is the usual price of a bucketed window (Finagle, Hystrix, opossum).
 */

export const WINDOW_BUCKETS = 10;

/** One bucket: [bucket number, first counter, second counter]. A tuple keeps the JSON small. */
export type Bucket = [number: number, a: number, b: number];

/** Longest window accepted; anything longer (or Infinity) is clamped to it. 2^31 ms is about 24.8 days. */
const MAX_WINDOW_MS = 2 ** 31;

/** A window the bucket arithmetic can work with: at least 1 ms, finite. */
export function clampWindowMs(windowMs: number): number {
	if (Number.isNaN(windowMs) || windowMs < 1) return 1;
	return Math.min(windowMs, MAX_WINDOW_MS);
}

function bucketNumber(nowMs: number, windowMs: number): number {
	return Math.floor((nowMs * WINDOW_BUCKETS) / windowMs);
}

/** The bucket `nowMs` counts into: never older than the newest bucket already there. */
export function currentBucket(buckets: readonly Bucket[], nowMs: number, windowMs: number): number {
	const n = bucketNumber(nowMs, windowMs);
	const newest = buckets.length > 0 ? buckets[buckets.length - 1][0] : -Infinity;
	return Math.max(n, newest);
}

/** The buckets still in the window that ends in bucket `current` (a new array). */
export function liveBuckets(buckets: readonly Bucket[], current: number): Bucket[] {
	return buckets.filter(([n]) => n > current - WINDOW_BUCKETS).map(([n, a, b]): Bucket => [n, a, b]);
}

/** Adds to the counters of bucket `current`, which is the newest or newer (mutates `live`). */
export function addToBucket(live: Bucket[], current: number, a: number, b: number): void {
	const newest = live[live.length - 1];
	if (newest && newest[0] === current) {
		newest[1] += a;
		newest[2] += b;
	} else {
		live.push([current, a, b]);
	}
}

export function windowTotals(live: readonly Bucket[]): { a: number; b: number } {
	let a = 0;
	let b = 0;
	for (const bucket of live) {
		a += bucket[1];
		b += bucket[2];
	}
	return { a, b };
}

/**
 * From this time on every bucket has left the window: the counts are all forgotten.
 * -Infinity when there are no buckets. Rounded up to a whole millisecond, so that a store which
 * drops the state at this time never drops a count the window still holds.
 */
export function windowEmptyAt(buckets: readonly Bucket[], windowMs: number): number {
	if (buckets.length === 0) return -Infinity;
	const newest = buckets[buckets.length - 1][0];
	return Math.ceil(((newest + WINDOW_BUCKETS) * windowMs) / WINDOW_BUCKETS);
}
