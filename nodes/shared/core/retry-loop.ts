/**
 * The HTTP node's per-item retry loop: attempt, decide (the engine's one decision), wait, again.
 * Pure policy: the attempt itself (which classifies its failure and reads the server's requested
 * wait), the clock, the random source and the sleeper are injected.
 */
import type { AttemptFailure } from './classify';
import { decideAfterFailure, nextToken, type DecisionPolicy, type RetryToken } from './decide';
import { formatDuration, type AttemptRecord, type DelayReason, type RetryStory } from './retry-story';
import { CancelledError, type Runtime } from './runtime';
import { stopSummary } from './stop-messages';
import type { StopReason } from './stop-reasons';

/** The decision's policy, the request it judges safety by, and the bound of one attempt. */
export interface RetryPolicy extends Omit<DecisionPolicy, 'safety'> {
	/** 0: no per-attempt timeout. */
	attemptTimeoutMs: number;
	method: string;
	idempotencyKey?: string;
	/** The node that generated the key (see item-records.ts); absent for keys the user gave. */
	idempotencyKeyOwner?: string;
	allowUnsafeRetries: boolean;
}

export type AttemptResult<T> = { ok: true; value: T; status?: number; statusText?: string } | { ok: false; failure: AttemptFailure };

export interface AttemptContext {
	/** 1-based. */
	attempt: number;
	/** This attempt's time limit (the attempt timeout, shortened to what the deadline leaves). 0: none. */
	timeoutMs: number;
	/** Aborts when the attempt times out or the execution is cancelled. */
	signal: AbortSignal;
}

export type AttemptFn<T> = (ctx: AttemptContext) => Promise<AttemptResult<T>>;

/** What the traffic gate adds to an attempt's record: how long it waited there, and why. */
export type GateNote = Pick<AttemptRecord, 'traffic' | 'budget'>;

/** Why an item stops at the gate without sending its next attempt. */
export type GateStop = Extract<StopReason, 'retry-after-too-long' | 'circuit-open' | 'retry-budget-exhausted' | 'deadline-exceeded'>;

export type GateEntry<T> =
	| { go: true; note: GateNote; done(result: AttemptResult<T>): Promise<void> }
	| { go: false; stop: GateStop | 'canceled'; why: string; retryAt?: number; note: GateNote };

/**
 * The API's traffic controller as the loop sees it: every attempt enters before it is sent (and
 * may wait there: a pause the API asked for, an outage, a slot, the pace, the retry budget) and
 * reports its result after.
 */
export interface AttemptGate<T> {
	/** `last`: the failure of the previous attempt (undefined before the first). */
	enter(attempt: number, last: AttemptFailure | undefined, deadlineAt: number | undefined): Promise<GateEntry<T>>;
}

/** The code of the failure an item leaves with when the gate stopped it before any request. */
const GATE_CODES: Record<GateStop, string> = {
	'retry-after-too-long': 'EPAUSED',
	'circuit-open': 'ECIRCUITOPEN',
	'retry-budget-exhausted': 'ERETRYBUDGET',
	'deadline-exceeded': 'EQUEUED',
};

export type RetryOutcome<T> = { ok: true; value: T; story: RetryStory } | { ok: false; failure: AttemptFailure; story: RetryStory };

function timeoutFailure(timeoutMs: number): AttemptFailure {
	return {
		kind: 'timeout',
		code: 'ETIMEDOUT',
		message: `no complete response within ${formatDuration(timeoutMs)}`,
		reachedServer: 'maybe',
		transient: true,
	};
}

function unexpectedFailure(error: unknown): AttemptFailure {
	const message = error instanceof Error ? error.message : String(error);
	return { kind: 'network', message, reachedServer: 'maybe', transient: false };
}

/** Runs one attempt, bounded by its timeout and the parent signal. */
async function runAttempt<T>(fn: AttemptFn<T>, attempt: number, timeoutMs: number, runtime: Runtime, parent?: AbortSignal): Promise<AttemptResult<T>> {
	const controller = new AbortController();
	let onParentAbort = () => {};
	let cancelTimer = () => {};
	const timedOut = new Promise<AttemptResult<T>>((resolve) => {
		// Cancellation ends the attempt at once, even if the attempt function ignores its signal.
		onParentAbort = () => {
			controller.abort(new CancelledError());
			resolve({ ok: false, failure: unexpectedFailure(new CancelledError()) });
		};
		parent?.addEventListener('abort', onParentAbort, { once: true });
		if (timeoutMs <= 0) return;
		cancelTimer = runtime.startTimer(timeoutMs, () => {
			resolve({ ok: false, failure: timeoutFailure(timeoutMs) });
			controller.abort(new Error('attempt timeout'));
		});
	});
	try {
		const attemptPromise = fn({ attempt, timeoutMs, signal: controller.signal }).catch(
			(error: unknown): AttemptResult<T> => ({ ok: false, failure: unexpectedFailure(error) }),
		);
		return await Promise.race([attemptPromise, timedOut]);
	} finally {
		cancelTimer();
		parent?.removeEventListener('abort', onParentAbort);
	}
}

class StoryBuilder {
	readonly history: AttemptRecord[] = [];
	private readonly startedAt: number;
	constructor(
		private readonly runtime: Runtime,
		private readonly policy: RetryPolicy,
	) {
		this.startedAt = runtime.now();
	}
	elapsed(): number {
		return this.runtime.now() - this.startedAt;
	}
	build(stop: StopReason, summary: string, extra: Partial<RetryStory> = {}): RetryStory {
		return {
			attempts: this.history.length,
			maxAttempts: this.policy.maxAttempts,
			stoppedBecause: stop,
			summary,
			totalDelayMs: this.history.reduce((sum, r) => sum + r.delayBeforeMs, 0),
			elapsedMs: this.elapsed(),
			...(this.policy.idempotencyKey !== undefined ? { idempotencyKey: this.policy.idempotencyKey } : {}),
			...(this.policy.idempotencyKeyOwner !== undefined ? { idempotencyKeyOwner: this.policy.idempotencyKeyOwner } : {}),
			...extra,
			history: this.history,
		};
	}
}

export async function runWithRetry<T>(attemptFn: AttemptFn<T>, policy: RetryPolicy, runtime: Runtime, signal?: AbortSignal, gate?: AttemptGate<T>): Promise<RetryOutcome<T>> {
	const story = new StoryBuilder(runtime, policy);
	const decisionPolicy: DecisionPolicy = { ...policy, safety: { method: policy.method, hasIdempotencyKey: policy.idempotencyKey !== undefined, allowUnsafeRetries: policy.allowUnsafeRetries } };
	let token: RetryToken = { attempts: 1, startedAt: runtime.now() };
	// the decision and the attempts' time limits count the deadline from the same instant
	const deadlineAt = policy.totalDeadlineMs > 0 ? token.startedAt + policy.totalDeadlineMs : undefined;
	let delayBefore = 0;
	let delayReason: DelayReason | undefined;
	let delayHeader: string | undefined;

	const cancelled = (): RetryOutcome<T> => {
		const failure: AttemptFailure = { kind: 'network', code: 'ECANCELED', message: 'the execution was canceled', reachedServer: 'maybe', transient: false };
		return { ok: false, failure, story: story.build('canceled', `Canceled after ${story.history.length} attempt(s): the execution was canceled`) };
	};

	/** The gate said the next attempt cannot go in time: nothing more is sent. */
	const stopped = (entry: Extract<GateEntry<T>, { go: false }>, stop: GateStop, last: AttemptFailure | undefined): RetryOutcome<T> => {
		// nothing was sent: the stop is the failure, with a code of its own for each reason
		const failure: AttemptFailure = last ?? { kind: 'network', code: GATE_CODES[stop], message: entry.why, reachedServer: 'no', transient: true };
		const extra: Partial<RetryStory> = entry.retryAt !== undefined ? { retryAfterMs: Math.max(0, entry.retryAt - runtime.now()), retryAt: new Date(Math.min(entry.retryAt, 8.64e15)).toISOString() } : {};
		const n = story.history.length;
		const summary = n === 0 ? `Not sent: ${entry.why}` : `Stopped after ${n} attempt${n === 1 ? '' : 's'}: ${entry.why}`;
		return { ok: false, failure, story: story.build(stop, summary, extra) };
	};
	let lastFailure: AttemptFailure | undefined;

	for (let attempt = 1; ; attempt++) {
		if (signal?.aborted) return cancelled();
		const entry = gate ? await gate.enter(attempt, lastFailure, deadlineAt) : undefined;
		if (entry && !entry.go) return entry.stop === 'canceled' ? cancelled() : stopped(entry, entry.stop, lastFailure);
		const remaining = deadlineAt === undefined ? Infinity : deadlineAt - runtime.now();
		const timeoutMs = Math.max(1, Math.min(policy.attemptTimeoutMs > 0 ? policy.attemptTimeoutMs : Infinity, remaining));
		const startedAt = runtime.now();
		const result = await runAttempt(attemptFn, attempt, Number.isFinite(timeoutMs) ? timeoutMs : 0, runtime, signal);
		const record: AttemptRecord = {
			attempt,
			startedAt: new Date(startedAt).toISOString(),
			durationMs: Math.max(0, runtime.now() - startedAt),
			delayBeforeMs: delayBefore,
			...(delayReason ? { delayReason } : {}),
			...(delayHeader ? { delayHeader } : {}),
			...(entry?.note ?? {}),
		};
		if (entry) await entry.done(result);
		if (result.ok) {
			if (result.status !== undefined) record.status = result.status;
			if (result.statusText) record.statusText = result.statusText;
			story.history.push(record);
			const waited = story.history.reduce((s, r) => s + r.delayBeforeMs + (r.traffic?.waitedMs ?? 0), 0);
			const summary = attempt === 1 && waited === 0 ? 'Succeeded on the first attempt' : `Succeeded on attempt ${attempt} of ${policy.maxAttempts} after waiting ${formatDuration(waited)}`;
			return { ok: true, value: result.value, story: story.build('success', summary) };
		}
		const failure = result.failure;
		if (failure.status !== undefined) record.status = failure.status;
		if (failure.statusText) record.statusText = failure.statusText;
		if (failure.code) record.errorCode = failure.code;
		if (failure.kind !== 'status') record.error = failure.message;
		story.history.push(record);
		if (signal?.aborted) return cancelled();

		const decision = decideAfterFailure(failure, token, decisionPolicy, runtime.now(), () => runtime.random());
		if (!decision.retry) {
			const extra: Partial<RetryStory> = {};
			if (decision.serverDelay !== undefined) {
				extra.retryAfterMs = decision.serverDelay.delayMs;
				// A Date cannot pass 8.64e15 ms: a huge Retry-After must not throw a RangeError here.
				extra.retryAt = new Date(Math.min(runtime.now() + decision.serverDelay.delayMs, 8.64e15)).toISOString();
			}
			return { ok: false, failure, story: story.build(decision.stop, stopSummary(decision.stop, decision.why, { attempts: story.history.length, elapsedMs: story.elapsed() }), extra) };
		}
		lastFailure = failure;
		token = nextToken(token, decision);
		delayBefore = decision.delayMs;
		delayReason = decision.delayReason;
		delayHeader = decision.delayHeader;
		try {
			await runtime.sleep(delayBefore, signal);
		} catch {
			// the sleeper rejects only when the signal aborts (see Runtime.sleep)
			return cancelled();
		}
	}
}
