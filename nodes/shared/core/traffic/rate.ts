/**
 * The pace of requests to one API: a user's fixed limit (requests per second or minute), a limit
 * learned from the API's throttling, and the quota an API advertises in its rate-limit headers.
 * Pure and plain JSON (kept per API by a store, shared across executions and workers).
 *
 * Fixed limit: requests are spaced 1/rate apart (a token bucket that holds one token). A larger
 * bucket would allow bursts that a sliding-window limiter counts against the next second.
 *
 * Learned limit (AWS SDK adaptive retry's client-side rate limiter, simplified): on a throttle
 * (429, or 503 with a requested wait), W = the successes delivered in the second before it (what
 * the API accepted; the later 429s of one burst may raise it, their second saw more answers), and
 * the rate follows CUBIC from there, as the AWS SDKs' does: 90 % of W at once, back to W after
 * 10 s without a throttle, flat around W (where the limit was found), then growing ever faster
 * (1.1 W at 20 s, 1.8 W at 30 s, 3.7 W at 40 s), so the client keeps probing for the API's real
 * limit. It is dropped once for 20 s neither a throttle came nor the pace held a request back. No
 * successes in that second (a 429 on the first request): nothing is learned, the pause the API
 * asked for does the job.
 *
 * Quota (RateLimit / X-RateLimit-Remaining and reset headers on any answer): `remaining` requests
 * until `resetAt`, minus the ones already sent that the server had not counted yet; within one
 * window the lowest count wins (answers overtake each other on the way back). Requests go
 * freely while some of it is left, and none once it is spent: the controller pauses the API until
 * the reset (as Octokit's throttling and Bottleneck's reservoir do). Once the reset has passed, the
 * count is unknown until an answer says it again: one request goes and its answer tells (a fresh
 * quota, or none, which ends the counting); sending freely at the reset would send a whole window
 * at a quota that may hold less. Spreading the quota evenly
 * until the reset would be politer to a one-second limit, but would slow an hourly quota of 5,000
 * to one request every 0.7 s.
 */

/** Counted successes: 10 buckets of 100 ms, the last second. */
const HISTORY_BUCKET_MS = 100;
const HISTORY_BUCKETS = 10;

const RATE_LEARNING = Object.freeze({
	/** Of the successes the API accepted in the second before a throttle. */
	backoff: 0.9,
	/**
	 * CUBIC's time to come back to W (s). Slow near W on purpose: each throttle costs the pause the
	 * API asks for (often 1 s for everyone); growing 5 % a second paused the bench's queue-mode
	 * rate run every 3 s.
	 */
	plateauSeconds: 10,
	/** Throttles less than this apart are one burst: one W, the best-measured. */
	burstMs: 1000,
	/** A learned limit is dropped after this long without a throttle and without holding a request back. */
	forgetAfterMs: 20_000,
	/**
	 * Fewer successes than this in the second before a throttle teach nothing: a 429 at a low rate
	 * is a quota or a per-resource limit (its pause handles it), and a pace learned from two
	 * requests would slow the API to two a second for the next 20 s.
	 */
	minimumSample: 10,
});

export interface RateData {
	/** When the next request may go (epoch ms), by the tightest of the limits. */
	nextAt: number;
	/**
	 * When the last request went (epoch ms). A request that reserved a slot goes at it, but never
	 * sooner than the spacing after the one before: waiters woken late together (an event loop
	 * blocked by other executions) would otherwise go in a burst.
	 */
	lastSentAt?: number;
	/**
	 * The limit learned: W (requests a second the API accepted before it throttled), when it was
	 * learned (CUBIC's epoch), the last throttle, and the last time the pace held a request back.
	 */
	learned?: { accepted: number; at: number; throttledAt: number; boundAt?: number };
	/** Successes per 100 ms bucket: [bucket number, count], oldest first. */
	successes: Array<[number, number]>;
	quota?: Quota;
}

export interface Quota {
	/** Requests the server still accepts until resetAt, less those in flight when it said so (<= 0: spent). */
	remaining: number;
	resetAt: number;
	/** Requests sent since that answer. */
	sentSince: number;
	/** After the reset: the request whose answer tells the new count (its lease id), and its lease's end. */
	asking?: string;
	askingUntil?: number;
	/** An answer said it was spent (the pause was announced; its end will be). */
	spent?: true;
}

/** What keeps a quota: the API's pace, or a bucket the API names (buckets.ts). */
export interface QuotaHolder {
	quota?: Quota;
}

/** How an answer changed a quota: it is spent now, or it was spent and is back. */
export type QuotaChange = 'spent' | 'refilled' | undefined;

export function freshRate(): RateData {
	return { nextAt: 0, successes: [] };
}

/**
 * A copy a step may change: every object in it is new (the steps here change the success counts,
 * the learned limit and the quota in place). Written out for the shape: every request copies it
 * twice, and a generic deep copy cost several times as much.
 */
export function copyRate(data: RateData): RateData {
	const { learned, quota } = data;
	return { ...data, successes: data.successes.map(([bucket, count]): [number, number] => [bucket, count]), ...(learned ? { learned: { ...learned } } : {}), ...(quota ? { quota: { ...quota } } : {}) };
}

/** The learned rate as it stands at `nowMs` (grown since it was set), or undefined. */
export function learnedRps(data: RateData, nowMs: number): number | undefined {
	const learned = data.learned;
	if (!learned) return undefined;
	if (nowMs - Math.max(learned.throttledAt, learned.boundAt ?? -Infinity) >= RATE_LEARNING.forgetAfterMs) return undefined;
	const seconds = Math.max(0, nowMs - learned.at) / 1000;
	const k = RATE_LEARNING.plateauSeconds;
	return Math.max(0.1, learned.accepted * (1 - (1 - RATE_LEARNING.backoff) * (1 - seconds / k) ** 3));
}

/** The pace held a request back (mutates): a learned limit still in use is not forgotten. */
export function paceHeld(data: RateData, nowMs: number): void {
	if (data.learned) data.learned.boundAt = nowMs;
}

/** The spacing between two requests by every limit in force, in ms (0: none). */
function spacingMs(data: RateData, nowMs: number, fixedRps: number | undefined): number {
	let rps = Infinity;
	if (fixedRps !== undefined && fixedRps > 0) rps = Math.min(rps, fixedRps);
	const learned = learnedRps(data, nowMs);
	if (learned !== undefined) rps = Math.min(rps, learned);
	return Number.isFinite(rps) ? 1000 / rps : 0;
}

/**
 * The quota, when it holds requests back: spent, they wait until its reset ('time'); past the reset
 * while the request that asks for the new count is in flight, until its answer ('change', or the
 * lease's end if it never answers).
 */
export function quotaSpentUntil(data: QuotaHolder, nowMs: number): { until: number; wake: 'time' | 'change' } | undefined {
	const quota = data.quota;
	if (!quota) return undefined;
	if (quota.resetAt > nowMs) return quota.remaining - quota.sentSince <= 0 ? { until: quota.resetAt, wake: 'time' } : undefined;
	return quota.asking !== undefined && quota.askingUntil !== undefined && quota.askingUntil > nowMs ? { until: quota.askingUntil, wake: 'change' } : undefined;
}

/** An answer without a quota (mutates): past the reset, the API no longer advertises one. */
export function quotaUnanswered(data: QuotaHolder, id: string, nowMs: number): QuotaChange {
	if (!data.quota || data.quota.resetAt > nowMs || data.quota.asking !== id) return undefined;
	const wasSpent = data.quota.spent === true;
	delete data.quota;
	return wasSpent ? 'refilled' : undefined;
}

/** When a request may go by the pace (<= nowMs: now). */
export function paceAllowsAt(data: RateData): number {
	return data.nextAt;
}

/**
 * When a request whose reserved slot has come may be sent: at its slot, but never sooner than the
 * spacing after the request sent before it (waiters woken late together, by an event loop busy
 * with other executions or by timers in several workers, would otherwise go in a burst).
 */
export function reservedSlotSendAt(data: RateData, slotAt: number, nowMs: number, fixedRps: number | undefined): number {
	if (data.lastSentAt === undefined) return slotAt;
	return Math.max(slotAt, data.lastSentAt + spacingMs(data, nowMs, fixedRps));
}

/**
 * The pace holds a request back (mutates): it reserves the next free slot, whose time it is told,
 * and the slot after it is the next request's (GCRA: the time of the next free slot is the whole
 * state). The request waits until its slot and goes then without asking the pace again, so that
 * N requests waiting for a pace cost one look each, not one per slot that goes by.
 */
export function reserveSlot(data: RateData, nowMs: number, fixedRps: number | undefined): number {
	const slot = Math.max(data.nextAt, nowMs);
	data.nextAt = slot + spacingMs(data, nowMs, fixedRps);
	return slot;
}

/**
 * A request goes (mutates): the next one waits the spacing (its count against the quota is
 * countSent's). `reserved`: its slot was reserved while it waited (reserveSlot), so it takes none
 * now. `sendAt`: when it is sent, if later than now (a reserved slot just ahead, or the spacing
 * after the request before it).
 */
export function takeSlot(data: RateData, nowMs: number, fixedRps: number | undefined, reserved = false, sendAt = nowMs): void {
	const spacing = spacingMs(data, nowMs, fixedRps);
	// no pace in force: the next request may go at once, whatever its clock says. Moving nextAt to
	// this request's time would hold back a request whose time was read a moment earlier (another
	// worker's, or one queued behind a store's round trip) for a pace nobody set, at the cost of a
	// reservation and another round trip. A pace that fell behind (idle API) starts from now.
	if (spacing > 0) {
		data.lastSentAt = sendAt;
		// a reserved slot is already counted in nextAt; one taken late still pushes the next free
		// slot to a spacing after it
		data.nextAt = reserved ? Math.max(data.nextAt, sendAt + spacing) : Math.max(data.nextAt, sendAt) + spacing;
	}
}

/** A request goes (mutates): it counts against the quota. `leaseEnd`: when its lease ends. */
export function countSent(data: QuotaHolder, nowMs: number, id: string, leaseEnd: number): void {
	if (!data.quota) return;
	data.quota.sentSince++;
	// past the reset, this request asks for the new count (the one before it never answered)
	if (data.quota.resetAt <= nowMs) {
		data.quota.asking = id;
		data.quota.askingUntil = leaseEnd;
	}
}

function bucketOf(nowMs: number): number {
	return Math.floor(nowMs / HISTORY_BUCKET_MS);
}

/** Counts a success for the learned rate (mutates). */
export function countSuccess(data: RateData, nowMs: number): void {
	// a clock that steps back (another worker's, or a step queued behind a later one) counts into the
	// newest bucket, as the sliding window does: one bucket per number
	const newest = data.successes[data.successes.length - 1];
	const n = Math.max(bucketOf(nowMs), newest?.[0] ?? -Infinity);
	data.successes = data.successes.filter(([b]) => b > n - HISTORY_BUCKETS);
	if (newest && newest[0] === n) newest[1]++;
	else data.successes.push([n, 1]);
}

function successesLastSecond(data: RateData, nowMs: number): number {
	const n = bucketOf(nowMs);
	return data.successes.filter(([b]) => b > n - HISTORY_BUCKETS).reduce((sum, [, count]) => sum + count, 0);
}

/** The API throttled a request (mutates); returns the learned rate when it changed. */
export function onThrottle(data: RateData, nowMs: number): number | undefined {
	const accepted = successesLastSecond(data, nowMs);
	if (accepted < RATE_LEARNING.minimumSample) {
		if (data.learned) data.learned.throttledAt = nowMs;
		return undefined;
	}
	const learned = data.learned;
	if (learned && learnedRps(data, nowMs) !== undefined && nowMs - learned.at < RATE_LEARNING.burstMs) {
		// a later 429 of the same burst: its second saw answers the first one had not yet
		learned.throttledAt = nowMs;
		if (accepted <= learned.accepted) return undefined;
		learned.accepted = accepted;
		return learnedRps(data, nowMs);
	}
	data.learned = { accepted, at: nowMs, throttledAt: nowMs };
	return learnedRps(data, nowMs);
}

/**
 * An answer carried the API's quota (mutates): requests still in flight were sent before the
 * server counted them, so they are taken off what it says remains.
 */
export function onQuota(data: QuotaHolder, remaining: number, resetAt: number, inFlight: number, nowMs: number): QuotaChange {
	const left = remaining - Math.max(0, inFlight);
	const known = data.quota;
	// answers come back in another order than the server counted them: within one window (a reset
	// no later than the known one's, give or take a second of rounding), the lowest count is the
	// latest, and an answer counted earlier must not give back requests that were already spent
	if (known && known.resetAt > nowMs && resetAt <= known.resetAt + QUOTA_SAME_WINDOW_MS) {
		const knownLeft = known.remaining - known.sentSince;
		if (knownLeft < left) {
			// the later reset is the newer word on when the count is back (a token bucket's "full again")
			known.resetAt = Math.max(known.resetAt, resetAt);
			return undefined;
		}
	}
	const wasSpent = known?.spent === true;
	data.quota = { remaining: left, resetAt, sentSince: 0, ...(left <= 0 ? { spent: true as const } : {}) };
	if (left <= 0) return wasSpent ? undefined : 'spent';
	return wasSpent ? 'refilled' : undefined;
}

/** Resets this close to each other belong to one window of the API's count (rounding, a bucket's drift). */
const QUOTA_SAME_WINDOW_MS = 1000;

/** From this time on nothing of the pace matters any more. */
export function rateForgetAt(data: RateData): number {
	const learned = data.learned ? Math.max(data.learned.throttledAt, data.learned.boundAt ?? -Infinity) + RATE_LEARNING.forgetAfterMs : -Infinity;
	const quota = data.quota ? data.quota.resetAt : -Infinity;
	const history = data.successes.length > 0 ? (data.successes[data.successes.length - 1][0] + HISTORY_BUCKETS) * HISTORY_BUCKET_MS : -Infinity;
	return Math.max(learned, quota, history, data.nextAt);
}
