/**
 * The one decision of the retry engine: what follows a failed attempt. The HTTP node asks it after
 * each failed attempt of its loop, Backoff Delay on each pass of an item through it. Pure.
 *
 * Its inputs have the shape of smithy's retry token: the failure, classified once where it was read;
 * the attempt state (a small token the HTTP node keeps in memory and Backoff Delay keeps on the
 * item); the policy.
 */
import type { BackoffParams } from './backoff';
import type { AttemptFailure } from './classify';
import { planDelay } from './delay-plan';
import { isSafeToRetry, type SafetyContext } from './method-safety';
import type { PollParams } from './poll';
import type { ServerDelay } from './retry-after';
import type { DelayReason } from './retry-story';
import { describeFailure, whyStopped } from './stop-messages';
import type { StopReason } from './stop-reasons';

/** The attempt state between two attempts. */
export interface RetryToken {
	/** Attempts made so far, the one that just failed included. */
	attempts: number;
	/** Where the total deadline counts from (epoch ms). */
	startedAt: number;
	/** The last backoff wait, which decorrelated jitter grows from. */
	previousDelayMs?: number;
	/** Of the attempts, those answered "not yet" (Retry When): polls, not failures. */
	polls?: number;
}

export interface DecisionPolicy {
	maxAttempts: number;
	backoff: BackoffParams;
	/** 0: none. Counted from the token's startedAt. */
	totalDeadlineMs: number;
	/** Longest server-requested wait accepted; longer ones stop with `retry-after-too-long`. */
	maxServerDelayMs: number;
	/**
	 * The request, to judge whether sending it again is safe. Absent where the request is not known
	 * (Backoff Delay): the node that sent it has judged that already (the failure's `judged`).
	 */
	safety?: SafetyContext;
	/** The polling pace after a "not yet" answer (Retry When); absent where nothing polls. */
	poll?: PollParams;
}

export type Decision =
	| { retry: true; delayMs: number; delayReason: DelayReason; delayHeader?: string }
	| { retry: false; stop: StopReason; why: string; serverDelay?: ServerDelay; nextPollInMs?: number };

function stop(reason: StopReason, why: string, serverDelay?: ServerDelay): Decision {
	return { retry: false, stop: reason, why, ...(serverDelay ? { serverDelay } : {}) };
}

/** The failed attempts among the attempts made: what Max Attempts bounds. */
function failedAttempts(token: RetryToken): number {
	return token.attempts - (token.polls ?? 0);
}

function remainingOf(token: RetryToken, policy: DecisionPolicy, nowMs: number): number {
	return policy.totalDeadlineMs > 0 ? token.startedAt + policy.totalDeadlineMs - nowMs : Infinity;
}

/**
 * A "not yet" answer (Retry When): ask again at the polling pace, or at the pace the answer's
 * Retry-After gives, until the total deadline. No Max Attempts: a poll is not a failure.
 */
function decideAfterNotYet(failure: AttemptFailure, token: RetryToken, policy: DecisionPolicy & { poll: PollParams }, nowMs: number, random: () => number): Decision {
	const last = describeFailure(failure);
	const plan = planDelay({
		retry: (token.polls ?? 0) + 1,
		backoff: policy.backoff,
		poll: policy.poll,
		...(failure.serverDelay ? { requested: failure.serverDelay } : {}),
		maxServerDelayMs: policy.maxServerDelayMs,
		remainingMs: remainingOf(token, policy, nowMs),
		random,
	});
	switch (plan.kind) {
		case 'server-delay-too-long':
			return stop('retry-after-too-long', whyStopped({ reason: 'retry-after-too-long', last, requested: plan.requested, limit: plan.limit, maxServerDelayMs: policy.maxServerDelayMs }), plan.requested);
		case 'deadline':
			return { retry: false, stop: 'not-done-by-deadline', why: whyStopped({ reason: 'not-done-by-deadline', last, nextDelayMs: plan.delayMs }), nextPollInMs: plan.delayMs };
		case 'wait':
			return { retry: true, delayMs: plan.delayMs, delayReason: plan.reason, ...(plan.header ? { delayHeader: plan.header } : {}) };
	}
}

export function decideAfterFailure(failure: AttemptFailure, token: RetryToken, policy: DecisionPolicy, nowMs: number, random: () => number): Decision {
	const last = describeFailure(failure);
	if (failure.judged) return stop(failure.judged, whyStopped({ reason: failure.judged, last }));
	if (!failure.transient) {
		const reason = failure.kind === 'status' ? 'final-status' : 'not-retryable-error';
		return stop(reason, whyStopped({ reason, last, ...(failure.finalBecause ? { detail: failure.finalBecause } : {}) }));
	}
	if (policy.safety) {
		const safety = isSafeToRetry(failure, policy.safety);
		if (!safety.safe) return stop('not-safe-to-retry', whyStopped({ reason: 'not-safe-to-retry', last, detail: safety.why }));
	}
	if (failure.notYet && policy.poll) return decideAfterNotYet(failure, token, { ...policy, poll: policy.poll }, nowMs, random);
	if (failedAttempts(token) >= policy.maxAttempts) return stop('attempts-exhausted', whyStopped({ reason: 'attempts-exhausted', last }));

	const plan = planDelay({
		retry: token.attempts,
		backoff: policy.backoff,
		...(failure.serverDelay ? { requested: failure.serverDelay } : {}),
		maxServerDelayMs: policy.maxServerDelayMs,
		remainingMs: remainingOf(token, policy, nowMs),
		...(token.previousDelayMs !== undefined ? { previousDelayMs: token.previousDelayMs } : {}),
		random,
	});
	switch (plan.kind) {
		case 'server-delay-too-long':
			return stop('retry-after-too-long', whyStopped({ reason: 'retry-after-too-long', last, requested: plan.requested, limit: plan.limit, maxServerDelayMs: policy.maxServerDelayMs }), plan.requested);
		case 'deadline':
			return stop('deadline-exceeded', whyStopped({ reason: 'deadline-exceeded', last, nextDelayMs: plan.delayMs }));
		case 'wait':
			return { retry: true, delayMs: plan.delayMs, delayReason: plan.reason, ...(plan.header ? { delayHeader: plan.header } : {}) };
	}
}

/** The token after a retry was decided on `failure`: one more attempt is about to be made. */
export function nextToken(token: RetryToken, decision: Extract<Decision, { retry: true }>, failure?: Pick<AttemptFailure, 'notYet'>): RetryToken {
	// only a backoff wait feeds decorrelated jitter: a server-requested wait is not the backoff's
	const previousDelayMs = decision.delayReason === 'backoff' ? decision.delayMs : token.previousDelayMs;
	const polls = (token.polls ?? 0) + (failure?.notYet ? 1 : 0);
	return { attempts: token.attempts + 1, startedAt: token.startedAt, ...(previousDelayMs !== undefined ? { previousDelayMs } : {}), ...(polls > 0 ? { polls } : {}) };
}
