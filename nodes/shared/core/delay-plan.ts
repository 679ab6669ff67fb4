/**
 * How long to wait before the next attempt, given the backoff and what the server asked for.
 * Shared by the HTTP node's retry loop and the Backoff Delay node, so both wait the same way.
 */
import { computeBackoffDelay, type BackoffParams } from './backoff';
import { pollDelay, SERVER_POLL_FLOOR_MS, type PollParams } from './poll';
import type { ServerDelay } from './retry-after';
import type { DelayReason } from './retry-story';

export interface DelayPlanInput {
	/** 1-based retry number: 1 is the wait before the second attempt. */
	retry: number;
	backoff: BackoffParams;
	/** The server's requested wait, if any. */
	requested?: ServerDelay;
	/** Longest server-requested wait accepted. */
	maxServerDelayMs: number;
	/** Time left before the total deadline (Infinity: none). */
	remainingMs: number;
	previousDelayMs?: number;
	random: () => number;
	/**
	 * Set when the answer was "not yet" (Retry When): `retry` counts the polls, the fallback is the
	 * polling pace instead of the backoff, and a server-requested wait sets the pace on its own
	 * (never below a second, or the first poll interval when that is shorter, so that a
	 * `Retry-After: 0` is not a busy loop and a server's `Retry-After: 1` is still obeyed).
	 */
	poll?: PollParams;
}

type DelayPlan =
	| { kind: 'wait'; delayMs: number; reason: DelayReason; header?: string }
	/** The server asked for more than allowed, or more than the deadline leaves. */
	| { kind: 'server-delay-too-long'; requested: ServerDelay; limit: 'max-server-delay' | 'deadline' }
	/** The backoff wait would end after the deadline. */
	| { kind: 'deadline'; delayMs: number };

/** A requested wait as a number the plan can trust: NaN means none, negative means now. */
function saneRequest(requested: ServerDelay | undefined): ServerDelay | undefined {
	if (!requested || Number.isNaN(requested.delayMs)) return undefined;
	// whole milliseconds, rounded up: never earlier than asked
	return { ...requested, delayMs: Math.max(0, Math.ceil(requested.delayMs)) };
}

/**
 * The most a wait the server asked for is lengthened by, so that items told the same Retry-After do
 * not return in the same millisecond: a tenth of it, at most a second. The traffic controller lets
 * the retries that such a wait paused go first within it (controller.ts, retriesFirst).
 */
export function serverDelaySpreadMs(delayMs: number): number {
	return Math.min(1000, Math.max(0, delayMs) * 0.1);
}

export function planDelay(input: DelayPlanInput): DelayPlan {
	const { remainingMs } = input;
	const requested = saneRequest(input.requested);
	const own: DelayReason = input.poll ? 'poll' : 'backoff';
	const backoff = input.poll ? pollDelay(input.poll, input.retry, input.random) : computeBackoffDelay(input.backoff, input.retry, input.random, input.previousDelayMs);
	// A deadline already passed (or NaN: no sane deadline) ends the item whatever the server asked
	if (!(remainingMs > 0)) return { kind: 'deadline', delayMs: backoff };
	if (!requested) {
		return backoff >= remainingMs ? { kind: 'deadline', delayMs: backoff } : { kind: 'wait', delayMs: backoff, reason: own };
	}
	if (requested.delayMs > input.maxServerDelayMs) return { kind: 'server-delay-too-long', requested, limit: 'max-server-delay' };
	if (requested.delayMs >= remainingMs) return { kind: 'server-delay-too-long', requested, limit: 'deadline' };
	// Never earlier than asked. The backoff still applies when it is longer (a `Retry-After: 0`
	// must not turn the remaining attempts into a burst), and a little spread on top keeps items
	// told the same Retry-After from returning in the same millisecond.
	const r = input.random();
	// a faulty random source must not turn into NaN or a negative spread
	const spread = serverDelaySpreadMs(requested.delayMs) * (Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0);
	const floor = input.poll ? Math.min(SERVER_POLL_FLOOR_MS, input.poll.intervalMs, input.poll.maxIntervalMs) : backoff;
	const wanted = Math.max(Math.ceil(requested.delayMs + spread), floor);
	const delayMs = Math.min(wanted, Math.max(requested.delayMs, Math.floor(remainingMs) - 1));
	return floor > requested.delayMs + spread
		? { kind: 'wait', delayMs, reason: own }
		: { kind: 'wait', delayMs, reason: requested.kind, header: requested.header };
}
