/**
 * Backoff delays with jitter. Pure: the random source is injected.
 * Attempt numbers are 1-based retry numbers: retry 1 is the wait before the second attempt.
 */
export type JitterStrategy = 'full' | 'equal' | 'decorrelated' | 'none';

export const JITTER_STRATEGIES: readonly JitterStrategy[] = ['full', 'equal', 'decorrelated', 'none'];

export interface BackoffParams {
	strategy: JitterStrategy;
	baseDelayMs: number;
	maxDelayMs: number;
}

/** Returns a number in [0, 1). */
export type RandomSource = () => number;

/** The exponential ceiling base * 2^(retry-1), capped, without overflowing to Infinity. */
export function exponentialCeiling(retry: number, baseDelayMs: number, maxDelayMs: number): number {
	const exponent = Math.max(0, retry - 1);
	// 2^1024 is Infinity; any exponent past ~60 is already far over every sane cap.
	const ceiling = baseDelayMs * Math.pow(2, Math.min(exponent, 60));
	return Math.min(maxDelayMs, ceiling);
}

/** Validated parameters never hold NaN, negative or infinite delays; this keeps the math total anyway. */
function saneMs(ms: number): number {
	return Number.isNaN(ms) ? 0 : Math.min(Math.max(ms, 0), Number.MAX_SAFE_INTEGER);
}

function uniform(random: RandomSource, low: number, high: number): number {
	const r = random();
	// A faulty random source must not turn into NaN or an out-of-range delay.
	const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
	return low + (high - low) * unit;
}

/**
 * Delay before retry number `retry`.
 * `previousDelayMs` is only read by the decorrelated strategy (the delay chosen for the retry before).
 *
 * Decorrelated: the AWS formula `min(cap, random(base, prev * 3))` puts two thirds or more of
 * the delays exactly on the cap once `prev * 3` passes it, so clients pile up there in lock-step.
 * We cap the range before drawing instead: `random(base, min(cap, prev * 3))`, which keeps
 * the delays spread over [base, cap].
 */
export function computeBackoffDelay(
	params: BackoffParams,
	retry: number,
	random: RandomSource,
	previousDelayMs?: number,
): number {
	const base = saneMs(params.baseDelayMs);
	const cap = saneMs(params.maxDelayMs);
	if (cap === 0) return 0;
	const ceiling = exponentialCeiling(Number.isNaN(retry) ? 1 : retry, base, cap);
	let delay: number;
	switch (params.strategy) {
		case 'none':
			delay = ceiling;
			break;
		case 'full':
			delay = uniform(random, 0, ceiling);
			break;
		case 'equal':
			delay = ceiling / 2 + uniform(random, 0, ceiling / 2);
			break;
		case 'decorrelated': {
			const low = Math.min(base, cap);
			const previous = previousDelayMs !== undefined && previousDelayMs > low ? previousDelayMs : low;
			const high = Math.min(cap, previous * 3);
			delay = uniform(random, low, Math.max(low, high));
			break;
		}
		default:
			throw new Error(`Unknown jitter strategy: ${String(params.strategy)}`);
	}
	// Round first, then cap: rounding a capped value could step over a fractional cap.
	return Math.min(Math.floor(cap), Math.round(Math.max(0, delay)));
}
