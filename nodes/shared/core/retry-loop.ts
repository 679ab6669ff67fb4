/**
 * The HTTP node's per-item retry loop: attempt, decide (the engine's one decision), wait, again.
 * Pure policy: the attempt itself (which classifies its failure and reads the server's requested
 * wait), the clock, the random source and the sleeper are injected.
 */
import { onAbort } from './abort-listeners';
import type { AttemptFailure } from './classify';
import { decideAfterFailure, nextToken, type Decision, type DecisionPolicy, type RetryToken } from './decide';
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
	/** The request asked for a streamed answer (an LLM's `"stream": true`): one cut off after its first bytes is never sent again. */
	streamed?: boolean;
	/**
	 * A wait before the first attempt, decided on an answer before this loop began (a 202 that
	 * started an operation whose status this loop polls): told in the first attempt's record.
	 */
	waitBeforeFirst?: { ms: number; reason: DelayReason; header?: string };
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
export type GateStop = Extract<StopReason, 'retry-after-too-long' | 'api-held' | 'retry-budget-exhausted' | 'deadline-exceeded'>;

export type GateEntry<T> =
	/** `lineMs`: its wait in line for the API's pace or token budget, which does not count against the deadline: the deadline moves back by it. */
	| { go: true; note: GateNote; lineMs: number; done(result: AttemptResult<T>): Promise<void> }
	| { go: false; stop: GateStop | 'canceled'; why: string; retryAt?: number; note: GateNote };

/**
 * The API's traffic controller as the loop sees it: every attempt enters before it is sent (and
 * may wait there: a pause the API asked for, an outage, a slot, the pace, the retry budget) and
 * reports its result after.
 */
export interface AttemptGate<T> {
	/**
	 * `last`: the failure of the previous attempt (undefined before the first). A wait in line for
	 * the API's pace or token budget does not count against `deadlineAt` (its `lineMs`,
	 * docs/decisions.md).
	 */
	enter(attempt: number, last: AttemptFailure | undefined, deadlineAt: number | undefined): Promise<GateEntry<T>>;
}

/** The code of the failure an item leaves with when the gate stopped it before any request. */
const GATE_CODES: Record<GateStop, string> = {
	'retry-after-too-long': 'EPAUSED',
	'api-held': 'EAPIHELD',
	'retry-budget-exhausted': 'ERETRYBUDGET',
	'deadline-exceeded': 'EQUEUED',
};

/**
 * An item's end. A stop carries `why`, its reason in words without the attempts, when the loop
 * decided it: a caller that joins stories (a followed operation) tells the summary again of all
 * the attempts.
 */
export type RetryOutcome<T> = { ok: true; value: T; story: RetryStory } | { ok: false; failure: AttemptFailure; story: RetryStory; why?: string };

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
	let unsubscribe = () => {};
	let cancelTimer = () => {};
	const timedOut = new Promise<AttemptResult<T>>((resolve) => {
		// Cancellation ends the attempt at once, even if the attempt function ignores its signal.
		unsubscribe = onAbort(parent, () => {
			controller.abort(new CancelledError());
			resolve({ ok: false, failure: unexpectedFailure(new CancelledError()) });
		});
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
		unsubscribe();
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
		const polls = this.history.filter((r) => r.notYet).length;
		return {
			attempts: this.history.length,
			maxAttempts: this.policy.maxAttempts,
			stoppedBecause: stop,
			summary,
			totalDelayMs: this.history.reduce((sum, r) => sum + r.delayBeforeMs, 0),
			elapsedMs: this.elapsed(),
			...(this.policy.idempotencyKey !== undefined ? { idempotencyKey: this.policy.idempotencyKey } : {}),
			...(this.policy.idempotencyKeyOwner !== undefined ? { idempotencyKeyOwner: this.policy.idempotencyKeyOwner } : {}),
			...(polls > 0 ? { polls } : {}),
			...extra,
			history: this.history,
		};
	}
}

/** The wait before an attempt, as its record tells it. */
interface Delay {
	ms: number;
	reason?: DelayReason;
	header?: string;
}

/** What an attempt's result adds to its record. */
function withResult<T>(record: AttemptRecord, result: AttemptResult<T>): AttemptRecord {
	if (result.ok) {
		if (result.status !== undefined) record.status = result.status;
		if (result.statusText) record.statusText = result.statusText;
		return record;
	}
	const failure = result.failure;
	if (failure.status !== undefined) record.status = failure.status;
	if (failure.statusText) record.statusText = failure.statusText;
	if (failure.code) record.errorCode = failure.code;
	if (failure.notYet) record.notYet = true;
	if (failure.kind !== 'status') record.error = failure.message;
	return record;
}

/** One item's run: attempt, decide, wait, until an outcome. */
class RetryRun<T> {
	private readonly story: StoryBuilder;
	private readonly decisionPolicy: DecisionPolicy;
	private token: RetryToken;
	private deadlineAt: number | undefined;
	private delay: Delay = { ms: 0 };
	private lastFailure: AttemptFailure | undefined;

	constructor(
		private readonly attemptFn: AttemptFn<T>,
		private readonly policy: RetryPolicy,
		private readonly runtime: Runtime,
		private readonly signal?: AbortSignal,
		private readonly gate?: AttemptGate<T>,
	) {
		this.story = new StoryBuilder(runtime, policy);
		this.decisionPolicy = { ...policy, safety: { method: policy.method, hasIdempotencyKey: policy.idempotencyKey !== undefined, allowUnsafeRetries: policy.allowUnsafeRetries, ...(policy.streamed ? { streamed: true } : {}) } };
		this.token = { attempts: 1, startedAt: runtime.now() };
		// the decision and the attempts' time limits count the deadline from the same instant
		this.deadlineAt = policy.totalDeadlineMs > 0 ? this.token.startedAt + policy.totalDeadlineMs : undefined;
	}

	async run(): Promise<RetryOutcome<T>> {
		const first = this.policy.waitBeforeFirst;
		if (first && first.ms > 0) {
			this.delay = { ms: first.ms, reason: first.reason, ...(first.header ? { header: first.header } : {}) };
			try {
				await this.runtime.sleep(first.ms, this.signal);
			} catch {
				return this.cancelled();
			}
		}
		for (let attempt = 1; ; attempt++) {
			const outcome = await this.turn(attempt);
			if (outcome) return outcome;
		}
	}

	/** Attempt n through the gate: the outcome, or undefined once the wait before the next attempt is over. */
	private async turn(attempt: number): Promise<RetryOutcome<T> | undefined> {
		if (this.signal?.aborted) return this.cancelled();
		const entry = this.gate ? await this.gate.enter(attempt, this.lastFailure, this.deadlineAt) : undefined;
		if (entry && !entry.go) return entry.stop === 'canceled' ? this.cancelled() : this.stoppedAtGate(entry, entry.stop);
		if (entry && entry.lineMs > 0) this.deadlineMovesBack(entry.lineMs);
		const result = await this.send(attempt, entry);
		if (result.ok) return this.succeeded(result.value, attempt);
		if (this.signal?.aborted) return this.cancelled();
		const decision = decideAfterFailure(result.failure, this.token, this.decisionPolicy, this.runtime.now(), () => this.runtime.random());
		if (!decision.retry) return this.gaveUp(result.failure, decision);
		this.lastFailure = result.failure;
		this.token = nextToken(this.token, decision, result.failure);
		this.delay = { ms: decision.delayMs, reason: decision.delayReason, header: decision.delayHeader };
		try {
			await this.runtime.sleep(this.delay.ms, this.signal);
		} catch {
			// the sleeper rejects only when the signal aborts (see Runtime.sleep)
			return this.cancelled();
		}
		return undefined;
	}

	/** The item's wait in line for the pace or tokens does not count: its deadline, and the decision's, move back by it. */
	private deadlineMovesBack(ms: number): void {
		if (this.deadlineAt === undefined) return;
		this.deadlineAt += ms;
		this.token = { ...this.token, startedAt: this.token.startedAt + ms };
	}

	/** Sends attempt n within its time limit, tells the gate how it went, and adds its record to the story. */
	private async send(attempt: number, entry: Extract<GateEntry<T>, { go: true }> | undefined): Promise<AttemptResult<T>> {
		const remaining = this.deadlineAt === undefined ? Infinity : this.deadlineAt - this.runtime.now();
		const timeoutMs = Math.max(1, Math.min(this.policy.attemptTimeoutMs > 0 ? this.policy.attemptTimeoutMs : Infinity, remaining));
		const startedAt = this.runtime.now();
		const result = await runAttempt(this.attemptFn, attempt, Number.isFinite(timeoutMs) ? timeoutMs : 0, this.runtime, this.signal);
		const record: AttemptRecord = {
			attempt,
			startedAt: new Date(startedAt).toISOString(),
			durationMs: Math.max(0, this.runtime.now() - startedAt),
			delayBeforeMs: this.delay.ms,
			...(this.delay.reason ? { delayReason: this.delay.reason } : {}),
			...(this.delay.header ? { delayHeader: this.delay.header } : {}),
			...(entry?.note ?? {}),
		};
		if (entry) await entry.done(result);
		this.story.history.push(withResult(record, result));
		return result;
	}

	private succeeded(value: T, attempt: number): RetryOutcome<T> {
		const summary = successSummary(attempt, this.story.history, this.token.polls ?? 0, this.policy.maxAttempts);
		return { ok: true, value, story: this.story.build('success', summary) };
	}

	/** The decision stops the item after a failed attempt. */
	private gaveUp(failure: AttemptFailure, decision: Extract<Decision, { retry: false }>): RetryOutcome<T> {
		const extra: Partial<RetryStory> = {};
		// the wait the server asked for, or the next poll's: when a Backoff Delay could try again
		const laterMs = decision.serverDelay?.delayMs ?? decision.nextPollInMs;
		if (laterMs !== undefined) {
			extra.retryAfterMs = laterMs;
			// A Date cannot pass 8.64e15 ms: a huge Retry-After must not throw a RangeError here.
			extra.retryAt = new Date(Math.min(this.runtime.now() + laterMs, 8.64e15)).toISOString();
		}
		const summary = stopSummary(decision.stop, decision.why, { attempts: this.story.history.length, elapsedMs: this.story.elapsed() });
		return { ok: false, failure, story: this.story.build(decision.stop, summary, extra), why: decision.why };
	}

	private cancelled(): RetryOutcome<T> {
		const failure: AttemptFailure = { kind: 'network', code: 'ECANCELED', message: 'the execution was canceled', reachedServer: 'maybe', transient: false };
		return { ok: false, failure, story: this.story.build('canceled', `Canceled after ${this.story.history.length} attempt(s): the execution was canceled`) };
	}

	/** The gate said the next attempt cannot go in time: nothing more is sent. */
	private stoppedAtGate(entry: Extract<GateEntry<T>, { go: false }>, stop: GateStop): RetryOutcome<T> {
		// nothing was sent: the stop is the failure, with a code of its own for each reason
		const failure: AttemptFailure = this.lastFailure ?? { kind: 'network', code: GATE_CODES[stop], message: entry.why, reachedServer: 'no', transient: true };
		const extra: Partial<RetryStory> = entry.retryAt !== undefined ? { retryAfterMs: Math.max(0, entry.retryAt - this.runtime.now()), retryAt: new Date(Math.min(entry.retryAt, 8.64e15)).toISOString() } : {};
		const n = this.story.history.length;
		const summary = n === 0 ? `Not sent: ${entry.why}` : `Stopped after ${n} attempt${n === 1 ? '' : 's'}: ${entry.why}`;
		return { ok: false, failure, story: this.story.build(stop, summary, extra) };
	}
}

/** Attempts until success or a stop: each attempt through the gate, each failure judged by decideAfterFailure. */
/**
 * The summary of a story that ended in success on attempt `attempt`: also for a story joined from
 * several loops (a followed operation's start, status polls and result), whose last loop counted
 * its attempts from 1 and so cannot say the item's.
 */
export function successSummary(attempt: number, history: AttemptRecord[], polls: number, maxAttempts: number): string {
	const waited = history.reduce((s, r) => s + r.delayBeforeMs + (r.traffic?.waitedMs ?? 0), 0);
	if (attempt === 1 && waited === 0) return 'Succeeded on the first attempt';
	if (polls > 0) return `Done on attempt ${attempt}, after ${polls} answer${polls === 1 ? '' : 's'} not done yet and waiting ${formatDuration(waited)}`;
	return `Succeeded on attempt ${attempt} of ${maxAttempts} after waiting ${formatDuration(waited)}`;
}

export async function runWithRetry<T>(attemptFn: AttemptFn<T>, policy: RetryPolicy, runtime: Runtime, signal?: AbortSignal, gate?: AttemptGate<T>): Promise<RetryOutcome<T>> {
	return new RetryRun(attemptFn, policy, runtime, signal, gate).run();
}
