import { computeBackoffDelay, type BackoffParams } from '../../nodes/shared/core/backoff';
import { classifyNetworkError, classifyStatus, parseStatusList, type AttemptFailure } from '../../nodes/shared/core/classify';
import { RETRY_DEFAULTS } from '../../nodes/shared/core/defaults';
import { serverRequestedDelay } from '../../nodes/shared/core/retry-after';
import { runWithRetry, type AttemptContext, type AttemptFn, type AttemptResult, type GateEntry, type GateNote, type RetryOutcome, type RetryPolicy } from '../../nodes/shared/core/retry-loop';
import { DEFAULT_START_MS, FakeRuntime, mulberry32, scripted } from './fake-runtime';

const START = DEFAULT_START_MS;
const RETRY_ON = parseStatusList(RETRY_DEFAULTS.retryOnStatuses);

const STATUS_TEXT: Record<number, string> = {
	200: 'OK',
	201: 'Created',
	404: 'Not Found',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	503: 'Service Unavailable',
};

/** One scripted attempt. */
type Step =
	| { status: number; headers?: Record<string, unknown>; takesMs?: number }
	| { code: string; message?: string; takesMs?: number }
	| { failure: AttemptFailure }
	| { throws: unknown }
	| 'hang'
	| 'hang-until-aborted';

interface Call {
	ctx: AttemptContext;
	at: number;
}

/** An attempt function that plays `steps` in order (the last one repeats). */
function scriptedAttempts(rt: FakeRuntime, steps: Step[], readRateLimitHeaders = true): AttemptFn<string> & { calls: Call[] } {
	const calls: Call[] = [];
	const fn = async (ctx: AttemptContext): Promise<AttemptResult<string>> => {
		calls.push({ ctx, at: rt.now() });
		const step = steps[Math.min(calls.length - 1, steps.length - 1)];
		if (step === 'hang') return new Promise<AttemptResult<string>>(() => undefined);
		if (step === 'hang-until-aborted') {
			return new Promise<AttemptResult<string>>((_resolve, reject) => {
				ctx.signal.addEventListener('abort', () => reject(new Error('This operation was aborted')), { once: true });
			});
		}
		if ('throws' in step) throw step.throws;
		if ('failure' in step) return { ok: false, failure: step.failure };
		if (step.takesMs) rt.advance(step.takesMs);
		if ('code' in step) {
			const failure = classifyNetworkError(step.code, step.message ?? `read ${step.code}`);
			if (!failure) throw new Error(`test bug: ${step.code} is not a transient code`);
			return { ok: false, failure };
		}
		const failure = classifyStatus(step.status, STATUS_TEXT[step.status], RETRY_ON);
		if (!failure) return { ok: true, value: `body of attempt ${calls.length}`, status: step.status, statusText: STATUS_TEXT[step.status] };
		const serverDelay = step.headers ? serverRequestedDelay(step.headers, rt.now(), { readRateLimitHeaders, status: step.status }) : undefined;
		return { ok: false, failure: { ...failure, headers: step.headers, ...(serverDelay ? { serverDelay } : {}) } };
	};
	return Object.assign(fn, { calls });
}

function policy(over: Partial<RetryPolicy> = {}): RetryPolicy {
	return {
		maxAttempts: RETRY_DEFAULTS.maxAttempts,
		backoff: { strategy: 'none', baseDelayMs: 1000, maxDelayMs: 30_000 },
		totalDeadlineMs: RETRY_DEFAULTS.totalDeadlineMs,
		attemptTimeoutMs: RETRY_DEFAULTS.attemptTimeoutMs,
		maxServerDelayMs: RETRY_DEFAULTS.maxServerDelayMs,
		method: 'GET',
		allowUnsafeRetries: false,
		...over,
	};
}

/** `readRateLimitHeaders` is the attempt adapter's: it reads the server's wait where the response is read. */
async function run(rt: FakeRuntime, steps: Step[], { readRateLimitHeaders = true, ...over }: Partial<RetryPolicy> & { readRateLimitHeaders?: boolean } = {}, signal?: AbortSignal) {
	const fn = scriptedAttempts(rt, steps, readRateLimitHeaders);
	const outcome: RetryOutcome<string> = await rt.runUntilSettled(runWithRetry(fn, policy(over), rt, signal));
	// No attempt timer may outlive the loop.
	expect(rt.pendingTimers).toBe(0);
	return { outcome, calls: fn.calls };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('runWithRetry', () => {
	it('succeeds on the first try without waiting', async () => {
		const rt = new FakeRuntime();
		const { outcome, calls } = await run(rt, [{ status: 200 }]);
		expect(outcome.ok).toBe(true);
		expect(outcome.ok && outcome.value).toBe('body of attempt 1');
		expect(outcome.story).toEqual({
			attempts: 1,
			maxAttempts: 5,
			stoppedBecause: 'success',
			summary: 'Succeeded on the first attempt',
			totalDelayMs: 0,
			elapsedMs: 0,
			history: [{ attempt: 1, startedAt: iso(START), durationMs: 0, delayBeforeMs: 0, status: 200, statusText: 'OK' }],
		});
		expect(rt.sleeps).toEqual([]);
		expect(calls).toHaveLength(1);
		expect(calls[0].ctx.attempt).toBe(1);
		expect(calls[0].ctx.timeoutMs).toBe(30_000);
		expect(calls[0].ctx.signal.aborted).toBe(false);
	});

	it('a wait decided before the loop (the 202 of an operation) comes before attempt 1 and is in its record', async () => {
		const rt = new FakeRuntime();
		const { outcome, calls } = await run(rt, [{ status: 200 }], { waitBeforeFirst: { ms: 3000, reason: 'retry-after', header: 'retry-after' } });
		expect(calls.map((c) => c.at - START)).toEqual([3000]);
		expect(outcome.story.history).toEqual([{ attempt: 1, startedAt: iso(START + 3000), durationMs: 0, delayBeforeMs: 3000, delayReason: 'retry-after', delayHeader: 'retry-after', status: 200, statusText: 'OK' }]);
		expect(outcome.story).toMatchObject({ totalDelayMs: 3000, elapsedMs: 3000 });
	});

	it('a cancel during the wait before attempt 1 sends nothing', async () => {
		const rt = new FakeRuntime();
		const controller = new AbortController();
		const fn = scriptedAttempts(rt, [{ status: 200 }]);
		const pending = runWithRetry(fn, policy({ waitBeforeFirst: { ms: 3000, reason: 'poll' } }), rt, controller.signal);
		controller.abort();
		const outcome = await rt.runUntilSettled(pending);
		expect(outcome).toMatchObject({ ok: false, story: { stoppedBecause: 'canceled', attempts: 0 } });
		expect(fn.calls).toHaveLength(0);
	});

	it('503, 503, 200: succeeds on the third attempt with the backoff delays recorded', async () => {
		const rt = new FakeRuntime();
		const { outcome, calls } = await run(rt, [{ status: 503 }, { status: 503 }, { status: 200 }]);
		expect(outcome.ok).toBe(true);
		expect(rt.sleepDurations).toEqual([1000, 2000]);
		expect(outcome.story).toMatchObject({ attempts: 3, stoppedBecause: 'success', totalDelayMs: 3000, elapsedMs: 3000, summary: 'Succeeded on attempt 3 of 5 after waiting 3 s' });
		expect(outcome.story.history).toEqual([
			{ attempt: 1, startedAt: iso(START), durationMs: 0, delayBeforeMs: 0, status: 503, statusText: 'Service Unavailable' },
			{ attempt: 2, startedAt: iso(START + 1000), durationMs: 0, delayBeforeMs: 1000, delayReason: 'backoff', status: 503, statusText: 'Service Unavailable' },
			{ attempt: 3, startedAt: iso(START + 3000), durationMs: 0, delayBeforeMs: 2000, delayReason: 'backoff', status: 200, statusText: 'OK' },
		]);
		expect(calls.map((c) => [c.ctx.attempt, c.at - START])).toEqual([
			[1, 0],
			[2, 1000],
			[3, 3000],
		]);
	});

	it('with full jitter, the recorded delays are the jittered draws of the seeded source', async () => {
		const backoff: BackoffParams = { strategy: 'full', baseDelayMs: 1000, maxDelayMs: 30_000 };
		const rt = new FakeRuntime({ seed: 77 });
		const { outcome } = await run(rt, [{ status: 503 }, { status: 500 }, { status: 502 }, { status: 200 }], { backoff });
		const expected = mulberry32(77);
		const d1 = computeBackoffDelay(backoff, 1, expected);
		const d2 = computeBackoffDelay(backoff, 2, expected, d1);
		const d3 = computeBackoffDelay(backoff, 3, expected, d2);
		expect(rt.sleepDurations).toEqual([d1, d2, d3]);
		expect(outcome.story.history.map((r) => r.delayBeforeMs)).toEqual([0, d1, d2, d3]);
		expect(d1).toBeLessThanOrEqual(1000);
		expect(d2).toBeLessThanOrEqual(2000);
		expect(d3).toBeLessThanOrEqual(4000);
		expect(outcome.story.totalDelayMs).toBe(d1 + d2 + d3);
	});

	it('records how long each attempt took', async () => {
		const rt = new FakeRuntime();
		const { outcome } = await run(rt, [{ status: 503, takesMs: 250 }, { status: 200, takesMs: 40 }]);
		expect(outcome.story.history.map((r) => [r.durationMs, r.startedAt])).toEqual([
			[250, iso(START)],
			[40, iso(START + 250 + 1000)],
		]);
		expect(outcome.story.elapsedMs).toBe(1290);
	});

	it('404 is final at once', async () => {
		const rt = new FakeRuntime();
		const { outcome, calls } = await run(rt, [{ status: 404 }, { status: 200 }]);
		expect(outcome.ok).toBe(false);
		expect(calls).toHaveLength(1);
		expect(rt.sleeps).toEqual([]);
		expect(outcome.story).toMatchObject({ attempts: 1, stoppedBecause: 'final-status', summary: 'Response 404 Not Found is final: its status is not in Retry On Status Codes' });
		expect(!outcome.ok && outcome.failure).toMatchObject({ kind: 'status', status: 404, transient: false });
	});

	it('a final status after retries says how many attempts it took', async () => {
		const rt = new FakeRuntime();
		const { outcome } = await run(rt, [{ status: 503 }, { status: 404 }]);
		expect(outcome.story.stoppedBecause).toBe('final-status');
		expect(outcome.story.summary).toBe('Stopped after 2 attempts in 1 s: response 404 Not Found is final: its status is not in Retry On Status Codes');
	});

	it('gives up when the attempts are exhausted', async () => {
		const rt = new FakeRuntime();
		const { outcome, calls } = await run(rt, [{ status: 503 }], { maxAttempts: 3 });
		expect(calls).toHaveLength(3);
		expect(rt.sleepDurations).toEqual([1000, 2000]);
		expect(outcome.ok).toBe(false);
		expect(outcome.story.stoppedBecause).toBe('attempts-exhausted');
		expect(outcome.story.summary).toBe('Gave up after 3 attempts in 3 s: last response 503 Service Unavailable');
		expect(outcome.story.attempts).toBe(3);
		expect(!outcome.ok && outcome.failure.status).toBe(503);
	});

	it('maxAttempts 1 never retries', async () => {
		const rt = new FakeRuntime();
		const { outcome, calls } = await run(rt, [{ code: 'ECONNREFUSED' }], { maxAttempts: 1 });
		expect(calls).toHaveLength(1);
		expect(outcome.story.summary).toMatch(/^Gave up after 1 attempt in 0 ms: last error ECONNREFUSED: /);
		expect(outcome.story.history[0]).toMatchObject({ errorCode: 'ECONNREFUSED', error: 'read ECONNREFUSED' });
	});

	describe('server-requested waits', () => {
		it('honours Retry-After: 2 with a little spread on top, never below', async () => {
			for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
				const rt = new FakeRuntime({ seed });
				const { outcome } = await run(rt, [{ status: 503, headers: { 'Retry-After': '2' } }, { status: 200 }]);
				expect(outcome.ok).toBe(true);
				expect(rt.sleeps).toHaveLength(1);
				expect(rt.sleepDurations[0]).toBeGreaterThanOrEqual(2000);
				expect(rt.sleepDurations[0]).toBeLessThan(2000 + 1000);
				expect(outcome.story.history[1]).toMatchObject({ delayBeforeMs: rt.sleepDurations[0], delayReason: 'retry-after', delayHeader: 'retry-after' });
			}
		});

		it('the spread is at most 10% and at most a second', async () => {
			const rt = new FakeRuntime({ random: () => 0.999999 });
			await run(rt, [{ status: 503, headers: { 'retry-after': '2' } }, { status: 429, headers: { 'retry-after': '50' } }, { status: 200 }]);
			expect(rt.sleepDurations).toEqual([2200, 51_000]);
		});

		it('waits the longer of Retry-After and the backoff: never earlier than the server asks, never a burst', async () => {
			const rt = new FakeRuntime({ random: () => 0 });
			await run(rt, [{ status: 503 }, { status: 503 }, { status: 503, headers: { 'retry-after': '1' } }, { status: 200 }], { backoff: { strategy: 'none', baseDelayMs: 5000, maxDelayMs: 60_000 } });
			expect(rt.sleepDurations).toEqual([5000, 10_000, 20_000]);
		});

		it('honours a rate-limit reset on a 429, naming the header', async () => {
			const rt = new FakeRuntime({ random: () => 0 });
			const { outcome } = await run(rt, [{ status: 429, headers: { 'X-RateLimit-Reset': String((START + 7000) / 1000), 'X-RateLimit-Remaining': '0' } }, { status: 200 }]);
			expect(rt.sleepDurations).toEqual([7000]);
			expect(outcome.story.history[1]).toMatchObject({ delayReason: 'rate-limit-reset', delayHeader: 'x-ratelimit-reset', delayBeforeMs: 7000 });
		});

		it('readRateLimitHeaders=false falls back to backoff', async () => {
			const rt = new FakeRuntime();
			const { outcome } = await run(rt, [{ status: 429, headers: { 'X-RateLimit-Reset': '7' } }, { status: 200 }], { readRateLimitHeaders: false });
			expect(rt.sleepDurations).toEqual([1000]);
			expect(outcome.story.history[1].delayReason).toBe('backoff');
		});

		it('stops with retry-after-too-long, without sleeping, when the wait passes Max Server-Requested Delay', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, [{ status: 429, headers: { 'retry-after': '120' } }, { status: 200 }]);
			expect(calls).toHaveLength(1);
			expect(rt.sleeps).toEqual([]);
			expect(outcome.ok).toBe(false);
			expect(outcome.story).toMatchObject({ stoppedBecause: 'retry-after-too-long', retryAfterMs: 120_000, retryAt: iso(START + 120_000), attempts: 1 });
			expect(outcome.story.summary).toBe('The server asked to wait 2 min (retry-after), more than Max Server-Requested Delay (1 min); last response 429 Too Many Requests');
		});

		it('a wait exactly at Max Server Delay is still honoured', async () => {
			const rt = new FakeRuntime({ random: () => 0 });
			const { outcome } = await run(rt, [{ status: 503, headers: { 'retry-after': '60' } }, { status: 200 }]);
			expect(outcome.ok).toBe(true);
			expect(rt.sleepDurations).toEqual([60_000]);
		});

		it('stops with retry-after-too-long when the wait passes what the total deadline leaves', async () => {
			const rt = new FakeRuntime();
			const { outcome } = await run(rt, [{ status: 503, headers: { 'retry-after': '30' } }], { totalDeadlineMs: 10_000 });
			expect(rt.sleeps).toEqual([]);
			expect(outcome.story).toMatchObject({ stoppedBecause: 'retry-after-too-long', retryAfterMs: 30_000, retryAt: iso(START + 30_000) });
			expect(outcome.story.summary).toMatch(/more than the total deadline leaves/);
		});

		it('the spread never pushes a honoured wait past the deadline', async () => {
			const rt = new FakeRuntime({ random: () => 0.999999 });
			const { outcome } = await run(rt, [{ status: 503, headers: { 'retry-after': '2' } }, { status: 200 }], { totalDeadlineMs: 2100 });
			expect(outcome.ok).toBe(true);
			expect(rt.sleepDurations[0]).toBeGreaterThanOrEqual(2000);
			expect(rt.sleepDurations[0]).toBeLessThan(2100);
		});

		it('a huge Retry-After stops cleanly with a finite retryAfterMs and a valid retryAt', async () => {
			const rt = new FakeRuntime();
			const { outcome } = await run(rt, [{ status: 503, headers: { 'retry-after': '99999999999999999999' } }]);
			expect(outcome.story.stoppedBecause).toBe('retry-after-too-long');
			expect(Number.isFinite(outcome.story.retryAfterMs)).toBe(true);
			expect(outcome.story.retryAfterMs).toBeGreaterThan(1e12);
			expect(Number.isFinite(Date.parse(outcome.story.retryAt!))).toBe(true);
		});

		it('Retry-After 0 falls back to the backoff instead of a burst of immediate retries', async () => {
			const rt = new FakeRuntime();
			await run(rt, [{ status: 503, headers: { 'retry-after': '0' } }, { status: 200 }]);
			expect(rt.sleepDurations).toEqual([1000]);
		});
	});

	describe('total deadline', () => {
		it('stops before a sleep that would pass it', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, [{ status: 503 }], { totalDeadlineMs: 2500, maxAttempts: 10 });
			expect(calls).toHaveLength(2);
			expect(rt.sleepDurations).toEqual([1000]);
			expect(outcome.story.stoppedBecause).toBe('deadline-exceeded');
			expect(outcome.story.summary).toBe('Gave up after 2 attempts in 1 s: the next retry (in 2 s) would start after the total deadline; last response 503 Service Unavailable');
			expect(rt.now() - START).toBeLessThanOrEqual(2500);
		});

		it('shortens the attempt timeout to what the deadline leaves', async () => {
			const rt = new FakeRuntime();
			const { calls } = await run(rt, [{ status: 503, takesMs: 500 }, { status: 200 }], { totalDeadlineMs: 10_000, attemptTimeoutMs: 30_000 });
			expect(calls.map((c) => c.ctx.timeoutMs)).toEqual([10_000, 10_000 - 500 - 1000]);
		});

		it('a hanging attempt is cut at the deadline, and nothing follows', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, ['hang'], { totalDeadlineMs: 3000, attemptTimeoutMs: 30_000 });
			expect(calls).toHaveLength(1);
			expect(calls[0].ctx.timeoutMs).toBe(3000);
			expect(outcome.story.stoppedBecause).toBe('deadline-exceeded');
			expect(rt.now() - START).toBe(3000);
		});

		it('0 means no deadline', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, [{ status: 503 }], { totalDeadlineMs: 0, maxAttempts: 30, backoff: { strategy: 'none', baseDelayMs: 60_000, maxDelayMs: 3_600_000 } });
			expect(calls).toHaveLength(30);
			expect(outcome.story.stoppedBecause).toBe('attempts-exhausted');
		});
	});

	describe('attempt timeout', () => {
		it('a hanging attempt fails as a timeout with ETIMEDOUT, and its signal is aborted', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, ['hang'], { attemptTimeoutMs: 5000, maxAttempts: 1 });
			expect(calls).toHaveLength(1);
			expect(calls[0].ctx.timeoutMs).toBe(5000);
			expect(calls[0].ctx.signal.aborted).toBe(true);
			expect(outcome.ok).toBe(false);
			expect(!outcome.ok && outcome.failure).toMatchObject({ kind: 'timeout', code: 'ETIMEDOUT', message: 'no complete response within 5 s', reachedServer: 'maybe', transient: true });
			expect(outcome.story.history[0]).toMatchObject({ errorCode: 'ETIMEDOUT', durationMs: 5000 });
			expect(rt.now() - START).toBe(5000);
		});

		it('a GET that timed out is retried, each attempt with its own aborted signal', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, ['hang', 'hang', { status: 200 }], { attemptTimeoutMs: 5000 });
			expect(outcome.ok).toBe(true);
			expect(calls.map((c) => c.ctx.signal.aborted)).toEqual([true, true, false]);
			expect(new Set(calls.map((c) => c.ctx.signal)).size).toBe(3);
			expect(rt.sleepDurations).toEqual([1000, 2000]);
			expect(rt.now() - START).toBe(5000 + 1000 + 5000 + 2000);
		});

		it('an attempt that answers after its timeout is ignored', async () => {
			const rt = new FakeRuntime();
			const { outcome } = await run(rt, [{ status: 200, takesMs: 6000 }], { attemptTimeoutMs: 5000, maxAttempts: 1 });
			expect(outcome.ok).toBe(false);
			expect(!outcome.ok && outcome.failure.code).toBe('ETIMEDOUT');
		});

		it('a POST that timed out without a key is not retried', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, ['hang'], { attemptTimeoutMs: 5000, method: 'POST' });
			expect(calls).toHaveLength(1);
			expect(outcome.story.stoppedBecause).toBe('not-safe-to-retry');
		});

		it('0 means no attempt timeout (and no timer)', async () => {
			const rt = new FakeRuntime();
			const { calls } = await run(rt, [{ status: 200 }], { attemptTimeoutMs: 0, totalDeadlineMs: 0 });
			expect(calls[0].ctx.timeoutMs).toBe(0);
			expect(rt.timersStarted).toEqual([]);
		});
	});

	describe('method safety', () => {
		it('POST + ECONNRESET without a key: not safe to retry, one attempt', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, [{ code: 'ECONNRESET' }, { status: 200 }], { method: 'POST' });
			expect(calls).toHaveLength(1);
			expect(rt.sleeps).toEqual([]);
			expect(outcome.ok).toBe(false);
			expect(outcome.story.stoppedBecause).toBe('not-safe-to-retry');
			expect(outcome.story.summary).toMatch(/^Not retried: POST is not idempotent and no idempotency key is sent: .*may have processed it/);
			expect(outcome.story.idempotencyKey).toBeUndefined();
		});

		it('POST + ECONNRESET with an idempotency key: retried, the key in the story', async () => {
			const rt = new FakeRuntime();
			const key = 'order-42-attempt-key';
			const { outcome, calls } = await run(rt, [{ code: 'ECONNRESET' }, { status: 201 }], { method: 'POST', idempotencyKey: key });
			expect(calls).toHaveLength(2);
			expect(outcome.ok).toBe(true);
			expect(outcome.story.idempotencyKey).toBe(key);
			expect(outcome.story.history[0]).toMatchObject({ errorCode: 'ECONNRESET' });
		});

		it('POST + ECONNREFUSED without a key: retried, the request never reached the server', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, [{ code: 'ECONNREFUSED' }, { code: 'EAI_AGAIN' }, { status: 201 }], { method: 'POST' });
			expect(calls).toHaveLength(3);
			expect(outcome.ok).toBe(true);
		});

		it('PATCH + 503 without a key is not retried; with allowUnsafeRetries it is', async () => {
			const rt1 = new FakeRuntime();
			const first = await run(rt1, [{ status: 503 }, { status: 200 }], { method: 'PATCH' });
			expect(first.calls).toHaveLength(1);
			expect(first.outcome.story.stoppedBecause).toBe('not-safe-to-retry');
			const rt2 = new FakeRuntime();
			const second = await run(rt2, [{ status: 503 }, { status: 200 }], { method: 'PATCH', allowUnsafeRetries: true });
			expect(second.calls).toHaveLength(2);
			expect(second.outcome.ok).toBe(true);
		});

		it('a non-transient status is final before safety is even asked', async () => {
			const rt = new FakeRuntime();
			const { outcome } = await run(rt, [{ status: 404 }], { method: 'POST' });
			expect(outcome.story.stoppedBecause).toBe('final-status');
		});
	});

	describe('cancellation', () => {
		it('during a sleep: stops as cancelled promptly', async () => {
			const rt = new FakeRuntime();
			const controller = new AbortController();
			rt.at(500, () => controller.abort());
			const { outcome, calls } = await run(rt, [{ status: 503 }], { backoff: { strategy: 'none', baseDelayMs: 10_000, maxDelayMs: 30_000 } }, controller.signal);
			expect(calls).toHaveLength(1);
			expect(outcome.ok).toBe(false);
			expect(outcome.story.stoppedBecause).toBe('canceled');
			expect(outcome.story.elapsedMs).toBe(500);
			expect(rt.sleeps).toEqual([{ ms: 10_000, startedAt: START, outcome: 'cancelled', endedAt: START + 500 }]);
			expect(!outcome.ok && outcome.failure.code).toBe('ECANCELED');
			expect(outcome.story.summary).toBe('Canceled after 1 attempt(s): the execution was canceled');
		});

		it('before the first attempt: no attempt at all', async () => {
			const rt = new FakeRuntime();
			const controller = new AbortController();
			controller.abort();
			const { outcome, calls } = await run(rt, [{ status: 200 }], {}, controller.signal);
			expect(calls).toHaveLength(0);
			expect(outcome.story).toMatchObject({ stoppedBecause: 'canceled', attempts: 0, history: [] });
		});

		it('during an attempt: the attempt signal aborts and the loop stops as cancelled', async () => {
			const rt = new FakeRuntime();
			const controller = new AbortController();
			rt.at(700, () => controller.abort());
			const { outcome, calls } = await run(rt, ['hang-until-aborted'], {}, controller.signal);
			expect(calls).toHaveLength(1);
			expect(calls[0].ctx.signal.aborted).toBe(true);
			expect(outcome.story.stoppedBecause).toBe('canceled');
			expect(outcome.story.elapsedMs).toBe(700);
		});

		it('during an attempt that ignores its signal: still stops promptly, not at the attempt timeout', async () => {
			const rt = new FakeRuntime();
			const controller = new AbortController();
			rt.at(700, () => controller.abort());
			const { outcome, calls } = await run(rt, ['hang'], { attemptTimeoutMs: 30_000 }, controller.signal);
			expect(calls).toHaveLength(1);
			expect(outcome.story.stoppedBecause).toBe('canceled');
			expect(outcome.story.elapsedMs).toBe(700);
		});
	});

	describe('errors', () => {
		it('an attempt function that throws: not-retryable-error, no retry', async () => {
			const rt = new FakeRuntime();
			const { outcome, calls } = await run(rt, [{ throws: new Error('boom') }, { status: 200 }]);
			expect(calls).toHaveLength(1);
			expect(rt.sleeps).toEqual([]);
			expect(outcome.ok).toBe(false);
			expect(outcome.story.stoppedBecause).toBe('not-retryable-error');
			expect(outcome.story.summary).toBe('Error boom is not a transient failure');
			expect(outcome.story.history[0]).toMatchObject({ error: 'boom' });
			expect(!outcome.ok && outcome.failure).toMatchObject({ message: 'boom', transient: false });
		});

		it('a thrown non-Error is described too', async () => {
			const rt = new FakeRuntime();
			const { outcome } = await run(rt, [{ throws: 'plain string' }]);
			expect(outcome.story.stoppedBecause).toBe('not-retryable-error');
			expect(!outcome.ok && outcome.failure.message).toBe('plain string');
		});

		it('a non-transient failure from the attempt (ENOTFOUND) is not retried', async () => {
			const rt = new FakeRuntime();
			const failure: AttemptFailure = { kind: 'network', code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nope.invalid', reachedServer: 'no', transient: false };
			const { outcome, calls } = await run(rt, [{ failure }]);
			expect(calls).toHaveLength(1);
			expect(outcome.story.stoppedBecause).toBe('not-retryable-error');
			expect(outcome.story.summary).toBe('Error ENOTFOUND: getaddrinfo ENOTFOUND nope.invalid is not a transient failure');
		});
	});

	describe('decorrelated jitter', () => {
		const backoff: BackoffParams = { strategy: 'decorrelated', baseDelayMs: 100, maxDelayMs: 100_000 };

		it('threads the previous delay from one retry to the next', async () => {
			const rt = new FakeRuntime({ random: () => 1 });
			await run(rt, [{ status: 503 }], { backoff, maxAttempts: 6 });
			// random 1 draws the top of [base, min(cap, previous * 3)]: 100*3, then *3 each time
			expect(rt.sleepDurations).toEqual([300, 900, 2700, 8100, 24_300]);
		});

		it('matches computeBackoffDelay chained by hand on a seeded source', async () => {
			const rt = new FakeRuntime({ seed: 2024 });
			await run(rt, [{ status: 503 }], { backoff, maxAttempts: 8 });
			const r = mulberry32(2024);
			const expected: number[] = [];
			let previous: number | undefined;
			for (let retry = 1; retry <= 7; retry++) {
				previous = computeBackoffDelay(backoff, retry, r, previous);
				expected.push(previous);
			}
			expect(rt.sleepDurations).toEqual(expected);
		});

		it('a server-requested wait does not become the previous backoff delay', async () => {
			const rt = new FakeRuntime({ random: scripted([1]) });
			await run(rt, [{ status: 503 }, { status: 503, headers: { 'retry-after': '5' } }, { status: 503 }, { status: 200 }], { backoff });
			// 300 (backoff), 5000 + 500 spread (retry-after), then backoff from 300, not from 5500
			expect(rt.sleepDurations).toEqual([300, 5500, 900]);
		});
	});
});

describe('gate: the API\'s traffic controller before every attempt', () => {
	const go = (note: GateNote = {}, done: (result: AttemptResult<string>) => void = () => {}, lineMs = 0): GateEntry<string> => ({ go: true, note, lineMs, done: async (result) => done(result) });

	it('a gate that stops the first attempt sends nothing and says until when', async () => {
		const rt = new FakeRuntime();
		const fn = scriptedAttempts(rt, [{ status: 200 }]);
		const probeAt = START + 30_000;
		const outcome = await rt.runUntilSettled(
			runWithRetry(fn, policy(), rt, undefined, {
				enter: async () => ({ go: false, stop: 'api-held', why: 'The API looks down: requests are held while a probe finds out when it is back', retryAt: probeAt, note: {} }),
			}),
		);
		expect(fn.calls).toHaveLength(0);
		expect(outcome.ok).toBe(false);
		expect(outcome.story).toMatchObject({ stoppedBecause: 'api-held', attempts: 0, retryAfterMs: 30_000, retryAt: new Date(probeAt).toISOString() });
		expect(outcome.story.summary).toBe('Not sent: The API looks down: requests are held while a probe finds out when it is back');
		if (!outcome.ok) expect(outcome.failure).toMatchObject({ code: 'EAPIHELD', reachedServer: 'no' });
	});

	it.each([
		['retry-budget-exhausted', 'ERETRYBUDGET'],
		['retry-after-too-long', 'EPAUSED'],
		['deadline-exceeded', 'EQUEUED'],
	] as const)('a first attempt stopped with %s leaves with its own code (%s), never EAPIHELD', async (stop, code) => {
		const rt = new FakeRuntime();
		const fn = scriptedAttempts(rt, [{ status: 200 }]);
		const outcome = await rt.runUntilSettled(runWithRetry(fn, policy(), rt, undefined, { enter: async () => ({ go: false, stop, why: 'why it stopped', note: {} }) }));
		expect(fn.calls).toHaveLength(0);
		expect(outcome.story).toMatchObject({ stoppedBecause: stop, attempts: 0 });
		if (!outcome.ok) expect(outcome.failure).toMatchObject({ code, reachedServer: 'no', message: 'why it stopped' });
	});

	it('a gate that stops a retry ends the item with the last failure; it is asked after each backoff wait', async () => {
		const rt = new FakeRuntime();
		const fn = scriptedAttempts(rt, [{ status: 503 }, { status: 503 }, { status: 200 }]);
		const asked: Array<{ attempt: number; last?: number; at: number }> = [];
		const outcome = await rt.runUntilSettled(
			runWithRetry(fn, policy(), rt, undefined, {
				enter: async (attempt, last) => {
					asked.push({ attempt, last: last?.status, at: rt.now() - START });
					return attempt < 3 ? go({ budget: { available: 0, retries: 11 } }) : { go: false, stop: 'retry-budget-exhausted', why: 'The retry budget of the API is spent', note: {} };
				},
			}),
		);
		expect(fn.calls).toHaveLength(2);
		expect(asked).toEqual([
			{ attempt: 1, last: undefined, at: 0 },
			{ attempt: 2, last: 503, at: 1000 },
			{ attempt: 3, last: 503, at: 3000 },
		]);
		expect(outcome.story.stoppedBecause).toBe('retry-budget-exhausted');
		expect(outcome.story.summary).toBe('Stopped after 2 attempts: The retry budget of the API is spent');
		expect(outcome.story.history[1].budget).toEqual({ available: 0, retries: 11 });
		if (!outcome.ok) expect(outcome.failure.status).toBe(503);
	});

	it('hears every result, and its note (how long it held the attempt) lands on that attempt and in the wait', async () => {
		const rt = new FakeRuntime();
		const fn = scriptedAttempts(rt, [{ status: 503 }, { status: 200 }]);
		const seen: Array<number | undefined> = [];
		const outcome = await rt.runUntilSettled(
			runWithRetry(fn, policy(), rt, undefined, {
				enter: async (attempt) => {
					if (attempt === 2) await rt.sleep(4000); // held by the controller
					return go({ traffic: { waitedMs: attempt === 2 ? 4000 : 0, ...(attempt === 2 ? { waitedFor: { held: 4000 } } : {}), inFlight: 1, window: 10 } }, (result) =>
						seen.push(result.ok ? result.status : result.failure.status),
					);
				},
			}),
		);
		expect(seen).toEqual([503, 200]);
		expect(outcome.story.history[1].traffic).toEqual({ waitedMs: 4000, waitedFor: { held: 4000 }, inFlight: 1, window: 10 });
		expect(outcome.story.summary).toBe('Succeeded on attempt 2 of 5 after waiting 5 s');
	});

	it("a wait in line (lineMs) moves the deadline back: the retries keep the whole Total Deadline after it", async () => {
		const rt = new FakeRuntime({ random: scripted([1]) });
		const fn = scriptedAttempts(rt, [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 200 }]);
		const asked: Array<{ attempt: number; deadlineAt?: number }> = [];
		const outcome = await rt.runUntilSettled(
			runWithRetry(fn, policy({ totalDeadlineMs: 10_000, maxAttempts: 10 }), rt, undefined, {
				enter: async (attempt, _last, deadlineAt) => {
					asked.push({ attempt, deadlineAt: deadlineAt === undefined ? undefined : deadlineAt - START });
					if (attempt > 1) return go();
					await rt.sleep(60_000); // in line for the pace, longer than the whole deadline
					return go({}, () => {}, 60_000);
				},
			}),
		);
		// without the move, the first retry (1 s after 60 s) would be past the 10 s deadline
		expect(asked).toEqual([
			{ attempt: 1, deadlineAt: 10_000 },
			{ attempt: 2, deadlineAt: 70_000 },
			{ attempt: 3, deadlineAt: 70_000 },
			{ attempt: 4, deadlineAt: 70_000 },
		]);
		expect(outcome.ok).toBe(true);
	});

	it("a retry's wait in line moves it back too (a retry goes to the back of a Rate Limit's line); a wait that is no line (lineMs 0) counts", async () => {
		const rt = new FakeRuntime({ random: scripted([1]) });
		const inLine = scriptedAttempts(rt, [{ status: 503 }, { status: 200 }]);
		const lined = await rt.runUntilSettled(
			runWithRetry(inLine, policy({ totalDeadlineMs: 10_000, maxAttempts: 10 }), rt, undefined, {
				enter: async (attempt) => {
					if (attempt === 1) return go();
					await rt.sleep(30_000);
					return go({}, () => {}, 30_000);
				},
			}),
		);
		expect(lined.ok).toBe(true);
		const held = scriptedAttempts(rt, [{ status: 503 }, { status: 503 }]);
		const outcome = await rt.runUntilSettled(
			runWithRetry(held, policy({ totalDeadlineMs: 10_000, maxAttempts: 10 }), rt, undefined, {
				enter: async (attempt) => {
					if (attempt === 2) await rt.sleep(8_000); // held during an outage: it counts
					return go();
				},
			}),
		);
		expect(held.calls).toHaveLength(2);
		expect(outcome.story.stoppedBecause).toBe('deadline-exceeded');
	});

	it('canceled while the gate holds the attempt: nothing is sent', async () => {
		const rt = new FakeRuntime();
		const fn = scriptedAttempts(rt, [{ status: 200 }]);
		const outcome = await rt.runUntilSettled(runWithRetry(fn, policy(), rt, undefined, { enter: async () => ({ go: false, stop: 'canceled', why: 'the execution was canceled', note: {} }) }));
		expect(fn.calls).toHaveLength(0);
		expect(outcome.story.stoppedBecause).toBe('canceled');
	});
});

