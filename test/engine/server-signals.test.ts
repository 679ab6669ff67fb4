/**
 * What a server says beyond its status, in n8n's engine against a local server: retry hints,
 * 529, GitHub's 403s, a wait in the JSON body, a daily quota; for both nodes, and with
 * Obey Server Retry Hints off. Waits run on virtual time; the server stamps requests with it.
 */
import type { IDataObject } from 'n8n-workflow';
import type { RetryStory } from '../../nodes/shared/core/retry-story';
import type { LocalResponse } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, loopWorkflow, requestNode, runHttp } from './workflow-builders';

const server = useLocalServers();
const FAST = { baseDelay: 100, maxDelay: 100, jitter: 'none' };

/** The first answer is `first`; every later one is 200. */
async function upstreamAnswering(first: (nowMs: number) => LocalResponse, clock: () => number) {
	return await server((_req, n) => (n === 0 ? first(clock()) : { status: 200, body: { ok: true } }), clock);
}

async function runHttpNode(first: (nowMs: number) => LocalResponse, parameters: IDataObject = {}) {
	const runtime = createVirtualRuntime();
	const upstream = await upstreamAnswering(first, runtime.now);
	const { retryOptions, ...rest } = parameters;
	const wf = httpWorkflow({ url: `${upstream.url}/x`, maxAttempts: 3, ...rest, retryOptions: { ...FAST, ...(retryOptions as IDataObject | undefined) } }, { onError: 'continueErrorOutput' });
	const run = await runHttp(wf, [{ json: { id: 1 } }], runtime);
	expect(run.status).toBe('success');
	const ok = run.jsonOf('HTTP', 0);
	const failed = run.jsonOf('HTTP', 1);
	const story = (ok[0]?._retry ?? (failed[0]?.error as IDataObject | undefined)?._retry) as unknown as RetryStory;
	return { upstream, runtime, ok, failed, story, error: failed[0]?.error as IDataObject | undefined };
}

const epochIn = (nowMs: number, s: number) => String(Math.ceil(nowMs / 1000) + s);

describe('retry hints', () => {
	it('a 500 with `x-should-retry: false` goes to the error output at once, saying why', async () => {
		const { upstream, error, story } = await runHttpNode(() => ({ status: 500, headers: { 'x-should-retry': 'false' } }));
		expect(upstream.requests).toHaveLength(1);
		expect(error).toMatchObject({ status: 500, reason: 'final-status', message: '500 - ""' });
		expect(story.summary).toBe('Response 500 Internal Server Error is final: the server said not to retry it (x-should-retry: false)');
	});

	it('a 400 with `Stripe-Should-Retry: true` is retried, and succeeds', async () => {
		const { upstream, ok, story } = await runHttpNode(() => ({ status: 400, headers: { 'Stripe-Should-Retry': 'true' } }));
		expect(upstream.requests).toHaveLength(2);
		expect(ok).toHaveLength(1);
		expect(story.history[1]).toMatchObject({ delayReason: 'backoff', delayBeforeMs: 100 });
	});

	it('with Obey Server Retry Hints off, only the status list decides: the 500 is retried', async () => {
		const { upstream, ok } = await runHttpNode(() => ({ status: 500, headers: { 'x-should-retry': 'false' } }), { retryOptions: { obeyServerHints: false } });
		expect(upstream.requests).toHaveLength(2);
		expect(ok).toHaveLength(1);
	});
});

describe('529, a refusal like 429', () => {
	it('a POST without an idempotency key that got a 529 is retried (the server did no work)', async () => {
		const { upstream, ok } = await runHttpNode(() => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }), { method: 'POST' });
		expect(upstream.requests).toHaveLength(2);
		expect(ok).toHaveLength(1);
	});
});

describe("GitHub's 403s", () => {
	it('the primary limit (`x-ratelimit-remaining: 0`): the retry waits for `x-ratelimit-reset`', async () => {
		let resetAt = 0;
		const { upstream, ok, story } = await runHttpNode((now) => {
			resetAt = (Math.ceil(now / 1000) + 3) * 1000;
			return { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epochIn(now, 3) }, body: { message: 'API rate limit exceeded for installation ID 1.' } };
		});
		expect(upstream.requests).toHaveLength(2);
		expect(upstream.requests[1].receivedAt).toBeGreaterThanOrEqual(resetAt);
		expect(ok).toHaveLength(1);
		expect(story.history[1]).toMatchObject({ delayReason: 'rate-limit-reset', delayHeader: 'x-ratelimit-reset' });
	});

	it('the secondary limit without `retry-after`: at least one minute', async () => {
		const { upstream, ok, story } = await runHttpNode(() => ({ status: 403, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' } }));
		expect(upstream.requests).toHaveLength(2);
		expect(upstream.requests[1].receivedAt - upstream.requests[0].receivedAt).toBeGreaterThanOrEqual(60_000);
		expect(ok).toHaveLength(1);
		expect(story.history[1]).toMatchObject({ delayHeader: 'body.message' });
	});

	it('a permission 403 stays final: one request', async () => {
		const { upstream, error } = await runHttpNode((now) => ({ status: 403, headers: { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': epochIn(now, 3000) }, body: { message: 'Resource not accessible by integration' } }));
		expect(upstream.requests).toHaveLength(1);
		expect(error).toMatchObject({ status: 403, reason: 'final-status' });
	});

	it('a reset an hour away spends no attempt: the error output at once, with retryAt', async () => {
		const { upstream, error } = await runHttpNode((now) => ({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epochIn(now, 3600) } }));
		expect(upstream.requests).toHaveLength(1);
		expect(error).toMatchObject({ reason: 'retry-after-too-long' });
		expect(error!.retryAfterMs as number).toBeGreaterThan(3_500_000);
	});
});

describe('the body', () => {
	it("Discord's `retry_after` in a 429's JSON body is obeyed", async () => {
		const { upstream, ok, story } = await runHttpNode(() => ({ status: 429, body: { message: 'You are being rate limited.', retry_after: 1.5, global: false } }));
		expect(upstream.requests).toHaveLength(2);
		expect(upstream.requests[1].receivedAt - upstream.requests[0].receivedAt).toBeGreaterThanOrEqual(1500);
		expect(ok).toHaveLength(1);
		expect(story.history[1]).toMatchObject({ delayReason: 'retry-after', delayHeader: 'body.retry_after' });
	});

	it("HubSpot's daily limit spends no attempt: the error output at once, retryAt a day later", async () => {
		const { upstream, error, runtime } = await runHttpNode(() => ({ status: 429, body: { status: 'error', message: 'You have reached your daily limit.', errorType: 'RATE_LIMIT', policyName: 'DAILY' } }));
		expect(upstream.requests).toHaveLength(1);
		expect(runtime.sleeps).toEqual([]);
		expect(error).toMatchObject({ reason: 'retry-after-too-long', retryAfterMs: 86_400_000, error: expect.stringContaining('"policyName":"DAILY"') });
	});

	it("OpenAI's `insufficient_quota` is final: no wait restores it", async () => {
		const { upstream, error, story } = await runHttpNode(() => ({ status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } }));
		expect(upstream.requests).toHaveLength(1);
		expect(error).toMatchObject({ reason: 'final-status' });
		expect(String(story.summary)).toMatch(/quota is spent that waiting does not restore \(error.code: insufficient_quota\)/);
	});
});

describe('a quota no wait restores is no pause for the others', () => {
	/** 40 items at once to a fresh API whose answer to items 0-4 is `spent` (the rest: 200); each item's waits at the controller, and the largest window a request went under. */
	async function run40(spent: LocalResponse | undefined) {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const upstream = await server((req) => (spent && /\/x\/[0-4]$/.test(req.url) ? spent : { status: 200, body: { ok: true } }), runtime.now);
		const wf = httpWorkflow({ url: `={{ "${upstream.url}/x/" + $json.id }}`, maxAttempts: 3 }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, Array.from({ length: 40 }, (_, id) => ({ json: { id } })), runtime);
		const traffic = run.jsonOf('HTTP', 0).flatMap((j) => (j._retry as RetryStory).history.map((h) => h.traffic as IDataObject | undefined).filter((t): t is IDataObject => t !== undefined));
		const waitedFor = new Set(traffic.flatMap((t) => Object.keys((t.waitedFor as IDataObject | undefined) ?? {})));
		return { upstream, run, waitedFor, maxWindow: Math.max(0, ...traffic.map((t) => Number(t.window ?? 0))) };
	}

	it("OpenAI's `insufficient_quota` on some items (one project's key out of credit): one request each, and the others go on as if it had not come (no pause, no pace, the same window)", async () => {
		const spent = { status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } };
		const { upstream, run, waitedFor, maxWindow } = await run40(spent);
		expect(upstream.requests).toHaveLength(40);
		expect(run.jsonOf('HTTP', 1).map((j) => (j.error as IDataObject).reason)).toEqual(Array(5).fill('final-status'));
		expect(run.jsonOf('HTTP', 0)).toHaveLength(35);
		// the others wait only for the first execution's slow start, as with no 429 at all
		expect([...waitedFor]).toEqual(['window']);
		// the window grows by one per success: five requests that failed are five fewer to grow it, no more (an overload halves it)
		const healthy = await run40(undefined);
		expect(maxWindow).toBeGreaterThanOrEqual(healthy.maxWindow - 5);
	});
});

describe('Backoff Delay reads the same signals on an item', () => {
	async function loop(first: LocalResponse, backoffOptions: IDataObject = {}) {
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => (n === 0 ? first : { status: 200, body: { ok: true } }), runtime.now);
		const http = requestNode('core', { url: `${upstream.url}/x`, options: { response: { response: { fullResponse: true, neverError: true } } } });
		const run = await runHttp(loopWorkflow(http, { maxAttempts: 3, options: { ...FAST, ...backoffOptions } }, { successOutputToBackoff: true }), [{ json: { id: 1 } }], runtime);
		expect(run.status).toBe('success');
		return { upstream, run };
	}

	it("a JSON body's `retry_after` (n8n's HTTP Request, full response)", async () => {
		const { upstream, run } = await loop({ status: 429, body: { message: 'You are being rate limited.', retry_after: 1.5 } });
		expect(upstream.requests).toHaveLength(2);
		expect(upstream.requests[1].receivedAt - upstream.requests[0].receivedAt).toBeGreaterThanOrEqual(1500);
		expect(run.jsonOf('Backoff', 0)[0]._backoff).toMatchObject({ delayReason: 'retry-after', delayHeader: 'body.retry_after' });
	});

	it('`x-should-retry: false` sends the item to Give up; with Obey Server Retry Hints off it is retried', async () => {
		const refused = await loop({ status: 503, headers: { 'x-should-retry': 'false' } });
		expect(refused.upstream.requests).toHaveLength(1);
		expect(refused.run.jsonOf('Backoff', 1)[0]._backoff).toMatchObject({ stoppedBecause: 'final-status', message: expect.stringMatching(/the server said not to retry it \(x-should-retry: false\)/) });

		const obeyed = await loop({ status: 503, headers: { 'x-should-retry': 'false' } }, { obeyServerHints: false });
		expect(obeyed.upstream.requests).toHaveLength(2);
	});

	it("a GitHub primary-limit 403 is retried after the reset; a permission 403 gives up", async () => {
		const limited = await loop({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '2' } });
		expect(limited.upstream.requests).toHaveLength(2);
		expect(limited.run.jsonOf('Backoff', 0)[0]._backoff).toMatchObject({ delayReason: 'rate-limit-reset' });

		const forbidden = await loop({ status: 403, body: { message: 'Must have admin rights to Repository.' } });
		expect(forbidden.upstream.requests).toHaveLength(1);
		expect(forbidden.run.jsonOf('Backoff', 1)[0]._backoff).toMatchObject({ stoppedBecause: 'final-status' });
	});
});
