/**
 * Every default of the retry policy, in one place (as Polly keeps them in RetryConstants).
 * The README justifies each against got, undici, Polly and the AWS SDKs.
 */
export const RETRY_DEFAULTS = {
	/** Total tries of one item, the first included (1 = no retry). */
	maxAttempts: 5,
	/** First retry waits around a second, like Retry On Fail's default wait. */
	baseDelayMs: 1000,
	/** No single wait longer than this (AWS SDKs: 20 s, undici: 30 s). */
	maxDelayMs: 30_000,
	jitter: 'full' as const,
	/** Bound on all attempts and waits of one item. */
	totalDeadlineMs: 300_000,
	/** Bound on one attempt (connect, send, receive). */
	attemptTimeoutMs: 30_000,
	/** Longest server-requested wait (Retry-After, rate-limit reset) the node sleeps in process. */
	maxServerDelayMs: 60_000,
	retryOnStatuses: '408, 429, 500, 502, 503, 504',
	idempotencyHeader: 'Idempotency-Key',
	storyField: '_retry',
} as const;

/** Hard limits that keep parameters sane whatever the user types. */
export const RETRY_LIMITS = {
	maxAttempts: 100,
	maxDelayMs: 24 * 3600_000,
	idempotencyKeyLength: 255,
} as const;
