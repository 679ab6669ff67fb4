/**
 * Concurrency: the requests in flight to the API are at its learned window (AIMD, window.ts), which
 * the next execution inherits. A probe is one request, whatever the window: it must not wait behind
 * requests that hang. The lease's start number is the window's (a decrease answers one round).
 */
import { nextStart, onOverload, onSuccess, windowSize } from '../window';
import { spentBucketAnswer } from './buckets';
import type { Limit, Merges, TrafficData, TrafficParams } from '../types';

/** "No room" holds while the window has not grown: other workers' successes may have grown it, up to the ceiling. */
function noRoomWhile(data: TrafficData, params: TrafficParams): { windowAtMost?: number } {
	return windowSize(data.window, params.window) < params.window.ceiling ? { windowAtMost: data.window.size } : {};
}

export const window: Limit = {
	name: 'window',
	letsProbesBy: true,
	copy(data) {
		data.window = { ...data.window };
	},
	verdict({ data, leases, params }) {
		if (leases.count < windowSize(data.window, params.window)) return undefined;
		return { go: false, reason: 'window', ...(Number.isFinite(leases.soonest) ? { until: leases.soonest } : {}), wake: 'change' };
	},
	/** The window is full: it stays full as long as the requests in flight are at least the window. */
	refusalMerges: ({ data, params }): Merges => ({ inFlight: [windowSize(data.window, params.window), Infinity], ...noRoomWhile(data, params) }),
	admitted({ data, params }, admission) {
		admission.lease[2] = nextStart(data.window);
		admission.window = windowSize(data.window, params.window);
	},
	/** A request admitted for room in the window: room there was, and there is as much more in a window others grew. */
	admissionMerges({ data, params }): Merges {
		const size = windowSize(data.window, params.window);
		const grows = params.window.mode === 'adaptive' && size < params.window.ceiling;
		return { inFlight: [0, size - 1], ...(grows ? { roomGrows: { size: data.window.size, ceiling: params.window.ceiling } } : {}) };
	},
	completed(answer) {
		const { data, params, outcome, events } = answer;
		if (outcome.success) onSuccess(data.window, params.window);
		else if (outcome.overload && !spentBucketAnswer(outcome) && !(outcome.throttled && outcome.serverWait && outcome.serverWait.ms > 0)) {
			// a throttle with a requested wait is answered by the pause (and the learned pace): halving the
			// window on top would serialize an API that paces each caller with Retry-After (a wait of 0 is
			// no pause: the window answers it)
			const decrease = onOverload(data.window, answer.startSeq, params.window);
			if (decrease) events.push({ kind: 'window', decrease });
		}
		// room for a request after this report (a request refused at a smaller window may fit now: the
		// window grows with successes, so "it was at the limit" is not the test)
		if (answer.live && answer.inFlight < windowSize(data.window, params.window)) answer.frees = true;
	},
	/**
	 * A plain success that frees no room: "no room" must not be told when there is some (a waiter
	 * elsewhere would wait on a guess); there is none while more than the window are in flight.
	 */
	completionMerges: ({ data, params }): Merges => ({ inFlight: [windowSize(data.window, params.window) + 1, Infinity], ...noRoomWhile(data, params) }),
	view(data, _nowMs, view, inFlight) {
		view.window = { size: data.window.size, inFlight, slowStart: data.window.slowStart };
	},
};
