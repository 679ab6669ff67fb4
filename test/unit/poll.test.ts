/**
 * The polling pace (core/poll.ts) and the decision after a "not yet" answer (Retry When): the
 * pace grows to its cap, jitter only shortens a wait, a server-given wait sets the pace, the
 * deadline stops with a reason of its own, and polls spend no attempt of Max Attempts.
 */
import type { AttemptFailure } from '../../nodes/shared/core/classify';
import { decideAfterFailure, nextToken, type DecisionPolicy, type RetryToken } from '../../nodes/shared/core/decide';
import { POLL_DEFAULTS } from '../../nodes/shared/core/defaults';
import { pollDelay, pollParamsAfter } from '../../nodes/shared/core/poll';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const POLL = { intervalMs: 1000, growth: 2, maxIntervalMs: 8000 };
const zero = () => 0;
const one = () => 0.999999;

const policy = (over: Partial<DecisionPolicy> = {}): DecisionPolicy => ({
	maxAttempts: 3,
	backoff: { strategy: 'none', baseDelayMs: 1000, maxDelayMs: 30_000 },
	totalDeadlineMs: 600_000,
	maxServerDelayMs: 60_000,
	safety: { method: 'GET', hasIdempotencyKey: false, allowUnsafeRetries: false },
	poll: POLL,
	...over,
});
const token = (over: Partial<RetryToken> = {}): RetryToken => ({ attempts: 1, startedAt: NOW, ...over });
const notYet = (over: Partial<AttemptFailure> = {}): AttemptFailure => ({ kind: 'status', status: 200, statusText: 'OK', message: '200 OK', reachedServer: 'yes', transient: true, notYet: true, ...over });

describe('pollDelay', () => {
	it('grows from the interval by the growth factor up to the cap', () => {
		expect([1, 2, 3, 4, 5, 9].map((n) => pollDelay(POLL, n, zero))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
	});

	it('jitter takes at most a tenth off, never adds', () => {
		expect(pollDelay(POLL, 1, one)).toBe(900);
		expect(pollDelay(POLL, 4, () => 0.5)).toBe(7600);
	});

	it('growth 1 is a fixed interval; a faulty random source is no jitter', () => {
		expect(pollDelay({ ...POLL, growth: 1 }, 30, zero)).toBe(1000);
		expect(pollDelay(POLL, 2, () => NaN)).toBe(2000);
	});

	it('a loop after answers given before it goes on at their pace', () => {
		const after = pollParamsAfter(POLL, 1);
		expect([1, 2, 3].map((n) => pollDelay(after, n, zero))).toEqual([2000, 4000, 8000]);
		expect(pollDelay(pollParamsAfter(after, 2), 1, zero)).toBe(8000);
	});

	it('the defaults: 3 s, 6 s, then every 8 s', () => {
		expect([1, 2, 3, 7].map((n) => pollDelay(POLL_DEFAULTS, n, zero))).toEqual([3000, 6000, 8000, 8000]);
	});
});

describe('the decision after a "not yet" answer', () => {
	it('polls at the pace of the polls made so far, not of the attempts', () => {
		expect(decideAfterFailure(notYet(), token({ attempts: 3, polls: 2 }), policy(), NOW, zero)).toEqual({ retry: true, delayMs: 4000, delayReason: 'poll' });
	});

	it('spends no attempt of Max Attempts: 40 polls in, a failure still has its retries', () => {
		const t = token({ attempts: 41, polls: 40 });
		expect(decideAfterFailure(notYet(), t, policy(), NOW, zero)).toMatchObject({ retry: true });
		const failure: AttemptFailure = { kind: 'status', status: 503, message: '503', reachedServer: 'yes', transient: true };
		expect(decideAfterFailure(failure, t, policy(), NOW, zero)).toMatchObject({ retry: true, delayReason: 'backoff' });
		expect(decideAfterFailure(failure, token({ attempts: 43, polls: 40 }), policy(), NOW, zero)).toMatchObject({ retry: false, stop: 'attempts-exhausted' });
	});

	it('a Retry-After on the answer sets the pace, never earlier, and not below the first interval', () => {
		const asked = decideAfterFailure(notYet({ serverDelay: { delayMs: 5000, header: 'retry-after', kind: 'retry-after' } }), token({ polls: 3 }), policy(), NOW, zero);
		expect(asked).toEqual({ retry: true, delayMs: 5000, delayReason: 'retry-after', delayHeader: 'retry-after' });
		const now = decideAfterFailure(notYet({ serverDelay: { delayMs: 0, header: 'retry-after', kind: 'retry-after' } }), token(), policy(), NOW, zero);
		expect(now).toEqual({ retry: true, delayMs: 1000, delayReason: 'poll' });
	});

	it('stops with not-done-by-deadline when the next poll would start after the deadline, saying when it would have been', () => {
		const decision = decideAfterFailure(notYet(), token({ attempts: 9, polls: 8 }), policy({ totalDeadlineMs: 60_000 }), NOW + 55_000, zero);
		expect(decision).toMatchObject({ retry: false, stop: 'not-done-by-deadline', nextPollInMs: 8000 });
		expect(decision.retry === false && decision.why).toBe('not done: the next poll (in 8 s) would start after the total deadline; last response 200 OK met Retry When');
	});

	it('a POST answered "not yet" without a key is not sent again', () => {
		expect(decideAfterFailure(notYet(), token(), policy({ safety: { method: 'POST', hasIdempotencyKey: false, allowUnsafeRetries: false } }), NOW, zero)).toMatchObject({ retry: false, stop: 'not-safe-to-retry' });
	});

	it('the token counts the polls', () => {
		const decision = { retry: true as const, delayMs: 1000, delayReason: 'poll' as const };
		expect(nextToken(token(), decision, notYet())).toEqual({ attempts: 2, startedAt: NOW, polls: 1 });
		expect(nextToken(token({ polls: 1 }), { ...decision, delayReason: 'backoff' }, {})).toEqual({ attempts: 2, startedAt: NOW, previousDelayMs: 1000, polls: 1 });
	});
});
