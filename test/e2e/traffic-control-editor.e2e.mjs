// Traffic Control in the n8n editor, in a real browser against a real n8n 2.41.1: the option group
// lists its settings, a user adds *Rate Limit* in the panel, saves, and *Execute workflow* sends the
// items at that pace (measured by the API, in real time), each attempt shown in the browser's
// developer console as the panel's notice says (HTTP Request's notice and behaviour).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closePopups, launchBrowser, openNode, openWorkflow, requireBrowser, saveAndWaitForNode, signIn } from './browser.mjs';
import { getExecution, listExecutions, ownerEnv, prepareUserFolder, restClient, startFlakyServer, startN8n, stopN8n, waitFor } from './harness.mjs';

let n8n;
let client;
let api;
let browser;

before(async () => {
	api = await startFlakyServer();
	const userFolder = await prepareUserFolder({ tarball: true });
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	client = await restClient(n8n);
});
after(async () => {
	await browser?.close();
	await stopN8n();
	await api?.close();
});

test('Traffic Control > Rate Limit, set in the panel, paces the requests of an execution started in the editor', async (t) => {
	if (!requireBrowser(t)) return;
	const ITEMS = 6;
	const RATE = 4;
	const workflow = await client.post('/rest/workflows', {
		name: 'E2E rate limit from the panel',
		settings: {},
		nodes: [
			{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'n2', name: 'Contacts', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: `return Array.from({ length: ${ITEMS} }, (_, n) => ({ json: { n } }));` } },
			{ id: 'n3', name: 'Call API', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [400, 0], parameters: { url: `={{ "${api.url}/fail/0/contact-" + $json.n }}` } },
		],
		connections: { Start: { main: [[{ node: 'Contacts', type: 'main', index: 0 }]] }, Contacts: { main: [[{ node: 'Call API', type: 'main', index: 0 }]] } },
	});

	browser = await launchBrowser();
	const { page } = browser;
	await signIn(page, n8n.url);
	await openWorkflow(page, n8n.url, workflow.id);
	await openNode(page, 'Call API');
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.getByText("You can view the raw requests this node makes in your browser's developer console").first().waitFor({ timeout: 15_000 });
	const group = ndv.locator('[data-test-id="parameter-item"]').filter({ has: page.locator('label[for="sharedLimits"]') });
	await group.waitFor({ timeout: 15_000 });
	// the group's settings, as the option list offers them
	await group.locator('[data-test-id="collection-parameter-add"]').click();
	await page.locator('.el-select-dropdown__item:visible').first().waitFor({ timeout: 15_000 });
	const offered = await page.locator('.el-select-dropdown__item:visible').allInnerTexts();
	for (const name of ['API Scope', 'Hold During Outages', 'Rate Limit', 'Rate Limit Per', 'Retry Budget']) assert.ok(offered.some((o) => o.trim() === name), `"${name}" offered in Traffic Control: ${offered.join(', ')}`);
	await page.locator('.el-select-dropdown__item:visible').filter({ hasText: /^\s*Rate Limit\s*$/ }).first().click();
	const rate = group.locator('[data-test-id="parameter-input-rateLimit"] input').first();
	await rate.waitFor({ timeout: 15_000 });
	await rate.fill(String(RATE));
	await rate.press('Tab');
	await closePopups(page);
	const saved = await saveAndWaitForNode(page, client, workflow.id, 'Call API', (node) => node.parameters.sharedLimits?.rateLimit === RATE, 'the workflow saved with the rate limit');
	assert.deepEqual(saved.parameters.sharedLimits, { rateLimit: RATE });

	// the saved workflow, opened again: what the user gets back
	await openWorkflow(page, n8n.url, workflow.id);
	const before = new Set((await listExecutions(client, workflow.id)).map((e) => e.id));
	const consoleMessages = [];
	page.on('console', (message) => {
		if (message.text().startsWith('[Node: "Call API"]')) consoleMessages.push(Promise.all(message.args().map((arg) => arg.jsonValue())));
	});
	await page.locator('[data-test-id="execute-workflow-button"]').first().click();
	const summary = await waitFor(async () => (await listExecutions(client, workflow.id)).find((e) => !before.has(e.id) && ['success', 'error', 'crashed'].includes(e.status)), {
		timeoutMs: 60_000,
		what: 'the execution started from the editor',
	});
	const execution = await getExecution(client, summary.id);
	assert.equal(execution.status, 'success');
	const times = api.log.filter((e) => e.path.startsWith('/fail/0/contact-')).map((e) => e.time).sort((a, b) => a - b);
	assert.equal(times.length, ITEMS);
	// 4 per second: 250 ms apart, so the six take at least 5 gaps; without the limit they go at once
	t.diagnostic(`gaps: ${times.slice(1).map((time, k) => time - times[k]).join(', ')} ms`);
	assert.ok(times.at(-1) - times[0] >= (ITEMS - 1) * (1000 / RATE) - 60, `${ITEMS} requests in ${times.at(-1) - times[0]} ms`);
	for (const start of times) assert.ok(times.filter((time) => time >= start && time < start + 500).length <= 3, 'at most 2 (+1 on the edge) in any 500 ms');
	// the browser's console got each attempt: method, URL, status
	const attempts = await waitFor(async () => {
		const logged = (await Promise.all(consoleMessages)).map((args) => args.find((arg) => arg && typeof arg === 'object' && 'attempt' in arg)).filter(Boolean);
		return logged.length >= ITEMS ? logged : undefined;
	}, { timeoutMs: 15_000, what: 'the attempts in the browser console' });
	assert.deepEqual(attempts.map((a) => [a.method, a.status, a.attempt]).sort(), Array.from({ length: ITEMS }, () => ['GET', 200, 1]));
	assert.deepEqual(attempts.map((a) => a.uri).sort(), Array.from({ length: ITEMS }, (_, n) => `${api.url}/fail/0/contact-${n}`).sort());
	assert.deepEqual(browser.errors, [], 'no uncaught error in the editor');
});
