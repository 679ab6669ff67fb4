// n8n's *Retry execution* and a re-run of the same input, in a real n8n 2.41.1 (`n8n start`), with
// Generate / Key Based On: Selected Fields or Item Data: orders the gateway charged but never
// answered are charged once, also those the failed run had already charged and n8n sends again.
//
// What n8n passes to a node on a retry (checked here and in packages/cli ExecutionService.retry):
// the stored run data minus the failed node's last run; the execution resumes from the stored
// execution stack, so the failed node gets the input items it had (the same json), in a new
// execution (stored with mode "retry" and retryOf = the failed one; a new $execution.id, and
// $execution.mode "production" as in the failed run) of the same workflow
// ($workflow.id unchanged) and the same node (its id unchanged; with "retry with the current
// workflow" the saved node, looked up by name). The whole node runs again: the items that had
// succeeded are sent again too.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closePopups, launchBrowser, openNode, openWorkflow, pickOption, requireBrowser, signIn } from './browser.mjs';
import { REPO, callWebhook, getExecution, importWorkflow, listExecutions, nodeResults, ownerEnv, prepareUserFolder, publishOnServer, restClient, startFlakyServer, startN8n, stopN8n, waitFor } from './harness.mjs';

const { derivedIdempotencyKey } = createRequire(import.meta.url)(path.join(REPO, 'dist/nodes/shared/core/idempotency.js'));

/** A payment gateway: one charge per (order, Idempotency-Key); lost-* orders are charged, then the first connection drops. */
async function startGateway() {
	const charges = [];
	const server = await startFlakyServer({
		pay: (req, res, { parts, count, entry, json }) => {
			const order = parts[1];
			const key = req.headers['idempotency-key'];
			if (!charges.some((c) => c.order === order && c.key === key)) charges.push({ order, key });
			if (order.startsWith('lost-') && count === 1) {
				entry.status = 'dropped';
				req.socket.destroy();
			} else json(res, (entry.status = 200), { charged: order });
		},
	});
	return { ...server, chargesOf: (order) => charges.filter((c) => c.order === order).length };
}

const CHARGE_NODE_ID = 'e2e-retry-charge';

/** POST /webhook/<path> { orders: [...] } -> one item per order -> Charge (one attempt, no error output: a lost order fails the execution). */
function chargeWorkflow(id, webhookPath, gatewayUrl, keyParameters) {
	return {
		id,
		name: `E2E retry execution ${webhookPath}`,
		nodes: [
			{ id: `${id}-hook`, name: 'Orders received', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: `e2e-${webhookPath}`, parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} } },
			{ id: `${id}-split`, name: 'One item per order', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.orders', options: {} } },
			{
				id: CHARGE_NODE_ID,
				name: 'Charge',
				type: 'n8n-nodes-resilient-http.resilientHttpRequest',
				typeVersion: 1,
				position: [400, 0],
				parameters: {
					method: 'POST',
					url: `=${gatewayUrl}/pay/{{ $json.order }}`,
					// what the expressions see in each run: the workflow, the execution and its mode
					sendQuery: true,
					specifyQuery: 'keypair',
					queryParameters: { parameters: [{ name: 'workflow', value: '={{ $workflow.id }}' }, { name: 'execution', value: '={{ $execution.id }}' }, { name: 'mode', value: '={{ $execution.mode }}' }] },
					sendBody: true,
					contentType: 'json',
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					maxAttempts: 1,
					idempotencyKeyMode: 'generate',
					...keyParameters,
					options: {},
				},
			},
			{ id: `${id}-done`, name: 'Charged', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, 0], parameters: {} },
		],
		connections: {
			'Orders received': { main: [[{ node: 'One item per order', type: 'main', index: 0 }]] },
			'One item per order': { main: [[{ node: 'Charge', type: 'main', index: 0 }]] },
			Charge: { main: [[{ node: 'Charged', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

const WORKFLOWS = {
	fields: { id: 'e2eRetryByFields', path: 'e2e-retry-fields', key: { generatedKeyBasis: 'fields', keyFields: 'order' } },
	data: { id: 'e2eRetryByData', path: 'e2e-retry-data', key: { generatedKeyBasis: 'itemData' } },
	random: { id: 'e2eRetryRandom', path: 'e2e-retry-random', key: { generatedKeyBasis: 'random' } },
};

let gateway;
let n8n;
let client;
let browser;

before(async () => {
	gateway = await startGateway();
	const userFolder = await prepareUserFolder({ tarball: true });
	await importWorkflow(
		userFolder,
		Object.values(WORKFLOWS).map((w) => chargeWorkflow(w.id, w.path, gateway.url, w.key)),
	);
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	client = await restClient(n8n);
	await publishOnServer(client, Object.values(WORKFLOWS).map((w) => w.id));
});
after(async () => {
	await browser?.close();
	await stopN8n();
	await gateway?.close();
});

/** Posts the orders and waits for the execution this started to finish: resolves it. */
async function postOrders(workflow, orders) {
	const known = new Set((await listExecutions(client, workflow.id)).map((e) => e.id));
	const res = await callWebhook(n8n, workflow.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orders: orders.map((order, i) => ({ order, amount: 100 + i })) }) });
	assert.equal(res.status, 200, await res.text());
	return await waitFor(
		async () => (await listExecutions(client, workflow.id)).find((e) => !known.has(e.id) && ['success', 'error'].includes(e.status)),
		{ timeoutMs: 30_000, what: `the execution of ${workflow.path}` },
	);
}

const requestsOf = (order) => gateway.requests(`/pay/${order}`);
const keysOf = (order) => requestsOf(order).map((r) => r.headers['idempotency-key']);

for (const [basis, label] of [
	['fields', 'Selected Fields (order)'],
	['data', 'Item Data'],
]) {
	describe(`Key Based On: ${label}`, () => {
		const workflow = WORKFLOWS[basis];
		const expectedKey = (order, amount) => derivedIdempotencyKey({ workflowId: workflow.id, nodeId: CHARGE_NODE_ID }, basis === 'fields' ? 'fields' : 'itemData', basis === 'fields' ? { order } : { order, amount });

		for (const loadWorkflow of [false, true]) {
			test(`Retry execution (${loadWorkflow ? 'with the current workflow' : 'with the original workflow'}): every order sent again under its key, each charged once`, async () => {
				const orders = [`ok-${basis}-${loadWorkflow}-a`, `lost-${basis}-${loadWorkflow}-b`, `ok-${basis}-${loadWorkflow}-c`];
				const failed = await postOrders(workflow, orders);
				assert.equal(failed.status, 'error');
				for (const order of orders) assert.equal(gateway.chargesOf(order), 1, `${order} charged by the failed run`);

				const retry = await client.post(`/rest/executions/${failed.id}/retry`, { loadWorkflow });
				assert.equal(retry.status, 'success');
				assert.equal(retry.retryOf, failed.id);
				const retried = await getExecution(client, retry.id);
				assert.equal(retried.mode, 'retry');
				assert.equal(nodeResults(retried).Charged.items.length, 3);

				for (const [i, order] of orders.entries()) {
					const [first, again] = requestsOf(order);
					assert.equal(requestsOf(order).length, 2, `${order}: the failed run's request and the retry's`);
					assert.deepEqual(keysOf(order), [expectedKey(order, 100 + i), expectedKey(order, 100 + i)], `${order}: one key, derived from the workflow, the node and ${label}`);
					assert.equal(gateway.chargesOf(order), 1, `${order} charged once`);
					// what n8n gave the node: the same workflow and input, a new execution in mode "retry"
					assert.deepEqual([first.body, again.body], [{ order, amount: 100 + i }, { order, amount: 100 + i }]);
					assert.equal(first.url.includes(`workflow=${workflow.id}`) && again.url.includes(`workflow=${workflow.id}`), true);
					// $execution.mode reads "production" in both: n8n maps every mode but manual to it
					assert.match(first.url, new RegExp(`execution=${failed.id}&mode=production$`));
					assert.match(again.url, new RegExp(`execution=${retry.id}&mode=production$`));
				}
			});
		}

		test('a re-run on the same input (the same orders posted again) sends the same keys: charged once', async () => {
			const orders = [`ok-${basis}-rerun-a`, `lost-${basis}-rerun-b`];
			const first = await postOrders(workflow, orders);
			assert.equal(first.status, 'error');
			const second = await postOrders(workflow, orders);
			assert.equal(second.status, 'success');
			for (const [i, order] of orders.entries()) {
				assert.deepEqual(keysOf(order), [expectedKey(order, 100 + i), expectedKey(order, 100 + i)]);
				assert.equal(gateway.chargesOf(order), 1, order);
			}
		});
	});
}

test('Key Based On: Random (control): the retry sends a new key per order, and each is charged twice', async () => {
	const orders = ['ok-random-a', 'lost-random-b'];
	const failed = await postOrders(WORKFLOWS.random, orders);
	assert.equal(failed.status, 'error');
	const retry = await client.post(`/rest/executions/${failed.id}/retry`, { loadWorkflow: false });
	assert.equal(retry.status, 'success');
	for (const order of orders) {
		assert.equal(new Set(keysOf(order)).size, 2, `${order}: two keys`);
		assert.equal(gateway.chargesOf(order), 2, `${order}: charged twice`);
	}
});

test('in the editor: Generate shows Key Based On; Selected Fields asks for Fields to Hash and warns; Execute step twice sends one key, Random two', async (t) => {
	if (!requireBrowser(t)) return;
	browser = await launchBrowser();
	const { page } = browser;
	const workflow = await client.post('/rest/workflows', {
		name: 'E2E derived key in the editor',
		nodes: [
			{ id: 'ed-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'ed-order', name: 'Order', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [200, 0], parameters: { assignments: { assignments: [{ id: 'a1', name: 'order', value: 'ok-editor-1', type: 'string' }] }, options: {} } },
			{ id: 'ed-charge', name: 'Charge', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [400, 0], parameters: { method: 'POST', url: `=${gateway.url}/pay/{{ $json.order }}`, maxAttempts: 1, options: {} } },
		],
		connections: { Start: { main: [[{ node: 'Order', type: 'main', index: 0 }]] }, Order: { main: [[{ node: 'Charge', type: 'main', index: 0 }]] } },
		settings: {},
	});
	await signIn(page, n8n.url);
	await openWorkflow(page, n8n.url, workflow.id);
	await openNode(page, 'Charge');
	const ndv = page.locator('[data-test-id="ndv"]');
	const executeStep = async () => {
		const seen = requestsOf('ok-editor-1').length;
		await ndv.locator('[data-test-id="node-execute-button"]').first().click();
		await waitFor(async () => requestsOf('ok-editor-1').length > seen, { timeoutMs: 30_000, what: 'the request of "Execute step"' });
		return requestsOf('ok-editor-1').at(-1).headers['idempotency-key'];
	};

	assert.equal(await ndv.locator('[data-test-id="parameter-input-generatedKeyBasis"]').count(), 0, 'no Key Based On while the key is Off');
	await pickOption(page, ndv.locator('[data-test-id="parameter-input-idempotencyKeyMode"]'), 'Generate');
	const basis = ndv.locator('[data-test-id="parameter-input-generatedKeyBasis"]');
	await basis.waitFor({ timeout: 15_000 });
	await pickOption(page, basis, 'Selected Fields (Same on Every Run)');
	const fields = ndv.locator('[data-test-id="parameter-input-keyFields"]');
	await fields.waitFor({ timeout: 15_000 });
	await fields.locator('input, textarea').first().fill('order');
	await closePopups(page);
	assert.match(await ndv.innerText(), /Items with the same data get the same key/, 'the derived-key notice');

	const first = await executeStep();
	const again = await executeStep();
	assert.equal(again, first, 'Execute step twice: the same key');
	assert.equal(first, derivedIdempotencyKey({ workflowId: workflow.id, nodeId: 'ed-charge' }, 'fields', { order: 'ok-editor-1' }));

	await pickOption(page, basis, 'Random (New on Every Run)');
	assert.equal(await ndv.locator('[data-test-id="parameter-input-keyFields"]').count(), 0, 'no Fields to Hash for Random');
	const random1 = await executeStep();
	const random2 = await executeStep();
	assert.notEqual(random1, random2, 'Random: a new key on every run');

	// n8n drops a parameter that a choice hides: Fields to Hash is empty again
	await pickOption(page, basis, 'Selected Fields (Same on Every Run)');
	await fields.locator('input, textarea').first().fill('order');
	await closePopups(page);
	assert.equal(await executeStep(), first, 'back to Selected Fields: the key of before');
	await page.keyboard.press('Escape');
	await page.keyboard.press('Control+s');
	const saved = await waitFor(
		async () => {
			const w = await client.get(`/rest/workflows/${workflow.id}`);
			const node = w.nodes.find((n) => n.name === 'Charge');
			return node.parameters.generatedKeyBasis === 'fields' ? node : undefined;
		},
		{ timeoutMs: 15_000, what: 'the workflow saved with Selected Fields' },
	);
	assert.deepEqual({ mode: saved.parameters.idempotencyKeyMode, fields: saved.parameters.keyFields }, { mode: 'generate', fields: 'order' });
	assert.deepEqual(browser.errors, [], 'no uncaught error in the editor');
});
