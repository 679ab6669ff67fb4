/**
 * Options > Pagination executed in n8n-core: the same pages and items as n8n's own HTTP Request
 * (same expressions: $response, $pageCount, $request), each page retried on its own (a 429 on page
 * 2 waits its Retry-After and fetches page 2 again), and a page that finally fails leaves the item on
 * the error output with the pages fetched and the point it resumes from.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { LocalHandler, RecordedRequest } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime, withEndlessSleeps } from './virtual-runtime';
import { httpWorkflow, ITEMS_SOURCE, itemsSource, loopWorkflow, requestNode, runHttp } from './workflow-builders';

const runWorkflowWith = (wf: ReturnType<typeof loopWorkflow>, items: INodeExecutionData[]) => runHttp(wf, items, createVirtualRuntime());
import { runWorkflow } from './harness';

const server = useLocalServers();

const pageOf = (req: RecordedRequest) => Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);

/** Three pages of two items, then an empty page. */
const threePages: LocalHandler = (req) => {
	const page = pageOf(req);
	return { status: 200, body: page <= 3 ? [{ page, n: 1 }, { page, n: 2 }] : [] };
};

const byPageCount = { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] }, paginationCompleteWhen: 'responseIsEmpty' } } };
const EXPECTED = [1, 1, 2, 2, 3, 3].map((page, n) => ({ page, n: (n % 2) + 1 }));
const withoutStory = (items: IDataObject[]) => items.map(({ _retry, ...rest }) => rest);

/** n8n's HTTP Request v4.2 with the same parameters, for parity. */
async function coreRun(parameters: IDataObject) {
	const wf = httpWorkflow({});
	wf.nodes = wf.nodes.map((node) => (node.name === 'HTTP' ? { ...node, type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters: { method: 'GET', ...parameters } as never } : node));
	return await runWorkflow(wf, { nodeTypes: { [ITEMS_SOURCE]: itemsSource([{ json: {} }]) } });
}

describe('pagination: the same pages as HTTP Request', () => {
	it.each<[string, IDataObject, LocalHandler]>([
		['Update a Parameter in Each Request, complete when the response is empty', byPageCount, threePages],
		[
			'Response Contains Next URL ($response.body.next), complete on an expression',
			{ pagination: { pagination: { paginationMode: 'responseContainsNextURL', nextURL: '={{ $response.body.next }}', paginationCompleteWhen: 'other', completeExpression: '={{ $response.body.next === null }}' } } },
			(req) => {
				const page = pageOf(req);
				return { status: 200, body: { items: [{ page, n: 1 }, { page, n: 2 }], next: page < 3 ? `http://${req.headers.host}/list?page=${page + 1}` : null } };
			},
		],
		[
			'Receive Specific Status Code(s) when complete (404)',
			{ pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $request.qs.page + $pageCount }}' }] }, paginationCompleteWhen: 'receiveSpecificStatusCodes', statusCodesWhenComplete: '404' } } },
			(req) => {
				const page = pageOf(req);
				return page <= 3 ? { status: 200, body: [{ page, n: 1 }, { page, n: 2 }] } : { status: 404, body: { message: 'no such page' } };
			},
		],
		['Limit Pages Fetched (Max Pages 2)', { pagination: { pagination: { ...byPageCount.pagination.pagination, limitPagesFetched: true, maxRequests: 2 } } }, threePages],
	])('%s', async (_name, options, handler) => {
		const api = await server(handler);
		const parameters: IDataObject = { url: `${api.url}/list`, options, ...(JSON.stringify(options).includes('$request.qs.page') ? { sendQuery: true, queryParameters: { parameters: [{ name: 'page', value: '1' }] } } : {}) };
		const ours = await runHttp(httpWorkflow(parameters), [{ json: {} }], createVirtualRuntime());
		const ourRequests = api.requests.map((r) => r.url);
		api.requests.length = 0;
		const core = await coreRun(parameters);
		expect(ours.status).toBe('success');
		expect(core.status).toBe('success');
		expect(withoutStory(ours.jsonOf('HTTP'))).toEqual(core.jsonOf('HTTP'));
		expect(ourRequests).toEqual(api.requests.map((r) => r.url));
		const story = ours.jsonOf('HTTP')[0]._retry as IDataObject;
		expect(story).toMatchObject({ stoppedBecause: 'success', attempts: ourRequests.length, pages: ourRequests.length, history: [] });
	});
});

describe('pagination: $request and empty pages as in HTTP Request', () => {
	it('$request shows the credential HTTP Request sets itself, its value hidden', async () => {
		const api = await server(threePages);
		const options = { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }, { type: 'qs', name: 'seen', value: '={{ String($request.headers["X-Api-Key"]) + "," + String($request.qs.api_key) }}' }] }, paginationCompleteWhen: 'responseIsEmpty' } } };
		const wf = httpWorkflow({ url: `${api.url}/list`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', options }, { credentials: { httpHeaderAuth: { id: '1', name: 'h' } } });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'key-pag-61' } } });
		expect(run.status).toBe('success');
		expect(api.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('seen'))).toEqual(Array(4).fill('**hidden**,undefined'));
		expect(api.requests.every((r) => r.headers['x-api-key'] === 'key-pag-61')).toBe(true);
	});

	it('pages that are all empty arrays leave no item, as in HTTP Request (the nodes after it do not run)', async () => {
		const api = await server(() => ({ status: 200, body: [] }));
		const parameters = { url: `${api.url}/list`, options: byPageCount };
		const ours = await runHttp(httpWorkflow(parameters), [{ json: {} }], createVirtualRuntime());
		const core = await coreRun(parameters);
		expect([ours.jsonOf('HTTP'), core.jsonOf('HTTP')]).toEqual([[], []]);
	});
});

describe('pagination: each page is one request for the retry engine', () => {
	it('a 429 with Retry-After on page 2 waits and fetches page 2 again: every item kept, no page fetched twice but page 2', async () => {
		let throttled = false;
		const api = await server((req, index) => {
			if (pageOf(req) === 2 && !throttled) {
				throttled = true;
				return { status: 429, headers: { 'retry-after': '3' }, body: { error: 'slow down' } };
			}
			return threePages(req, index);
		});
		const runtime = createVirtualRuntime();
		const run = await runHttp(httpWorkflow({ url: `${api.url}/list`, options: byPageCount }), [{ json: {} }], runtime);
		expect(run.status).toBe('success');
		expect(withoutStory(run.jsonOf('HTTP'))).toEqual(EXPECTED);
		expect(api.requests.map(pageOf)).toEqual([1, 2, 2, 3, 4]);
		const story = run.jsonOf('HTTP')[0]._retry as IDataObject;
		expect((story.history as IDataObject[])[1].delayBeforeMs).toBeGreaterThanOrEqual(3000);
		expect(story).toMatchObject({ stoppedBecause: 'success', attempts: 5, pages: 4 });
		expect((story.history as IDataObject[]).map((h) => [h.page, h.status, h.delayReason ?? null])).toEqual([
			[2, 429, null],
			[2, 200, 'retry-after'],
		]);
		expect(story.summary).toMatch(/^Fetched 4 pages in 5 attempts, after waiting 3(\.\d)? s for retries$/);
	});

	it('a page that finally fails sends the item to the error output with the pages fetched and where to resume; fed back, it resumes at that page', async () => {
		let down = true;
		const api = await server((req, index) => (pageOf(req) === 3 && down ? { status: 503 } : threePages(req, index)));
		const parameters = { url: `${api.url}/list`, maxAttempts: 2, options: byPageCount };
		const failed = await runHttp(httpWorkflow(parameters, { onError: 'continueErrorOutput' }), [{ json: { order: 7 } }], createVirtualRuntime());
		expect(failed.jsonOf('HTTP', 0)).toEqual([]);
		const [errorItem] = failed.jsonOf('HTTP', 1);
		const error = errorItem.error as IDataObject;
		// n8n's pagination helper's error, as HTTP Request's: statusCode, no status
		expect(error).toMatchObject({ statusCode: 503, reason: 'attempts-exhausted' });
		expect(error.pagination).toEqual({ pagesFetched: 2, resumeFrom: { node: 'http', page: 3, url: `${api.url}/list`, parameters: { qs: { page: 3 } } }, items: EXPECTED.slice(0, 4) });
		// the node's headline (issue 38): the story's summary, not HTTP Request's `503 - ""`
		expect(error.message).toBe((error._retry as IDataObject).summary);
		expect((error._retry as IDataObject).summary).toMatch(/^Page 3 failed, 2 pages fetched before it: /);
		expect(api.requests.map(pageOf)).toEqual([1, 2, 3, 3]);

		// where HTTP Request reads the 503 as its last page (an empty body is an "empty response") and reports success
		api.requests.length = 0;
		const core = await coreRun({ url: `${api.url}/list`, options: byPageCount });
		expect(core.status).toBe('success');
		expect(core.jsonOf('HTTP')).toHaveLength(5);

		// a Backoff Delay loop or a replay feeds the error item back: pages 1 and 2 are not fetched again
		down = false;
		api.requests.length = 0;
		const resumed = await runHttp(httpWorkflow(parameters, { onError: 'continueErrorOutput' }), [{ json: errorItem }], createVirtualRuntime());
		expect(api.requests.map(pageOf)).toEqual([3, 4]);
		expect(withoutStory(resumed.jsonOf('HTTP', 0))).toEqual(EXPECTED);
		expect(resumed.jsonOf('HTTP', 0)[0]._retry).toMatchObject({ stoppedBecause: 'success', pages: 4 });
	});

	it('with a generated key every page has its own key, and a resumed page goes out under the key it failed with', async () => {
		let down = true;
		const api = await server((req, index) => (pageOf(req) === 2 && down ? { status: 503 } : threePages(req, index)));
		const parameters = { method: 'POST', url: `${api.url}/search`, maxAttempts: 2, idempotencyKeyMode: 'generate', options: byPageCount };
		const failed = await runHttp(httpWorkflow(parameters, { onError: 'continueErrorOutput' }), [{ json: {} }], createVirtualRuntime());
		const keys = api.requests.map((r) => String(r.headers['idempotency-key']));
		const base = keys[0];
		expect(keys).toEqual([base, `${base}-page-2`, `${base}-page-2`]);
		const errorItem = failed.jsonOf('HTTP', 1)[0];
		expect((errorItem.error as IDataObject).idempotencyKey).toBe(base);
		down = false;
		api.requests.length = 0;
		await runHttp(httpWorkflow(parameters, { onError: 'continueErrorOutput' }), [{ json: errorItem }], createVirtualRuntime());
		expect(api.requests.map((r) => [pageOf(r), r.headers['idempotency-key']])).toEqual([
			[2, `${base}-page-2`],
			[3, `${base}-page-3`],
			[4, `${base}-page-4`],
		]);
	});

	it.each([
		['a number', 1000, 1000],
		['an expression', '={{ 250 * 2 }}', 500],
	])('Interval Between Requests as %s: the node waits that long before each page after the first', async (_label, requestInterval, gapMs) => {
		const runtime = createVirtualRuntime();
		const api = await server(threePages, () => runtime.now());
		const options = { pagination: { pagination: { ...byPageCount.pagination.pagination, requestInterval } } };
		const run = await runHttp(httpWorkflow({ url: `${api.url}/list`, options }), [{ json: {} }], runtime);
		expect(withoutStory(run.jsonOf('HTTP'))).toEqual(EXPECTED);
		const times = api.requests.map((r) => r.receivedAt);
		expect(times).toHaveLength(4);
		for (let n = 1; n < times.length; n++) expect(times[n] - times[n - 1]).toBeGreaterThanOrEqual(gapMs);
		// that long and no longer: one wait of the interval before each of pages 2, 3 and 4
		expect(runtime.sleeps).toEqual([gapMs, gapMs, gapMs]);
	});

	it('cancelling the execution ends the wait between pages at once', async () => {
		const api = await server(threePages);
		const options = { pagination: { pagination: { ...byPageCount.pagination.pagination, requestInterval: 60_000 } } };
		const controller = new AbortController();
		// the 60 s interval lasts until the execution is cancelled, which happens as soon as it starts
		const runtime = withEndlessSleeps(createVirtualRuntime(), () => controller.abort());
		const run = await runHttp(httpWorkflow({ url: `${api.url}/list`, options }), [{ json: {} }], runtime, { signal: controller.signal });
		expect(run.status).toBe('canceled');
		expect(runtime.asked).toEqual([60_000]);
		expect(runtime.ended()).toBe(1);
		expect(api.requests).toHaveLength(1);
	});

	it('a body parameter updates a JSON body on each page', async () => {
		const api = await server((req) => {
			const page = (JSON.parse(req.body) as { page: number }).page;
			return { status: 200, body: page <= 2 ? [{ page, q: (JSON.parse(req.body) as { q: string }).q }] : [] };
		});
		const run = await runHttp(
			httpWorkflow({
				method: 'POST',
				url: `${api.url}/search`,
				sendBody: true,
				bodyParameters: { parameters: [{ name: 'q', value: 'shoes' }] },
				options: { pagination: { pagination: { parameters: { parameters: [{ type: 'body', name: 'page', value: '={{ $pageCount + 1 }}' }] } } } },
			}),
			[{ json: {} }],
			createVirtualRuntime(),
		);
		expect(withoutStory(run.jsonOf('HTTP'))).toEqual([
			{ page: 1, q: 'shoes' },
			{ page: 2, q: 'shoes' },
		]);
		expect(api.requests.map((r) => r.headers['content-type'])).toEqual(['application/json', 'application/json', 'application/json']);
	});
});

describe('pagination in a Backoff Delay loop', () => {
	it('each pass resumes at the page that failed: no page before it is fetched again, and OK gets every item once', async () => {
		let failures = 2;
		const api = await server((req, index) => (pageOf(req) === 3 && failures-- > 0 ? { status: 503 } : threePages(req, index)));
		const wf = loopWorkflow(requestNode('resilient', { url: `${api.url}/list`, options: byPageCount }), { maxAttempts: 4 });
		const run = await runWorkflowWith(wf, [{ json: { order: 7 } }]);
		expect(run.status).toBe('success');
		expect(api.requests.map(pageOf)).toEqual([1, 2, 3, 3, 3, 4]);
		const ok = run.jsonOf('OK');
		expect(withoutStory(ok)).toEqual(EXPECTED);
		expect(run.runsOf('Gave up')).toBe(0);
	});
});

describe("pagination and the API's traffic controller", () => {
	it('a 429 + Retry-After on one item\'s page pauses the pages of every item for that long', async () => {
		const runtime = createVirtualRuntime();
		let throttledAt: number | undefined;
		const api = await server((req, index) => {
			if (pageOf(req) === 2 && throttledAt === undefined) {
				throttledAt = runtime.now();
				return { status: 429, headers: { 'retry-after': '2' } };
			}
			return threePages(req, index);
		}, () => runtime.now());
		const run = await runHttp(httpWorkflow({ url: `${api.url}/list`, options: byPageCount }), [{ json: { a: 1 } }, { json: { b: 2 } }], runtime);
		expect(run.status).toBe('success');
		expect(run.jsonOf('HTTP')).toHaveLength(12);
		expect(api.requests).toHaveLength(9);
		const during = api.requests.filter((r) => r.receivedAt > throttledAt! && r.receivedAt < throttledAt! + 2000);
		expect(during).toEqual([]);
	});

	it('Rate Limit paces the pages of all items together (20 per second: 12 pages take 11 gaps of 50 ms)', async () => {
		// on the virtual clock alone, the server's too: no real ms of HTTP on it, so the gaps are exact
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		const api = await server(threePages, runtime.now);
		const wf = httpWorkflow({ url: `${api.url}/list`, sharedLimits: { rateLimit: 20 }, options: byPageCount });
		const run = await runHttp(wf, [{ json: {} }, { json: {} }, { json: {} }], runtime);
		expect(run.jsonOf('HTTP')).toHaveLength(18);
		const times = api.requests.map((r) => r.receivedAt).sort((a, b) => a - b);
		expect(times.map((t) => t - times[0])).toEqual(Array.from({ length: 12 }, (_, k) => k * 50));
	});
});

describe('pagination: what is refused before sending', () => {
	const items: INodeExecutionData[] = [{ json: {} }];
	it.each<[string, IDataObject, string]>([
		['no parameter filled', { pagination: { pagination: {} } }, "At least one entry with 'Name' and 'Value' filled must be included in 'Parameters' to use 'Update a Parameter in Each Request' mode "],
		['a parameter without a value', { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '' }] } } } }, 'Some value must be provided for parameter [1] in pagination settings, omitting it will result in an infinite loop'],
		['an empty Next URL', { pagination: { pagination: { paginationMode: 'responseContainsNextURL', nextURL: '' } } }, 'Parameter "Options > Pagination > Next URL" is empty'],
		['a status code that is none', { pagination: { pagination: { ...byPageCount.pagination.pagination, paginationCompleteWhen: 'receiveSpecificStatusCodes', statusCodesWhenComplete: '404, 4o4' } } }, 'has "4o4", which is not an HTTP status code'],
		['a Complete Expression that is not one', { pagination: { pagination: { ...byPageCount.pagination.pagination, paginationCompleteWhen: 'other', completeExpression: 'true' } } }, 'Invalid or empty Complete Expression'],
	])('%s', async (_name, options, message) => {
		const api = await server(threePages);
		const run = await runHttp(httpWorkflow({ url: `${api.url}/list`, options }), items, createVirtualRuntime());
		expect(run.status).toBe('error');
		// HTTP Request's words where it checks the same, this node's (naming the item) where it does not
		expect(run.error?.message).toContain(message);
		if (message.startsWith('Parameter "')) expect(run.error?.message).toContain('(item 0)');
		expect((run.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(0);
		expect(api.requests).toHaveLength(0);
	});

	it('a failed page that echoes the credential: the error item, its pages and its resume point never show it', async () => {
		const api = await server((req, index) => (pageOf(req) === 2 ? { status: 400, body: { error: `bad key ${String(req.headers['x-api-key'])}` } } : threePages(req, index)));
		const wf = httpWorkflow({ url: `${api.url}/list`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', options: byPageCount }, { credentials: { httpHeaderAuth: { id: '1', name: 'c' } }, onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items, createVirtualRuntime(), { credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'secret-key-123' } } });
		const failed = run.jsonOf('HTTP', 1);
		expect(failed).toHaveLength(1);
		expect((failed[0].error as IDataObject).pagination).toMatchObject({ pagesFetched: 1, resumeFrom: { page: 2 } });
		expect(api.requests.map((r) => r.headers['x-api-key'])).toEqual(['secret-key-123', 'secret-key-123']);
		expect(JSON.stringify(failed)).not.toContain('secret-key-123');
	});

	it('a next URL on another origin gets no request while a credential goes with the pages', async () => {
		const other = await server(threePages);
		const api = await server(() => ({ status: 200, body: { items: [1], next: `${other.url}/steal` } }));
		const wf = httpWorkflow(
			{ url: `${api.url}/list`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', options: { pagination: { pagination: { paginationMode: 'responseContainsNextURL', nextURL: '={{ $response.body.next }}' } } } },
			{ credentials: { httpHeaderAuth: { id: '1', name: 'c' } } },
		);
		const run = await runHttp(wf, items, createVirtualRuntime(), { credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'secret-key-123' } } });
		expect(run.status).toBe('error');
		expect(run.error?.message).toContain('gave page 2 a URL on');
		expect(other.requests).toHaveLength(0);
		expect(api.requests).toHaveLength(1);
	});
});
