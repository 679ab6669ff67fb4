/** The adaptive window on items in flight, fed by the outcome of every attempt through the loop's guards. */
import { isOverloadSignal, type AdaptiveLimit, type WindowDecrease } from '../shared/core/adaptive-limit';
import type { AttemptFailure } from '../shared/core/classify';
import type { GuardVerdict, RetryGuards } from '../shared/core/retry-loop';

/**
 * Adds the adaptive window's feedback to an item's guards, around the budget and the breaker: an
 * attempt is numbered once they let it through (a refused attempt sends nothing), and its outcome
 * is reported after theirs. Attempts of one item run one after another, so one number per item is
 * enough to tell which round an overload belongs to.
 */
export function withWindowFeedback(guards: RetryGuards, limit: AdaptiveLimit, onDecrease: (decrease: WindowDecrease, failure: AttemptFailure) => void): RetryGuards {
	let startSeq = 0;
	return {
		...guards,
		beforeAttempt: async (attempt): Promise<GuardVerdict> => {
			const verdict = guards.beforeAttempt ? await guards.beforeAttempt(attempt) : { allowed: true as const };
			if (verdict.allowed) startSeq = limit.nextStartSeq();
			return verdict;
		},
		afterAttempt: async (attempt, failure) => {
			const note = guards.afterAttempt ? await guards.afterAttempt(attempt, failure) : undefined;
			if (!failure) {
				limit.onSuccess();
			} else if (isOverloadSignal(failure)) {
				const decrease = limit.onOverload(startSeq);
				if (decrease) onDecrease(decrease, failure);
			}
			return note;
		},
	};
}
