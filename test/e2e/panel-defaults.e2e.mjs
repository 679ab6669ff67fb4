// What a person sees before setting anything, in a real browser against a real n8n 2.41.1 that
// installed the packed tarball: the node panel says above each option group what is on by default
// (the notices of nodes/shared/n8n/defaults-notice.ts, read here from the built description, so
// the test checks what the package ships); searching "resilient" in the node panel lists all three
// nodes, Backoff Delay included; and every example workflow's sticky notes show their whole text
// and cover neither each other nor a node, as the browser lays them out. Screenshots are kept in
// test/e2e/artifacts/panel-defaults/ (RH_E2E_ARTIFACTS to change).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { closePopups, executeInEditor, openNode, openWorkflow, requireBrowser, startEditorSession } from './browser.mjs';
import { REPO, publishOnServer } from './harness.mjs';

const ARTIFACTS = path.join(process.env.RH_E2E_ARTIFACTS || path.join(REPO, 'test/e2e/artifacts'), 'panel-defaults');
const requireDist = createRequire(path.join(REPO, 'dist/package.json'));

let session;
let n8n;
let client;

before(async () => {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	session = await startEditorSession();
	({ n8n, client } = session);
});
after(async () => session?.close());

async function screenshot(page, name) {
	const file = path.join(ARTIFACTS, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/** The notices above the option groups, as the built package declares them. */
function defaultsNotices(nodeFile, className) {
	const NodeClass = requireDist(`./nodes/${nodeFile}`)[className];
	return new NodeClass().description.properties.filter((p) => p.type === 'notice' && p.name.endsWith('Defaults'));
}

test('the node panel shows above each option group what is on by default, before anything is added', async (t) => {
	if (!requireBrowser(t)) return;
	const workflow = await client.post('/rest/workflows', {
		name: 'E2E defaults in sight',
		settings: {},
		nodes: [
			{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'n2', name: 'Call API', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [220, 0], parameters: { url: 'https://api.example.com/x' } },
			{ id: 'n3', name: 'Backoff Delay', type: 'n8n-nodes-resilient-http.backoffDelay', typeVersion: 1, position: [440, 0], parameters: {} },
		],
		connections: { Start: { main: [[{ node: 'Call API', type: 'main', index: 0 }]] }, 'Call API': { main: [[{ node: 'Backoff Delay', type: 'main', index: 0 }]] } },
	});
	const page = await session.page();
	const cases = [
		{ node: 'Call API', notices: defaultsNotices('ResilientHttpRequest/ResilientHttpRequest.node.js', 'ResilientHttpRequest'), groups: ['retryOptions', 'sharedLimits', 'options'] },
		{ node: 'Backoff Delay', notices: defaultsNotices('BackoffDelay/BackoffDelay.node.js', 'BackoffDelay'), groups: ['options'] },
	];
	for (const { node, notices, groups } of cases) {
		assert.deepEqual(notices.map((n) => n.name), groups.map((g) => `${g}Defaults`), `${node}: a notice for each option group`);
		await openWorkflow(page, n8n.url, workflow.id);
		await openNode(page, node);
		const ndv = page.locator('[data-test-id="ndv"]');
		for (const notice of notices) {
			// the notice, shown in the panel as the package declares it, just above its group's "Add option"
			const shown = ndv.getByText(notice.displayName, { exact: true }).first();
			await shown.waitFor({ timeout: 15_000 });
			await shown.scrollIntoViewIfNeeded();
			assert.ok(await shown.isVisible(), `${node}: "${notice.displayName.slice(0, 60)}..." is visible`);
			const group = ndv.locator('[data-test-id="parameter-item"]').filter({ has: page.locator(`label[for="${notice.name.replace(/Defaults$/, '')}"]`) }).first();
			const [noticeBox, groupBox] = [await shown.boundingBox(), await group.boundingBox()];
			assert.ok(noticeBox && groupBox && noticeBox.y < groupBox.y, `${node}: the notice ${notice.name} sits above its group`);
			t.diagnostic(`${node}: ${notice.displayName}`);
			await screenshot(page, `${node.replace(/\W+/g, '-').toLowerCase()}-${notice.name}`);
		}
		// what the notice says holds where it matters most: the traffic controller's hold and budget
		if (node === 'Call API') {
			await ndv.getByText(/Retry Budget: on \(Retries Allowed 10%/).first().waitFor({ timeout: 5_000 });
			await ndv.getByText(/Hold During Outages: on \(Failures in a Row 5/).first().waitFor({ timeout: 5_000 });
		}
		await page.keyboard.press('Escape');
	}
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});

test('searching "resilient" in the node panel lists Resilient HTTP Request, Backoff Delay and Traffic Control', async (t) => {
	if (!requireBrowser(t)) return;
	const workflow = await client.post('/rest/workflows', {
		name: 'E2E node search',
		settings: {},
		nodes: [{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }],
		connections: {},
	});
	const page = await session.page();
	await openWorkflow(page, n8n.url, workflow.id);
	await page.locator('[data-test-id="node-creator-plus-button"]').first().click();
	const search = page.locator('[data-test-id="node-creator-search-bar"] input, [data-test-id="search-bar"] input').first();
	await search.waitFor({ timeout: 15_000 });
	await search.fill('resilient');
	const names = page.locator('[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]');
	await names.first().waitFor({ timeout: 15_000 });
	await page.waitForTimeout(500);
	const listed = (await names.allInnerTexts()).map((text) => text.trim());
	t.diagnostic(`listed for "resilient": ${listed.join(', ')}`);
	await screenshot(page, 'node-search-resilient');
	for (const name of ['Resilient HTTP Request', 'Backoff Delay', 'Resilient HTTP Traffic Control']) assert.ok(listed.includes(name), `"${name}" listed for "resilient": ${listed.join(', ')}`);
	await page.keyboard.press('Escape');
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});

/**
 * In the page: each sticky note's box and its text's, and each other node's body and name label, in
 * screen pixels (not its handles, output labels or hover toolbar, which a note may lie under).
 * `names`: node id -> name.
 */
function measureCanvas(names) {
	const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
	const union = (rects) => rects.reduce((u, r) => ({ left: Math.min(u.left, r.left), top: Math.min(u.top, r.top), right: Math.max(u.right, r.right), bottom: Math.max(u.bottom, r.bottom) }));
	const stickies = [];
	const nodes = [];
	for (const wrapper of document.querySelectorAll('.vue-flow__node')) {
		const id = wrapper.getAttribute('data-id');
		const sticky = wrapper.querySelector('[data-test-id="sticky"]');
		if (sticky) {
			const text = [...sticky.querySelectorAll('p, li, h1, h2, h3, h4, pre, table')].map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0);
			stickies.push({ id, box: box(sticky.getBoundingClientRect()), text: text.length ? union(text.map(box)) : undefined });
			continue;
		}
		const label = [...wrapper.querySelectorAll('*')].filter((e) => e.childElementCount === 0 && e.textContent.trim() === names[id]).map((e) => box(e.getBoundingClientRect()));
		nodes.push({ name: names[id], body: box(wrapper.getBoundingClientRect()), label: label.length ? union(label) : undefined });
	}
	return { stickies, nodes };
}

const overlaps = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

test("every example's sticky notes show their whole text and cover neither each other nor a node; one click runs 07", async (t) => {
	if (!requireBrowser(t)) return;
	const page = await session.page();
	const problems = [];
	for (const file of fs.readdirSync(path.join(REPO, 'workflows')).filter((f) => f.endsWith('.json')).sort()) {
		const example = JSON.parse(fs.readFileSync(path.join(REPO, 'workflows', file), 'utf8'));
		const created = await client.post('/rest/workflows', { name: example.name, settings: example.settings ?? {}, nodes: example.nodes, connections: example.connections });
		await openWorkflow(page, n8n.url, created.id);
		await page.waitForTimeout(500);
		const { stickies, nodes } = await page.evaluate(measureCanvas, Object.fromEntries(example.nodes.map((n) => [n.id, n.name])));
		assert.equal(stickies.length, example.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote').length, `${file}: every sticky note drawn`);
		const noteName = (id) => example.nodes.find((n) => n.id === id)?.name ?? id;
		for (const node of nodes) t.diagnostic(`${file} ${node.name}: body ${JSON.stringify(node.body)}, label ${JSON.stringify(node.label)}`);
		for (const [k, sticky] of stickies.entries()) {
			const name = noteName(sticky.id);
			const scale = (sticky.box.bottom - sticky.box.top) / (example.nodes.find((n) => n.id === sticky.id)?.parameters.height ?? 160);
			// the text's height against the note's, in the workflow's units: the unit test's estimate is held to these
			if (sticky.text) t.diagnostic(`${file} ${name}: text ${Math.round((sticky.text.bottom - sticky.box.top) / scale)} of ${Math.round((sticky.box.bottom - sticky.box.top) / scale)}`);
			if (sticky.text && sticky.text.bottom > sticky.box.bottom + 1) problems.push(`${file}: "${name}" cuts its text off (${Math.round(sticky.text.bottom - sticky.box.bottom)} px below)`);
			for (const other of stickies.slice(k + 1)) if (overlaps(sticky.box, other.box)) problems.push(`${file}: "${name}" overlaps "${noteName(other.id)}"`);
			for (const node of nodes) {
				if (overlaps(sticky.box, node.body)) problems.push(`${file}: "${name}" covers the node "${node.name}"`);
				else if (node.label && overlaps(sticky.box, node.label)) problems.push(`${file}: "${name}" covers the name of "${node.name}"`);
			}
			t.diagnostic(`${file} ${name}: note ${JSON.stringify(sticky.box)}`);
		}
		await screenshot(page, `example-${file.replace(/\.json$/, '')}`);
		if (file.startsWith('07-')) {
			// two triggers: n8n's run button picks the schedule one (it ranks a schedule above a manual
			// trigger), so that one is named for what a click does, and a click runs the replay
			const button = page.locator('[data-test-id="execute-workflow-button"]').first();
			const label = (await button.innerText()).replace(/\s+/g, ' ').trim();
			t.diagnostic(`${file}: the run button reads "${label}"`);
			if (!/from Replay every minute/.test(label)) problems.push(`${file}: the run button reads "${label}"`);
			const execution = await executeInEditor(page, client, created.id);
			t.diagnostic(`${file}: a click ran ${Object.keys(execution.data?.resultData?.runData ?? {}).join(', ')}: ${execution.status}`);
			if (execution.status !== 'success') problems.push(`${file}: a click on the run button ended ${execution.status}`);
		}
		await closePopups(page);
	}
	assert.deepEqual(problems, []);
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});

test("the readiness check of npm start asks n8n about a webhook without a line in n8n's log, and is right before and after it is registered", async () => {
	const webhooksReady = createRequire(import.meta.url)('../../scripts/webhooks-ready.js');
	const hookPath = `ready-check-${Date.now()}`;
	const workflow = await client.post('/rest/workflows', {
		name: 'E2E readiness check',
		settings: {},
		nodes: [{ id: 'n1', name: 'Event received', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: hookPath, parameters: { httpMethod: 'POST', path: hookPath } }],
		connections: {},
	});
	const hook = { path: hookPath, methods: ['POST'] };
	const logsBefore = n8n.logs().length;
	assert.equal(await webhooksReady.isRegistered(n8n.url, hook), false, 'not registered before it is published');
	await publishOnServer(client, [workflow.id]);
	await webhooksReady.waitForWebhooks(n8n.url, [hook], { intervalMs: 100, registerMs: 30_000 });
	// registered means registered: the webhook takes a call at once
	const call = await fetch(`${n8n.url}/webhook/${hookPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	assert.equal(call.status, 200, await call.text());
	const logged = n8n.logs().slice(logsBefore);
	assert.doesNotMatch(logged, /not registered|unknown webhook/i, `n8n logged the check: ${logged}`);
});
