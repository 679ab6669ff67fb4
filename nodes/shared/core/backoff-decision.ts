/**
 * The Backoff Delay node's decision for one item: retry after some delay, or give up. Pure:
 * the same classification and delay planning as the HTTP node's retry loop.
 */
import type { BackoffParams } from './backoff';
import { classifyNetworkError, classifyStatus, type StatusSet } from './classify';
import { planDelay } from './delay-plan';
import type { ItemFailure } from './item-failure';
import type { ServerDelay } from './retry-after';
import { formatDuration, type DelayReason } from './retry-story';

export interface BackoffLoopPolicy {
	maxAttempts: number;
	backoff: BackoffParams;
	/** 0: none. Counted from the item's first failure. */
	totalDeadlineMs: number;
	maxServerDelayMs: number;
	/** Classify failures (false: retry whatever failed). */
	onlyTransient: boolean;
	retryOn: StatusSet;
}

/** What the node remembers on the item between passes. */
export interface LoopState {
	/** Attempts made so far (the one that just failed included). */
	attemptsMade: number;
	firstFailureAt: number;
	previousDelayMs?: number;
}

export type GiveUpReason = 'attempts-exhausted' | 'deadline-exceeded' | 'not-retryable' | 'not-safe-to-retry' | 'server-delay-too-long' | 'retry-budget-exhausted' | 'not-a-failure';

export type BackoffDecision =
	| { route: 'retry'; nextAttempt: number; delayMs: number; delayReason: DelayReason; delayHeader?: string }
	| { route: 'give-up'; reason: GiveUpReason; message: string; serverDelay?: ServerDelay };

function describe(failure: ItemFailure): string {
	if (failure.status !== undefined) return `status ${failure.status}`;
	if (failure.code) return `error ${failure.code}`;
	return failure.message ? `error "${failure.message}"` : 'an unspecified failure';
}

/** Is this failure worth another try? Returns why not, or undefined when it is. */
function notRetryable(failure: ItemFailure, policy: BackoffLoopPolicy): { reason: GiveUpReason; message: string } | undefined {
	// The HTTP node already judged it: never re-send what it found unsafe or final
	if (failure.resilientReason === 'not-safe-to-retry') {
		return { reason: 'not-safe-to-retry', message: 'The request may have been processed and is not safe to send again (no idempotency key)' };
	}
	if (failure.resilientReason === 'final-status' || failure.resilientReason === 'not-retryable-error') {
		return { reason: 'not-retryable', message: `${describe(failure)} is final` };
	}
	// A spent retry budget means a storm: stop retrying, keep the item for replay
	if (failure.resilientReason === 'retry-budget-exhausted') {
		return { reason: 'retry-budget-exhausted', message: 'The retry budget is spent: too many retries for the traffic; keep the item for replay' };
	}
	// An open circuit is transient by nature: it hands on its openUntil as retryAt, so the wait
	// lasts until the probe may go
	if (failure.resilientReason === 'circuit-open') return undefined;
	if (!policy.onlyTransient) return undefined;
	if (failure.status !== undefined) {
		const classified = classifyStatus(failure.status, undefined, policy.retryOn);
		if (classified && !classified.transient) return { reason: 'not-retryable', message: `Status ${failure.status} is final: it is not in Retry On Status Codes` };
		return undefined;
	}
	if (failure.code) {
		const classified = classifyNetworkError(failure.code, failure.message ?? '');
		if (!classified && failure.code !== 'ECANCELED') return { reason: 'not-retryable', message: `Error ${failure.code} is not a transient failure` };
	}
	return undefined;
}

export function decideBackoff(failure: ItemFailure, state: LoopState, policy: BackoffLoopPolicy, nowMs: number, random: () => number): BackoffDecision {
	if (!failure.failed) return { route: 'give-up', reason: 'not-a-failure', message: `The item carries no failure (${describe(failure)}): nothing to retry` };
	const refusal = notRetryable(failure, policy);
	if (refusal) return { route: 'give-up', ...refusal };
	if (state.attemptsMade >= policy.maxAttempts) {
		return { route: 'give-up', reason: 'attempts-exhausted', message: `Gave up after ${state.attemptsMade} attempts: last ${describe(failure)}` };
	}
	const remainingMs = policy.totalDeadlineMs > 0 ? state.firstFailureAt + policy.totalDeadlineMs - nowMs : Infinity;
	const plan = planDelay({
		retry: state.attemptsMade,
		backoff: policy.backoff,
		...(failure.serverDelay ? { requested: failure.serverDelay } : {}),
		maxServerDelayMs: policy.maxServerDelayMs,
		remainingMs,
		...(state.previousDelayMs !== undefined ? { previousDelayMs: state.previousDelayMs } : {}),
		random,
	});
	switch (plan.kind) {
		case 'server-delay-too-long':
			return {
				route: 'give-up',
				reason: 'server-delay-too-long',
				message: `The server asked to wait ${formatDuration(plan.requested.delayMs)}, more than ${plan.limit === 'deadline' ? 'the total deadline leaves' : `Max Server-Requested Delay (${formatDuration(policy.maxServerDelayMs)})`}`,
				serverDelay: plan.requested,
			};
		case 'deadline':
			return { route: 'give-up', reason: 'deadline-exceeded', message: `The next attempt (in ${formatDuration(plan.delayMs)}) would start after the total deadline: last ${describe(failure)}` };
		case 'wait':
			return { route: 'retry', nextAttempt: state.attemptsMade + 1, delayMs: plan.delayMs, delayReason: plan.reason, ...(plan.header ? { delayHeader: plan.header } : {}) };
	}
}
