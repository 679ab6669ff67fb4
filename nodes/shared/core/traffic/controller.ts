/**
 * The traffic controller of one API (by default the URL's origin and the credential in use): every
 * request to that API, of every item, execution and worker, asks it before it is sent and reports
 * to it after. It replaces "refuse" with "wait" wherever a request can still succeed later.
 *
 * It runs a list of limits (limits/registry.ts), each one module with one interface (Limit, types.ts):
 * the first that refuses a request is its reason to wait, and each learns from every report. In
 * their order:
 *
 *   paused       the API asked everyone to wait (limits/pause.ts), or its rate-limit quota is spent
 *                (limits/quota.ts), or the quota of the bucket the request's route goes to
 *                (limits/buckets.ts). A pause whose end the node only guesses is probed.
 *   held         the API looks down (limits/hold.ts, hold-state.ts's rule): nothing goes but
 *                one probe at a time; the held requests come back in slow start.
 *   window       requests in flight to the API are at its learned window (limits/window.ts).
 *   pace         a fixed limit the user set, or one learned from throttling (limits/pace.ts).
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
import { freshRate } from './rate';
import { freshWindow } from './window';
import { ANY_IN_FLIGHT, narrowMerges } from './limits/limit';
import { TRAFFIC_LIMITS } from './limits/registry';
import type { Admission, Admitted, AdmitRequest, Answer, Asking, Lease, LeaseView, Limit, Merges, Outcome, Refusal, Step, TrafficData, TrafficEvent, TrafficParams } from './types';

export type { Admission, AdmitRequest, Lease, LeaseView, Outcome, Step, TrafficData, TrafficEvent, TrafficParams, WaitReason } from './types';

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
