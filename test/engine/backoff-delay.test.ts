/**
 * The Backoff Delay node as the body of a retry loop, in n8n's engine: behind our HTTP node and
 * behind n8n's own HTTP Request, against a real local server, on virtual time.
 */
import type { IDataObject } from 'n8n-workflow';
import { useLocalServers } from './servers';
import { createVirtualRuntime, withEndlessSleeps } from './virtual-runtime';
import { startFlakyServer } from '../support/flaky-upstream';
import { httpWorkflow, loopWorkflow, requestNode, runHttp } from './workflow-builders';

const server = useLocalServers();

const backoffOf = (json: IDataObject) => json._backoff as IDataObject;

describe.each(['resilient', 'core'] as const)('a loop with %s HTTP Request -> Backoff Delay -> back', (kind) => {
	it('succeeds after three failures, counting attempts on the item', async () => {
		const upstream = await server((_req, n) => (n < 3 ? { status: 503, body: { busy: true } } : { status: 200, body: { done: true } }));
		const runtime = createVirtualRuntime();
		const run = await runHttp(loopWorkflow(requestNode(kind, { url: `${upstream.url}/job` }), { maxAttempts: 5 }), [{ json: { id: 'job-1' } }], runtime);

		expect(run.status).toBe('success');
		expect(upstream.requests).toHaveLength(4);
		expect(run.runsOf('Backoff')).toBe(3);
		expect(run.jsonOf('OK')).toEqual([expect.objectContaining({ done: true })]);
		expect(runtime.sleeps).toHaveLength(3);
		// the attempt written on the item grows pass after pass: 2, 3, 4
		expect([0, 1, 2].map((r) => backoffOf(run.jsonOf('Backoff', 0, r)[0]).attempt)).toEqual([2, 3, 4]);
		expect(run.jsonOf('Backoff', 0, 0)[0].id).toBe('job-1');
	});

	it('gives up after Max Attempts with the original item intact', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const runtime = createVirtualRuntime();
		const file = { data: Buffer.from('keep me').toString('base64'), mimeType: 'text/plain', fileName: 'k.txt' };
		const run = await runHttp(loopWorkflow(requestNode(kind, { url: `${upstream.url}/down` }), { maxAttempts: 3 }), [{ json: { order: 42, note: 'x' }, binary: { doc: file } }], runtime);

		expect(upstream.requests).toHaveLength(3);
		const [gaveUp] = run.outputOf('Gave up');
		expect(gaveUp.json).toMatchObject({ order: 42, note: 'x', _backoff: { stoppedBecause: 'attempts-exhausted', attempt: 3, maxAttempts: 3 } });
		// n8n's HTTP Request drops binary data on its error output; ours keeps the whole item
		if (kind === 'resilient') expect(gaveUp.binary?.doc?.fileName).toBe('k.txt');
		expect(runtime.sleeps).toHaveLength(2);
	});

	it('sends a non-retryable status to Give up without waiting', async () => {
		const upstream = await server(() => ({ status: 404, body: { message: 'no such thing' } }));
		const runtime = createVirtualRuntime();
		const run = await runHttp(loopWorkflow(requestNode(kind, { url: `${upstream.url}/missing` }), {}), [{ json: { id: 9 } }], runtime);

		expect(upstream.requests).toHaveLength(1);
		expect(runtime.sleeps).toHaveLength(0);
		expect(backoffOf(run.jsonOf('Gave up')[0])).toMatchObject({ stoppedBecause: 'final-status', lastFailure: { status: 404 } });
	});
});

describe('Retry-After', () => {
	it('from the Resilient HTTP Request error output: the wait is never shorter', async () => {
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '7' } } : { status: 200, body: { ok: 1 } }), runtime.now);
		const run = await runHttp(loopWorkflow(requestNode('resilient', { url: `${upstream.url}/rl` }), { options: { baseDelay: 10 } }), [{ json: {} }], runtime);

		expect(run.status).toBe('success');
		expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(7000);
		expect(upstream.requests[1].receivedAt - upstream.requests[0].receivedAt).toBeGreaterThanOrEqual(7000);
		expect(backoffOf(run.jsonOf('Backoff')[0])).toMatchObject({ delayReason: 'retry-after', delayHeader: 'retryAt' });
	});

	it('from a core HTTP Request with full response and Never Error', async () => {
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '5' } } : { status: 200, body: { ok: 1 } }), runtime.now);
		const http = requestNode('core', { url: `${upstream.url}/rl`, options: { response: { response: { fullResponse: true, neverError: true } } } });
		const run = await runHttp(loopWorkflow(http, {}, { successOutputToBackoff: true }), [{ json: {} }], runtime);

		expect(upstream.requests).toHaveLength(2);
		expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(5000);
		expect(backoffOf(run.jsonOf('Backoff', 0, 0)[0])).toMatchObject({ delayReason: 'retry-after', delayHeader: 'retry-after' });
		// the 200 response is no failure: it leaves the loop through Give up, marked as such
		expect(backoffOf(run.jsonOf('Gave up')[0])).toMatchObject({ stoppedBecause: 'not-a-failure' });
	});

	it('a Server-Requested Wait expression overrides what is on the item', async () => {
		// the item carries a wait of its own (Retry-After: 30 s), which the expression replaces
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => (n === 0 ? { status: 503, headers: { 'retry-after': '30' } } : { status: 200, body: {} }), runtime.now);
		const run = await runHttp(loopWorkflow(requestNode('resilient', { url: `${upstream.url}/x` }), { options: { serverWait: '={{ 12000 }}', baseDelay: 1 } }), [{ json: {} }], runtime);
		expect((run.jsonOf('HTTP', 1)[0].error as IDataObject).retryAfterMs).toBe(30_000);
		expect(runtime.sleeps).toHaveLength(1);
		expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(12000);
		expect(runtime.sleeps[0]).toBeLessThan(30_000);
		expect(backoffOf(run.jsonOf('Backoff')[0])).toMatchObject({ delayReason: 'retry-after', delayHeader: 'Server-Requested Wait' });
		// the HTTP node still honours the API's pause: the retry, back from Backoff Delay after 12 s,
		// waits at the gate for the rest of the 30 s, on the virtual clock (not 18 real seconds)
		expect(run.jsonOf('OK')).toHaveLength(1);
		expect(upstream.requests).toHaveLength(2);
		expect(upstream.requests[1].receivedAt - upstream.requests[0].receivedAt).toBeGreaterThanOrEqual(30_000);
		expect(runtime.timerJumps.some((j) => j.jumpedMs >= 17_000)).toBe(true);
	});
});

describe('waiting', () => {
	it('one wait for the longest delay of the pass; each item keeps its own nextAttemptAt', async () => {
		const runtime = createVirtualRuntime();
		const upstream = await server((req) => {
			const n = Number(new URL(req.url, 'http://x').searchParams.get('n'));
			return { status: 429, headers: { 'retry-after': String(n) } };
		});
		const wf = loopWorkflow(requestNode('resilient', { url: `={{ "${upstream.url}/x?n=" + $json.n }}` }), { maxAttempts: 2, options: { baseDelay: 1 } });
		const run = await runHttp(wf, [{ json: { n: 2 } }, { json: { n: 9 } }], runtime);

		expect(runtime.sleeps).toHaveLength(1);
		expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(9000);
		const pass = run.jsonOf('Backoff').map(backoffOf);
		expect(pass[0].waitUntil).toBe(pass[1].waitUntil);
		expect(Date.parse(String(pass[0].nextAttemptAt))).toBeLessThan(Date.parse(String(pass[1].nextAttemptAt)));
	});

	it('puts the execution into n8n\'s waiting state for a wait over the in-process limit, with the decision on the items', async () => {
		const upstream = await server(() => ({ status: 503, headers: { 'retry-after': '120' } }));
		const runtime = createVirtualRuntime();
		const started = runtime.now();
		const run = await runHttp(loopWorkflow(requestNode('resilient', { url: `${upstream.url}/x` }), {}), [{ json: { id: 'w' } }], runtime);

		expect(run.status).toBe('waiting');
		expect(run.waitTill!.getTime() - started).toBeGreaterThanOrEqual(120_000);
		expect(runtime.sleeps).toHaveLength(0);
		// the node's input (what n8n passes on when it resumes) already carries the decision
		const input = run.run.data.executionData!.nodeExecutionStack[0];
		expect(input.node.name).toBe('Backoff');
		expect(input.data.main[0]![0].json).toMatchObject({ id: 'w', _backoff: { attempt: 2, delayReason: 'retry-after' } });
		// ...without touching the items the upstream node emitted (shared with its other branches)
		expect(run.jsonOf('HTTP', 1)[0]._backoff).toBeUndefined();
	});

	it('compute-only mode annotates and routes without waiting', async () => {
		const upstream = await server(() => ({ status: 502 }));
		const runtime = createVirtualRuntime();
		const wf = loopWorkflow(requestNode('resilient', { url: `${upstream.url}/x` }), { mode: 'computeOnly', maxAttempts: 3 });
		const run = await runHttp(wf, [{ json: {} }], runtime);
		expect(runtime.sleeps).toHaveLength(0);
		expect(upstream.requests).toHaveLength(3);
		expect(backoffOf(run.jsonOf('Backoff', 0, 0)[0])).toMatchObject({ attempt: 2, delayReason: 'backoff' });
		expect(typeof backoffOf(run.jsonOf('Backoff', 0, 0)[0]).nextAttemptAt).toBe('string');
	});

	it('cancelling the execution ends an in-process wait at once', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const controller = new AbortController();
		// the 30 s wait lasts until the execution is cancelled, which happens as soon as it starts
		const runtime = withEndlessSleeps(createVirtualRuntime(), () => controller.abort());
		const run = await runHttp(
			loopWorkflow(requestNode('resilient', { url: `${upstream.url}/x` }), { options: { baseDelay: 30_000, maxDelay: 30_000, jitter: 'none' } }),
			[{ json: {} }],
			runtime,
			{ signal: controller.signal },
		);
		expect(run.status).toBe('canceled');
		expect(runtime.asked).toEqual([30_000]);
		expect(runtime.ended()).toBe(1);
		expect(upstream.requests).toHaveLength(1);
		expect(run.runsOf('Gave up')).toBe(0);
	});
});

describe('bad input', () => {
	it('an attempt field that is not a number fails with the field and the item named', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const run = await runHttp(loopWorkflow(requestNode('resilient', { url: `${upstream.url}/x` }), {}), [{ json: { _backoff: { attempt: 'three' } } }], createVirtualRuntime());
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Field "_backoff" of item 0 has attempt "three", which is not an attempt number/);
	});

	it.each([
		[{ maxAttempts: 0 }, /Parameter "Max Attempts" must be at least 1/],
		[{ options: { baseDelay: -1 } }, /Parameter "Base Delay \(Ms\)" must be at least 0/],
		[{ options: { maxDelay: 'soon' } }, /Parameter "Max Delay \(Ms\)" must be a number/],
		[{ options: { serverWait: 'whenever' } }, /Parameter "Server-Requested Wait" must be milliseconds, a Retry-After value or a date/],
	])('%j fails with the parameter named', async (parameters, message) => {
		const upstream = await server(() => ({ status: 503 }));
		const run = await runHttp(loopWorkflow(requestNode('resilient', { url: `${upstream.url}/x` }), parameters), [{ json: {} }], createVirtualRuntime());
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
	});
});

describe('behind shared limits', () => {
	it('an item whose API is held past its deadline goes round the loop and is retried at the probe time, not given up', async () => {
		const upstream = await server((_req, n) => (n < 2 ? { status: 503 } : { status: 200, body: { back: true } }));
		const runtime = createVirtualRuntime();
		// one attempt per pass (the loop retries); the API is held after 2 failures, for 20 s
		const http = requestNode('resilient', { url: `${upstream.url}/x`, retryOptions: { totalDeadline: 5_000 }, sharedLimits: { breakerConsecutiveFailures: 2, breakerBreak: 20_000, breakerMaxBreak: 20_000 } });
		const run = await runHttp(loopWorkflow(http, { maxAttempts: 5, options: { baseDelay: 10 } }), [{ json: {} }], runtime);

		expect(run.jsonOf('OK')).toEqual([expect.objectContaining({ back: true })]);
		// 503, 503 (the API is held), then a pass whose probe time comes after its deadline: it leaves
		// without a request and with the probe time; Backoff Delay waits until then; the next pass probes
		expect(upstream.requests).toHaveLength(3);
		const heldPass = run.jsonOf('Backoff', 0, 2)[0];
		expect(heldPass._backoff).toMatchObject({ lastFailure: { code: 'EAPIHELD' }, delayReason: 'retry-after' });
		expect(Math.max(...runtime.sleeps)).toBeGreaterThanOrEqual(19_000);
		const probe = (run.jsonOf('OK')[0]._retry as IDataObject).history as IDataObject[];
		expect(probe[0].traffic).toMatchObject({ probe: true });
	});

	it('an item whose API is held within its deadline waits at the gate for the probe instead of leaving', async () => {
		const upstream = await server((_req, n) => (n < 2 ? { status: 503 } : { status: 200, body: { back: true } }));
		const runtime = createVirtualRuntime();
		const http = requestNode('resilient', { url: `${upstream.url}/x`, sharedLimits: { breakerConsecutiveFailures: 2, breakerBreak: 20_000, breakerMaxBreak: 20_000 } });
		const run = await runHttp(loopWorkflow(http, { maxAttempts: 5, options: { baseDelay: 10 } }), [{ json: {} }], runtime);

		expect(run.jsonOf('OK')).toEqual([expect.objectContaining({ back: true })]);
		expect(upstream.requests).toHaveLength(3);
		// two passes through the loop (one per failed attempt), and none for the hold
		expect(run.runsOf('Backoff')).toBe(2);
		const story = (run.jsonOf('OK')[0]._retry as IDataObject).history as IDataObject[];
		expect(story[0].traffic).toMatchObject({ probe: true, waitedFor: { held: expect.any(Number) } });
		expect(((story[0].traffic as IDataObject).waitedFor as IDataObject).held).toBeGreaterThanOrEqual(19_000);
	});
});

describe('loops cannot bypass the retry budget', () => {
	it('each pass back through Resilient HTTP Request is a retry for the budget; a spent budget gives up', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const runtime = createVirtualRuntime(11, { frozen: true });
		// the budget alone (no hold); retries waiting for it leave at the item's deadline
		const http = requestNode('resilient', { url: `${upstream.url}/x`, retryOptions: { totalDeadline: 300 }, sharedLimits: { breaker: false, budgetPercent: 0, budgetMinRetries: 2 } });
		const run = await runHttp({ ...loopWorkflow(http, { maxAttempts: 5, options: { baseDelay: 10 } }), id: 'loop-budget' }, Array.from({ length: 5 }, (_, n) => ({ json: { n } })), runtime);

		// 5 first attempts + the 2 retries the budget allows
		expect(upstream.requests).toHaveLength(7);
		const gaveUp = run.runsOf('Gave up') > 0 ? [0, 1, 2].flatMap((r) => (r < run.runsOf('Gave up') ? run.jsonOf('Gave up', 0, r) : [])) : [];
		expect(gaveUp).toHaveLength(5);
		expect(gaveUp.every((j) => (j._backoff as IDataObject).stoppedBecause === 'retry-budget-exhausted')).toBe(true);
	});
});

describe('loops cannot bypass the retry budget under another Backoff Field', () => {
	it('an item back from a Backoff Delay whose field is renamed is still a retry for the budget', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const runtime = createVirtualRuntime(11, { frozen: true });
		const http = requestNode('resilient', { url: `${upstream.url}/x`, retryOptions: { totalDeadline: 300 }, sharedLimits: { breaker: false, budgetPercent: 0, budgetMinRetries: 2 } });
		const run = await runHttp({ ...loopWorkflow(http, { maxAttempts: 5, options: { baseDelay: 10, stateField: 'loop' } }), id: 'loop-budget-renamed' }, Array.from({ length: 5 }, (_, n) => ({ json: { n } })), runtime);

		// 5 first attempts + the 2 retries the budget allows, as with the default field
		expect(upstream.requests).toHaveLength(7);
		const gaveUp = [0, 1, 2].flatMap((r) => (r < run.runsOf('Gave up') ? run.jsonOf('Gave up', 0, r) : []));
		expect(gaveUp).toHaveLength(5);
		expect(gaveUp.every((j) => (j.loop as IDataObject).stoppedBecause === 'retry-budget-exhausted')).toBe(true);
	});
});

describe('generated idempotency keys through the loop', () => {
	it('an order whose attempts all drop is charged once: the loop sends it back under the key it was sent with', async () => {
		const upstream = await startFlakyServer();
		try {
			const runtime = createVirtualRuntime();
			const http = requestNode('resilient', { method: 'POST', url: `${upstream.url}/drop-after-processing/order-7`, idempotencyKeyMode: 'generate', sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: '={{ JSON.stringify({ order: $json.order }) }}' });
			const run = await runHttp(loopWorkflow(http, { maxAttempts: 3, options: { baseDelay: 10 } }), [{ json: { order: 7 } }], runtime);

			expect(run.status).toBe('success');
			// the only attempt of the first pass dropped after processing; the loop's pass got the answer
			expect(upstream.requests('/drop-after-processing/order-7')).toHaveLength(2);
			const keys = upstream.requests('/drop-after-processing/order-7').map((r) => r.headers['idempotency-key']);
			expect(keys[0]).toEqual(expect.any(String));
			expect(keys[1]).toBe(keys[0]);
			expect(upstream.processed.filter((p) => p.key === 'order-7')).toHaveLength(1);
			expect(run.jsonOf('OK')[0]).toMatchObject({ processedCount: 1, _retry: { idempotencyKey: keys[0] } });
		} finally {
			await upstream.close();
		}
	});

	it('another Resilient HTTP Request node does not reuse the key of the node before it', async () => {
		const upstream = await startFlakyServer();
		try {
			const wf = httpWorkflow({ method: 'POST', url: `${upstream.url}/down`, maxAttempts: 1, idempotencyKeyMode: 'generate' }, { onError: 'continueRegularOutput' });
			// a second POST node after the first: a different request, which must get a key of its own
			wf.nodes.push({ ...wf.nodes.find((n) => n.name === 'HTTP')!, id: 'http-2', name: 'HTTP 2', parameters: { method: 'POST', url: `${upstream.url}/echo`, idempotencyKeyMode: 'generate' } });
			wf.connections.HTTP = { main: [[{ node: 'HTTP 2', type: 'main', index: 0 }]] };
			wf.connections['HTTP 2'] = { main: [[{ node: 'OK', type: 'main', index: 0 }]] };
			const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime());

			const first = upstream.requests('/down')[0].headers['idempotency-key'];
			const second = upstream.requests('/echo')[0].headers['idempotency-key'];
			// the first node's failed item carries its key; the second node sees it and leaves it alone
			expect((run.jsonOf('HTTP')[0].error as IDataObject).idempotencyKey).toBe(first);
			expect(second).toEqual(expect.any(String));
			expect(second).not.toBe(first);
		} finally {
			await upstream.close();
		}
	});
});
