/**
 * The Resilient HTTP Request node executed in n8n's own engine (n8n-core WorkflowExecute), against
 * a real local HTTP server. Backoff runs on virtual time: assertions read the recorded sleeps.
 */
import type { IDataObject } from 'n8n-workflow';
import type { RetryStory } from '../../nodes/shared/core/retry-story';
import { useLocalServers } from './servers';
import { createVirtualRuntime, withEndlessSleeps } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

/** The retry story: top level on success items, inside `error` on failed ones. */
const story = (json: IDataObject): RetryStory => (json._retry ?? (json.error as IDataObject)._retry) as unknown as RetryStory;

describe('Resilient HTTP Request in n8n-core', () => {
	it('retries 503s and succeeds, with the retry story on the item', async () => {
		const upstream = await server((_req, n) => (n < 2 ? { status: 503, body: { error: 'busy' } } : { status: 200, body: { ok: true, n } }));
		const runtime = createVirtualRuntime();
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/orders` }), [{ json: { id: 1 } }], runtime);

		expect(run.status).toBe('success');
		const [item] = run.jsonOf('HTTP');
		expect(item).toMatchObject({ ok: true, n: 2 });
		expect(story(item)).toMatchObject({ attempts: 3, stoppedBecause: 'success', maxAttempts: 5 });
		expect(story(item).history.map((h) => h.status)).toEqual([503, 503, 200]);
		expect(upstream.requests).toHaveLength(3);
		expect(runtime.sleeps).toHaveLength(2);
		// full jitter: retry n waits within [0, base * 2^(n-1)]
		expect(runtime.sleeps[0]).toBeLessThanOrEqual(1000);
		expect(runtime.sleeps[1]).toBeLessThanOrEqual(2000);
	});

	it.each([400, 401, 404, 422])('does not retry a %i and sends the original item to the error output', async (status) => {
		const upstream = await server(() => ({ status, body: { message: 'no' } }));
		const runtime = createVirtualRuntime();
		const input = { json: { orderId: 'A-1', amount: 5 }, binary: { file: { data: Buffer.from('hello').toString('base64'), mimeType: 'text/plain', fileName: 'a.txt' } } };
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/x` }, { onError: 'continueErrorOutput' }), [input], runtime);

		expect(upstream.requests).toHaveLength(1);
		expect(runtime.sleeps).toHaveLength(0);
		expect(run.outputOf('HTTP', 0)).toHaveLength(0);
		const [failed] = run.outputOf('HTTP', 1);
		// HTTP Request's error fields (the body as text under `error`), this node's beside them
		expect(failed.json).toMatchObject({ orderId: 'A-1', amount: 5, error: { name: 'AxiosError', status, statusCode: status, error: '{"message":"no"}', reason: 'final-status' } });
		expect(failed.binary?.file?.fileName).toBe('a.txt');
		expect(story(failed.json).stoppedBecause).toBe('final-status');
	});

	it('waits at least the Retry-After a 429 asks for, measured on the server clock', async () => {
		const runtime = createVirtualRuntime();
		const upstream = await server((_req, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200, body: { ok: true } }), runtime.now);
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/limited` }), [{ json: {} }], runtime);

		expect(run.status).toBe('success');
		expect(runtime.sleeps).toHaveLength(1);
		expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(2000);
		expect(runtime.sleeps[0]).toBeLessThanOrEqual(2200);
		const gap = upstream.requests[1].receivedAt - upstream.requests[0].receivedAt;
		expect(gap).toBeGreaterThanOrEqual(2000);
		const [item] = run.jsonOf('HTTP');
		expect(story(item).history[1]).toMatchObject({ delayReason: 'retry-after', delayHeader: 'retry-after' });
	});

	it('hands a Retry-After longer than the maximum to the error output without sleeping', async () => {
		const upstream = await server(() => ({ status: 503, headers: { 'retry-after': '600' } }));
		const runtime = createVirtualRuntime();
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/slow` }, { onError: 'continueErrorOutput' }), [{ json: { k: 1 } }], runtime);

		expect(upstream.requests).toHaveLength(1);
		expect(runtime.sleeps).toHaveLength(0);
		const [failed] = run.jsonOf('HTTP', 1);
		expect(failed.error).toMatchObject({ reason: 'retry-after-too-long', retryAfterMs: 600_000 });
		expect(typeof (failed.error as IDataObject).retryAt).toBe('string');
	});

	it('sends one generated Idempotency-Key per item, the same on every attempt of that item', async () => {
		const seen = new Map<string, number>();
		const upstream = await server((req) => {
			const key = String(req.headers['idempotency-key']);
			seen.set(key, (seen.get(key) ?? 0) + 1);
			return seen.get(key)! < 3 ? { status: 503 } : { status: 201, body: { charged: JSON.parse(req.body).order } };
		});
		const runtime = createVirtualRuntime();
		const wf = httpWorkflow({
			method: 'POST',
			url: `${upstream.url}/charges`,
			idempotencyKeyMode: 'generate',
			sendBody: true,
			contentType: 'json',
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify({ order: $json.order }) }}',
		});
		const run = await runHttp(wf, [{ json: { order: 'A' } }, { json: { order: 'B' } }], runtime);

		expect(run.status).toBe('success');
		expect(upstream.requests).toHaveLength(6);
		expect(seen.size).toBe(2);
		for (const count of seen.values()) expect(count).toBe(3);
		const out = run.jsonOf('HTTP');
		expect(out.map((o) => o.charged)).toEqual(['A', 'B']);
		expect(new Set(out.map((o) => story(o).idempotencyKey))).toEqual(new Set(seen.keys()));
	});

	it('does not retry a POST without a key whose connection dropped after the server processed it', async () => {
		const upstream = await server(() => ({ drop: true }));
		const runtime = createVirtualRuntime();
		const wf = httpWorkflow({ method: 'POST', url: `${upstream.url}/pay`, sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: '{"amount":10}' }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, [{ json: { order: 7 } }], runtime);

		expect(upstream.requests).toHaveLength(1);
		const [failed] = run.jsonOf('HTTP', 1);
		expect(failed.order).toBe(7);
		expect(failed.error).toMatchObject({ reason: 'not-safe-to-retry' });
		expect(String(story(failed).summary)).toMatch(/may have processed it/);
	});

	it('retries a POST whose connection was refused: it never reached the server', async () => {
		const closed = await server(() => ({ status: 200 }));
		const url = `${closed.url}/pay`;
		await closed.close();
		const runtime = createVirtualRuntime();
		const wf = httpWorkflow({ method: 'POST', url, maxAttempts: 3 }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, [{ json: {} }], runtime);

		const [failed] = run.jsonOf('HTTP', 1);
		expect(failed.error).toMatchObject({ code: 'ECONNREFUSED', reason: 'attempts-exhausted' });
		expect(story(failed).attempts).toBe(3);
	});

	it('sends items that succeeded exactly once while another item retries', async () => {
		const counts: Record<string, number> = {};
		const upstream = await server((req) => {
			counts[req.url] = (counts[req.url] ?? 0) + 1;
			return req.url === '/item/2' && counts[req.url] < 3 ? { status: 502 } : { status: 200, body: { path: req.url } };
		});
		const runtime = createVirtualRuntime();
		const wf = httpWorkflow({ url: `={{ "${upstream.url}/item/" + $json.n }}` });
		const run = await runHttp(wf, [1, 2, 3].map((n) => ({ json: { n } })), runtime);

		expect(run.status).toBe('success');
		expect(counts).toEqual({ '/item/1': 1, '/item/2': 3, '/item/3': 1 });
		expect(run.jsonOf('HTTP').map((o) => o.path)).toEqual(['/item/1', '/item/2', '/item/3']);
		expect(run.outputOf('HTTP').map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('fails the node with a NodeApiError that tells the story when there is no error output', async () => {
		const upstream = await server(() => ({ status: 503, statusMessage: 'Service Unavailable' }));
		const runtime = createVirtualRuntime();
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/down`, maxAttempts: 4 }), [{ json: {} }], runtime);

		expect(run.status).toBe('error');
		expect(upstream.requests).toHaveLength(4);
		// the node's headline, not HTTP Request's advice to retry automatically (issue 38); HTTP
		// Request's code and raw message stay; what to do, then the story, one line per attempt
		expect(run.error?.message).toMatch(/^Gave up after 4 attempts in .+: last response 503 Service Unavailable$/);
		expect(run.error).toMatchObject({ httpCode: '503', messages: ['503 - ""'] });
		expect(String(run.error?.description)).toMatch(/^What to do: .+\n\nRetry story: 4 attempts of at most 4, .+\n1\. .+: 503 Service Unavailable in .+; then waited .+, backoff\n(.+\n){3}Gave up after 4 attempts in .+: last response 503/);
		// the editor renders the description as HTML: the same lines, a <br> between them
		expect(String((run.error?.context as { descriptionTemplate?: string }).descriptionTemplate).split('<br>')).toEqual(String(run.error?.description).split('\n'));
	});

	it('cancelling the execution ends a long backoff at once', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const controller = new AbortController();
		// the 20 s backoff lasts until the execution is cancelled, which happens as soon as it starts
		const runtime = withEndlessSleeps(createVirtualRuntime(), () => controller.abort());
		const run = await runHttp(
			httpWorkflow({ url: `${upstream.url}/down`, retryOptions: { baseDelay: 20_000, maxDelay: 20_000, jitter: 'none' } }),
			[{ json: {} }],
			runtime,
			{ signal: controller.signal },
		);
		expect(run.status).toBe('canceled');
		expect(runtime.asked).toEqual([20_000]);
		expect(runtime.ended()).toBe(1);
		expect(upstream.requests).toHaveLength(1);
	});

	it('times out a hanging attempt and retries it', async () => {
		const upstream = await server((_req, n) => (n === 0 ? { hang: true } : { status: 200, body: { ok: true } }));
		const runtime = createVirtualRuntime();
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/hang`, retryOptions: { attemptTimeout: 300 } }), [{ json: {} }], runtime);

		expect(run.status).toBe('success');
		const [item] = run.jsonOf('HTTP');
		expect(story(item).history[0]).toMatchObject({ errorCode: 'ETIMEDOUT' });
		expect(upstream.requests).toHaveLength(2);
	});
});

describe('Retry Story at its default (On Failed Items)', () => {
	/** The workflow at the node's defaults: without the On Every Item the other tests set. */
	const atDefaults = (parameters: IDataObject, options: Parameters<typeof httpWorkflow>[1] = {}) => {
		const workflow = httpWorkflow(parameters, options);
		const http = workflow.nodes.find((node) => node.name === 'HTTP')!;
		delete (http.parameters.retryOptions as IDataObject).retryStory;
		return workflow;
	};

	it('leaves a success item as HTTP Request gives it, and tells of the retries on the output panel and in the log', async () => {
		const upstream = await server((req) => (req.url?.includes('flaky') && upstream.requests.filter((r) => r.url === req.url).length < 3 ? { status: 503, body: {} } : { status: 200, body: { ok: true } }));
		const run = await runHttp(atDefaults({ url: `={{ '${upstream.url}/' + $json.path }}` }), [{ json: { path: 'flaky-1' } }, { json: { path: 'fine' } }, { json: { path: 'flaky-2' } }], createVirtualRuntime());

		expect(run.status).toBe('success');
		expect(run.jsonOf('HTTP')).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
		expect(run.taskOf('HTTP').hints).toEqual([expect.objectContaining({ message: expect.stringMatching(/^2 of 3 items needed retries \(4 retries in all\)/), location: 'outputPane' })]);
	});

	it('adds no hint when no item needed a retry', async () => {
		const upstream = await server(() => ({ status: 200, body: { ok: true } }));
		const run = await runHttp(atDefaults({ url: `${upstream.url}/x` }), [{ json: {} }], createVirtualRuntime());
		expect(run.jsonOf('HTTP')).toEqual([{ ok: true }]);
		expect(run.taskOf('HTTP').hints ?? []).toEqual([]);
	});

	it('puts the story on a failed item, and Off puts it nowhere', async () => {
		const upstream = await server(() => ({ status: 503, body: { error: 'down' } }));
		const failed = await runHttp(atDefaults({ url: `${upstream.url}/x`, maxAttempts: 2 }, { onError: 'continueErrorOutput' }), [{ json: {} }], createVirtualRuntime());
		const [errorItem] = failed.jsonOf('HTTP', 1);
		expect(story(errorItem)).toMatchObject({ attempts: 2, stoppedBecause: 'attempts-exhausted' });

		const off = await runHttp(httpWorkflow({ url: `${upstream.url}/y`, maxAttempts: 2, retryOptions: { retryStory: 'off' } }, { onError: 'continueErrorOutput' }), [{ json: {} }], createVirtualRuntime());
		const [quiet] = off.jsonOf('HTTP', 1);
		expect((quiet.error as IDataObject)._retry).toBeUndefined();
		expect(quiet.error).toMatchObject({ reason: 'attempts-exhausted' });
	});
});
