/** The retry story written on every output item: what happened to this item, attempt by attempt. */

import type { StopReason } from './stop-reasons';

export type { StopReason };

export type DelayReason = 'backoff' | 'retry-after' | 'rate-limit-reset';

/** Why a request waited at its API's traffic controller (see core/traffic/controller.ts). */
export type TrafficWaitReason = 'paused' | 'held' | 'concurrency' | 'rate' | 'budget';

interface TrafficNote {
	/** Time spent at the gate before this attempt went (0: none). */
	waitedMs: number;
	/** That time by reason: paused by the API, held during an outage, a slot, the pace, the budget. */
	waitedFor?: Partial<Record<TrafficWaitReason, number>>;
	/** This attempt was the probe that finds out whether a down API is back. */
	probe?: true;
	/** Requests in flight to the API when it went (itself included), and the API's window. */
	inFlight: number;
	window: number;
}

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
	/** The retry budget of the API as this attempt was counted (first attempts, retries, available, window). */
	budget?: Record<string, unknown>;
	/** The API's traffic controller before this attempt: how long it waited there and why, what it saw. */
	traffic?: TrafficNote;
}

export interface RetryStory {
	attempts: number;
	maxAttempts: number;
	stoppedBecause: StopReason;
	summary: string;
	totalDelayMs: number;
	elapsedMs: number;
	idempotencyKey?: string;
	/** The node that generated the key: it sends the item again under the same key (see item-records.ts). */
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
