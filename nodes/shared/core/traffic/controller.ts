/**
 * The traffic controller of one API (by default the URL's origin and the credential in use): every
 * request to that API, of every item, execution and worker, asks it before it is sent and reports
 * to it after. It replaces "refuse" with "wait" wherever a request can still succeed later:
 *
 *   paused       the API asked everyone to wait (a 429 or 503 with Retry-After or a reset header,
 *                or a rate-limit quota spent): nothing goes until then. A wait the node only infers
 *                (a daily limit without a reset time) is probed instead: one request after a
 *                minute, then at doubling intervals up to 15 minutes, and the first answer that is
 *                not a throttle ends the pause.
 *                A quota in an answer that names its bucket (GitHub's x-ratelimit-resource) is that
 *                bucket's (buckets.ts): spent, it pauses the routes that answered with that bucket.
 *   held         the API looks down (the circuit breaker's rule: failures in a row among which
 *                two items' first failures, or a failure ratio of first failures; an item's
 *                retries failing again count in the streak only): nothing goes but one probe at a time, with
 *                growing intervals, a request that has not failed yet first;
 *                any success ends it, and the held requests come back in slow start (one in
 *                flight, then two, four...), not as a wave.
 *   concurrency  requests in flight to the API are at its learned window (AIMD, window.ts), which
 *                the next execution inherits.
 *   rate         the pace: a fixed limit the user set, or one learned from throttling (rate.ts).
 *   budget       a retry after an error waits while retries are over their share of the traffic
 *                (the retry budget: 10 % of first attempts + 40 per minute by default). A retry the
 *                server paced (it asked for the wait) does not spend the budget.
 *
 * Pure: time is a parameter, the state is plain JSON a store keeps per API (in memory, or in Redis
 * shared by every worker, applied atomically). `admit` and `complete` are its only two steps.
 *
 * O(1) per step: the requests in flight (leases) are not part of the state. A store keeps them one
 * entry at a time (a map, a Redis sorted set by expiry) and hands a step their count and soonest
 * end (LeaseView); a step says which lease it adds or ends (Step.lease). A refusal changes nothing
 * (Step.changed false): a store writes nothing for it. The pace's refusal is the exception: it
 * reserves the request's slot, once per waiting request; and a refusal writes, once each, what
 * must not be told twice or lost (see admit).
 */
import { allowCall, breakerForgetAt, breakerSnapshot, freshWaiting, markFreshWaiting, recordOutcome, type BreakerChange, type BreakerData, type BreakerParams } from './breaker';
import { bucketAnswered, bucketsForgetAt, bucketSent, bucketSpentUntil, settleBuckets, type BucketsData } from './buckets';
import { budgetForgetAt, budgetRetryReleaseAt, budgetSnapshot, recordFirst, tryAcquire, type BudgetData, type BudgetParams, type BudgetSnapshot } from './budget';
import type { TrafficWaitReason } from '../retry-story';
import { serverDelaySpreadMs } from '../delay-plan';
import { copyRate, countSuccess, freshRate, learnedRps, onQuota, onThrottle, paceAllowsAt, paceHeld, quotaSpentUntil, quotaUnanswered, rateForgetAt, reservedSlotSendAt, reserveSlot, takeSlot, type RateData } from './rate';
import { freshWindow, nextStart, onOverload, onSuccess, restart, windowSize, type WindowData, type WindowDecrease, type WindowParams } from './window';

export interface TrafficParams {
	/** The retry budget; absent: none. */
	budget?: BudgetParams;
	/** When the API counts as down, and how probes are spaced (breakMs doubling to maxBreakMs); absent: no hold. */
	hold?: BreakerParams;
	window: WindowParams;
	/** A fixed pace the user set, requests per second; absent or 0: none. */
	rateLimitRps?: number;
	/** A request that has not reported for this long is given up (its worker may have died). */
	leaseMs: number;
	/** How the log names the API (its host): kept in the state for the operator's view. */
	label?: string;
}

/** A request in flight: [id, expires at, start number, probe (1) or not (0)]. */
export type Lease = [id: string, expiresAt: number, startSeq: number, probe: 0 | 1];

/** The requests in flight at a step's time, as the store keeps them: expired leases left out. */
export interface LeaseView {
	count: number;
	/** The soonest end of a lease in flight (epoch ms); Infinity: none. */
	soonest: number;
}

export interface TrafficData {
	window: WindowData;
	rate: RateData;
	/** Nothing goes before this (epoch ms, 0: not paused). */
	pausedUntil: number;
	/** What paused it, for the retry story: the header, or `quota`. */
	pausedBy?: string;
	/** The pause's end is the node's guess: the next request after this time (epoch ms) probes it. */
	pauseProbeAt?: number;
	/** The interval to the probe after the next (doubling up to PAUSE_PROBE_MAX_MS). */
	pauseProbeMs?: number;
	/** The request out probing the pause (its lease id). */
	pauseProbeId?: string;
	/**
	 * After a pause the server stated, until this time (epoch ms) only retries go: the requests it
	 * throttled come back within the spread their waits were given (delay-plan.ts), and first
	 * requests would otherwise take the window before them; `by`: what stated the pause.
	 */
	retriesFirst?: { until: number; by: string };
	budget?: BudgetData;
	hold?: BreakerData;
	/** The rate-limit buckets the API names in its answers, and which routes go to which. */
	buckets?: BucketsData;
	/** How the log names the API (TrafficParams.label), for the operator's view. */
	label?: string;
	/**
	 * Since the last pause began: retries the server paced that succeeded, and that were throttled
	 * again; first requests that succeeded. Paced retries that succeed while none is throttled again
	 * and no first request gets through say the API's Retry-After is each request's own (ownThrottle).
	 */
	pacedAnswers?: { ok: number; throttled: number; firstOk?: number };
	/** Last admit or complete. */
	touchedAt: number;
}

export type WaitReason = TrafficWaitReason;

export interface AdmitRequest {
	/** Unique per request: names its lease. */
	id: string;
	/** Not the item's first request (a retry, or the first request of an item back from a loop). */
	retry: boolean;
	/** The wait before this retry was the server's (Retry-After): the budget is not spent on it. */
	paced: boolean;
	/** The item's earlier request failed in this run: while the API is held, one that has not goes as the probe first. */
	failedBefore?: boolean;
	/** The request's route (a hash of its method and path): which bucket it counts against, once an answer said. */
	route?: string;
	/** The pace slot this request reserved while it waited (Admission's `paceSlotAt`): it goes at it without asking the pace again. */
	paceSlotAt?: number;
	/** No request of this item may start at or after this (epoch ms): one admitted ahead of its slot must be sent before it. */
	deadlineAt?: number;
}

export type Admission = (
	| {
			go: true;
			probe: boolean;
			inFlight: number;
			window: number;
			budget?: BudgetSnapshot;
			lease: Lease;
			/** The pace's next slot, when the pace holds the next request back (epoch ms). */
			paceAt?: number;
			/** Send it at this time, not now: its reserved pace slot is just ahead (epoch ms). */
			sendAt?: number;
	  }
	| {
			go: false;
			reason: WaitReason;
			/**
			 * When the reason lifts at the latest, if the controller knows (a pause, the next probe, a pace,
			 * a lease given up); Infinity: never (a budget that allows no retry at all).
			 */
			until?: number;
			/** 'time': nothing but time ends this wait; 'change': another request's report or admission may end it sooner. */
			wake: 'time' | 'change';
			/** What paused the API (reason `paused`). */
			pausedBy?: string;
			/** The bucket whose quota is spent (reason `paused`), when the pause is one bucket's. */
			bucket?: string;
			/** Reason `rate`: the slot reserved for this request (= until); ask again with it at that time. */
			paceSlotAt?: number;
	  }
) & {
	/** What changed as time passed (a pause that ended), for the log: once, with the step that saw it. */
	events?: TrafficEvent[];
};

export interface Outcome {
	/** The request got a response under 400. */
	success: boolean;
	/** It says the API is in trouble: a network error, a timeout or a 5xx that is retried. */
	outageFailure: boolean;
	/** Too much at once: a 429, a 503 or a timeout (halves the window). */
	overload: boolean;
	/** The API throttled it: a 429, or a 503 / 529 with a requested wait. */
	throttled: boolean;
	/** The wait the API asked for, on a throttle, and the header it came from; `inferred` when its end is the node's guess. */
	serverWait?: { ms: number; header: string; inferred?: boolean };
	/**
	 * The quota the answer advertised (success or not): its reset as the instant read where the
	 * header was parsed (epoch ms), never re-based on the step's clock.
	 */
	quota?: { remaining: number; resetAt: number };
	/** The bucket the answer named (GitHub's x-ratelimit-resource, Zendesk's endpoint header): the quota is that bucket's. */
	bucket?: string;
	/** Beside a bucket's quota, the API's own that the answer also advertised (Zendesk's account-wide count). */
	apiQuota?: { remaining: number; resetAt: number };
	/** The request's route, as admitted. */
	route?: string;
	/** The item's earlier request failed in this run: a failure again counts toward a hold in the streak only (breaker.ts). */
	failedBefore?: boolean;
	/** What the request was: an item's first, a retry the server paced (Retry-After), another retry. */
	sent?: 'first' | 'paced' | 'retry';
}

export type TrafficEvent =
	| { kind: 'paused'; until: number; by: string; probedFrom?: number; bucket?: string }
	| { kind: 'resumed'; by: string; how: 'probe' | 'time' | 'refilled' | 'hand'; bucket?: string }
	| { kind: 'down'; nextProbeAt: number; change: BreakerChange }
	| { kind: 'recovered'; change: BreakerChange }
	| { kind: 'window'; decrease: WindowDecrease }
	| { kind: 'rate-learned'; rps: number };

export interface Step<T> {
	data: TrafficData;
	result: T;
	/** False: the step changed nothing (a refusal, but the pace's and those of admit that write once); the store keeps what it holds and writes nothing. */
	changed: boolean;
	/** The lease the step starts (`add`) or ends (`end`, by id). */
	lease?: { add: Lease } | { end: string };
	/** Requests waiting elsewhere (other workers) may go now: a slot freed at the limit, a probe answered, a change of state. */
	frees?: boolean;
	/**
	 * The step's verdict reads none of the counts that requests only add to (the window's growth and
	 * start numbers, the budget's, the hold's and the pace's counts: the counts of state/traffic-counters.ts)
	 * and holds for any number of requests in flight in [min, max]. A store shared by processes may
	 * then add the step's counts to theirs instead of comparing the whole state: other workers'
	 * healthy requests race it no more. `windowAtMost`: a verdict that there is no room holds only
	 * while the window (WindowData.size, which other workers' successes grow) is at most this.
	 * `roomGrows`: the most in flight is for a window of this size; one that other workers grew
	 * (up to the ceiling) has as much more room. Absent: the step needs the exact state.
	 */
	merges?: { inFlight: [min: number, max: number]; windowAtMost?: number; roomGrows?: { size: number; ceiling: number } };
}

/** A verdict that holds whatever the requests in flight. */
const ANY_IN_FLIGHT: NonNullable<Step<unknown>['merges']> = Object.freeze({ inFlight: Object.freeze([0, Infinity]) as [number, number] });

/** The hold's breaker: a probe is given up when its lease is (a slow probe is no reason for a second). */
function holdOf(params: TrafficParams): BreakerParams | undefined {
	if (!params.hold) return undefined;
	// once per params object: every step of every request asks (params are never mutated)
	let hold = holdParamsCache.get(params);
	if (!hold) holdParamsCache.set(params, (hold = { ...params.hold, probeTimeoutMs: params.hold.probeTimeoutMs ?? params.leaseMs }));
	return hold;
}
const holdParamsCache = new WeakMap<TrafficParams, BreakerParams>();

/** A pause whose end the node infers is first probed after this long, then at doubling intervals up to the max. */
const PAUSE_PROBE_FIRST_MS = 60_000;
const PAUSE_PROBE_MAX_MS = 15 * 60_000;

/**
 * While the hold's probe is due, a request that failed already waits this long for one that has not
 * (it was refused, so it comes back at the probe's time): its answer says more of the API.
 */
const FRESH_PROBE_GRACE_MS = 2_000;

/** How long an idle API's learned window and rate are kept (then it starts afresh). */
export const TRAFFIC_MEMORY_MS = 600_000;

/** The state of an API nothing is known of. */
export function freshTraffic(params: TrafficParams, nowMs: number): TrafficData {
	return { window: freshWindow(params.window), rate: freshRate(), pausedUntil: 0, touchedAt: nowMs };
}

/**
 * A deep copy of plain JSON (the state is nothing else). Every request steps its API's state twice,
 * so this is on the hot path: structuredClone is several times slower for objects this small.
 */
function copyJson<T>(value: T): T {
	if (typeof value !== 'object' || value === null) return value;
	if (Array.isArray(value)) return value.map(copyJson) as T;
	const copy: Record<string, unknown> = {};
	for (const key of Object.keys(value)) copy[key] = copyJson((value as Record<string, unknown>)[key]);
	return copy as T;
}

/**
 * A copy that a step may change (every request steps its API's state twice: kept cheap, and the
 * leases are not part of it). The budget and the hold are shared, not copied: their modules never
 * change the state they are given, they return a new one (budget.ts, breaker.ts).
 */
function copyTraffic(data: TrafficData): TrafficData {
	const { window, rate, buckets, pacedAnswers, ...rest } = data;
	return {
		...rest,
		window: { ...window },
		rate: copyRate(rate),
		...(buckets ? { buckets: copyJson(buckets) } : {}),
		...(pacedAnswers ? { pacedAnswers: { ...pacedAnswers } } : {}),
	};
}

/** A copy at `nowMs`: forgotten when idle long enough; a pause whose time is over ends (an event). */
function settle(data: TrafficData | undefined, nowMs: number, params: TrafficParams, events: TrafficEvent[]): TrafficData {
	// touched within its memory it is kept, whatever else says (the cheap test first: it is the hot path)
	if (!data || (nowMs >= data.touchedAt + TRAFFIC_MEMORY_MS && nowMs >= trafficForgetAt(data, params))) return freshTraffic(params, nowMs);
	const next = copyTraffic(data);
	if (next.pausedUntil !== 0 && next.pausedUntil <= nowMs) {
		events.push({ kind: 'resumed', by: next.pausedBy ?? 'Retry-After', how: 'time' });
		endPause(next);
	}
	if (next.retriesFirst !== undefined && next.retriesFirst.until <= nowMs) delete next.retriesFirst;
	if (next.buckets) settleBuckets(next.buckets, nowMs);
	return next;
}

function endPause(data: TrafficData): void {
	data.pausedUntil = 0;
	delete data.pausedBy;
	delete data.pauseProbeAt;
	delete data.pauseProbeMs;
	delete data.pauseProbeId;
}

/**
 * A paused API: wait, or, when the pause's end is a guess and its probe is due with none out, go as
 * the probe. A probe out is waited on (its answer ends the pause or not); one that never answers is
 * followed by the next at its time.
 */
function pausedVerdict(data: TrafficData, nowMs: number): Extract<Admission, { go: false }> | 'probe' {
	const pausedBy = data.pausedBy ? { pausedBy: data.pausedBy } : {};
	if (data.pauseProbeAt === undefined) return { go: false, reason: 'paused', until: data.pausedUntil, wake: 'time', ...pausedBy };
	if (nowMs >= data.pauseProbeAt) return 'probe';
	const probeOut = data.pauseProbeId !== undefined;
	return { go: false, reason: 'paused', until: Math.min(data.pausedUntil, data.pauseProbeAt), wake: probeOut ? 'change' : 'time', ...pausedBy };
}

/**
 * The hold: open, the next probe goes at openUntil; half-open, a probe is out and its answer ends the
 * wait (at openUntil it is given up, and the next request probes). A request whose item failed
 * already lets one that has not go first, when one waits. True: the request is the probe.
 */
function heldVerdict(data: TrafficData, nowMs: number, request: AdmitRequest, holdParams: BreakerParams): Extract<Admission, { go: false }> | boolean {
	const hold = breakerSnapshot(data.hold, nowMs, holdParams);
	if (hold.state === 'closed') return false;
	if (hold.openUntil !== undefined && nowMs < hold.openUntil) return { go: false, reason: 'held', until: hold.openUntil, wake: hold.state === 'open' ? 'time' : 'change' };
	const due = hold.openUntil ?? nowMs;
	if (request.failedBefore && freshWaiting(data.hold) && nowMs < due + FRESH_PROBE_GRACE_MS) return { go: false, reason: 'held', until: due + FRESH_PROBE_GRACE_MS, wake: 'change' };
	return true;
}

/** Why a request may not go now, if it may not: the first reason that holds, in the order above. */
function blocked(data: TrafficData, leases: LeaseView, nowMs: number, request: AdmitRequest, params: TrafficParams): Extract<Admission, { go: false }> | { probe: boolean; pauseProbe?: true; sendAt?: number } {
	if (data.pausedUntil > nowMs) {
		const paused = pausedVerdict(data, nowMs);
		// the pause's probe is one request: it goes whatever else would hold it
		if (paused === 'probe') return { probe: false, pauseProbe: true };
		return paused;
	}
	// the retries a stated pause held back go first: first requests wait out the spread of their returns
	if (data.retriesFirst !== undefined && data.retriesFirst.until > nowMs && !request.retry) {
		return { go: false, reason: 'paused', until: data.retriesFirst.until, wake: 'time', pausedBy: data.retriesFirst.by };
	}
	const quota = quotaSpentUntil(data.rate, nowMs);
	if (quota !== undefined) return { go: false, reason: 'paused', until: quota.until, wake: quota.wake, pausedBy: 'quota' };
	const bucket = bucketSpentUntil(data.buckets, request.route, nowMs);
	if (bucket !== undefined) return { go: false, reason: 'paused', until: bucket.until, wake: bucket.wake, pausedBy: 'quota', bucket: bucket.bucket };

	const probe = holdOf(params) ? heldVerdict(data, nowMs, request, holdOf(params)!) : false;
	if (probe !== false && probe !== true) return probe;
	// a probe is one request, whatever the window: it must not wait behind requests that hang
	if (!probe && leases.count >= windowSize(data.window, params.window)) {
		return { go: false, reason: 'concurrency', ...(Number.isFinite(leases.soonest) ? { until: leases.soonest } : {}), wake: 'change' };
	}
	// a slot reserved earlier is this request's, however late it comes (the pace took it then), but it
	// keeps the spacing after the request before it: late wakes must not add up to a burst. Due
	// within a second, it is admitted now and sent at its time: refused, it would come back for
	// that time with another round trip, and requests of several workers woken late would chase
	// each other's spacing round trip after round trip.
	let sendAt: number | undefined;
	if (request.paceSlotAt !== undefined) {
		const at = reservedSlotSendAt(data.rate, request.paceSlotAt, nowMs, params.rateLimitRps);
		if (at - nowMs > RESERVED_SEND_AHEAD_MS || (request.deadlineAt !== undefined && at >= request.deadlineAt)) return { go: false, reason: 'rate', until: at, wake: 'time' };
		if (at > nowMs) sendAt = at;
	} else {
		const paceAt = paceAllowsAt(data.rate);
		if (paceAt > nowMs) return { go: false, reason: 'rate', until: paceAt, wake: 'time' };
	}
	if (params.budget && request.retry && !request.paced && !probe) {
		const budget = budgetSnapshot(data.budget, nowMs, params.budget);
		if (budget.available < 1) {
			// a budget that allows no retry at all, whatever the traffic, will not allow this one later
			if (!(params.budget.ratio > 0) && !(params.budget.minRetriesPerWindow > 0)) return { go: false, reason: 'budget', until: Infinity, wake: 'time' };
			const release = budgetRetryReleaseAt(data.budget, nowMs, params.budget);
			return { go: false, reason: 'budget', wake: 'change', ...(release !== undefined ? { until: release } : {}) };
		}
	}
	return { probe, ...(sendAt !== undefined ? { sendAt } : {}) };
}

/**
 * The longest a request on its reserved pace slot is admitted ahead of its send time (it holds its
 * lease meanwhile); further ahead, it is told to come back then.
 */
const RESERVED_SEND_AHEAD_MS = 1_000;

/**
 * Before a request: it goes (and is counted, its lease started), or it waits, and why. A wait
 * changes nothing (waiting requests cost the store no write), but the pace's: it reserves the
 * request's slot, once. A wait also writes, once, what must not be told twice or lost: a pause
 * that ended (its event), the first fresh request the hold's probe waits for, the API's label.
 */
export function admit(previous: TrafficData | undefined, leases: LeaseView, nowMs: number, request: AdmitRequest, params: TrafficParams): Step<Admission> {
	const events: TrafficEvent[] = [];
	const data = settle(previous, nowMs, params, events);
	const labelled = params.label !== undefined && data.label !== params.label;
	if (labelled) data.label = params.label;
	const verdict = blocked(data, leases, nowMs, request, params);
	const ended = events.length > 0 ? { events } : {};
	if ('go' in verdict) {
		if (verdict.reason === 'rate') {
			const step = paceRefusal(data, nowMs, request, params, verdict);
			return { ...step, result: { ...step.result, ...ended }, changed: step.changed || labelled || events.length > 0 };
		}
		// the probe waits for it: its item has not failed yet (marked once per opening)
		const fresh = verdict.reason === 'held' && !request.failedBefore && data.hold !== undefined && !freshWaiting(data.hold);
		if (fresh) data.hold = markFreshWaiting(data.hold!, nowMs);
		const changed = fresh || labelled || events.length > 0;
		if (changed) data.touchedAt = nowMs;
		return { data, result: { ...verdict, ...ended }, changed, ...refusalMerges(verdict, data, params) };
	}
	data.touchedAt = nowMs;
	const { probe } = verdict;
	if (verdict.pauseProbe) {
		data.pauseProbeId = request.id;
		// if it never answers, the next request after one more interval probes
		data.pauseProbeAt = nowMs + (data.pauseProbeMs ?? PAUSE_PROBE_FIRST_MS);
	}
	const holdParams = holdOf(params);
	if (probe && holdParams) data.hold = allowCall(data.hold, nowMs, holdParams, request.id).data;
	let budget: BudgetSnapshot | undefined;
	if (params.budget && !probe && !(request.retry && request.paced)) {
		// a paced retry counts as neither: the server set its time, and it adds no first attempt
		const step = request.retry ? tryAcquire(data.budget, nowMs, params.budget) : recordFirst(data.budget, nowMs, params.budget);
		data.budget = step.data;
		budget = 'snapshot' in step.result ? step.result.snapshot : step.result;
	}
	const lease: Lease = [request.id, nowMs + Math.max(1, params.leaseMs), nextStart(data.window), probe ? 1 : 0];
	takeSlot(data.rate, nowMs, params.rateLimitRps, request.id, lease[1], request.paceSlotAt !== undefined, verdict.sendAt);
	bucketSent(data.buckets, request.route, nowMs, request.id, lease[1]);
	return {
		data,
		result: {
			go: true,
			probe,
			inFlight: leases.count + 1,
			window: windowSize(data.window, params.window),
			...(budget ? { budget } : {}),
			lease,
			...(verdict.sendAt !== undefined ? { sendAt: verdict.sendAt } : {}),
			...(data.rate.nextAt > nowMs ? { paceAt: data.rate.nextAt } : {}),
			...ended,
		},
		changed: true,
		lease: { add: lease },
		// a request that takes no retry from the budget and probes nothing needs only room in the window
		...(!probe && !verdict.pauseProbe && !(params.budget && request.retry && !request.paced) ? { merges: roomMerges(data, params) } : {}),
	};
}

/** A request admitted for room in the window: room there was, and there is as much more in a window others grew. */
function roomMerges(data: TrafficData, params: TrafficParams): NonNullable<Step<unknown>['merges']> {
	const window = windowSize(data.window, params.window);
	const grows = params.window.mode === 'adaptive' && window < params.window.ceiling;
	return { inFlight: [0, window - 1], ...(grows ? { roomGrows: { size: data.window.size, ceiling: params.window.ceiling } } : {}) };
}

/**
 * A refusal that reads no count but the requests in flight: the window is full (it stays full as
 * long as they are at least the window), or the API is paused or held. The budget's refusal reads
 * its counts: it needs the exact state.
 */
function refusalMerges(verdict: Extract<Admission, { go: false }>, data: TrafficData, params: TrafficParams): Pick<Step<unknown>, 'merges'> {
	if (verdict.reason === 'concurrency') return { merges: { inFlight: [windowSize(data.window, params.window), Infinity], ...noRoomWhile(data, params) } };
	return verdict.reason === 'paused' || verdict.reason === 'held' ? { merges: ANY_IN_FLIGHT } : {};
}

/** "No room" holds while the window has not grown: other workers' successes may have grown it, up to the ceiling. */
function noRoomWhile(data: TrafficData, params: TrafficParams): { windowAtMost?: number } {
	return windowSize(data.window, params.window) < params.window.ceiling ? { windowAtMost: data.window.size } : {};
}

/** How often at most a wait for the pace notes that the learned limit is in use. */
const PACE_HELD_NOTE_MS = 1_000;

/**
 * The pace holds the request back: it reserves the next free slot (a write, once per waiting
 * request, not per look), and the request goes at it without asking the pace again. A request
 * early for a slot it holds keeps it and writes nothing, but that a learned limit is in use (noted
 * at most once a second).
 */
function paceRefusal(data: TrafficData, nowMs: number, request: AdmitRequest, params: TrafficParams, verdict: Extract<Admission, { go: false }>): Step<Admission> {
	// a request that already holds a slot keeps it: it comes back when it is due (its slot, or the
	// spacing after the request before it), when that is over a second away or past its deadline
	if (request.paceSlotAt !== undefined) {
		const slot = request.paceSlotAt;
		const until = verdict.until ?? slot;
		const learned = data.rate.learned;
		const note = learned !== undefined && !(nowMs - (learned.boundAt ?? -Infinity) < PACE_HELD_NOTE_MS);
		if (note) paceHeld(data.rate, nowMs);
		return { data, result: { ...verdict, until, paceSlotAt: slot }, changed: note };
	}
	paceHeld(data.rate, nowMs);
	data.touchedAt = nowMs;
	const slot = reserveSlot(data.rate, nowMs, params.rateLimitRps);
	return { data, result: { ...verdict, until: slot, paceSlotAt: slot }, changed: true };
}

/**
 * After a request (its outcome, by the lease `admit` gave it): what it teaches the controller. A
 * lease given up (expired) still reports: its news of the API is as good.
 */
export function complete(previous: TrafficData | undefined, leases: LeaseView, nowMs: number, lease: Lease, outcome: Outcome, params: TrafficParams): Step<TrafficEvent[]> {
	const events: TrafficEvent[] = [];
	const data = settle(previous, nowMs, params, events);
	data.touchedAt = nowMs;
	const [id, expiresAt, startSeq, probeLease] = lease;
	const live = expiresAt > nowMs;
	const inFlight = Math.max(0, leases.count - (live ? 1 : 0));
	const pauseProbe = data.pauseProbeId === id;
	if (pauseProbe) delete data.pauseProbeId;

	const holdParams = holdOf(params);
	if (holdParams) learnHold(data, nowMs, id, outcome, holdParams, events);
	// a bucket's spent quota is the bucket's limit, not the API's: it pauses that bucket only
	const bucketSpent = outcome.bucket !== undefined && outcome.quota !== undefined && outcome.quota.remaining <= 0;
	// a spent bucket's throttle pauses its routes only (learnQuota), never the API, and is no request's own
	const own = !bucketSpent && ownThrottle(data, outcome);
	countAnswer(data, outcome);
	if (outcome.success) {
		onSuccess(data.window, params.window);
		countSuccess(data.rate, nowMs);
	} else if (outcome.overload && !bucketSpent && !(outcome.throttled && outcome.serverWait && outcome.serverWait.ms > 0)) {
		// a throttle with a requested wait is answered by the pause (and the learned pace): halving the
		// window on top would serialize an API that paces each caller with Retry-After (a wait of 0 is
		// no pause: the window answers it)
		const decrease = onOverload(data.window, startSeq, params.window);
		if (decrease) events.push({ kind: 'window', decrease });
	}
	// an API that advertises its quota says its limit outright: the quota paces, nothing is guessed
	if (outcome.throttled && !outcome.quota && !own) {
		const before = learnedRps(data.rate, nowMs);
		const learned = onThrottle(data.rate, nowMs);
		if (learned !== undefined && learned !== before) events.push({ kind: 'rate-learned', rps: learned });
	}
	const asking = data.rate.quota?.asking === id || (data.buckets !== undefined && Object.values(data.buckets.quotas).some((quota) => quota.asking === id));
	learnQuota(data, nowMs, id, outcome, inFlight, events);
	if (outcome.throttled && outcome.serverWait && !bucketSpent && !own) pauseFor(data, nowMs, outcome.serverWait, pauseProbe, events);
	else if (pauseProbe && data.pausedUntil > nowMs) {
		// the probe of a guessed pause got an answer that is no throttle: the API takes requests again
		events.push({ kind: 'resumed', by: data.pausedBy ?? 'probe', how: 'probe' });
		endPause(data);
	}
	// room for a request after this report (a request refused at a smaller window may fit now: the
	// window grows with successes, so "it was at the limit" is not the test), or news of the API
	const window = windowSize(data.window, params.window);
	const frees = (live && inFlight < window) || pauseProbe || asking || probeLease === 1 || events.length > 0;
	// a plain success: its only verdict is whether it leaves room (a quota it states is counted against the requests in flight).
	// "Room" may be told when there is none (more in flight than the window, another worker's): one waiter looks in vain;
	// "no room" must not be told when there is some (a waiter elsewhere would wait on a guess)
	const plain = outcome.success && !outcome.quota && !outcome.apiQuota && outcome.bucket === undefined && !pauseProbe && !asking && probeLease === 0 && events.length === 0;
	const merges: Pick<Step<unknown>, 'merges'> = !plain ? {} : !live || frees ? { merges: ANY_IN_FLIGHT } : { merges: { inFlight: [window + 1, Infinity], ...noRoomWhile(data, params) } };
	return { data, result: events, changed: true, lease: { end: id }, frees, ...merges };
}

/** What the answer tells the hold (mutates): an item's repeated failure counts in the streak only; any success ends it. */
function learnHold(data: TrafficData, nowMs: number, id: string, outcome: Outcome, holdParams: BreakerParams, events: TrafficEvent[]): void {
	const step = recordOutcome(data.hold, nowMs, !outcome.outageFailure, holdParams, { id, counted: outcome.failedBefore !== true });
	data.hold = step.data;
	const change = step.result;
	if (change?.to === 'open') events.push({ kind: 'down', nextProbeAt: change.snapshot.openUntil ?? nowMs, change });
	if (change && change.from !== 'closed' && change.to === 'closed') {
		restart(data.window);
		events.push({ kind: 'recovered', change });
	}
}

/**
 * The quota the answer advertised (mutates): its bucket's when it names one (and the API's beside
 * it, if it says that too), else the API's. A spent one and its refill are events.
 */
function learnQuota(data: TrafficData, nowMs: number, id: string, outcome: Outcome, inFlight: number, events: TrafficEvent[]): void {
	let quota = outcome.quota;
	if (outcome.bucket !== undefined) {
		data.buckets ??= { routes: [], quotas: {} };
		const wait = outcome.throttled && outcome.serverWait && !outcome.serverWait.inferred ? { waitMs: outcome.serverWait.ms } : {};
		const change = bucketAnswered(data.buckets, nowMs, id, { bucket: outcome.bucket, ...(outcome.route !== undefined ? { route: outcome.route } : {}), ...(quota ? { quota } : {}), ...wait });
		const resetAt = data.buckets.quotas[outcome.bucket]?.resetAt ?? nowMs;
		if (change === 'spent') events.push({ kind: 'paused', until: resetAt, by: 'quota', bucket: outcome.bucket });
		if (change === 'refilled') events.push({ kind: 'resumed', by: 'quota', how: 'refilled', bucket: outcome.bucket });
		if (!outcome.apiQuota) return;
		quota = outcome.apiQuota;
	}
	const change = quota ? onQuota(data.rate, quota.remaining, Math.max(nowMs, quota.resetAt), inFlight, nowMs) : quotaUnanswered(data.rate, id, nowMs);
	if (change === 'spent') events.push({ kind: 'paused', until: data.rate.quota?.resetAt ?? nowMs, by: 'quota' });
	if (change === 'refilled') events.push({ kind: 'resumed', by: 'quota', how: 'refilled' });
}

/**
 * A throttle of an item's first request that is its own, not the API's: since the last pause
 * began, retries the server paced have succeeded, none was throttled again and no first request
 * got through, so the API limits each request (an item, a resource) rather than the caller (a
 * shared limit lets new requests through as it refills, and throttles retries as well). Such a throttle pauses nothing and
 * teaches no pace: its item's retry waits the stated time (the retry loop), the other items go on.
 * One paced retry throttled again, and every throttle is the API's until the next pause shows
 * otherwise.
 */
function ownThrottle(data: TrafficData, outcome: Outcome): boolean {
	const answers = data.pacedAnswers;
	return outcome.throttled && outcome.serverWait !== undefined && !outcome.serverWait.inferred && outcome.sent === 'first' && answers !== undefined && answers.ok > 0 && answers.throttled === 0 && !answers.firstOk;
}

/** A paced retry's or a first request's answer, for ownThrottle. */
function countAnswer(data: TrafficData, outcome: Outcome): void {
	if (outcome.sent === 'first') {
		// a first request that gets through: the API takes new requests, its throttles are a shared limit's
		if (outcome.success && data.pacedAnswers) data.pacedAnswers.firstOk = (data.pacedAnswers.firstOk ?? 0) + 1;
		return;
	}
	if (outcome.sent !== 'paced') return;
	const answers = (data.pacedAnswers ??= { ok: 0, throttled: 0 });
	if (outcome.throttled) answers.throttled++;
	else if (outcome.success) answers.ok++;
}

/**
 * A throttle's requested wait. A stated end is trusted: it extends the pause, and it replaces a
 * guessed one (the server has now said when). A guessed end bounds the pause, which is probed: from
 * a minute on, or, when this answer was the probe, at twice the last interval (up to 15 minutes).
 */
function pauseFor(data: TrafficData, nowMs: number, wait: NonNullable<Outcome['serverWait']>, fromProbe: boolean, events: TrafficEvent[]): void {
	const until = nowMs + Math.max(0, wait.ms);
	const paused = data.pausedUntil > nowMs;
	const guessed = data.pauseProbeAt !== undefined;
	if (!wait.inferred) {
		if (until <= data.pausedUntil && !guessed) return;
		// one event per pause, not one per 429 of the burst that caused it
		if (!paused) {
			events.push({ kind: 'paused', until, by: wait.header });
			data.pacedAnswers = { ok: 0, throttled: 0 };
		}
		endPause(data);
		data.pausedUntil = until;
		data.pausedBy = wait.header;
		data.retriesFirst = { until: until + serverDelaySpreadMs(wait.ms), by: wait.header };
		return;
	}
	if (paused && !guessed && until <= data.pausedUntil) return;
	const intervalMs = fromProbe && data.pauseProbeMs !== undefined ? Math.min(data.pauseProbeMs * 2, PAUSE_PROBE_MAX_MS) : (data.pauseProbeMs ?? PAUSE_PROBE_FIRST_MS);
	// a stated pause that the guess outlasts is still obeyed to its end: no probe before it
	const statedEnd = paused && !guessed ? data.pausedUntil : 0;
	if (!paused) events.push({ kind: 'paused', until, by: wait.header, probedFrom: nowMs + intervalMs });
	data.pausedUntil = Math.max(until, data.pausedUntil);
	data.pausedBy = wait.header;
	data.pauseProbeMs = intervalMs;
	if (fromProbe || !guessed) data.pauseProbeAt = Math.max(nowMs + intervalMs, statedEnd);
}

/** From this time on the state holds nothing worth keeping: a store may drop it (once its leases have ended too). */
export function trafficForgetAt(data: TrafficData, params: TrafficParams): number {
	return Math.max(
		data.touchedAt + TRAFFIC_MEMORY_MS,
		data.pausedUntil,
		data.retriesFirst?.until ?? -Infinity,
		rateForgetAt(data.rate),
		data.budget ? budgetForgetAt(data.budget) : -Infinity,
		data.buckets ? bucketsForgetAt(data.buckets) : -Infinity,
		data.hold && params.hold ? breakerForgetAt(data.hold, holdOf(params) ?? params.hold) : -Infinity,
	);
}
