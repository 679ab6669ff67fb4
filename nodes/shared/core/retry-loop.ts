/**
 * The per-item retry loop: attempt, classify, decide, wait, again. Pure policy: the attempt itself,
 * the clock, the random source and the sleeper are injected, so both nodes and the tests share it.
 */
import type { BackoffParams } from './backoff';
import type { AttemptFailure } from './classify';
import { planDelay } from './delay-plan';
import { isSafeToRetry } from './method-safety';
import { serverRequestedDelay } from './retry-after';
import { describeAttemptOutcome, formatDuration, type AttemptRecord, type DelayReason, type RetryStory, type StopReason } from './retry-story';
import { CancelledError, type Runtime } from './runtime';

export interface RetryPolicy {
	maxAttempts: number;
	backoff: BackoffParams;
	/** 0: no total deadline. */
	totalDeadlineMs: number;
	/** 0: no per-attempt timeout. */
	attemptTimeoutMs: number;
	/** Longest server-requested wait the loop sleeps; longer ones stop it with `retry-after-too-long`. */
	maxServerDelayMs: number;
	readRateLimitHeaders: boolean;
	method: string;
	idempotencyKey?: string;
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

/** What a guard adds to the story: the budget's or the breaker's state. */
export type GuardNote = Pick<AttemptRecord, 'budget' | 'breaker'>;

export type GuardVerdict =
	| { allowed: true; note?: GuardNote }
	| { allowed: false; reason: 'circuit-open' | 'retry-budget-exhausted'; message: string; note?: GuardNote; retryAt?: number };

/**
 * Limits shared beyond one item, consulted by the loop: the circuit breaker (before and after
 * every attempt) and the retry budget (first attempts counted, every retry asked for).
 */
export interface RetryGuards {
	/** Before every attempt; attempt 1 is a first attempt. A refusal sends nothing. */
	beforeAttempt?(attempt: number): Promise<GuardVerdict>;
	/** After every attempt; `failure` is undefined on success. */
	afterAttempt?(attempt: number, failure: AttemptFailure | undefined): Promise<GuardNote | undefined>;
	/** Before every retry is sent (after its wait); `retry` is 1 for the second attempt. */
	beforeRetry?(attempt: number, failure: AttemptFailure): Promise<GuardVerdict>;
}

const REFUSAL_CODES: Record<Extract<GuardVerdict, { allowed: false }>['reason'], string> = { 'circuit-open': 'ECIRCUITOPEN', 'retry-budget-exhausted': 'ERETRYBUDGET' };

export type RetryOutcome<T> = { ok: true; value: T; story: RetryStory } | { ok: false; failure: AttemptFailure; story: RetryStory };

interface Decision {
	stop?: StopReason;
	why?: string;
	delayMs?: number;
	delayReason?: DelayReason;
	delayHeader?: string;
	retryAfterMs?: number;
}

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
			...extra,
			history: this.history,
		};
	}
}

/** Decides what follows a failed attempt. */
function decide(failure: AttemptFailure, attempt: number, policy: RetryPolicy, runtime: Runtime, deadlineAt: number | undefined, previousDelayMs: number | undefined): Decision {
	const last = describeFailure(failure);
	if (!failure.transient) {
		return failure.kind === 'status'
			? { stop: 'final-status', why: `${last} is final: its status is not in Retry On Status Codes` }
			: { stop: 'not-retryable-error', why: `${last} is not a transient failure` };
	}
	const safety = isSafeToRetry(failure, { method: policy.method, hasIdempotencyKey: policy.idempotencyKey !== undefined, allowUnsafeRetries: policy.allowUnsafeRetries });
	if (!safety.safe) return { stop: 'not-safe-to-retry', why: `Not retried: ${safety.why}` };
	if (attempt >= policy.maxAttempts) return { stop: 'attempts-exhausted', why: `last ${last}` };

	const now = runtime.now();
	const requested = failure.headers ? serverRequestedDelay(failure.headers, now, { readRateLimitHeaders: policy.readRateLimitHeaders, status: failure.status }) : undefined;
	const plan = planDelay({
		retry: attempt,
		backoff: policy.backoff,
		...(requested ? { requested } : {}),
		maxServerDelayMs: policy.maxServerDelayMs,
		remainingMs: deadlineAt === undefined ? Infinity : deadlineAt - now,
		...(previousDelayMs !== undefined ? { previousDelayMs } : {}),
		random: () => runtime.random(),
	});
	switch (plan.kind) {
		case 'server-delay-too-long': {
			const limit = plan.limit === 'max-server-delay' ? `more than Max Server Delay (${formatDuration(policy.maxServerDelayMs)})` : 'more than the total deadline leaves';
			return {
				stop: 'retry-after-too-long',
				why: `The server asked to wait ${formatDuration(plan.requested.delayMs)} (${plan.requested.header}), ${limit}; last ${last}`,
				retryAfterMs: plan.requested.delayMs,
			};
		}
		case 'deadline':
			return { stop: 'deadline-exceeded', why: `the next retry (in ${formatDuration(plan.delayMs)}) would start after the total deadline; last ${last}` };
		case 'wait':
			return { delayMs: plan.delayMs, delayReason: plan.reason, ...(plan.header ? { delayHeader: plan.header } : {}) };
	}
}

function describeFailure(failure: AttemptFailure): string {
	if (failure.kind === 'status') return `response ${failure.message}`;
	if (failure.kind === 'timeout') return `attempt timed out (${failure.message})`;
	return `error ${failure.code ? `${failure.code}: ` : ''}${failure.message}`;
}

function summarize(stop: StopReason, why: string, story: StoryBuilder): string {
	const n = story.history.length;
	const attempts = `${n} attempt${n === 1 ? '' : 's'}`;
	const time = formatDuration(story.elapsed());
	switch (stop) {
		case 'attempts-exhausted':
			return `Gave up after ${attempts} in ${time}: ${why}`;
		case 'deadline-exceeded':
			return `Gave up after ${attempts} in ${time}: ${why}`;
		case 'final-status':
		case 'not-retryable-error':
			return n > 1 ? `Stopped after ${attempts} in ${time}: ${why}` : why.charAt(0).toUpperCase() + why.slice(1);
		default:
			return why;
	}
}

export async function runWithRetry<T>(attemptFn: AttemptFn<T>, policy: RetryPolicy, runtime: Runtime, signal?: AbortSignal, guards: RetryGuards = {}): Promise<RetryOutcome<T>> {
	const story = new StoryBuilder(runtime, policy);
	const deadlineAt = policy.totalDeadlineMs > 0 ? runtime.now() + policy.totalDeadlineMs : undefined;
	let delayBefore = 0;
	let delayReason: DelayReason | undefined;
	let delayHeader: string | undefined;
	let previousDelay: number | undefined;

	const cancelled = (): RetryOutcome<T> => {
		const failure: AttemptFailure = { kind: 'network', code: 'ECANCELED', message: 'the execution was canceled', reachedServer: 'maybe', transient: false };
		return { ok: false, failure, story: story.build('canceled', `Canceled after ${story.history.length} attempt(s): the execution was canceled`) };
	};

	/** A guard refused: nothing more is sent; the item stops with the guard's reason. */
	const refused = (verdict: Extract<GuardVerdict, { allowed: false }>, last: AttemptFailure | undefined): RetryOutcome<T> => {
		// nothing was sent: the refusal is the failure, with a code of its own for each guard
		const failure: AttemptFailure = last ?? { kind: 'network', code: REFUSAL_CODES[verdict.reason], message: verdict.message, reachedServer: 'no', transient: true };
		const extra: Partial<RetryStory> = verdict.retryAt !== undefined ? { retryAfterMs: Math.max(0, verdict.retryAt - runtime.now()), retryAt: new Date(verdict.retryAt).toISOString() } : {};
		const n = story.history.length;
		const summary = n === 0 ? `Not sent: ${verdict.message}` : `Stopped after ${n} attempt${n === 1 ? '' : 's'}: ${verdict.message}`;
		return { ok: false, failure, story: story.build(verdict.reason, summary, extra) };
	};
	let lastFailure: AttemptFailure | undefined;
	let pendingNote: GuardNote = {};

	for (let attempt = 1; ; attempt++) {
		if (signal?.aborted) return cancelled();
		// The budget is asked just before the retry is sent, after the wait: it counts real requests,
		// and an item canceled while waiting spends nothing. It goes before the breaker, so a retry the
		// budget refuses never holds the breaker's single probe.
		if (attempt > 1 && lastFailure && guards.beforeRetry) {
			const budget = await guards.beforeRetry(attempt - 1, lastFailure);
			if (!budget.allowed) return refused(budget, lastFailure);
			pendingNote = budget.note ?? {};
		}
		const admission = guards.beforeAttempt ? await guards.beforeAttempt(attempt) : undefined;
		if (admission && !admission.allowed) return refused(admission, lastFailure);
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
			...pendingNote,
			...(admission?.note ?? {}),
		};
		pendingNote = {};
		const afterNote = guards.afterAttempt ? await guards.afterAttempt(attempt, result.ok ? undefined : result.failure) : undefined;
		if (afterNote) Object.assign(record, afterNote);
		if (result.ok) {
			if (result.status !== undefined) record.status = result.status;
			if (result.statusText) record.statusText = result.statusText;
			story.history.push(record);
			const waited = story.history.reduce((s, r) => s + r.delayBeforeMs, 0);
			const summary = attempt === 1 ? 'Succeeded on the first attempt' : `Succeeded on attempt ${attempt} of ${policy.maxAttempts} after waiting ${formatDuration(waited)}`;
			return { ok: true, value: result.value, story: story.build('success', summary) };
		}
		const failure = result.failure;
		if (failure.status !== undefined) record.status = failure.status;
		if (failure.statusText) record.statusText = failure.statusText;
		if (failure.code) record.errorCode = failure.code;
		if (failure.kind !== 'status') record.error = failure.message;
		story.history.push(record);
		if (signal?.aborted) return cancelled();

		const decision = decide(failure, attempt, policy, runtime, deadlineAt, previousDelay);
		if (decision.stop) {
			const extra: Partial<RetryStory> = {};
			if (decision.retryAfterMs !== undefined) {
				extra.retryAfterMs = decision.retryAfterMs;
				// A Date cannot pass 8.64e15 ms: a huge Retry-After must not throw a RangeError here.
				extra.retryAt = new Date(Math.min(runtime.now() + decision.retryAfterMs, 8.64e15)).toISOString();
			}
			return { ok: false, failure, story: story.build(decision.stop, summarize(decision.stop, decision.why ?? describeAttemptOutcome(record), story), extra) };
		}
		lastFailure = failure;
		delayBefore = decision.delayMs ?? 0;
		delayReason = decision.delayReason;
		delayHeader = decision.delayHeader;
		if (decision.delayReason === 'backoff') previousDelay = delayBefore;
		try {
			await runtime.sleep(delayBefore, signal);
		} catch {
			// the sleeper rejects only when the signal aborts (see Runtime.sleep)
			return cancelled();
		}
	}
}
