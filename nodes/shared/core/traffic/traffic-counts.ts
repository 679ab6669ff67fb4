/**
 * What the traffic controllers' metrics count, per API: each request that passed a controller (an
 * item's first, a resend and why, a poll), its answer (the status, or no answer and why), its
 * waits at the gate (how many and how long, by reason), the requests the gate let leave unsent
 * (the stop reason), and the controller's events (pauses, their ends, holds, recoveries, smaller
 * windows, learned paces). Counted where those already exist: the gate's result, the attempt's
 * result and the events a step reports; a healthy request adds three numbers to a map.
 *
 * Counts are flat: one number per field `<counter>:<label value>` (or `<counter>` alone), so that
 * one process's map and a Redis hash (the fleet's, state/redis-store.ts) hold the same thing and
 * add up field by field. metric-families.ts says how each field is exposed. Pure: no n8n, no store.
 */
import type { AttemptFailure } from '../classify';
import type { GateStop } from '../retry-loop';
import type { TrafficEvent, WaitReason } from './types';
import { HOLD_ENDED_BY } from './limits/hold';

/** Counts by field: `<counter>:<label value>` or `<counter>`. */
export type Counts = Record<string, number>;

/** The counters, and the field names they own (never rename one: the fleet's hashes in Redis keep them). */
export const COUNTERS = Object.freeze({
	/** Requests sent, by kind: `first`, `resend`, `poll`. */
	requests: 'req',
	/** Resends, by why: the previous attempt's failure (`throttled`, `server_error`, `client_error`, `network`, `timeout`), or `loop`. */
	resends: 'resend',
	/** Answers, by HTTP status code. */
	responses: 'status',
	/** Attempts that got no answer, by why: `timeout`, `network`. */
	errors: 'err',
	/** Requests that waited at the gate, by reason. */
	waits: 'wait',
	/** Time waited at the gate, by reason, in ms (exposed in seconds). */
	waitMs: 'waitms',
	/** Requests the gate let leave unsent, by stop reason. */
	stops: 'stop',
	/** Pauses that began. */
	pauses: 'paused',
	/** Pauses that ended, by how: `time`, `probe`, `refilled`, `hand`. */
	pauseEnds: 'resumed',
	/** Holds that began (the API looked down). */
	holds: 'held',
	/** Holds that ended (the API answered again, or by hand). */
	recoveries: 'recovered',
	/** Times the window was made smaller. */
	windowDecreases: 'window',
	/** Times a pace was learned from throttling. */
	pacesLearned: 'pace',
});

export type Counter = (typeof COUNTERS)[keyof typeof COUNTERS];

/** The field of a counter, with its label's value if it has one. */
export const fieldOf = (counter: Counter, value?: string): string => (value === undefined ? counter : `${counter}:${value}`);

/** Why a request is sent again: what the previous attempt's failure was. */
function resendReason(last: AttemptFailure): string {
	if (last.kind !== 'status') return last.kind;
	const status = last.status ?? 0;
	if (status === 429) return 'throttled';
	return status >= 500 ? 'server_error' : 'client_error';
}

/** What a request passing the gate counts: its kind (and a resend's reason), its waits, or the stop it left with. */
export function gateCounts(
	request: { attempt: number; last: AttemptFailure | undefined; loopRetry: boolean },
	result: { go: boolean; stop?: GateStop | 'canceled'; waits: Partial<Record<WaitReason, number>> },
): Counts {
	const counts: Counts = {};
	for (const [reason, ms] of Object.entries(result.waits) as Array<[WaitReason, number]>) {
		counts[fieldOf(COUNTERS.waits, reason)] = 1;
		counts[fieldOf(COUNTERS.waitMs, reason)] = Math.max(0, Math.round(ms));
	}
	if (!result.go) {
		// a canceled execution is no decision of the controller's
		if (result.stop !== undefined && result.stop !== 'canceled') counts[fieldOf(COUNTERS.stops, result.stop)] = 1;
		return counts;
	}
	const last = request.attempt > 1 ? request.last : undefined;
	if (last?.notYet) counts[fieldOf(COUNTERS.requests, 'poll')] = 1;
	else if (last) {
		counts[fieldOf(COUNTERS.requests, 'resend')] = 1;
		counts[fieldOf(COUNTERS.resends, resendReason(last))] = 1;
	} else if (request.loopRetry) {
		// the item's first request here, after a failure that sent it through a Backoff Delay loop
		counts[fieldOf(COUNTERS.requests, 'resend')] = 1;
		counts[fieldOf(COUNTERS.resends, 'loop')] = 1;
	} else counts[fieldOf(COUNTERS.requests, 'first')] = 1;
	return counts;
}

/** What an attempt's result counts: its answer's status, or why there was none. */
export function resultCounts(result: { ok: true; status?: number } | { ok: false; failure: AttemptFailure }): Counts {
	const status = result.ok ? result.status : result.failure.status;
	if (status !== undefined) return { [fieldOf(COUNTERS.responses, String(status))]: 1 };
	if (result.ok) return {};
	return { [fieldOf(COUNTERS.errors, result.failure.kind === 'timeout' ? 'timeout' : 'network')]: 1 };
}

/** What the controller's events count. */
export function eventCounts(events: readonly TrafficEvent[]): Counts {
	const counts: Counts = {};
	const add = (field: string) => (counts[field] = (counts[field] ?? 0) + 1);
	for (const event of events) {
		if (event.kind === 'paused') add(fieldOf(COUNTERS.pauses));
		// a hold ended by hand is reported as `resumed`: it is a hold's end
		else if (event.kind === 'resumed' && event.by === HOLD_ENDED_BY) add(fieldOf(COUNTERS.recoveries));
		else if (event.kind === 'resumed') add(fieldOf(COUNTERS.pauseEnds, event.how));
		else if (event.kind === 'held') add(fieldOf(COUNTERS.holds));
		else if (event.kind === 'recovered') add(fieldOf(COUNTERS.recoveries));
		else if (event.kind === 'window') add(fieldOf(COUNTERS.windowDecreases));
		else add(fieldOf(COUNTERS.pacesLearned));
	}
	return counts;
}

/** One API's counts, and the label it was last counted under. */
export interface ApiCounts {
	key: string;
	label: string;
	counts: Counts;
}

/**
 * Counts per API, added to as requests go: a process's, or what it has not yet handed to a shared
 * store. Bounded: beyond `maxApis` the API counted least recently is forgotten (its counts start
 * again at zero, which Prometheus reads as a counter reset), as the memory store forgets states.
 */
export class TrafficCounts {
	private readonly apis = new Map<string, { label: string; counts: Counts }>();
	/** The API counted last: at the end already, not moved again (a run of one API's requests moves it once). */
	private recent: string | undefined;

	constructor(private readonly maxApis = 10_000) {}

	/** Adds `counts` to the API's (nothing to add: nothing happens). */
	add(key: string, label: string, counts: Counts): void {
		const fields = Object.keys(counts);
		if (fields.length === 0) return;
		let api = this.apis.get(key);
		if (api === undefined) {
			this.apis.set(key, (api = { label, counts: {} }));
			// the oldest goes; an iterator only then (after many moves it walks past their holes)
			if (this.apis.size > this.maxApis) this.apis.delete(this.apis.keys().next().value as string);
		} else if (this.recent !== key) {
			// the most recently counted at the end: the oldest is the first to go
			this.apis.delete(key);
			this.apis.set(key, api);
		}
		this.recent = key;
		api.label = label;
		for (const field of fields) api.counts[field] = (api.counts[field] ?? 0) + counts[field];
	}

	/** Every API's counts (copies). */
	all(): ApiCounts[] {
		return [...this.apis].map(([key, api]) => ({ key, label: api.label, counts: { ...api.counts } }));
	}

	/** Every API's counts, and none kept: what is handed to a shared store. */
	take(): ApiCounts[] {
		const taken = [...this.apis].map(([key, api]) => ({ key, ...api }));
		this.apis.clear();
		this.recent = undefined;
		return taken;
	}

	get size(): number {
		return this.apis.size;
	}
}
