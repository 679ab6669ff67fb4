// Traffic Control in the n8n editor, in a real browser against a real n8n 2.41.1: the option group
// lists its settings, a user adds *Rate Limit* in the panel, saves, and *Execute workflow* sends the
// items at that pace (measured by the API, in real time), each attempt shown in the browser's
// developer console as the panel's notice says (HTTP Request's notice and behaviour). In the same
// n8n: a user writes *Retry When* as an expression in the panel, finds the polling pace among the
// Retry Options, and *Execute workflow* polls a job until it is done.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closePopups, executeInEditor, openNode, openWorkflow, requireBrowser, saveAndWaitForNode, startEditorSession } from './browser.mjs';
import { startFlakyServer, waitFor } from './harness.mjs';

let session;
let n8n;
let client;
let api;

before(async () => {
	api = await startFlakyServer({
		// a job that answers 200 "running" twice, then 200 "done" (per key)
		job: (_req, res, { count, entry, json }) =>
			json(res, (entry.status = 200), count <= 2 ? { id: entry.key, status: 'running', poll: count } : { id: entry.key, status: 'done', poll: count, result: { rows: 1234 } }),
	});
	session = await startEditorSession();
	({ n8n, client } = session);
});
after(async () => {
	await session?.close();
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

	const page = await session.page();
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
	const consoleMessages = [];
	page.on('console', (message) => {
		if (message.text().startsWith('[Node: "Call API"]')) consoleMessages.push(Promise.all(message.args().map((arg) => arg.jsonValue())));
	});
	const execution = await executeInEditor(page, client, workflow.id);
	assert.equal(execution.status, 'success');
	const times = api.log.filter((e) => e.path.startsWith('/fail/0/contact-')).map((e) => e.time).sort((a, b) => a - b);
	assert.equal(times.length, ITEMS);
	// 4 per second: slots 250 ms apart at the controller; without the limit the six arrive within a
	// few ms. The server sees the sends, which leave their slots late under load: in two CI runs the
	// first sends came 71 and 80 ms late (gaps 170, 252, 248, 251, 249 and 244, 189, 246, 247, 253 ms),
	// shortening the span by that much. So the span must be at least 5 slots less 150 ms, and no 500 ms
	// hold more than two slots' requests (+1 on the edge)
	const gaps = times.slice(1).map((time, k) => time - times[k]);
	t.diagnostic(`gaps: ${gaps.join(', ')} ms`);
	assert.ok(times.at(-1) - times[0] >= (ITEMS - 1) * (1000 / RATE) - 150, `${ITEMS} requests in ${times.at(-1) - times[0]} ms, gaps ${gaps.join(', ')} ms`);
	for (const start of times) assert.ok(times.filter((time) => time >= start && time < start + 500).length <= 3, 'at most 2 (+1 on the edge) in any 500 ms');
	// the browser's console got each attempt: method, URL, status
	const attempts = await waitFor(async () => {
		const logged = (await Promise.all(consoleMessages)).map((args) => args.find((arg) => arg && typeof arg === 'object' && 'attempt' in arg)).filter(Boolean);
		return logged.length >= ITEMS ? logged : undefined;
	}, { timeoutMs: 15_000, what: 'the attempts in the browser console' });
	assert.deepEqual(attempts.map((a) => [a.method, a.status, a.attempt]).sort(), Array.from({ length: ITEMS }, () => ['GET', 200, 1]));
	assert.deepEqual(attempts.map((a) => a.uri).sort(), Array.from({ length: ITEMS }, (_, n) => `${api.url}/fail/0/contact-${n}`).sort());
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});

test('Retry When, written as an expression in the panel, polls a job until it is done, at the pace set among the Retry Options', async (t) => {
	if (!requireBrowser(t)) return;
	const key = `job-${Date.now()}`;
	const workflow = await client.post('/rest/workflows', {
		name: 'E2E Retry When from the panel',
		settings: {},
		nodes: [
			{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'n2', name: 'Job Status', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [200, 0], parameters: { url: `${api.url}/job/${key}` } },
		],
		connections: { Start: { main: [[{ node: 'Job Status', type: 'main', index: 0 }]] } },
	});
	const page = await session.page();
	await openWorkflow(page, n8n.url, workflow.id);
	await openNode(page, 'Job Status');
	const ndv = page.locator('[data-test-id="ndv"]');

	// Retry When: a string parameter of the panel, switched to Expression and typed in its editor
	const retryWhen = ndv.locator('[data-test-id="parameter-input-retryWhen"]').first();
	await retryWhen.waitFor({ timeout: 15_000 });
	await retryWhen.click();
	await ndv.locator('[data-test-id="retryWhen-parameter-input-options-container"] [data-test-id="radio-button-expression"]').first().click();
	const editor = ndv.locator('[data-test-id="parameter-input-retryWhen"] [data-test-id="inline-expression-editor-input"]').first();
	await editor.waitFor({ timeout: 15_000 });
	await editor.click();
	await page.keyboard.insertText('{{ $response.body.status === "running" }}');
	await closePopups(page);

	// Retry Options offers the polling settings (no display rule hides them), and the pace is set there
	const group = ndv.locator('[data-test-id="parameter-item"]').filter({ has: page.locator('label[for="retryOptions"]') });
	await group.waitFor({ timeout: 15_000 });
	const addOption = async (name) => {
		await group.locator('[data-test-id="collection-parameter-add"]').click();
		await page.locator('.el-select-dropdown__item:visible').first().waitFor({ timeout: 15_000 });
		const offered = await page.locator('.el-select-dropdown__item:visible').allInnerTexts();
		await page.locator('.el-select-dropdown__item:visible').filter({ hasText: new RegExp(`^\\s*${name.replace(/[()]/g, '\\$&')}\\s*$`) }).first().click();
		return offered.map((o) => o.trim());
	};
	const offered = await addOption('Poll Interval (Ms)');
	for (const name of ['Poll Interval (Ms)', 'Poll Interval Growth', 'Max Poll Interval (Ms)', 'Follow Asynchronous Operations', 'Retry When Body Is Not JSON', 'Total Deadline (Ms)'])
		assert.ok(offered.includes(name), `"${name}" offered in Retry Options: ${offered.join(', ')}`);
	const interval = group.locator('[data-test-id="parameter-input-pollInterval"] input').first();
	await interval.waitFor({ timeout: 15_000 });
	await interval.fill('200');
	await interval.press('Tab');
	await addOption('Poll Interval Growth');
	const growth = group.locator('[data-test-id="parameter-input-pollGrowth"] input').first();
	await growth.waitFor({ timeout: 15_000 });
	await growth.fill('1');
	await growth.press('Tab');
	await closePopups(page);
	const saved = await saveAndWaitForNode(
		page,
		client,
		workflow.id,
		'Job Status',
		(node) => node.parameters.retryWhen !== undefined && node.parameters.retryOptions?.pollGrowth === 1,
		'the workflow saved with Retry When and the polling pace',
	);
	assert.equal(saved.parameters.retryWhen, '={{ $response.body.status === "running" }}');
	assert.deepEqual(saved.parameters.retryOptions, { pollInterval: 200, pollGrowth: 1 });

	await openWorkflow(page, n8n.url, workflow.id);
	const execution = await executeInEditor(page, client, workflow.id);
	assert.equal(execution.status, 'success');
	const items = execution.data.resultData.runData['Job Status'][0].data.main[0];
	assert.deepEqual(items.map((item) => item.json), [{ id: key, status: 'done', poll: 3, result: { rows: 1234 } }]);
	const polls = api.log.filter((e) => e.path === `/job/${key}`);
	assert.deepEqual(polls.map((e) => [e.method, e.status]), [['GET', 200], ['GET', 200], ['GET', 200]]);
	// paced by the panel's Poll Interval: 200 ms, less at most the jitter's 20 % (core/poll.ts), so never
	// sooner than 160 ms apart, 10 ms given for the clock (no upper bound on a loaded machine)
	for (let n = 1; n < polls.length; n++) assert.ok(polls[n].time - polls[n - 1].time >= 150, `poll ${n + 1} came ${polls[n].time - polls[n - 1].time} ms after the one before`);
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});
