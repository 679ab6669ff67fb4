/**
 * The pace (rate.ts): a fixed limit the user set, or one learned from throttling. A request the
 * pace holds back reserves the next free slot and goes at it without asking the pace again. It
 * spaces requests, whatever their cost: a request is one slot.
 */
import { copyRate, countSuccess, learnedRps, onThrottle, paceAllowsAt, paceHeld, rateForgetAt, reservedSlotSendAt, reserveSlot, takeSlot } from '../rate';
import { isoTime as iso, readsNoCount } from './limit';
import type { Limit, TrafficData } from '../types';

/**
 * The longest a request on its reserved pace slot is admitted ahead of its send time (it holds its
 * lease meanwhile); further ahead, it is told to come back then.
 */
const RESERVED_SEND_AHEAD_MS = 1_000;

/** How often at most a wait for the pace notes that the learned limit is in use. */
const PACE_HELD_NOTE_MS = 1_000;

/** The pace held a request back: a learned limit notes it is in use, at most once a second (a write). */
function notePaceHeld(data: TrafficData, nowMs: number): boolean {
	const learned = data.rate.learned;
	const note = learned !== undefined && !(nowMs - (learned.boundAt ?? -Infinity) < PACE_HELD_NOTE_MS);
	if (note) paceHeld(data.rate, nowMs);
	return note;
}

export const pace: Limit = {
	name: 'pace',
	copy(data) {
		data.rate = copyRate(data.rate);
	},
	verdict(asking) {
		const { data, nowMs, request, params } = asking;
		if (request.paceSlotAt === undefined) {
			const paceAt = paceAllowsAt(data.rate);
			return paceAt > nowMs ? { go: false, reason: 'pace', until: paceAt, wake: 'time' } : undefined;
		}
		// a slot reserved earlier is this request's, however late it comes (the pace took it then), but it
		// keeps the spacing after the request before it: late wakes must not add up to a burst. Due
		// within a second, it is admitted now and sent at its time: refused, it would come back for
		// that time with another round trip, and requests of several workers woken late would chase
		// each other's spacing round trip after round trip.
		const at = reservedSlotSendAt(data.rate, request.paceSlotAt, nowMs, params.rateLimitRps);
		if (at - nowMs > RESERVED_SEND_AHEAD_MS || (request.deadlineAt !== undefined && at >= request.deadlineAt)) return { go: false, reason: 'pace', until: at, wake: 'time' };
		if (at > nowMs) asking.sendAt = at;
		return undefined;
	},
	/**
	 * The pace holds the request back: it reserves the next free slot (a write, once per waiting
	 * request, not per look), and the request goes at it without asking the pace again. A request
	 * early for a slot it holds keeps it and writes nothing, but that a learned limit is in use (noted
	 * at most once a second).
	 */
	refused({ data, nowMs, request, params }, refusal) {
		// a request that already holds a slot keeps it: it comes back when it is due (its slot, or the
		// spacing after the request before it), when that is over a second away or past its deadline
		if (request.paceSlotAt !== undefined) {
			refusal.until ??= request.paceSlotAt;
			refusal.paceSlotAt = request.paceSlotAt;
			return notePaceHeld(data, nowMs);
		}
		// a request with a lane reserves nothing: it waits its turn in its process's line, whose
		// first looks again at the next slot (the shares take turns, the urgent go first)
		if (request.lane !== undefined) return notePaceHeld(data, nowMs);
		paceHeld(data.rate, nowMs);
		refusal.until = refusal.paceSlotAt = reserveSlot(data.rate, nowMs, params.rateLimitRps);
		return true;
	},
	admitted({ data, nowMs, request, params, sendAt }, admission) {
		takeSlot(data.rate, nowMs, params.rateLimitRps, request.paceSlotAt !== undefined, sendAt);
		if (data.rate.nextAt > nowMs) admission.paceAt = data.rate.nextAt;
	},
	admissionMerges: readsNoCount,
	completed({ data, nowMs, outcome, events, ownThrottle }) {
		if (outcome.success) countSuccess(data.rate, nowMs);
		// an API that advertises its quota says its limit outright: the quota paces, nothing is guessed
		if (!outcome.throttled || outcome.quota || ownThrottle) return;
		const before = learnedRps(data.rate, nowMs);
		const learned = onThrottle(data.rate, nowMs);
		if (learned !== undefined && learned !== before) events.push({ kind: 'rate-learned', rps: learned });
	},
	forgetAt: (data) => rateForgetAt(data.rate),
	view(data, nowMs, view) {
		const learned = learnedRps(data.rate, nowMs);
		view.pace = { learnedPerSecond: learned !== undefined ? Math.round(learned * 10) / 10 : null, nextAt: data.rate.nextAt > nowMs ? iso(data.rate.nextAt) : null };
	},
	/** A pace learned alone is news of the API; the later next slot is kept. */
	adopt(data, local) {
		const learned = local.rate.learned;
		if (learned && (!data.rate.learned || learned.at > data.rate.learned.at)) data.rate.learned = { ...learned };
		data.rate.nextAt = Math.max(data.rate.nextAt, local.rate.nextAt);
	},
};
