/**
 * An adaptive limit on items in flight: AIMD with slow start, as TCP congestion control, Netflix's
 * concurrency-limits and Envoy's adaptive concurrency do it. Pure: no timers, no clock; the caller
 * reports each attempt's outcome.
 *
 * - Slow start: +1 per success, so the window doubles per round (one round = one window's worth of
 *   answers) until the first overload.
 * - Then additive increase: +1/window per success, about +1 per round.
 * - Multiplicative decrease on overload: halve (floor, at least 1), at most once per round. A round
 *   is told by start numbers: an overload from an attempt started before the last decrease was
 *   already answered by that decrease (a burst of simultaneous 429s is one signal, not fifty).
 * - Never above the ceiling; 'fixed' mode is the ceiling, always.
 */
import type { AttemptFailure } from './classify';

export const INITIAL_WINDOW = 10;

export interface AdaptiveLimitOptions {
	/** The most items in flight, whole number >= 1. */
	ceiling: number;
	/** 'fixed': always the ceiling (no adaptation). */
	mode: 'adaptive' | 'fixed';
	/** Default INITIAL_WINDOW (lowered to the ceiling). */
	initial?: number;
}

/** What a decrease changed, for the log. */
export interface WindowDecrease {
	from: number;
	to: number;
}

export interface AdaptiveLimit {
	/** Items that may be in flight now: a whole number, 1 to the ceiling. */
	current(): number;
	/** Numbers an attempt when it starts; hand the number back with onOverload. */
	nextStartSeq(): number;
	onSuccess(): void;
	/** Returns the decrease, or undefined when the signal was ignored (fixed mode, same round, already 1). */
	onOverload(startSeq: number): WindowDecrease | undefined;
}

function wholeAtLeastOne(value: number, label: string): number {
	if (!Number.isInteger(value) || value < 1) throw new RangeError(`${label} must be a whole number of at least 1, got ${value}`);
	return value;
}

export function createAdaptiveLimit(options: AdaptiveLimitOptions): AdaptiveLimit {
	const ceiling = wholeAtLeastOne(options.ceiling, 'ceiling');
	let starts = 0;
	if (options.mode === 'fixed') {
		return {
			current: () => ceiling,
			nextStartSeq: () => starts++,
			onSuccess: () => {},
			onOverload: () => undefined,
		};
	}
	let window = Math.min(ceiling, wholeAtLeastOne(options.initial ?? INITIAL_WINDOW, 'initial window'));
	let slowStart = true;
	// additive increase counts successes and adds 1 per window's worth (+1/window each, in whole
	// numbers: fractions would drift below +1 per round)
	let successesToward = 0;
	/** Attempts numbered below this started before the last decrease. */
	let roundStartsAt = 0;
	return {
		current: () => window,
		nextStartSeq: () => starts++,
		onSuccess: () => {
			if (window >= ceiling) return;
			if (slowStart) {
				window++;
			} else if (++successesToward >= window) {
				successesToward = 0;
				window++;
			}
		},
		onOverload: (startSeq) => {
			if (startSeq < roundStartsAt) return undefined;
			slowStart = false;
			successesToward = 0;
			roundStartsAt = starts;
			const from = window;
			window = Math.max(1, Math.floor(window / 2));
			return window < from ? { from, to: window } : undefined;
		},
	};
}

/**
 * Whether a failed attempt says "too much at once": 429 and 503 are the API's back-pressure, and an
 * attempt that timed out waited on a server or a queue that could not keep up. Other failures leave
 * the window alone: a 500, 502 or 504, a reset connection or a 4xx is an error of the request or of
 * the server, not a sign of our load, and halving on them would slow a healthy batch to a crawl
 * because of a few bad items (the retry budget and the circuit breaker answer those).
 */
export function isOverloadSignal(failure: AttemptFailure): boolean {
	if (failure.kind === 'timeout') return true;
	return failure.kind === 'status' && (failure.status === 429 || failure.status === 503);
}
