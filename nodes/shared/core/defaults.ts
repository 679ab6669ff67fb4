/**
 * Which items carry the retry story: the items whose request failed (the error output, Continue,
 * the thrown error's description), every item, or none.
 */
export type RetryStoryPlacement = 'failedItems' | 'everyItem' | 'off';

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
	retryOnStatuses: '408, 429, 500, 502, 503, 504, 529',
	/** x-should-retry, Stripe-Should-Retry, rate-limit 403s, waits in error bodies (server-signals.ts). */
	obeyServerHints: true,
	idempotencyHeader: 'Idempotency-Key',
	storyField: '_retry',
	/** Where the story goes: only on failed items, so a success item is HTTP Request's (see RetryStoryPlacement). */
	story: 'failedItems' as RetryStoryPlacement,
} as const;

/**
 * The polling pace after a "not yet" answer (Retry When) that names no wait of its own: 3 s, then
 * 6 s, then every 8 s. The fixed 5 s Wait + IF loop it replaces is the yardstick: no more requests
 * for a job of seconds (the start and one status answer when the job ends within 3 s), fewer for
 * jobs of half a minute or more, seen done within about one of the loop's intervals of when the
 * loop sees it (docs/polling.md: the simulation over job lengths and the measured benchmark).
 */
export const POLL_DEFAULTS = {
	intervalMs: 3000,
	growth: 2,
	maxIntervalMs: 8000,
} as const;

/** Hard limits that keep parameters sane whatever the user types. */
export const RETRY_LIMITS = {
	maxAttempts: 100,
	maxDelayMs: 24 * 3600_000,
	idempotencyKeyLength: 255,
} as const;

const DAY_MS = 24 * 3600_000;

/**
 * The parameters both nodes share, as the editor names them, with the limits the runtime enforces
 * (the editor's minValue/maxValue come from here too). Declared in n8n's terms in n8n/retry-parameters.ts.
 */
export const RETRY_PARAMETERS = {
	maxAttempts: { name: 'maxAttempts', displayName: 'Max Attempts', min: 1, max: RETRY_LIMITS.maxAttempts, integer: true },
	retryOnStatusCodes: { name: 'retryOnStatusCodes', displayName: 'Retry On Status Codes' },
	obeyServerHints: { name: 'obeyServerHints', displayName: 'Obey Server Retry Hints' },
	retryWhen: { name: 'retryWhen', displayName: 'Retry When' },
	pollInterval: { name: 'pollInterval', displayName: 'Poll Interval (Ms)', min: 0, max: DAY_MS, integer: false },
	pollGrowth: { name: 'pollGrowth', displayName: 'Poll Interval Growth', min: 1, max: 10, integer: false },
	maxPollInterval: { name: 'maxPollInterval', displayName: 'Max Poll Interval (Ms)', min: 0, max: DAY_MS, integer: false },
	baseDelay: { name: 'baseDelay', displayName: 'Base Delay (Ms)', min: 0, max: DAY_MS, integer: false },
	maxDelay: { name: 'maxDelay', displayName: 'Max Delay (Ms)', min: 0, max: DAY_MS, integer: false },
	jitter: { name: 'jitter', displayName: 'Jitter' },
	totalDeadline: { name: 'totalDeadline', displayName: 'Total Deadline (Ms)', min: 0, max: DAY_MS, integer: false },
	maxServerDelay: { name: 'maxServerDelay', displayName: 'Max Server-Requested Delay (Ms)', shortName: 'Max Server-Requested Delay', min: 0, max: DAY_MS, integer: false },
} as const;
