/**
 * The outage hold (hold-state.ts's rule decides when the API looks down): nothing goes but one probe at a
 * time, with growing intervals, a request that has not failed yet first; any success ends it, and
 * the held requests come back in slow start (the window restarts at one in flight).
 */
import { allowCall, holdForgetAt, holdSnapshot, freshWaiting, HOLD_DEFAULTS, markFreshWaiting, recordOutcome, type HoldParams } from '../hold-state';
import { restart } from '../window';
import { isoTime as iso, readsNoCount } from './limit';
import type { Limit, LimitVerdict, TrafficParams } from '../types';

/** The hold's breaker: a probe is given up when its lease is (a slow probe is no reason for a second). */
function holdOf(params: TrafficParams): HoldParams | undefined {
	if (!params.hold) return undefined;
	// once per params object: every step of every request asks (params are never mutated)
	let hold = holdParamsCache.get(params);
	if (!hold) holdParamsCache.set(params, (hold = { ...params.hold, probeTimeoutMs: params.hold.probeTimeoutMs ?? params.leaseMs }));
	return hold;
}
const holdParamsCache = new WeakMap<TrafficParams, HoldParams>();

/**
 * While the hold's probe is due, a request that failed already waits this long for one that has not
 * (it was refused, so it comes back at the probe's time): its answer says more of the API.
 */
const FRESH_PROBE_GRACE_MS = 2_000;

/** What a hold ended by hand says it ended (its `resumed` event's `by`): the metrics count it as a recovery, not a pause's end. */
export const HOLD_ENDED_BY = 'outage hold';

export const hold: Limit = {
	name: 'hold',
	/**
	 * Open, the next probe goes at openUntil; half-open, a probe is out and its answer ends the wait
	 * (at openUntil it is given up, and the next request probes). A request whose item failed already
	 * lets one that has not go first, when one waits.
	 */
	verdict({ data, nowMs, request, params }): LimitVerdict {
		const holdParams = holdOf(params);
		if (!holdParams) return undefined;
		const held = holdSnapshot(data.hold, nowMs, holdParams);
		if (held.state === 'closed') return undefined;
		if (held.openUntil !== undefined && nowMs < held.openUntil) return { go: false, reason: 'held', until: held.openUntil, wake: held.state === 'open' ? 'time' : 'change' };
		const due = held.openUntil ?? nowMs;
		if (request.failedBefore && freshWaiting(data.hold) && nowMs < due + FRESH_PROBE_GRACE_MS) return { go: false, reason: 'held', until: due + FRESH_PROBE_GRACE_MS, wake: 'change' };
		return 'probe';
	},
	/** The probe waits for it: its item has not failed yet (marked once per opening). */
	refused({ data, nowMs, request }) {
		if (request.failedBefore || data.hold === undefined || freshWaiting(data.hold)) return false;
		data.hold = markFreshWaiting(data.hold, nowMs);
		return true;
	},
	refusalMerges: readsNoCount,
	admitted({ data, nowMs, params, request, probeBy }) {
		if (probeBy === hold) data.hold = allowCall(data.hold, nowMs, holdOf(params)!, request.id).data;
	},
	// the probe's admission writes what only one request may do
	admissionMerges: (asking) => (asking.probeBy === hold ? undefined : readsNoCount()),
	/** An item's repeated failure counts in the streak only; any success ends the hold. */
	completed({ data, nowMs, params, id, outcome, events }) {
		const holdParams = holdOf(params);
		if (!holdParams) return;
		const step = recordOutcome(data.hold, nowMs, !outcome.outageFailure, holdParams, { id, counted: outcome.failedBefore !== true });
		data.hold = step.data;
		const change = step.result;
		if (change?.to === 'open') events.push({ kind: 'held', nextProbeAt: change.snapshot.openUntil ?? nowMs, change });
		if (change && change.from !== 'closed' && change.to === 'closed') {
			restart(data.window);
			events.push({ kind: 'recovered', change });
		}
	},
	forgetAt: (data, params) => (data.hold && params.hold ? holdForgetAt(data.hold, holdOf(params) ?? params.hold) : -Infinity),
	view(data, nowMs, view) {
		if (!data.hold) return;
		const held = holdSnapshot(data.hold, nowMs, { ...HOLD_DEFAULTS, windowMs: data.hold.windowMs, maxBreakMs: Infinity, probeTimeoutMs: Infinity });
		if (held.state !== 'closed') view.held = { state: held.state, nextProbeAt: held.openUntil !== undefined && Number.isFinite(held.openUntil) ? iso(held.openUntil) : null, openings: held.openings };
	},
	/** Closed by hand: the window restarts in slow start, as after a successful probe. */
	resume(data, _nowMs, what, events) {
		if (!what.hold || !data.hold || data.hold.state === 'closed') return;
		delete data.hold;
		restart(data.window);
		events.push({ kind: 'resumed', by: HOLD_ENDED_BY, how: 'hand' });
	},
	/** A hold opened alone is kept (its probe finds out for everyone); a shared one is left as it is. */
	adopt(data, local) {
		if (!local.hold || local.hold.state !== 'open' || (data.hold && data.hold.state !== 'closed')) return;
		const { probeSince: _probeSince, ...opened } = local.hold;
		data.hold = JSON.parse(JSON.stringify(opened)) as NonNullable<typeof data.hold>;
	},
};
