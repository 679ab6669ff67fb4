/** The retry story written on every output item: what happened to this item, attempt by attempt. */

import type { StopReason } from './stop-reasons';

export type { StopReason };

export type DelayReason = 'backoff' | 'poll' | 'retry-after' | 'rate-limit-reset';

/** Why a request waited at its API's traffic controller (see core/traffic/controller.ts). */
export type TrafficWaitReason = 'paused' | 'held' | 'window' | 'pace' | 'budget' | 'tokens';

interface TrafficNote {
	/** Time spent at the gate before this attempt went (0: none). */
	waitedMs: number;
	/** That time by reason: paused by the API, held during an outage, a slot, the pace, the budget. */
	waitedFor?: Partial<Record<TrafficWaitReason, number>>;
	/** This attempt was the probe that finds out whether a down API is back. */
	probe?: true;
	/** For a wait for room in the window: requests in flight to the API when it went (itself included), and the API's window. */
	inFlight?: number;
	window?: number;
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
	/** The answer met Retry When: the job was not done yet. */
	notYet?: true;
	/** For a wait for the retry budget: the API's budget as this attempt was counted (first attempts, retries, available, window). */
	budget?: Record<string, unknown>;
	/** The API's traffic controller before this attempt, when it made it wait (how long, why) or sent it as the probe. */
	traffic?: TrafficNote;
}

export interface RetryStory {
	/** Attempts made (a paginated item's: on all its pages). */
	attempts: number;
	/** At most this many attempts (absent from a paginated item's story, whose limit is per page: maxAttemptsPerPage). */
	maxAttempts?: number;
	/** A paginated item's: at most this many attempts for each page. */
	maxAttemptsPerPage?: number;
	/** A paginated item's: the pages fetched. */
	pages?: number;
	stoppedBecause: StopReason;
	summary: string;
	totalDelayMs: number;
	elapsedMs: number;
	idempotencyKey?: string;
	/** The node that generated the key: it sends the item again under the same key (see item-records.ts). */
	idempotencyKeyOwner?: string;
	/** Answers that met Retry When ("not yet"): attempts that were polls, not retries. */
	polls?: number;
	/** Set when the server asked for a wait the node would not sleep: hand it to a Backoff Delay node. */
	retryAfterMs?: number;
	retryAt?: string;
	history: AttemptRecord[];
	/** The story as a person reads it, one line per attempt (storyLines): added where the story goes on an item, after the fields above. */
	lines?: string[];
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

const WAIT_REASONS: Record<DelayReason, string> = { backoff: 'backoff', poll: 'polling', 'retry-after': 'asked by the server', 'rate-limit-reset': 'until the rate limit resets' };

const TRAFFIC_REASONS: Record<TrafficWaitReason, string> = {
	paused: 'paused by the API',
	held: 'held during an outage',
	window: 'for room in the window',
	pace: 'for the pace',
	budget: 'for the retry budget',
	tokens: 'for the token budget',
};

/** What the attempt got: "503 Service Unavailable", "ECONNRESET: socket hang up". */
function outcomeOf(record: AttemptRecord): string {
	if (record.status !== undefined) return [String(record.status), record.statusText, record.notYet ? '(not done yet)' : ''].filter(Boolean).join(' ');
	return [record.errorCode, record.error].filter(Boolean).join(': ') || 'failed';
}

/** The shortest wait at the traffic controller the story's lines tell of. */
const TOLD_TRAFFIC_WAIT_MS = 10;

/** The wait a record's attempt had before it: the delay and its reason, then the time at the API's traffic control. */
function waitBefore(record: AttemptRecord): string | undefined {
	const parts: string[] = [];
	if (record.delayBeforeMs > 0) {
		const why = record.delayReason ? WAIT_REASONS[record.delayReason] : undefined;
		const header = record.delayHeader ? ` (${record.delayHeader})` : '';
		parts.push(`waited ${formatDuration(record.delayBeforeMs)}${why ? `, ${why}${header}` : header}`);
	}
	const traffic = record.traffic;
	// a wait with no reason is the controller's own step (a store's round trip), and a few ms of a
	// reason explain nothing to a person: neither is told
	if (traffic && traffic.waitedMs >= TOLD_TRAFFIC_WAIT_MS && Object.keys(traffic.waitedFor ?? {}).length > 0) {
		// the controller's numbers only where they explain the wait
		const reasons = Object.entries(traffic.waitedFor ?? {}).map(([reason, ms]) => `${TRAFFIC_REASONS[reason as TrafficWaitReason]} ${formatDuration(ms ?? 0)}`);
		const slots = traffic.waitedFor?.window ? `, ${traffic.inFlight} in flight of a window of ${traffic.window}` : '';
		const budget = traffic.waitedFor?.budget && record.budget ? `, budget ${JSON.stringify(record.budget)}` : '';
		parts.push(`waited ${formatDuration(traffic.waitedMs)} at the API's traffic control${reasons.length > 0 ? ` (${reasons.join(', ')}${slots}${budget})` : ''}`);
	}
	if (traffic?.probe) parts.push('sent as the probe after an outage');
	return parts.length > 0 ? parts.join('; ') : undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 attempts of at most 5"; a paginated item's: "3 pages fetched, 4 attempts in all, at most 2 per page". */
export function storyCounts(story: Pick<RetryStory, 'attempts' | 'maxAttempts' | 'maxAttemptsPerPage' | 'pages' | 'polls'>): string {
	const max = story.maxAttempts ?? story.attempts;
	// polls are not failed attempts: Max Attempts bounds the others
	if (story.maxAttemptsPerPage === undefined && story.polls) return `${plural(story.attempts, 'attempt')} (${story.polls} answered not done yet; at most ${max} failed ones)`;
	if (story.maxAttemptsPerPage === undefined) return `${plural(story.attempts, 'attempt')} of at most ${max}`;
	return `${plural(story.pages ?? 0, 'page')} fetched, ${plural(story.attempts, 'attempt')} in all, at most ${story.maxAttemptsPerPage} per page`;
}

/**
 * The story as lines a person reads in the editor's error panel: a heading, then one line per
 * attempt (when, status or error, how long, and the wait before the next and why), then how it ended.
 */
export function storyLines(story: RetryStory): string[] {
	const lines = [`Retry story: ${storyCounts(story)}, ${formatDuration(story.elapsedMs)} in all`];
	const first = story.history[0] ? waitBefore(story.history[0]) : undefined;
	if (first) lines.push(`Before attempt 1: ${first}`);
	story.history.forEach((record, index) => {
		const next = story.history[index + 1];
		const wait = next ? waitBefore(next) : undefined;
		lines.push(`${record.attempt}. ${record.startedAt}: ${outcomeOf(record)} in ${formatDuration(record.durationMs)}${wait ? `; then ${wait}` : ''}`);
	});
	lines.push(story.summary);
	if (story.retryAt) lines.push(`The server allows another try at ${story.retryAt}`);
	return lines;
}

/** The story as an item carries it: its fields, then the same story as lines (`lines`), for an expression or a message. */
export function storyWithLines(story: RetryStory): RetryStory {
	return { ...story, lines: storyLines(story) };
}
