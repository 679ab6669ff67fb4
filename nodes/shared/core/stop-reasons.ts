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
	'api-held',
	'retry-budget-exhausted',
	'canceled',
	'not-a-failure',
	'not-done-by-deadline',
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

/**
 * Values written by earlier versions. Backoff Delay's `not-retryable` covered both a final status and
 * an error that is not transient: which one it was is told by whether the failure had a status.
 */
const LEGACY: Record<string, (hadStatus: boolean) => StopReason> = {
	'server-delay-too-long': () => 'retry-after-too-long',
	// the hold was named for the circuit breaker's state (docs/glossary.md: one name per concept)
	'circuit-open': () => 'api-held',
	'not-retryable': (hadStatus) => (hadStatus ? 'final-status' : 'not-retryable-error'),
};

/** A stop reason found on an item, in today's vocabulary; undefined when it is none. */
export function readStopReason(value: unknown, hadStatus: boolean): StopReason | undefined {
	if (typeof value !== 'string') return undefined;
	if ((STOP_REASONS as readonly string[]).includes(value)) return value as StopReason;
	return LEGACY[value]?.(hadStatus);
}
