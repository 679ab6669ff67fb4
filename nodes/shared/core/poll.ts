/**
 * The pace of a polling loop: how long to wait before asking again whether a job is done, when the
 * server did not say (a Retry-After on the "not yet" answer wins, see delay-plan.ts). Pure: the
 * random source is injected.
 *
 * A poll is not a failure: the interval grows gently from a short first wait (a job of seconds is
 * seen soon after it ends), up to a cap (a job of minutes is asked about every few seconds, not at
 * an ever longer interval). The jitter only shortens a wait (down to 90 % of it), so that items
 * started together do not poll in lock-step and no wait is longer than the interval promises; a
 * tenth is enough to spread them, and more would cost requests (a wait cut by a fifth on average
 * polls a tenth more often).
 */
import type { RandomSource } from './backoff';

export interface PollParams {
	/** The wait after the first "not yet" answer. */
	intervalMs: number;
	/** Each further wait is the previous one times this (1: a fixed interval). */
	growth: number;
	/** No poll wait is longer than this. */
	maxIntervalMs: number;
	/** "Not yet" answers given before this loop began: the pace goes on from them (see pollParamsAfter). */
	answeredBefore?: number;
}

/**
 * The shortest wait between polls a server's own wait (a Retry-After of 0 on a "not yet" answer)
 * can set: a user's shorter Poll Interval lowers it.
 */
export const SERVER_POLL_FLOOR_MS = 1000;

/** The share of a poll wait the jitter may take off. */
const POLL_JITTER = 0.1;

/**
 * The pace of a loop that begins after `answered` "not yet" answers were already given (the 202
 * that started an operation): its first wait is the one after answer `answered + 1`.
 */
export function pollParamsAfter(params: PollParams, answered: number): PollParams {
	return { ...params, answeredBefore: (params.answeredBefore ?? 0) + answered };
}

/** The wait after the n-th "not yet" answer (1-based). */
export function pollDelay(params: PollParams, poll: number, random: RandomSource): number {
	const cap = Math.max(0, params.maxIntervalMs);
	const first = Math.min(Math.max(0, params.intervalMs), cap);
	// the exponent is bounded: past it every sane growth is far over the cap
	const n = poll + (params.answeredBefore ?? 0);
	const ceiling = Math.min(cap, first * Math.pow(Math.max(1, params.growth), Math.min(Math.max(0, n - 1), 200)));
	const r = random();
	const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
	return Math.round(ceiling * (1 - POLL_JITTER * unit));
}
