/**
 * What a failed attempt tells its API's controller, whichever node made it: a throttle and the wait
 * asked, an overload, an outage. One reading for Resilient HTTP Request's attempts and for the
 * outcomes other nodes report through Traffic Control, so that both teach the controller alike.
 */
import type { AttemptFailure } from '../classify';
import type { Outcome } from './types';

/** Statuses by which an API says "too much at once, come back later". */
const OVERLOAD_STATUSES: ReadonlySet<number> = new Set([429, 503, 529]);

export function failureOutcome(failure: AttemptFailure): Pick<Outcome, 'success' | 'outageFailure' | 'overload' | 'throttled' | 'serverWait'> {
	const status = failure.status;
	// a quota no wait restores is the caller's (its key's credits), not the API's load: no pause, pace or smaller window for the others
	const rateSignal = failure.quotaSpent !== true;
	const throttled = rateSignal && (status === 429 || ((status === 503 || status === 529) && failure.serverDelay !== undefined));
	return {
		success: false,
		// the API misbehaving: errors, timeouts, 5xx; a 4xx (429 included) is no sign of an outage
		outageFailure: failure.transient && (failure.kind !== 'status' || (status ?? 0) >= 500),
		overload: failure.kind === 'timeout' || (rateSignal && status !== undefined && OVERLOAD_STATUSES.has(status)),
		throttled,
		...(throttled && failure.serverDelay ? { serverWait: { ms: failure.serverDelay.delayMs, header: failure.serverDelay.header, ...(failure.serverDelay.inferred ? { inferred: true } : {}) } } : {}),
	};
}

/** The previous attempt was throttled and told when to come back: the retry is the server's pace. */
export function wasPaced(last: AttemptFailure | undefined): boolean {
	return last !== undefined && last.serverDelay !== undefined && last.status !== undefined && OVERLOAD_STATUSES.has(last.status);
}
