// Traffic Control finds an API however a user names it (issue 38, item 3), in a real browser
// against a real n8n 2.41.1: a Resilient HTTP Request node meets a 429 with a Retry-After of an
// hour, so its API (127.0.0.1:<port>) is paused; then Traffic Control, run from the editor, reads
// that API by each name a user has at hand (the host alone, host:port, a URL on it, its origin,
// the label Get State shows), ends its pause by the bare host (the form that once ended nothing
// and said it succeeded), and, given a name of no API, fails in the editor with the APIs it knows
// (screenshot kept in test/e2e/artifacts/traffic-control-names/, RH_E2E_ARTIFACTS to change).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { executeInEditor, openNode, openWorkflow, requireBrowser, startEditorSession } from './browser.mjs';
import { REPO, startFlakyServer } from './harness.mjs';

/** Screenshots kept after the run (as failure-headlines.e2e.mjs keeps its own). */
const ARTIFACTS = path.join(process.env.RH_E2E_ARTIFACTS || path.join(REPO, 'test/e2e/artifacts'), 'traffic-control-names');

const PAUSE_S = 3600;
let session;
let n8n;
let client;
let api;

before(async () => {
	api = await startFlakyServer({
		// the first request: 429 with a wait of an hour; every later one: 200
		limited: (_req, res, { entry, json }) => {
			if (api.log.filter((e) => e.scenario === 'limited').length === 1) json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': String(PAUSE_S) });
			else json(res, (entry.status = 200), { ok: true });
		},
	});
	session = await startEditorSession();
	({ n8n, client } = session);
});
after(async () => {
	await session?.close();
	await api?.close();
});

const node = (id, name, type, position, parameters, extra = {}) => ({ id, name, type, typeVersion: type.endsWith('code') ? 2 : 1, position, parameters, ...extra });
const chain = (...names) => Object.fromEntries(names.slice(0, -1).map((name, k) => [name, { main: [[{ node: names[k + 1], type: 'main', index: 0 }]] }]));

async function workflowOf(name, nodes) {
	return await client.post('/rest/workflows', { name, settings: { executionOrder: 'v1' }, nodes, connections: chain(...nodes.map((n) => n.name)) });
}

test('Traffic Control reads and ends a pause by the host alone, host:port, a URL, the origin and the label', async (t) => {
	if (!requireBrowser(t)) return;
	const { host, hostname, origin } = new URL(api.url);
	const page = await session.page();

	// 1. the pause: the node's one item gets the 429 and waits no hour (Max Server-Requested Delay 1 s)
	const pausing = await workflowOf('E2E names: a 429 pauses the API', [
		node('p1', 'Start', 'n8n-nodes-base.manualTrigger', [0, 0], {}),
		node('p2', 'Call API', 'n8n-nodes-resilient-http.resilientHttpRequest', [220, 0], { url: `${api.url}/limited/first`, retryOptions: { maxServerDelay: 1000 }, options: {} }, { onError: 'continueErrorOutput' }),
	]);
	await openWorkflow(page, n8n.url, pausing.id);
	const paused = await executeInEditor(page, client, pausing.id);
	assert.equal(paused.status, 'success');
	assert.deepEqual(api.log.map((e) => e.status), [429]);

	// 2. Get State, one item per name form; each finds the one paused API
	const forms = { host: hostname, 'host:port': host, url: `${api.url}/limited/anything?x=1`, origin, label: host };
	const reading = await workflowOf('E2E names: Get State by every name', [
		node('r1', 'Start', 'n8n-nodes-base.manualTrigger', [0, 0], {}),
		node('r2', 'Names', 'n8n-nodes-base.code', [220, 0], { jsCode: `return ${JSON.stringify(Object.entries(forms).map(([form, name]) => ({ json: { form, name } })))};` }),
		node('r3', 'Get State', 'n8n-nodes-resilient-http.resilientHttpTrafficControl', [440, 0], { operation: 'getState', api: '={{ $json.name }}' }),
	]);
	await openWorkflow(page, n8n.url, reading.id);
	const read = await executeInEditor(page, client, reading.id);
	assert.equal(read.status, 'success');
	const states = read.data.resultData.runData['Get State'][0].data.main[0].map((item) => item.json);
	assert.equal(states.length, Object.keys(forms).length, `one API per name: ${JSON.stringify(states).slice(0, 1500)}`);
	for (const state of states) {
		assert.equal(state.label, host);
		assert.ok(Date.parse(state.paused?.until) > Date.now() + (PAUSE_S - 120) * 1000, `paused for the hour: ${JSON.stringify(state)}`);
	}

	// 3. End Pause or Hold by the bare host: it ends that pause, and the next request goes at once
	const ending = await workflowOf('E2E names: end the pause by the host', [
		node('e1', 'Start', 'n8n-nodes-base.manualTrigger', [0, 0], {}),
		node('e2', 'End Pause', 'n8n-nodes-resilient-http.resilientHttpTrafficControl', [220, 0], { operation: 'resume', api: hostname, end: 'pause' }),
		node('e3', 'Call Again', 'n8n-nodes-resilient-http.resilientHttpRequest', [440, 0], { url: `${api.url}/limited/second`, options: {} }),
	]);
	await openWorkflow(page, n8n.url, ending.id);
	const started = Date.now();
	const ended = await executeInEditor(page, client, ending.id);
	assert.equal(ended.status, 'success');
	const endedItems = ended.data.resultData.runData['End Pause'][0].data.main[0].map((item) => item.json);
	assert.equal(endedItems.length, 1);
	assert.equal(endedItems[0].label, host);
	assert.deepEqual(endedItems[0].ended, ['retry-after'], `the pause ended: ${JSON.stringify(endedItems[0])}`);
	assert.equal(endedItems[0].paused, null);
	const again = api.log.filter((e) => e.path.endsWith('/limited/second'));
	assert.deepEqual(again.map((e) => e.status), [200]);
	t.diagnostic(`the request after the pause went ${again[0].time - started} ms after the execution started`);
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});

test('a name of no API fails in the editor with the APIs the store knows, never a success that did nothing', async (t) => {
	if (!requireBrowser(t)) return;
	const { host } = new URL(api.url);
	const page = await session.page();
	const workflow = await workflowOf('E2E names: an API that does not exist', [
		node('x1', 'Start', 'n8n-nodes-base.manualTrigger', [0, 0], {}),
		node('x2', 'End Pause', 'n8n-nodes-resilient-http.resilientHttpTrafficControl', [220, 0], { operation: 'resume', api: 'api.example.invalid', end: 'both' }),
	]);
	await openWorkflow(page, n8n.url, workflow.id);
	const run = await executeInEditor(page, client, workflow.id);
	assert.equal(run.status, 'error');
	await openNode(page, 'End Pause');
	const message = page.locator('[data-test-id="ndv"] [data-test-id="node-error-message"]').first();
	await message.waitFor({ timeout: 15_000 });
	const text = await message.innerText();
	assert.match(text, /Parameter "API" names no API kept in this n8n process's memory: got "api\.example\.invalid" \(item 0\)/);
	assert.ok(text.includes(host), `the message lists the API that exists (${host}): ${text}`);
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	await page.screenshot({ path: path.join(ARTIFACTS, 'no-api-error-view.png') });
});
