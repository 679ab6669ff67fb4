// Pagination in a real n8n 2.41.1 (`n8n execute`), in real time, against an API whose page 2
// answers 429 + Retry-After: 1 once and whose page 3 answers 503 three times. Side by side in one
// run: Resilient HTTP Request in a Backoff Delay loop (each page retried on its own; the failed
// item resumes at page 3), and n8n's HTTP Request with Retry On Fail (the control: it starts again
// from page 1 on every try).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { executeWorkflow, importWorkflow, nodeResults, prepareUserFolder, startFlakyServer } from './harness.mjs';

const PAGE_SIZE = 2;
const LAST_PAGE = 3;

/** GET /pages/<route>?page=N: three pages of two items, then []. Per route: page 2 429s once, page 3 503s three times. */
async function startPagedApi() {
	const failures = new Map();
	const api = await startFlakyServer({
		pages: (req, res, { parts, entry, json, query }) => {
			const route = parts[1];
			const page = Number(query.page ?? 1);
			const seen = (failures.get(`${route}/${page}`) ?? 0) + 1;
			failures.set(`${route}/${page}`, seen);
			if (page === 2 && seen === 1) {
				entry.status = 429;
				res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
				res.end('{"error":"rate limited"}');
				return;
			}
			if (page === 3 && seen <= 3) return json(res, (entry.status = 503), { error: 'unavailable' });
			json(res, (entry.status = 200), page <= LAST_PAGE ? Array.from({ length: PAGE_SIZE }, (_, n) => ({ page, n: n + 1 })) : []);
		},
	});
	return { ...api, pagesOf: (route) => api.log.filter((e) => e.path === `/pages/${route}`).map((e) => Number(new URL(e.url, 'http://x').searchParams.get('page'))) };
}

const PAGINATION = { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] }, paginationCompleteWhen: 'responseIsEmpty' } } };

function resilientLoop(apiUrl) {
	return {
		id: 'e2ePagesLoop',
		name: 'E2E pages: Resilient HTTP Request in a Backoff Delay loop',
		nodes: [
			{ id: 'pl-t', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'pl-h', name: 'All pages', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [200, 0], onError: 'continueErrorOutput', parameters: { url: `${apiUrl}/pages/loop`, maxAttempts: 2, retryOptions: { baseDelay: 200, retryStory: 'everyItem' }, options: PAGINATION } },
			{ id: 'pl-b', name: 'Backoff Delay', type: 'n8n-nodes-resilient-http.backoffDelay', typeVersion: 1, position: [400, 200], parameters: { maxAttempts: 4, options: { baseDelay: 500, maxDelay: 2000 } } },
			{ id: 'pl-d', name: 'Done', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, 0], parameters: {} },
			{ id: 'pl-g', name: 'Gave up', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, 200], parameters: {} },
		],
		connections: {
			Start: { main: [[{ node: 'All pages', type: 'main', index: 0 }]] },
			'All pages': { main: [[{ node: 'Done', type: 'main', index: 0 }], [{ node: 'Backoff Delay', type: 'main', index: 0 }]] },
			'Backoff Delay': { main: [[{ node: 'All pages', type: 'main', index: 0 }], [{ node: 'Gave up', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

function retryOnFail(apiUrl) {
	return {
		id: 'e2ePagesRetryOnFail',
		name: 'E2E pages: HTTP Request with Retry On Fail',
		nodes: [
			{ id: 'pr-t', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'pr-h', name: 'All pages', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [200, 0], retryOnFail: true, maxTries: 5, waitBetweenTries: 1000, parameters: { url: `${apiUrl}/pages/core`, options: PAGINATION } },
		],
		connections: { Start: { main: [[{ node: 'All pages', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

const EXPECTED = [1, 1, 2, 2, 3, 3].map((page, n) => ({ page, n: (n % 2) + 1 }));

let userFolder;
let api;

describe('pagination in a real n8n: each page retried on its own, a failed item resumes at its page', () => {
	before(async () => {
		api = await startPagedApi();
		userFolder = await prepareUserFolder({ tarball: true });
		await importWorkflow(userFolder, [resilientLoop(api.url), retryOnFail(api.url)]); // one n8n boot for both
	});
	after(async () => {
		await api?.close();
	});

	test('Resilient HTTP Request: page 2 waits its Retry-After, page 3 fails the pass, the loop resumes at page 3; Done gets every item once', async () => {
		const started = Date.now();
		const execution = await executeWorkflow(userFolder, 'e2ePagesLoop');
		const seconds = (Date.now() - started) / 1000;
		assert.equal(execution.exitCode, 0, execution.stdout.slice(-3000));
		const results = nodeResults(execution.output);
		const done = results.Done.items;
		assert.deepEqual(done.map(({ _retry, ...item }) => item), EXPECTED, 'every item once, in page order');
		assert.equal(results['Gave up'], undefined, 'nothing given up');
		// pass 1: 1, 2 (429), 2, 3 (503), 3 (503) -> error output; pass 2 resumes: 3 (503), 3, 4
		assert.deepEqual(api.pagesOf('loop'), [1, 2, 2, 3, 3, 3, 3, 4]);
		assert.equal(results['All pages'].runs, 2, 'two passes through the node');
		const failedPass = results['All pages'].perRun[0].all[1][0].error;
		assert.equal(failedPass.pagination.pagesFetched, 2);
		assert.deepEqual(failedPass.pagination.resumeFrom.parameters, { qs: { page: 3 } });
		const story = done[0]._retry;
		assert.equal(story.pages, 4);
		assert.deepEqual(story.history.map((h) => [h.page, h.status]), [[3, 503], [3, 200]], 'the second pass retried page 3 only');
		const times = api.log.filter((e) => e.path === '/pages/loop').map((e) => e.time);
		assert.ok(times[2] - times[1] >= 1000, `Retry-After: 1 obeyed on page 2 (${times[2] - times[1]} ms)`);
		console.log(`resilient: ${api.pagesOf('loop').length} requests, ${seconds.toFixed(1)} s`);
	});

	test('the control, HTTP Request with Retry On Fail: every try starts again from page 1', async () => {
		const started = Date.now();
		const execution = await executeWorkflow(userFolder, 'e2ePagesRetryOnFail');
		const seconds = (Date.now() - started) / 1000;
		const pages = api.pagesOf('core');
		// try 1: 1, 2 (429: the node fails); tries 2 to 4: 1, 2, 3 (503); try 5: 1, 2, 3, 4
		assert.deepEqual(pages, [1, 2, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 4], 'page 1 fetched again on every try');
		assert.ok(pages.length > api.pagesOf('loop').length, 'more requests than the resilient loop');
		console.log(`retry on fail: ${pages.length} requests (${pages.join(',')}), ${seconds.toFixed(1)} s, exit ${execution.exitCode}`);
	});
});
