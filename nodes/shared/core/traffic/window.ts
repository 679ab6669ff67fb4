/**
 * The learned limit on requests in flight to one API: AIMD with slow start, as TCP congestion
 * control, Netflix's concurrency-limits and Envoy's adaptive concurrency do it. Pure, and plain
 * JSON, so that a store keeps it per API between executions (the second execution starts from
 * what the first learned) and across workers.
 *
 * - Slow start: +1 per success, so the window doubles per round (one round = one window's worth of
 *   answers) until the first overload.
 * - Then additive increase: +1 per window's worth of successes, about +1 per round.
 * - Multiplicative decrease on overload: halve (at least 1), at most once per round. A round is told
 *   by start numbers: an overload of a request that started before the last decrease was already
 *   answered by that decrease (a burst of simultaneous 429s is one signal, not fifty). Not for a
 *   throttle that paused the API (429 + Retry-After > 0): the controller leaves it to the pause and
 *   the learned pace.
 * - Never above the ceiling; 'fixed' mode is the ceiling, always.
 * - After an outage, the released requests restart from one in flight, in slow start (restart()).
 */

/** Requests in flight an API starts with, before anything was learned of it. */
export const INITIAL_WINDOW = 10;

export interface WindowParams {
	/** The most requests in flight, whole number >= 1 (Max Items in Flight). */
	ceiling: number;
	/** 'fixed': always the ceiling. */
	mode: 'adaptive' | 'fixed';
	/** Default INITIAL_WINDOW (lowered to the ceiling). */
	initial?: number;
}

export interface WindowData {
	size: number;
	slowStart: boolean;
	/** Successes counted toward the next +1 in additive increase. */
	toward: number;
	/** Requests numbered below this started before the last decrease. */
	roundStartsAt: number;
	/** Start numbers handed out so far. */
	starts: number;
}

/** What a decrease changed, for the log. */
export interface WindowDecrease {
	from: number;
	to: number;
}

function whole(value: number, fallback: number): number {
	return Number.isInteger(value) && value >= 1 ? value : fallback;
}

export function freshWindow(params: WindowParams): WindowData {
	const ceiling = whole(params.ceiling, 1);
	return { size: Math.min(ceiling, whole(params.initial ?? INITIAL_WINDOW, INITIAL_WINDOW)), slowStart: true, toward: 0, roundStartsAt: 0, starts: 0 };
}

/** Requests that may be in flight now. */
export function windowSize(data: WindowData, params: WindowParams): number {
	const ceiling = whole(params.ceiling, 1);
	return params.mode === 'fixed' ? ceiling : Math.min(ceiling, whole(data.size, 1));
}

/** Numbers a request as it starts (mutates); hand the number back with onOverload. */
export function nextStart(data: WindowData): number {
	return data.starts++;
}

export function onSuccess(data: WindowData, params: WindowParams): void {
	if (params.mode === 'fixed') return;
	const ceiling = whole(params.ceiling, 1);
	if (data.size >= ceiling) {
		data.size = ceiling;
		return;
	}
	if (data.slowStart) {
		data.size++;
	} else if (++data.toward >= data.size) {
		data.toward = 0;
		data.size++;
	}
}

/** Halves on an overload of a request started in this round; undefined when ignored. */
export function onOverload(data: WindowData, startSeq: number, params: WindowParams): WindowDecrease | undefined {
	if (params.mode === 'fixed' || startSeq < data.roundStartsAt) return undefined;
	data.slowStart = false;
	data.toward = 0;
	data.roundStartsAt = data.starts;
	const from = windowSize(data, params);
	data.size = Math.max(1, Math.floor(from / 2));
	return data.size < from ? { from, to: data.size } : undefined;
}

/** After an outage: one request in flight, in slow start, so the held requests come back gradually. */
export function restart(data: WindowData): void {
	data.size = 1;
	data.slowStart = true;
	data.toward = 0;
	data.roundStartsAt = data.starts;
}
