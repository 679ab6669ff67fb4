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

/**
 * What a person can do about a stop, in the node's words and naming the parameters as the editor
 * shows them: never HTTP Request's advice (Retry On Fail, batching), which the node replaces.
 */
export function whatToDo(reason: StopReason): string {
	const deadline = RETRY_PARAMETERS.totalDeadline.displayName;
	const later = 'send the item again later (from the error output, through a Backoff Delay node)';
	switch (reason) {
		case 'attempts-exhausted':
			return `What to do: the failure lasted longer than the retries: ${later}, or allow more with ${RETRY_PARAMETERS.maxAttempts.displayName} and ${deadline}.`;
		case 'deadline-exceeded':
			return `What to do: ${later}, or give each item more time with ${deadline}.`;
		case 'not-done-by-deadline':
			return `What to do: poll the job again later (its item is on the error output), or give it more time with ${deadline}.`;
		case 'retry-after-too-long':
			return `What to do: send the item again once the server allows it (a Backoff Delay node on the error output waits until then), or raise ${RETRY_PARAMETERS.maxServerDelay.displayName} so that the node waits itself.`;
		case 'not-safe-to-retry':
			return 'What to do: before sending the item again, find out whether the server processed it: the request may have gone through.';
		case 'api-held':
			return `What to do: ${later} once the API is back, or end the hold by hand with the Traffic Control node.`;
		case 'retry-budget-exhausted':
			return `What to do: ${later}: the budget refills as first attempts go through, and retries beyond it would add to the load of an API that is failing.`;
		case 'final-status':
			return `What to do: change the request as the server's answer says; if this status is transient for this API, add it to ${RETRY_PARAMETERS.retryOnStatusCodes.displayName}.`;
		case 'not-retryable-error':
			return 'What to do: check the URL, the host and the network settings: waiting does not make this error go away.';
		case 'canceled':
			return 'What to do: run the execution again.';
		case 'not-a-failure':
		case 'success':
			return 'Nothing to do.';
	}
}

/**
 * The headline of a failed item: its stop summary, and, when the server (or the API's traffic
 * controller) set a time for another try that the summary does not say yet, that time.
 */
export function stopHeadline(story: { summary: string; retryAt?: string }): string {
	if (story.retryAt === undefined || story.summary.includes(story.retryAt)) return story.summary;
	return `${story.summary}; another try is allowed from ${story.retryAt}`;
}
