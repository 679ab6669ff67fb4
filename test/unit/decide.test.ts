/**
 * The engine's one decision, for both nodes' states: the HTTP node's token in memory (with the
 * request's safety), and Backoff Delay's token read from an item (no request known, the failure
 * classified from the item).
 */
import { parseStatusList, type AttemptFailure } from '../../nodes/shared/core/classify';
import { decideAfterFailure, nextToken, type DecisionPolicy, type RetryToken } from '../../nodes/shared/core/decide';
import { RETRY_DEFAULTS } from '../../nodes/shared/core/defaults';
import { classifyItemFailure, readItemFailure } from '../../nodes/shared/core/item-failure';
import { STOP_REASONS } from '../../nodes/shared/core/stop-reasons';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const RETRY_ON = parseStatusList(RETRY_DEFAULTS.retryOnStatuses);
const half = () => 0.5;

const policy = (over: Partial<DecisionPolicy> = {}): DecisionPolicy => ({
	maxAttempts: 5,
	backoff: { strategy: 'none', baseDelayMs: 1000, maxDelayMs: 30_000 },
	totalDeadlineMs: 0,
	maxServerDelayMs: 60_000,
	...over,
});
const http = (over: Partial<DecisionPolicy> = {}) => policy({ safety: { method: 'GET', hasIdempotencyKey: false, allowUnsafeRetries: false }, ...over });
const token = (over: Partial<RetryToken> = {}): RetryToken => ({ attempts: 1, startedAt: NOW, ...over });
const status = (s: number, over: Partial<AttemptFailure> = {}): AttemptFailure => ({ kind: 'status', status: s, message: String(s), reachedServer: s === 429 ? 'refused' : 'yes', transient: RETRY_ON.has(s), ...over });
const reset: AttemptFailure = { kind: 'network', code: 'ECONNRESET', message: 'socket hang up', reachedServer: 'maybe', transient: true };
/** Backoff Delay's path: an item's json, read and classified as the node does. */
const fromItem = (json: Record<string, unknown>, onlyTransient = true) => classifyItemFailure(readItemFailure(json, NOW), { onlyTransient, retryOn: RETRY_ON, obeyHints: true });

describe('retry: the delay and its reason', () => {
	it('the backoff of the retry number the token says', () => {
		expect(decideAfterFailure(status(503), token({ attempts: 3 }), http(), NOW, half)).toEqual({ retry: true, delayMs: 4000, delayReason: 'backoff' });
	});

	it('never earlier than the server asked', () => {
		const decision = decideAfterFailure(status(429, { serverDelay: { delayMs: 7000, header: 'retry-after', kind: 'retry-after' } }), token(), http(), NOW, half);
		expect(decision).toMatchObject({ retry: true, delayReason: 'retry-after', delayHeader: 'retry-after' });
		expect(decision.retry && decision.delayMs).toBeGreaterThanOrEqual(7000);
	});

	it('the next token counts one more attempt and keeps only a backoff wait for decorrelated jitter', () => {
		expect(nextToken(token(), { retry: true, delayMs: 800, delayReason: 'backoff' })).toEqual({ attempts: 2, startedAt: NOW, previousDelayMs: 800 });
		expect(nextToken(token({ previousDelayMs: 800 }), { retry: true, delayMs: 9000, delayReason: 'retry-after' })).toEqual({ attempts: 2, startedAt: NOW, previousDelayMs: 800 });
	});
});

describe('every stop reason the decision gives', () => {
	const cases: Array<[string, AttemptFailure, RetryToken, DecisionPolicy, string, RegExp]> = [
		['a status not in the list', status(404), token(), http(), 'final-status', /^response 404 is final: its status is not in Retry On Status Codes$/],
		['an error that is not transient', { kind: 'network', code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND x', reachedServer: 'no', transient: false }, token(), http(), 'not-retryable-error', /^error ENOTFOUND: getaddrinfo ENOTFOUND x is not a transient failure$/],
		['a POST that may have been processed', reset, token(), http({ safety: { method: 'POST', hasIdempotencyKey: false, allowUnsafeRetries: false } }), 'not-safe-to-retry', /^Not retried: POST is not idempotent/],
		['the last attempt', status(503), token({ attempts: 5 }), http(), 'attempts-exhausted', /^last response 503$/],
		['a wait past the deadline', status(503), token({ startedAt: NOW - 9500 }), http({ totalDeadlineMs: 10_000 }), 'deadline-exceeded', /^the next retry \(in 1 s\) would start after the total deadline; last response 503$/],
		['a server wait past Max Server-Requested Delay', status(429, { serverDelay: { delayMs: 120_000, header: 'retry-after', kind: 'retry-after' } }), token(), http(), 'retry-after-too-long', /^The server asked to wait 2 min \(retry-after\), more than Max Server-Requested Delay \(1 min\); last response 429$/],
		['a server wait past what the deadline leaves', status(429, { serverDelay: { delayMs: 20_000, header: 'retry-after', kind: 'retry-after' } }), token(), http({ totalDeadlineMs: 10_000 }), 'retry-after-too-long', /more than the total deadline leaves/],
		['a spent budget, judged by the HTTP node', fromItem({ error: { reason: 'retry-budget-exhausted', status: 503 } }), token(), policy(), 'retry-budget-exhausted', /^The retry budget is spent/],
		['an item without a failure', fromItem({ statusCode: 200 }), token(), policy(), 'not-a-failure', /^The item carries no failure \(response 200\): nothing to retry$/],
		[
			'a job still not done at the deadline (Retry When)',
			{ kind: 'status', status: 200, message: '200', reachedServer: 'yes', transient: true, notYet: true },
			token({ startedAt: NOW - 9500 }),
			http({ totalDeadlineMs: 10_000, poll: { intervalMs: 1000, growth: 1.5, maxIntervalMs: 10_000 } }),
			'not-done-by-deadline',
			/^not done: the next poll \(in 950 ms\) would start after the total deadline; last response 200 met Retry When$/,
		],
	];
	it.each(cases)('%s', (_label, failure, t, p, reason, why) => {
		const decision = decideAfterFailure(failure, t, p, NOW, half);
		expect(decision).toMatchObject({ retry: false, stop: reason });
		expect(!decision.retry && decision.why).toMatch(why);
	});

	it('covers every reason but the ones only the loop around it gives (success, canceled, a guard refusing)', () => {
		const given = new Set(cases.map((c) => c[4]));
		expect(STOP_REASONS.filter((r) => !given.has(r))).toEqual(['success', 'api-held', 'canceled']);
	});
});

describe("Backoff Delay's state: a failure read from an item", () => {
	it("follows the HTTP node's verdicts, also in the words of earlier versions", () => {
		expect(decideAfterFailure(fromItem({ error: { reason: 'not-safe-to-retry', code: 'ECONNRESET' } }), token(), policy(), NOW, half)).toMatchObject({ stop: 'not-safe-to-retry' });
		expect(decideAfterFailure(fromItem({ error: { reason: 'final-status', status: 404 } }), token(), policy(), NOW, half)).toMatchObject({ stop: 'final-status' });
		expect(decideAfterFailure(fromItem({ error: { reason: 'not-retryable', status: 404 } }), token(), policy(), NOW, half)).toMatchObject({ stop: 'final-status' });
		expect(decideAfterFailure(fromItem({ error: { reason: 'not-retryable', code: 'ENOTFOUND' } }), token(), policy(), NOW, half)).toMatchObject({ stop: 'not-retryable-error' });
	});

	it('an item the hold kept back is retried at its next probe; with Only Retry Transient Failures off a 404 is retried too', () => {
		const openUntil = new Date(NOW + 20_000).toISOString();
		expect(decideAfterFailure(fromItem({ error: { reason: 'api-held', code: 'EAPIHELD', retryAt: openUntil } }), token(), policy(), NOW, half)).toMatchObject({ retry: true, delayReason: 'retry-after' });
		// as an earlier version named it
		expect(decideAfterFailure(fromItem({ error: { reason: 'circuit-open', code: 'ECIRCUITOPEN', retryAt: openUntil } }), token(), policy(), NOW, half)).toMatchObject({ retry: true, delayReason: 'retry-after' });
		expect(decideAfterFailure(fromItem({ error: { status: 404 } }, false), token(), policy(), NOW, half)).toMatchObject({ retry: true });
	});

	it('undici codes are transient here as in the HTTP node', () => {
		expect(decideAfterFailure(fromItem({ error: { code: 'UND_ERR_SOCKET', message: 'other side closed' } }), token(), policy(), NOW, half)).toMatchObject({ retry: true });
	});

	it('the deadline counts from the token: for Backoff Delay the first failure', () => {
		expect(decideAfterFailure(fromItem({ error: { status: 503 } }), token({ attempts: 2, startedAt: NOW - 60_000 }), policy({ totalDeadlineMs: 61_000 }), NOW, half)).toMatchObject({ stop: 'deadline-exceeded' });
	});
});
