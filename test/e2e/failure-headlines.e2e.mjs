// A failed item's headline and its retry story in the n8n editor, in a real browser against a real
// n8n 2.41.1 (issue 38): three requests that fail the ways the node stops (503s until Max Attempts,
// a Retry-After longer than Max Server-Requested Delay, a POST without an idempotency key whose
// connection dropped), each run with *Execute workflow*. Without an error output the node's error
// view shows the node's headline (never "retry automatically" or "batching"), what to do, then the
// story one line per attempt (checked by where the lines are drawn); with an error output each item
// carries the same headline and the story as lines (`_retry.lines`). Screenshots are kept in
// test/e2e/artifacts/failure-headlines/ (RH_E2E_ARTIFACTS to change).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { closePopups, executeInEditor, openNode, openWorkflow, requireBrowser, startEditorSession } from './browser.mjs';
import { REPO, startFlakyServer, uniqueKey } from './harness.mjs';

const ARTIFACTS = path.join(process.env.RH_E2E_ARTIFACTS || path.join(REPO, 'test/e2e/artifacts'), 'failure-headlines');
const FOREIGN_ADVICE = /retry automatically|batching|Retry On Fail/i;
const NODE_TYPE = 'n8n-nodes-resilient-http.resilientHttpRequest';

/**
 * The three failures. Each request has an API (a server, so an origin) of its own: the controller of
 * an API is shared by every execution of the n8n process, and the 429's pause must not reach the others.
 */
const KINDS = [
	{
		name: 'gave-up',
		reason: 'attempts-exhausted',
		parameters: (url) => ({ url: `${url}/down`, maxAttempts: 3, retryOptions: { baseDelay: 100, maxDelay: 200 } }),
		headline: /^Gave up after 3 attempts in .+: last response 503 Service Unavailable$/,
		attempts: 3,
	},
	{
		name: 'retry-after-too-long',
		reason: 'retry-after-too-long',
		parameters: (url) => ({ url: `${url}/429/90/${uniqueKey()}` }),
		headline: /^The server asked to wait 1 min 30 s \(retry-after\), more than Max Server-Requested Delay \(1 min\); last response 429 Too Many Requests; another try is allowed from \d{4}-\d\d-\d\dT[\d:.]+Z$/,
		attempts: 1,
	},
	{
		name: 'post-without-key',
		reason: 'not-safe-to-retry',
		parameters: (url) => ({ method: 'POST', url: `${url}/drop-after-processing/${uniqueKey()}`, sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: '{"order": 1}' }),
		headline: /^Not retried: POST is not idempotent and no idempotency key is sent: the connection failed after the request was sent/,
		attempts: 1,
	},
];

let session;
let n8n;
let client;
const servers = [];

before(async () => {
	fs.rmSync(ARTIFACTS, { recursive: true, force: true });
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	session = await startEditorSession();
	({ n8n, client } = session);
});
after(async () => {
	await session?.close();
	await Promise.all(servers.map((s) => s.close()));
});

/** A flaky server of its own (harness.mjs: /down, /429/:seconds/:key, /drop-after-processing/:key). */
async function api() {
	const server = await startFlakyServer();
	servers.push(server);
	return server.url;
}

/**
 * A workflow Start -> the failing nodes, stored as the editor saves it. Each node leads on to the
 * next by `output` (0, or 1: its error output), so that all of them run in one execution.
 */
async function storeWorkflow(name, nodes, output = 0) {
	const all = [{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, ...nodes];
	const connections = {};
	for (let n = 0; n < all.length - 1; n++) {
		const outputs = [[], []];
		outputs[n === 0 ? 0 : output] = [{ node: all[n + 1].name, type: 'main', index: 0 }];
		connections[all[n].name] = { main: n === 0 ? [outputs[0]] : outputs };
	}
	return await client.post('/rest/workflows', { name, settings: { executionOrder: 'v1' }, nodes: all, connections });
}

/**
 * The description's lines as the browser draws them: the top of each text line, read from the
 * rectangles of its text (a line that wraps is one line of the text, drawn on several rows).
 */
async function drawnLines(description) {
	return await description.evaluate((element) => {
		const lines = [];
		for (const node of element.childNodes) {
			if (node.nodeType !== Node.TEXT_NODE || node.textContent.trim() === '') continue;
			const range = document.createRange();
			range.selectNodeContents(node);
			const rects = [...range.getClientRects()];
			lines.push({ text: node.textContent, top: Math.min(...rects.map((r) => r.top)), bottom: Math.max(...rects.map((r) => r.bottom)), left: Math.min(...rects.map((r) => r.left)) });
		}
		return lines;
	});
}

for (const kind of KINDS) {
	test(`Stop Workflow: the error view shows the node's headline and the story one line per attempt (${kind.name})`, async (t) => {
		if (!requireBrowser(t)) return;
		const node = { id: 'call', name: 'Call API', type: NODE_TYPE, typeVersion: 1, position: [250, 0], parameters: kind.parameters(await api()) };
		const workflow = await storeWorkflow(`E2E headline: ${kind.name}`, [node]);
		const page = await session.page();
		await openWorkflow(page, n8n.url, workflow.id);
		const execution = await executeInEditor(page, client, workflow.id);
		assert.equal(execution.status, 'error');
		await closePopups(page);
		await openNode(page, 'Call API');
		const ndv = page.locator('[data-test-id="ndv"]');
		const message = ndv.locator('[data-test-id="node-error-message"]').first();
		await message.waitFor({ timeout: 30_000 });
		const headline = (await message.innerText()).trim();
		const description = ndv.locator('[data-test-id="node-error-description"]').first();
		await description.waitFor({ timeout: 15_000 });
		await page.screenshot({ path: path.join(ARTIFACTS, `${kind.name}-error-view.png`) });
		t.diagnostic(`headline: ${headline}`);

		assert.match(headline, kind.headline);
		const text = await description.innerText();
		assert.doesNotMatch(`${headline}\n${text}`, FOREIGN_ADVICE);
		// the stored error: the same headline, the description as text lines (an expression or an alert reads them)
		const stored = execution.data.resultData.error;
		assert.equal(stored.message, headline);
		const storedLines = stored.description.split('\n');
		assert.match(storedLines[0], /^What to do: /);
		// what the browser shows: one line of the page per line of the description (innerText reads a <br> as a line break)
		const shown = text.split('\n').map((line) => line.trim());
		assert.deepEqual(shown, storedLines.map((line) => line.trim()));
		const attemptLines = shown.filter((line) => /^\d+\. \d{4}-/.test(line));
		assert.equal(attemptLines.length, kind.attempts, `one line per attempt: ${JSON.stringify(shown)}`);
		// and where they are drawn: each line of the story below the one before, from the same left edge
		const drawn = await drawnLines(description);
		t.diagnostic(`drawn lines: ${drawn.map((l) => `${Math.round(l.top)}: ${l.text.slice(0, 40)}`).join(' | ')}`);
		assert.equal(drawn.length, storedLines.filter((line) => line.trim() !== '').length, 'each line of the description drawn as its own text');
		for (let n = 1; n < drawn.length; n++) {
			assert.ok(drawn[n].top >= drawn[n - 1].bottom - 1, `line ${n + 1} ("${drawn[n].text.slice(0, 40)}") drawn below line ${n} ("${drawn[n - 1].text.slice(0, 40)}")`);
			assert.ok(Math.abs(drawn[n].left - drawn[0].left) < 2, `line ${n + 1} starts at the left edge`);
		}
		await page.keyboard.press('Escape');
		assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
	});
}

test('Continue (using error output): each failed item carries the headline and the story as lines', async (t) => {
	if (!requireBrowser(t)) return;
	const nodes = [];
	for (const [n, kind] of KINDS.entries()) {
		nodes.push({ id: `call-${n}`, name: `Call ${kind.name}`, type: NODE_TYPE, typeVersion: 1, position: [250 * (n + 1), 0], parameters: kind.parameters(await api()), onError: 'continueErrorOutput' });
	}
	// each node's error output leads on to the next node, so that all three run in one execution
	const workflow = await storeWorkflow('E2E headline: error output', nodes, 1);
	const page = await session.page();
	await openWorkflow(page, n8n.url, workflow.id);
	const execution = await executeInEditor(page, client, workflow.id);
	assert.equal(execution.status, 'success');
	for (const [n, kind] of KINDS.entries()) {
		const [item] = execution.data.resultData.runData[nodes[n].name][0].data.main[1];
		const { error } = item.json;
		assert.equal(error.reason, kind.reason);
		assert.match(error.message, kind.headline);
		assert.doesNotMatch(error.message, FOREIGN_ADVICE);
		const { lines } = error._retry;
		assert.match(lines[0], /^Retry story: /);
		assert.equal(lines.filter((line) => /^\d+\. \d{4}-/.test(line)).length, kind.attempts);
		assert.equal(lines.at(kind.reason === 'retry-after-too-long' ? -2 : -1), error._retry.summary);
	}
	await openNode(page, nodes[0].name);
	await page.locator('[data-test-id="ndv"] [data-test-id="output-panel"]').first().waitFor({ timeout: 15_000 });
	await page.screenshot({ path: path.join(ARTIFACTS, 'error-output-item.png') });
	await page.keyboard.press('Escape');
	assert.deepEqual(session.errors(), [], 'no uncaught error in the editor');
});
