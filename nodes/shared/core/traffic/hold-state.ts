/**
 * The circuit breaker of one key (a host): stop calling an upstream that keeps failing, and let
 * a single probe find out when it is back. Pure: time is a parameter, the state is a plain JSON
 * object that a store keeps per key.
 *
 * State machine (port it step by step to the Redis Lua script; see window.ts for the buckets):
 *
 *   closed     allow: every call.
 *              record: count the call (and the failure) in the window; a success sets the
 *              failure streak to 0, a failure adds 1 (a window without any call ends a streak).
 *              A failure opens it when streak >= consecutiveFailures (if > 0), or when
 *              failures / calls in the window >= failureRatio (if > 0) with calls >= minimumCalls.
 *   open       allow: refused while now < openUntil; from openUntil on, the call is let through
 *              as the probe and the breaker turns half-open (probeSince = now).
 *              record: ignored (the outcome of a call that started before the breaker opened).
 *   half-open  allow: refused while the probe is in flight; a probe that has not reported for
 *              probeTimeoutMs (default breakMs; its process may have died) is given up, and the
 *              call becomes the new probe.
 *              record: the probe's outcome decides. Success: closed, openings = 0, window and
 *              streak empty. Failure: open again for a longer break.
 *
 *   Any success ends it, open or half-open, whichever call it came from: an answer shows the
 *   upstream is up (a call that started before the opening reports late: its news is as fresh).
 *   A failure of a call other than the probe changes nothing while open or half-open.
 *
 *   Only the first failure of a caller counts in the failure ratio (a report with `counted: false`
 *   is a caller that failed already, an item's retry): the same few items failing again and again
 *   while others succeed are items that fail, not an upstream that is down. Every failure adds to
 *   the streak (any success ends it), but a streak opens it only once it holds the first failures
 *   of two callers (STREAK_FIRSTS): one item failing again and again is that item, two items that
 *   failed with no success since are an upstream that is down. So an outage is held after as many
 *   failures in a row as a breaker that counts every call needs (when 503s shrink the window to one
 *   request in flight, retries take it and answer as often as new items), once a second item's
 *   first request has failed too. Their successes count.
 *
 *   opening (from closed or half-open): openings += 1; openUntil = now + the break, where the
 *   break is breakMs at the first opening, then the last one doubled (up to maxBreakMs), except
 *   that for the first quickPhaseMs of the hold (since heldSince, its first opening) it grows no
 *   further than 2 x breakMs: an API back within a minute is noticed within about 2 s, later ones
 *   cost a probe every 4, 8, 16, then maxBreakMs (docs/decisions.md, issue 39).
 *
 * The probe is known by its id (`allowCall`'s); a state written before ids were kept has none, and
 * then every outcome in half-open counts as the probe's, as it did.
 *
 * Forgetting: a state nobody touched for long enough is as good as none, and is reset to a fresh
 * closed breaker (the store drops it at the same moment, see holdForgetAt):
 *   closed     once the window holds no call (so also no streak)
 *   open       at openUntil + memoryMs
 *   half-open  at probeSince + probeTimeoutMs + memoryMs
 *   memoryMs = max(windowMs, breakMs, maxBreakMs)
 * Long enough that a workflow calling a dead host every few minutes keeps meeting an open
 * breaker whose break keeps doubling, instead of a fresh one that needs 5 more failures.
 */
import { addToBucket, clampWindowMs, currentBucket, liveBuckets, windowEmptyAt, windowTotals, type Bucket } from './sliding-window';

export interface HoldParams {
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
	/** For this long after a hold began, probes go at least every 2 x breakMs (0: none; absent: the default's). */
	quickPhaseMs?: number;
}

type HoldState = 'closed' | 'open' | 'half-open';

interface HoldSnapshot {
	state: HoldState;
	/** When an open breaker lets a probe through (epoch ms). */
	openUntil?: number;
	consecutiveFailures: number;
	/** How many times it opened in a row without a success (drives the growing break). */
	openings: number;
}

export type HoldVerdict =
	| { allowed: true; probe: boolean; snapshot: HoldSnapshot }
	| { allowed: false; snapshot: HoldSnapshot };

export interface HoldChange {
	from: HoldState;
	to: HoldState;
	snapshot: HoldSnapshot;
}

/** What a store keeps per breaker key. Plain JSON. */
export interface HoldData {
	state: HoldState;
	/** Failures in a row, while closed. */
	consecutiveFailures: number;
	/** Of the streak, the failures of callers that had not failed before (absent: 0): it opens only with STREAK_FIRSTS of them. */
	streakFirsts?: number;
	/** Openings in a row without a successful probe. 0 while closed. */
	openings: number;
	/** Open: when the break ends (epoch ms). */
	openUntil?: number;
	/** Half-open: when the probe in flight was let through (epoch ms). */
	probeSince?: number;
	/** Half-open: the probe's id, when its caller gave one. */
	probeId?: string;
	/** Open or half-open: when it opened this time (epoch ms). */
	openedAt?: number;
	/** Open or half-open: when the hold began, its first opening since it was last closed (epoch ms). */
	heldSince?: number;
	/** Open or half-open: the length of the last break (ms), which the next one doubles. */
	lastBreakMs?: number;
	/** The last time a caller that had not failed yet was refused (epoch ms): it will be the probe. */
	freshWaitingAt?: number;
	/** The window the buckets were counted for; a different window empties them. */
	windowMs: number;
	/** Closed only: at most 10 buckets, oldest first: [bucket number, calls, failures]. */
	buckets: Bucket[];
}

/**
 * Defaults of the traffic controller's outage hold (the breaker's rule decides when an API is
 * down; while it is, requests wait and single probes go out), sized for workflows that call a
 * third-party API in bursts of a few to a few hundred items:
 *
 * - 5 failures in a row: as many as one item's attempts (Max Attempts 5). An API that is down is
 *   held after about one item's worth of failures; the other items wait instead of spending their
 *   attempts and backoff on it.
 * - 50% of at least 10 calls in 60 s: catches an API failing every other call, which never makes
 *   5 failures in a row. resilience4j also opens at 50%, but after 100 calls; Polly v8 at 10% of
 *   100 calls in 30 s: thresholds for services. A workflow rarely makes 100 calls a minute to one
 *   API; 10 calls is one small batch.
 * - first probe after 1 s (the Base Delay: a blip of a few seconds is ridden out by the probes, not
 *   by every item's backoff), then every 2 s for the first minute of the hold (an API back within a
 *   minute, most outages of third-party APIs, is noticed within about 2 s, for one request every
 *   2 s for the whole fleet), then doubling to 30 s (the Max Delay: an outage of minutes costs one
 *   probe per 30 s per API, and an API that is back is noticed within 30 s; items wait within
 *   their deadline, 5 min by default). Refusing breakers wait longer (opossum 30 s, resilience4j
 *   60 s) because each break fails requests; a hold fails none, so it can look often.
 */
export const HOLD_DEFAULTS: Readonly<HoldParams> = Object.freeze({
	consecutiveFailures: 5,
	failureRatio: 0.5,
	minimumCalls: 10,
	windowMs: 60_000,
	breakMs: 1_000,
	maxBreakMs: 30_000,
	quickPhaseMs: 60_000,
});

interface HoldStep<T> {
	data: HoldData;
	result: T;
}

function nonNegative(n: number): number {
	return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * How long the hold stays open this time: breakMs at its first opening; then the last break
 * doubled, up to maxBreakMs, and during the quick phase (the first quickPhaseMs since the hold
 * began) up to 2 x breakMs. An outage of seconds is what third-party APIs mostly have (a deploy, a
 * failover): its end is noticed within about 2 s; the long ones back off as before.
 */
export function breakDuration(lastBreakMs: number | undefined, heldForMs: number, params: HoldParams): number {
	const base = nonNegative(params.breakMs);
	const cap = nonNegative(params.maxBreakMs);
	if (lastBreakMs === undefined) return Math.min(cap, base);
	const doubled = Math.min(cap, nonNegative(lastBreakMs) * 2);
	const quickPhaseMs = nonNegative(params.quickPhaseMs ?? HOLD_DEFAULTS.quickPhaseMs ?? 0);
	return heldForMs < quickPhaseMs ? Math.min(doubled, base * 2) : doubled;
}

function probeTimeout(params: HoldParams): number {
	return params.probeTimeoutMs !== undefined ? nonNegative(params.probeTimeoutMs) : nonNegative(params.breakMs);
}

function memoryMs(params: HoldParams): number {
	return Math.max(clampWindowMs(params.windowMs), nonNegative(params.breakMs), nonNegative(params.maxBreakMs));
}

/**
 * From this time on the state is forgotten: a fresh closed breaker gives the same answers.
 * A store may drop the state then.
 */
export function holdForgetAt(data: HoldData, params: HoldParams): number {
	switch (data.state) {
		case 'closed':
			return windowEmptyAt(data.buckets, data.windowMs);
		case 'open':
			return (data.openUntil ?? -Infinity) + memoryMs(params);
		case 'half-open':
			return (data.probeSince ?? -Infinity) + probeTimeout(params) + memoryMs(params);
	}
}

function fresh(windowMs: number): HoldData {
	return { state: 'closed', consecutiveFailures: 0, openings: 0, windowMs, buckets: [] };
}

/** A copy of the state as it stands at `nowMs`: forgotten when idle long enough, window moved on. */
function settle(data: HoldData | undefined, nowMs: number, params: HoldParams): HoldData {
	const windowMs = clampWindowMs(params.windowMs);
	if (!data || nowMs >= holdForgetAt(data, params)) return fresh(windowMs);
	const copy: HoldData = { ...data, buckets: data.windowMs === windowMs ? data.buckets : [], windowMs };
	if (copy.state === 'closed') copy.buckets = liveBuckets(copy.buckets, currentBucket(copy.buckets, nowMs, windowMs));
	return copy;
}

function snapshotOf(data: HoldData, params: HoldParams): HoldSnapshot {
	const snapshot: HoldSnapshot = { state: data.state, consecutiveFailures: data.consecutiveFailures, openings: data.openings };
	if (data.state === 'open' && data.openUntil !== undefined) snapshot.openUntil = data.openUntil;
	// Half-open: the earliest another probe may go, should the one in flight never report
	if (data.state === 'half-open' && data.probeSince !== undefined) snapshot.openUntil = data.probeSince + probeTimeout(params);
	return snapshot;
}

/** Asks before a call (`id` names it, to know the probe's report): closed lets it through, open refuses it, half-open lets one probe through. */
export function allowCall(data: HoldData | undefined, nowMs: number, params: HoldParams, id?: string): HoldStep<HoldVerdict> {
	const next = settle(data, nowMs, params);
	const probe = (): HoldStep<HoldVerdict> => {
		next.state = 'half-open';
		next.probeSince = nowMs;
		if (id !== undefined) next.probeId = id;
		else delete next.probeId;
		delete next.openUntil;
		return { data: next, result: { allowed: true, probe: true, snapshot: snapshotOf(next, params) } };
	};
	switch (next.state) {
		case 'closed':
			return { data: next, result: { allowed: true, probe: false, snapshot: snapshotOf(next, params) } };
		case 'open':
			if (next.openUntil !== undefined && nowMs < next.openUntil) return { data: next, result: { allowed: false, snapshot: snapshotOf(next, params) } };
			return probe();
		case 'half-open':
			if (next.probeSince !== undefined && nowMs < next.probeSince + probeTimeout(params)) {
				return { data: next, result: { allowed: false, snapshot: snapshotOf(next, params) } };
			}
			return probe();
	}
}

function open(next: HoldData, nowMs: number, params: HoldParams): void {
	const first = next.openings === 0 || next.heldSince === undefined;
	next.state = 'open';
	next.openings += 1;
	if (first) next.heldSince = nowMs;
	const breakMs = breakDuration(first ? undefined : next.lastBreakMs, nowMs - (next.heldSince ?? nowMs), params);
	next.lastBreakMs = breakMs;
	next.openUntil = nowMs + breakMs;
	next.openedAt = nowMs;
	delete next.probeSince;
	delete next.probeId;
	next.buckets = [];
}

function close(next: HoldData): void {
	next.state = 'closed';
	next.openings = 0;
	next.consecutiveFailures = 0;
	delete next.streakFirsts;
	delete next.probeSince;
	delete next.probeId;
	delete next.openUntil;
	delete next.openedAt;
	delete next.heldSince;
	delete next.lastBreakMs;
	delete next.freshWaitingAt;
	next.buckets = [];
}

/** First failures of callers a streak must hold to open the breaker (fewer when the streak asked for is shorter). */
const STREAK_FIRSTS = 2;

/** Who reported: `id` as given to allowCall; `counted: false` for a caller that failed already (its failure adds to the streak, not to the ratio). */
interface HoldReport {
	id?: string;
	counted?: boolean;
}

function resetStreak(next: HoldData): void {
	next.consecutiveFailures = 0;
	delete next.streakFirsts;
}

function shouldTrip(next: HoldData, params: HoldParams): boolean {
	const streak = params.consecutiveFailures;
	if (streak > 0 && next.consecutiveFailures >= streak && (next.streakFirsts ?? 0) >= Math.min(STREAK_FIRSTS, streak)) return true;
	if (!(params.failureRatio > 0)) return false;
	const { a: calls, b: failures } = windowTotals(next.buckets);
	return calls > 0 && calls >= params.minimumCalls && failures / calls >= params.failureRatio;
}

/** Records the outcome of a call the breaker let through; returns the state change it caused. */
export function recordOutcome(data: HoldData | undefined, nowMs: number, success: boolean, params: HoldParams, report: HoldReport = {}): HoldStep<HoldChange | undefined> {
	const next = settle(data, nowMs, params);
	const from = next.state;
	if (from === 'closed') {
		// A whole window without a call ends a streak: failures that far apart are not an outage
		if (next.buckets.length === 0) resetStreak(next);
		const first = success || report.counted !== false;
		// a retry's failure: a call in the window (it keeps a streak alive) in neither of its counts, and
		// one more failure in the streak, which opens only with two callers' first failures in it
		addToBucket(next.buckets, currentBucket(next.buckets, nowMs, next.windowMs), first ? 1 : 0, success || !first ? 0 : 1);
		if (success) resetStreak(next);
		else {
			next.consecutiveFailures += 1;
			if (first) next.streakFirsts = (next.streakFirsts ?? 0) + 1;
		}
		// Only a failure opens it: a success that completes a window of 10 calls is no reason to stop
		if (success || !shouldTrip(next, params)) return { data: next, result: undefined };
		open(next, nowMs, params);
	} else if (success) close(next);
	else {
		// open: a call that started before the opening; half-open: only the probe's failure reopens it
		const isProbe = from === 'half-open' && (next.probeId === undefined || report.id === undefined || report.id === next.probeId);
		if (!isProbe) return { data: next, result: undefined };
		next.consecutiveFailures += 1;
		open(next, nowMs, params);
	}
	return { data: next, result: { from, to: next.state, snapshot: snapshotOf(next, params) } };
}

/**
 * A caller that has not failed yet was refused: until the breaker closes, the probe waits for it a
 * moment rather than go with a caller that failed already (whose failure says less). A new state,
 * as every step here gives: the controller shares the one it was given.
 */
export function markFreshWaiting(data: HoldData, nowMs: number): HoldData {
	return data.state !== 'closed' ? { ...data, freshWaitingAt: nowMs } : data;
}

/** Has a caller that had not failed yet been refused since the breaker opened this time? */
export function freshWaiting(data: HoldData | undefined): boolean {
	return data !== undefined && data.freshWaitingAt !== undefined && data.openedAt !== undefined && data.freshWaitingAt >= data.openedAt;
}

/** The breaker as it stands at `nowMs`, changing nothing. */
export function holdSnapshot(data: HoldData | undefined, nowMs: number, params: HoldParams): HoldSnapshot {
	return snapshotOf(settle(data, nowMs, params), params);
}
