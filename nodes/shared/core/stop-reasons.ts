/**
 * Why an item stopped retrying: one vocabulary for both nodes (the HTTP node's `_retry.stoppedBecause`
 * and error output `error.reason`, Backoff Delay's `_backoff.stoppedBecause`), and the reader that
 * also understands the values earlier versions wrote on items.
 */

export const STOP_REASONS = [
	'success',
	'final-status',
	'not-retryable-error',
	'attempts-exhausted',
	'deadline-exceeded',
	'retry-after-too-long',
	'not-safe-to-retry',
	'circuit-open',
	'retry-budget-exhausted',
	'canceled',
	'not-a-failure',
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

/** What each reason means, and which node gives it: the README's table is checked against this. */
export const STOP_REASON_MEANINGS: Record<StopReason, { meaning: string; nodes: 'both' | 'Resilient HTTP Request' | 'Backoff Delay' }> = {
	success: { meaning: 'the request succeeded (a story only: nothing stopped)', nodes: 'Resilient HTTP Request' },
	'final-status': { meaning: 'the response status is not in Retry On Status Codes: a fixed request is needed, not a retry', nodes: 'both' },
	'not-retryable-error': { meaning: 'an error that waiting will not fix (unknown host, certificate, too many redirects)', nodes: 'both' },
	'attempts-exhausted': { meaning: 'Max Attempts were made', nodes: 'both' },
	'deadline-exceeded': { meaning: 'the next attempt would start after Total Deadline', nodes: 'both' },
	'retry-after-too-long': { meaning: 'the server asked for a wait longer than Max Server-Requested Delay, or than the deadline leaves', nodes: 'both' },
	'not-safe-to-retry': { meaning: 'a POST or PATCH without an idempotency key that the server may have processed', nodes: 'both' },
	'circuit-open': { meaning: 'the circuit breaker refused the request (Backoff Delay waits for the break and retries)', nodes: 'Resilient HTTP Request' },
	'retry-budget-exhausted': { meaning: 'the retry budget refused the retry: too many retries for the traffic', nodes: 'both' },
	canceled: { meaning: 'the execution was canceled', nodes: 'Resilient HTTP Request' },
	'not-a-failure': { meaning: 'the item carries no failure: nothing to retry', nodes: 'Backoff Delay' },
};

/**
 * Values written by earlier versions. Backoff Delay's `not-retryable` covered both a final status and
 * an error that is not transient: which one it was is told by whether the failure had a status.
 */
const LEGACY: Record<string, (hadStatus: boolean) => StopReason> = {
	'server-delay-too-long': () => 'retry-after-too-long',
	'not-retryable': (hadStatus) => (hadStatus ? 'final-status' : 'not-retryable-error'),
};

/** A stop reason found on an item, in today's vocabulary; undefined when it is none. */
export function readStopReason(value: unknown, hadStatus: boolean): StopReason | undefined {
	if (typeof value !== 'string') return undefined;
	if ((STOP_REASONS as readonly string[]).includes(value)) return value as StopReason;
	return LEGACY[value]?.(hadStatus);
}
