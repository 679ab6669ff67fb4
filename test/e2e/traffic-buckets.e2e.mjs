// Limits where the server puts them, and the operator's steering, in a real n8n 2.41.1 (`n8n start`,
// real time, defaults): a GitHub-like API whose `search` bucket is spent for an hour (403,
// x-ratelimit-remaining: 0, x-ratelimit-resource: search) keeps serving its `core` resource. Calls
// to core are sent at once; calls to search go to the error output with `retryAt`, unsent. The
// Resilient HTTP Traffic Control node, run from another workflow, shows the spent bucket and ends
// it by hand, after which a search call is sent at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { callWebhook, getExecution, importWorkflow, listExecutions, nodeResults, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n, waitFor } from './harness.mjs';

const CALLS = 'e2eBucketCalls';
const GET_STATE = 'e2eTrafficGetState';
const RESUME = 'e2eTrafficResume';
let github;
let n8n;
let client;
let resetAt;

/** Webhook (POST { paths }) -> one item per path -> Resilient HTTP Request, defaults, errors to the second output. */
function callsWorkflow(baseUrl) {
	return {
		id: CALLS,
		name: 'E2E bucket calls',
		nodes: [
			{ id: 'hook', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, webhookId: 'e2e-bucket-calls', position: [0, 0], parameters: { httpMethod: 'POST', path: 'bucket-calls', responseMode: 'onReceived', options: {} } },
			{ id: 'split', name: 'Paths', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: 'return $input.first().json.body.paths.map((path) => ({ json: { path } }));' } },
			{ id: 'http', name: 'HTTP', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [400, 0], onError: 'continueErrorOutput', parameters: { url: `={{ "${baseUrl}" + $json.path }}`, options: {} } },
		],
		connections: { Webhook: { main: [[{ node: 'Paths', type: 'main', index: 0 }]] }, Paths: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] } },
	};
}

/** Webhook (POST { api }) -> Traffic Control with `operation`; answers with its items. */
function controlWorkflow(id, operation) {
	return {
		id,
		name: `E2E traffic control ${operation}`,
		nodes: [
			{ id: 'hook', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, webhookId: `e2e-traffic-control-${operation}`, position: [0, 0], parameters: { httpMethod: 'POST', path: `traffic-control-${operation}`, responseMode: 'lastNode', responseData: 'allEntries', options: {} } },
			{ id: 'tc', name: 'Traffic Control', type: 'n8n-nodes-resilient-http.resilientHttpTrafficControl', typeVersion: 1, position: [200, 0], parameters: { operation, api: '={{ $json.body.api }}', ...(operation === 'resume' ? { end: 'both' } : {}) } },
		],
		connections: { Webhook: { main: [[{ node: 'Traffic Control', type: 'main', index: 0 }]] } },
	};
}

before(async () => {
	resetAt = Math.floor(Date.now() / 1000) + 3600;
	github = await startFlakyServer({
		search: (_req, res, { entry, json }) => json(res, (entry.status = 403), { message: 'API rate limit exceeded' }, { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetAt), 'x-ratelimit-resource': 'search' }),
		repos: (_req, res, { entry, json }) => json(res, (entry.status = 200), { ok: true }, { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(resetAt), 'x-ratelimit-resource': 'core' }),
	});
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(userFolder, [callsWorkflow(github.url), controlWorkflow(GET_STATE, 'getState'), controlWorkflow(RESUME, 'resume')]);
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	client = await restClient(n8n);
	// published as the editor's button does: a `publish:workflow` per workflow would boot n8n three times
	await publishOnServer(client, [CALLS, GET_STATE, RESUME]);
});
after(async () => {
	await stopN8n();
	await github?.close();
});

/** Posts the paths and waits for the execution's end: the HTTP node's outputs [ok, failed]. */
async function calls(paths) {
	const known = new Set((await listExecutions(client, CALLS, { limit: 100 })).map((e) => e.id));
	const res = await callWebhook(n8n, 'bucket-calls', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ paths }) });
	assert.equal(res.status, 200, await res.text());
	const summary = await waitFor(async () => (await listExecutions(client, CALLS, { limit: 100 })).find((e) => !known.has(e.id) && e.stoppedAt), { timeoutMs: 60_000, what: 'the execution' });
	const http = nodeResults(await getExecution(client, summary.id)).HTTP;
	return { ok: http.all[0] ?? [], failed: http.all[1] ?? [] };
}

async function control(operation, api) {
	const res = await callWebhook(n8n, `traffic-control-${operation}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api }) });
	const text = await res.text();
	assert.equal(res.status, 200, text);
	return JSON.parse(text);
}

test("a spent search bucket: calls to the API's core resource are sent at once, calls to search go to the error output with retryAt, unsent", async () => {
	const first = await calls(['/search/issues']);
	assert.equal(first.failed.length, 1);
	assert.equal(github.log.length, 1);
	await waitFor(() => /rate-limit bucket "search" is spent/.test(n8n.logs()), { timeoutMs: 5_000, what: 'the pause logged' });

	const started = Date.now();
	const second = await calls(['/search/issues', '/repos/a/b', '/search/issues', '/repos/c/d', '/repos/e/f']);
	const sent = github.log.slice(1);
	assert.deepEqual(sent.map((e) => e.path).sort(), ['/repos/a/b', '/repos/c/d', '/repos/e/f'], 'core sent, search not');
	for (const e of sent) assert.ok(e.time - started < 5_000, `sent at once: ${e.time - started} ms`);
	assert.equal(second.ok.length, 3);
	assert.equal(second.failed.length, 2);
	for (const f of second.failed) {
		assert.equal(f.error.reason, 'retry-after-too-long');
		assert.equal(f.error.code, 'EPAUSED');
		assert.ok(Math.abs(Date.parse(f.error.retryAt) - resetAt * 1000) < 2_000, `retryAt ${f.error.retryAt}`);
		assert.match(f.error.message, /rate-limit bucket "search"/);
	}
});

test('the Traffic Control node shows the spent bucket, and ends it by hand: the next search call is sent at once', async () => {
	const host = new URL(github.url).host;
	const states = await control('getState', '');
	const state = states.find((s) => s.label === host);
	assert.ok(state, JSON.stringify(states));
	assert.deepEqual(state.buckets.find((b) => b.bucket === 'search'), { bucket: 'search', remaining: 0, resetAt: new Date(resetAt * 1000).toISOString(), spent: true });
	assert.equal(state.paused, null);
	assert.equal(state.held, null);

	const [ended] = await control('resume', host);
	assert.ok(ended.ended.includes('bucket search'), JSON.stringify(ended));
	await waitFor(() => /rate-limit bucket "search" was ended by hand|bucket search.* ended by hand/.test(n8n.logs()), { timeoutMs: 5_000, what: 'the end logged' });
	const before = github.log.length;
	const third = await calls(['/search/issues']);
	assert.equal(github.log.length, before + 1, 'sent');
	assert.equal(third.failed.length, 1, 'and answered 403 again: the bucket is spent again');
});
