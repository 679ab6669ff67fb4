/** The retry story written on every output item: what happened to this item, attempt by attempt. */

import type { StopReason } from './stop-reasons';

export type { StopReason };

export type DelayReason = 'backoff' | 'retry-after' | 'rate-limit-reset';

export interface AttemptRecord {
	attempt: number;
	startedAt: string;
	durationMs: number;
	status?: number;
	statusText?: string;
	errorCode?: string;
	error?: string;
	/** The wait before this attempt (0 for the first). */
	delayBeforeMs: number;
	delayReason?: DelayReason;
	/** The header a server-requested wait came from. */
	delayHeader?: string;
	/** The retry budget's state when it allowed this retry. */
	budget?: Record<string, unknown>;
	/** The circuit breaker's state after this attempt, when it changed. */
	breaker?: Record<string, unknown>;
}

export interface RetryStory {
	attempts: number;
	maxAttempts: number;
	stoppedBecause: StopReason;
	summary: string;
	totalDelayMs: number;
	elapsedMs: number;
	idempotencyKey?: string;
	/** The node that generated the key: it sends the item again under the same key (see idempotency-record.ts). */
	idempotencyKeyOwner?: string;
	/** Set when the server asked for a wait the node would not sleep: hand it to a Backoff Delay node. */
	retryAfterMs?: number;
	retryAt?: string;
	history: AttemptRecord[];
}

/** 12.3 s, 850 ms, 2 min 5 s: short and readable in the n8n output panel. */
export function formatDuration(ms: number): string {
	// Compare rounded values, so that 999.6 ms is not "1000 ms" nor 119.7 s "1 min 60 s".
	if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
	if (Math.round(ms / 100) < 600) return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`;
	const minutes = Math.floor(Math.round(ms / 1000) / 60);
	const seconds = Math.round(ms / 1000) % 60;
	return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

export function describeAttemptOutcome(record: AttemptRecord): string {
	if (record.status !== undefined) return `response ${record.status}${record.statusText ? ` ${record.statusText}` : ''}`;
	if (record.errorCode) return `error ${record.errorCode}`;
	return `error ${record.error ?? 'unknown'}`;
}
