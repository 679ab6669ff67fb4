/**
 * The texts of both nodes' stop reasons: why an item stopped, and the summary around it (attempts,
 * time). One renderer, so that the same situation reads the same in the HTTP node's retry story
 * and error output and in Backoff Delay's annotation. Parameters are named as the editor shows them.
 */
import type { AttemptFailure } from './classify';
import { RETRY_PARAMETERS } from './defaults';
import type { ServerDelay } from './retry-after';
import { formatDuration } from './retry-story';
import type { StopReason } from './stop-reasons';

/** "response 503 Service Unavailable", "error ECONNRESET: socket hang up", "attempt timed out (...)". */
export function describeFailure(failure: Pick<AttemptFailure, 'kind' | 'code' | 'message' | 'notYet'>): string {
	if (failure.notYet) return `response ${failure.message} met ${RETRY_PARAMETERS.retryWhen.displayName}`;
	if (failure.kind === 'status') return `response ${failure.message}`;
	if (failure.kind === 'timeout') return `attempt timed out (${failure.message || failure.code || 'no answer in time'})`;
	const text = [failure.code, failure.message].filter((part) => part !== undefined && part !== '').join(': ');
	return text === '' ? 'an unspecified failure' : `error ${text}`;
}

interface StopFacts {
	reason: StopReason;
	/** The last failure, described. */
	last: string;
	/** not-safe-to-retry: why, as the method safety check says it; final-status: what the server said. */
	detail?: string;
	/** retry-after-too-long: what was asked, and which bound it passed. */
	requested?: ServerDelay;
	limit?: 'max-server-delay' | 'deadline';
	maxServerDelayMs?: number;
	/** deadline-exceeded: the wait that would have ended after the deadline. */
	nextDelayMs?: number;
}

/** Why the item stopped, without the attempts and time around it. */
export function whyStopped(facts: StopFacts): string {
	const { last } = facts;
	switch (facts.reason) {
		case 'final-status':
			return `${last} is final: ${facts.detail ?? `its status is not in ${RETRY_PARAMETERS.retryOnStatusCodes.displayName}`}`;
		case 'not-retryable-error':
			return `${last} is not a transient failure`;
		case 'not-safe-to-retry':
			return `Not retried: ${facts.detail ?? 'the request may have been processed and is not safe to send again (no idempotency key)'}`;
		case 'attempts-exhausted':
			return `last ${last}`;
		case 'retry-after-too-long': {
			const asked = facts.requested ? `${formatDuration(facts.requested.delayMs)} (${facts.requested.header})` : 'longer';
			const bound =
				facts.limit === 'deadline' ? 'more than the total deadline leaves' : `more than ${RETRY_PARAMETERS.maxServerDelay.shortName} (${formatDuration(facts.maxServerDelayMs ?? 0)})`;
			return `The server asked to wait ${asked}, ${bound}; last ${last}`;
		}
		case 'not-done-by-deadline':
			return `not done: the next poll (in ${formatDuration(facts.nextDelayMs ?? 0)}) would start after the total deadline; last ${last}`;
		case 'deadline-exceeded':
			return `the next retry (in ${formatDuration(facts.nextDelayMs ?? 0)}) would start after the total deadline; last ${last}`;
		case 'retry-budget-exhausted':
			return 'The retry budget is spent: too many retries for the traffic; keep the item for replay';
		case 'api-held':
			return `The API is held (it looks down); last ${last}`;
		case 'not-a-failure':
			return `The item carries no failure (${last}): nothing to retry`;
		case 'canceled':
			return 'the execution was canceled';
		case 'success':
			return 'Succeeded';
	}
}

interface StopProgress {
	attempts: number;
	/** Time the item has taken; undefined where a node cannot know it (Backoff Delay). */
	elapsedMs?: number;
}

/** The summary of a stop: "Gave up after 4 attempts in 12.3 s: last response 503 Service Unavailable". */
export function stopSummary(reason: StopReason, why: string, progress: StopProgress): string {
	const n = progress.attempts;
	const after = `${n} attempt${n === 1 ? '' : 's'}${progress.elapsedMs !== undefined ? ` in ${formatDuration(progress.elapsedMs)}` : ''}`;
	switch (reason) {
		case 'attempts-exhausted':
		case 'deadline-exceeded':
		case 'not-done-by-deadline':
			return `Gave up after ${after}: ${why}`;
		case 'final-status':
		case 'not-retryable-error':
			return n > 1 ? `Stopped after ${after}: ${why}` : why.charAt(0).toUpperCase() + why.slice(1);
		default:
			return why;
	}
}
