/**
 * The traffic controller of one API (by default the URL's origin and the credential in use): every
 * request to that API, of every item, execution and worker, asks it before it is sent and reports
 * to it after. It replaces "refuse" with "wait" wherever a request can still succeed later.
 *
 * It runs a list of limits (limits/registry.ts), each one module with one interface (limits/limit.ts):
 * the first that refuses a request is its reason to wait, and each learns from every report. In
 * their order:
 *
 *   paused       the API asked everyone to wait (limits/pause.ts), or its rate-limit quota is spent
 *                (limits/quota.ts), or the quota of the bucket the request's route goes to
 *                (limits/buckets.ts). A pause whose end the node only guesses is probed.
 *   held         the API looks down (limits/hold.ts, the circuit breaker's rule): nothing goes but
 *                one probe at a time; the held requests come back in slow start.
 *   concurrency  requests in flight to the API are at its learned window (limits/window.ts).
 *   rate         the pace: a fixed limit the user set, or one learned from throttling (limits/pace.ts).
 *   budget       a retry after an error waits while retries are over their share of the traffic
 *                (limits/budget.ts).
 *
 * A request may carry a cost (AdmitRequest.cost, default 1) for a limit that weighs requests; the
 * package's limits count every request as one (the API, the pace and the budget count requests).
 * TrafficParams.limits replaces the list (a limit the package does not ship keeps its state under
 * TrafficData.limits).
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
import type { BreakerChange, BreakerData, BreakerParams } from './breaker';
import type { BucketsData } from './buckets';
import type { BudgetData, BudgetParams, BudgetSnapshot } from './budget';
import type { TrafficWaitReason } from '../retry-story';
import { freshRate, type RateData } from './rate';
import { freshWindow, type WindowData, type WindowDecrease, type WindowParams } from './window';
import { ANY_IN_FLIGHT, narrowMerges, type Admitted, type Answer, type Asking, type Limit, type Merges, type Refusal } from './limits/limit';
import { TRAFFIC_LIMITS } from './limits/registry';

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
	/** The limits, in their order of precedence; absent: the package's (limits/registry.ts). */
	limits?: readonly Limit[];
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
	/** The state of limits the package has no field for (TrafficParams.limits), by name: plain JSON, never changed in place. */
	limits?: Record<string, unknown>;
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
	/**
	 * What the request weighs, for a limit that weighs requests (default 1). The package's limits
	 * count every request as one: the API's quota, the pace and the retry budget count requests.
	 */
	cost?: number;
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


/** How long an idle API's learned window and rate are kept (then it starts afresh). */
export const TRAFFIC_MEMORY_MS = 600_000;

/** The state of an API nothing is known of. */
export function freshTraffic(params: TrafficParams, nowMs: number): TrafficData {
	return { window: freshWindow(params.window), rate: freshRate(), pausedUntil: 0, touchedAt: nowMs };
}

/**
 * A copy at `nowMs` that a step may change (every request steps its API's state twice: kept cheap,
 * and the leases are not part of it): forgotten when idle long enough; what ended with time ends
 * (an event). Each limit copies what it changes in place; the rest is shared.
 */
function settle(data: TrafficData | undefined, nowMs: number, params: TrafficParams, limits: readonly Limit[], events: TrafficEvent[]): TrafficData {
	// touched within its memory it is kept, whatever else says (the cheap test first: it is the hot path)
	if (!data || (nowMs >= data.touchedAt + TRAFFIC_MEMORY_MS && nowMs >= trafficForgetAt(data, params))) return freshTraffic(params, nowMs);
	const next = { ...data };
	for (let i = 0; i < limits.length; i++) {
		const limit = limits[i];
		if (limit.copy) limit.copy(next);
		if (limit.settle) limit.settle(next, nowMs, events);
	}
	return next;
}

/**
 * Before a request: it goes (and is counted, its lease started), or it waits, and why. A wait
 * changes nothing (waiting requests cost the store no write), but the pace's: it reserves the
 * request's slot, once. A wait also writes, once, what must not be told twice or lost: a pause
 * that ended (its event), the first fresh request the hold's probe waits for, the API's label.
 */
export function admit(previous: TrafficData | undefined, leases: LeaseView, nowMs: number, request: AdmitRequest, params: TrafficParams): Step<Admission> {
	const events: TrafficEvent[] = [];
	const limits = params.limits ?? TRAFFIC_LIMITS;
	const data = settle(previous, nowMs, params, limits, events);
	const labelled = params.label !== undefined && data.label !== params.label;
	if (labelled) data.label = params.label;
	const asking: Asking = { data, nowMs, request, params, leases, cost: request.cost ?? 1, probeBy: undefined, probe: false, sendAt: undefined };
	for (let i = 0; i < limits.length; i++) {
		const limit = limits[i];
		if (asking.probe && limit.letsProbesBy) continue;
		const verdict = limit.verdict(asking);
		if (verdict === undefined) continue;
		if (verdict === 'probe' || verdict === 'sole-probe') {
			asking.probeBy = limit;
			if (verdict === 'sole-probe') break;
			asking.probe = true;
			continue;
		}
		return refuse(asking, limit, verdict, labelled, events);
	}
	return go(asking, limits, events);
}

/** The first refusal is the request's: its limit writes what it must (the pace's slot), and says whether it merges. */
function refuse(asking: Asking, limit: Limit, refusal: Refusal, labelled: boolean, events: TrafficEvent[]): Step<Admission> {
	const { data } = asking;
	const wrote = limit.refused ? limit.refused(asking, refusal) : false;
	const changed = wrote || labelled || events.length > 0;
	if (changed) data.touchedAt = asking.nowMs;
	if (events.length > 0) refusal.events = events;
	const step: Step<Admission> = { data, result: refusal, changed };
	const merges = limit.refusalMerges ? limit.refusalMerges(asking, refusal) : undefined;
	if (merges) step.merges = merges;
	return step;
}

/** The request goes: every limit counts it, and the step merges when none of them read a count for it. */
function go(asking: Asking, limits: readonly Limit[], events: TrafficEvent[]): Step<Admission> {
	const { data, nowMs, request, params } = asking;
	data.touchedAt = nowMs;
	// the start number is the window's (limits/window.ts); without a limit on requests in flight, the window is unbounded
	const lease: Lease = [request.id, nowMs + Math.max(1, params.leaseMs), 0, asking.probe ? 1 : 0];
	const admission: Admitted = { go: true, probe: asking.probe, inFlight: asking.leases.count + 1, window: Infinity, lease };
	let merges: Merges | undefined = ANY_IN_FLIGHT;
	for (let i = 0; i < limits.length; i++) {
		const limit = limits[i];
		if (limit.admitted) limit.admitted(asking, admission);
		if (merges !== undefined) merges = limit.admissionMerges ? narrowMerges(merges, limit.admissionMerges(asking)) : undefined;
	}
	if (asking.sendAt !== undefined) admission.sendAt = asking.sendAt;
	if (events.length > 0) admission.events = events;
	const step: Step<Admission> = { data, result: admission, changed: true, lease: { add: lease } };
	if (merges !== undefined) step.merges = merges;
	return step;
}

/**
 * After a request (its outcome, by the lease `admit` gave it): what it teaches the controller. A
 * lease given up (expired) still reports: its news of the API is as good.
 */
export function complete(previous: TrafficData | undefined, leases: LeaseView, nowMs: number, lease: Lease, outcome: Outcome, params: TrafficParams): Step<TrafficEvent[]> {
	const events: TrafficEvent[] = [];
	const limits = params.limits ?? TRAFFIC_LIMITS;
	const data = settle(previous, nowMs, params, limits, events);
	data.touchedAt = nowMs;
	const [id, expiresAt, startSeq, probeLease] = lease;
	const live = expiresAt > nowMs;
	const answer: Answer = { data, nowMs, params, id, startSeq, probeLease: probeLease === 1, outcome, live, inFlight: Math.max(0, leases.count - (live ? 1 : 0)), events, ownThrottle: false, frees: false, exact: false };
	for (let i = 0; i < limits.length; i++) limits[i].completed?.(answer);
	// room for a request after this report, or news of the API
	const frees = answer.frees || answer.probeLease || events.length > 0;
	const step: Step<TrafficEvent[]> = { data, result: events, changed: true, lease: { end: id }, frees };
	// a plain success: its only verdict is whether it leaves room (a quota it states is counted against the requests in flight).
	// "Room" may be told when there is none (more in flight than the window, another worker's): one waiter looks in vain
	const plain = outcome.success && !answer.exact && !answer.probeLease && events.length === 0;
	if (plain) step.merges = !live || frees ? ANY_IN_FLIGHT : completionMerges(answer, limits);
	return step;
}

/** A plain success that frees nothing: what its limits say ("no room" only while there is none). */
function completionMerges(answer: Answer, limits: readonly Limit[]): Merges | undefined {
	let merges: Merges | undefined = ANY_IN_FLIGHT;
	for (let i = 0; i < limits.length && merges !== undefined; i++) {
		const limit = limits[i];
		if (limit.completionMerges) merges = narrowMerges(merges, limit.completionMerges(answer));
	}
	return merges;
}

/** From this time on the state holds nothing worth keeping: a store may drop it (once its leases have ended too). */
export function trafficForgetAt(data: TrafficData, params: TrafficParams): number {
	const limits = params.limits ?? TRAFFIC_LIMITS;
	let at = data.touchedAt + TRAFFIC_MEMORY_MS;
	for (let i = 0; i < limits.length; i++) {
		const limit = limits[i];
		if (limit.forgetAt) at = Math.max(at, limit.forgetAt(data, params));
	}
	return at;
}
