/**
 * Generate, Key Based On Item Data / Selected Fields, in n8n's engine: the key survives what a random
 * key does not (a re-run of the workflow on the same input, n8n's Retry execution), against the flaky
 * upstream's payment route, which processes a POST, drops the connection on the first request, and
 * deduplicates by Idempotency-Key. Real n8n: test/e2e/retry-execution.e2e.mjs.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { BackoffDelay } from '../../nodes/BackoffDelay/BackoffDelay.node';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { derivedIdempotencyKey } from '../../nodes/shared/core/idempotency';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { startFlakyServer, type FlakyServer } from '../support/flaky-upstream';
import { retryExecution, type WorkflowJson } from './harness';
import { createVirtualRuntime } from './virtual-runtime';
import { BACKOFF_DELAY, httpWorkflow, ITEMS_SOURCE, itemsSource, loopWorkflow, requestNode, RESILIENT_HTTP, runHttp } from './workflow-builders';

let upstream: FlakyServer;
beforeEach(async () => {
	upstream = await startFlakyServer();
});
afterEach(async () => upstream.close());

// a payment gateway: charges once per (order, key); lost-* orders are charged, then the connection drops, the first time
let gateway: FlakyServer;
const charged: Array<{ order: string; key: string }> = [];
const gatewayCharges = () => Object.fromEntries([...new Set(charged.map((c) => c.order))].map((order) => [order, charged.filter((c) => c.order === order).length]));
beforeEach(async () => {
	charged.length = 0;
	gateway = await startFlakyServer({
		pay: (req, res, { parts, count, entry, json }) => {
			const order = parts[1];
			const key = String(req.headers['idempotency-key']);
			if (!charged.some((c) => c.order === order && c.key === key)) charged.push({ order, key });
			if (order.startsWith('lost-') && count === 1) {
				entry.status = 'dropped';
				req.socket.destroy();
			} else json(res, (entry.status = 200), { ok: true, order });
		},
	});
});
afterEach(async () => gateway.close());

const charges = (order: string) => upstream.processed.filter((p) => p.key === order).length;
const keysSent = (order: string) => upstream.requests(`/drop-after-processing/${order}`).map((r) => r.headers['idempotency-key'] as string);

/** A payment per item: POST /drop-after-processing/<order> with the order as body; one attempt, so a dropped answer fails the item. */
function paymentWorkflow(key: IDataObject, onError?: 'continueErrorOutput', base = `${upstream.url}/drop-after-processing`): WorkflowJson {
	const wf = httpWorkflow(
		{
			method: 'POST',
			url: `=${base}/{{ $json.order }}`,
			sendBody: true,
			contentType: 'json',
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify({ order: $json.order, amount: $json.amount }) }}',
			maxAttempts: 1,
			idempotencyKeyMode: 'generate',
			...key,
		},
		onError ? { onError } : {},
	);
	return { ...wf, id: 'wf-payments' };
}

const BY_ORDER = { generatedKeyBasis: 'fields', keyFields: 'order' };
const BY_DATA = { generatedKeyBasis: 'itemData' };
const RANDOM = { generatedKeyBasis: 'random' };

const orders = (...ids: string[]): INodeExecutionData[] => ids.map((order, i) => ({ json: { order, amount: 10 + i } }));

function nodeTypes(items: INodeExecutionData[]) {
	const runtime = createVirtualRuntime();
	return { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, new MemoryStateStore()), [BACKOFF_DELAY]: new BackoffDelay(runtime), [ITEMS_SOURCE]: itemsSource(items) };
}

describe('a re-run of the workflow on the same input', () => {
	it.each([
		['Selected Fields', BY_ORDER],
		['Item Data', BY_DATA],
	])('%s: the same key again, so an order the server processed but never answered is charged once', async (_label, basis) => {
		const wf = paymentWorkflow(basis, 'continueErrorOutput');
		const first = await runHttp(wf, orders('o-1'), createVirtualRuntime());
		expect(first.jsonOf('HTTP', 1)).toHaveLength(1);
		const again = await runHttp(wf, orders('o-1'), createVirtualRuntime());

		expect(again.jsonOf('OK')).toEqual([expect.objectContaining({ ok: true, processedCount: 1 })]);
		const [k1, k2] = keysSent('o-1');
		expect(k2).toBe(k1);
		expect(k1).toBe(derivedIdempotencyKey({ workflowId: 'wf-payments', nodeId: 'http' }, basis === BY_ORDER ? 'fields' : 'itemData', basis === BY_ORDER ? { order: 'o-1' } : { order: 'o-1', amount: 10 }));
		expect(charges('o-1')).toBe(1);
	});

	it('Random: a new key on the re-run, and the order is charged twice (why the derived bases exist)', async () => {
		const wf = paymentWorkflow(RANDOM, 'continueErrorOutput');
		await runHttp(wf, orders('o-2'), createVirtualRuntime());
		await runHttp(wf, orders('o-2'), createVirtualRuntime());
		const [k1, k2] = keysSent('o-2');
		expect(k2).not.toBe(k1);
		expect(charges('o-2')).toBe(2);
	});

	it('another workflow or another node sending the same order gets another key (another request)', async () => {
		await runHttp(paymentWorkflow(BY_ORDER, 'continueErrorOutput'), orders('o-3'), createVirtualRuntime());
		await runHttp({ ...paymentWorkflow(BY_ORDER, 'continueErrorOutput'), id: 'wf-refunds' }, orders('o-3'), createVirtualRuntime());
		const other = paymentWorkflow(BY_ORDER, 'continueErrorOutput');
		other.nodes.find((n) => n.name === 'HTTP')!.id = 'http-copy';
		await runHttp(other, orders('o-3'), createVirtualRuntime());
		expect(new Set(keysSent('o-3')).size).toBe(3);
	});

	it("Item Data ignores the package's records on the item: a retry story written upstream (timings) does not change the key", async () => {
		const story = (elapsedMs: number) => ({ attempts: 1, maxAttempts: 5, stoppedBecause: 'success', summary: '', totalDelayMs: 0, elapsedMs, history: [] });
		const wf = paymentWorkflow(BY_DATA, 'continueErrorOutput');
		await runHttp(wf, [{ json: { order: 'o-4', amount: 1, _retry: story(12) } }], createVirtualRuntime());
		await runHttp(wf, [{ json: { order: 'o-4', amount: 1, _retry: story(97) } }], createVirtualRuntime());
		const [k1, k2] = keysSent('o-4');
		expect(k2).toBe(k1);
		expect(charges('o-4')).toBe(1);
	});
});

describe("n8n's Retry execution (the failed node runs again on its stored input)", () => {

	it.each([
		['the original workflow', (wf: WorkflowJson) => wf],
		// edited since: more attempts; the node keeps its id, so the key stays
		['the current workflow, edited since', (wf: WorkflowJson) => ({ ...wf, nodes: wf.nodes.map((n) => (n.name === 'HTTP' ? { ...n, parameters: { ...n.parameters, maxAttempts: 3 } } : n)) })],
	])('with %s: every order of the node is sent again under its key, each charged once', async (_label, current) => {
		// ok-10 and ok-12 are charged and answered; lost-11 is charged but never answered, so the node fails
		const items = orders('ok-10', 'lost-11', 'ok-12');
		const wf = paymentWorkflow(BY_ORDER, undefined, `${gateway.url}/pay`);
		const failed = await runHttp(wf, items, createVirtualRuntime());
		expect(failed.status).toBe('error');
		expect(String(failed.error?.description)).toMatch(/Gave up after 1 attempt/);
		expect(gatewayCharges()).toEqual({ 'ok-10': 1, 'lost-11': 1, 'ok-12': 1 });

		// n8n runs the whole node again: the orders that went through are sent a second time too
		const retried = await retryExecution(current(wf), failed.run, { nodeTypes: nodeTypes(items) });

		expect(retried.status).toBe('success');
		expect(retried.jsonOf('OK')).toHaveLength(3);
		for (const order of ['ok-10', 'lost-11', 'ok-12']) {
			const keys = gateway.requests(`/pay/${order}`).map((r) => r.headers['idempotency-key']);
			expect(keys).toHaveLength(2);
			expect(new Set(keys).size).toBe(1);
			expect(keys[0]).toBe(derivedIdempotencyKey({ workflowId: 'wf-payments', nodeId: 'http' }, 'fields', { order }));
		}
		expect(gatewayCharges()).toEqual({ 'ok-10': 1, 'lost-11': 1, 'ok-12': 1 });
	});

	it('Random: the retry sends every order under a new key, and each is charged twice', async () => {
		const items = orders('ok-20', 'lost-21');
		const wf = paymentWorkflow(RANDOM, undefined, `${gateway.url}/pay`);
		const failed = await runHttp(wf, items, createVirtualRuntime());
		expect(failed.status).toBe('error');
		await retryExecution(wf, failed.run, { nodeTypes: nodeTypes(items) });
		expect(gatewayCharges()).toEqual({ 'ok-20': 2, 'lost-21': 2 });
	});
});

describe('through a loop and a replay of the error output', () => {
	it('a derived key is the key of the failed pass: the loop and a later replay through the node send it again', async () => {
		const http = requestNode('resilient', { method: 'POST', url: `${upstream.url}/drop-after-processing/o-30`, idempotencyKeyMode: 'generate', ...BY_ORDER });
		const run = await runHttp({ ...loopWorkflow(http, { maxAttempts: 3, options: { baseDelay: 10 } }), id: 'wf-loop' }, orders('o-30'), createVirtualRuntime());
		expect(run.status).toBe('success');
		const [k1, k2] = keysSent('o-30');
		expect(k2).toBe(k1);
		expect(charges('o-30')).toBe(1);

		// the error output of a failed pass, replayed through the same node days later
		const failed = await runHttp(paymentWorkflow(BY_ORDER, 'continueErrorOutput'), orders('o-31'), createVirtualRuntime());
		const [letter] = failed.outputOf('HTTP', 1);
		const replay = await runHttp(paymentWorkflow(BY_ORDER, 'continueErrorOutput'), [{ json: { ...letter.json } }], createVirtualRuntime());
		expect(replay.jsonOf('OK')).toEqual([expect.objectContaining({ processedCount: 1 })]);
		expect(new Set(keysSent('o-31')).size).toBe(1);
	});
});

describe('two items of one run that would get the same key', () => {
	it.each([
		['Selected Fields', BY_ORDER, 'Parameter "Fields to Hash" gives this item the same values as item 0 (order), hence the same idempotency key (item 2)'],
		['Item Data', BY_DATA, 'Parameter "Key Based On" (Item Data) gives this item the same idempotency key as item 0: the two hold the same data (item 2)'],
	])('%s: the later one (in input order) fails before any request, naming both; the others go out', async (_label, basis, message) => {
		const items = [{ json: { order: 'ok-40', amount: 1 } }, { json: { order: 'ok-41', amount: 1 } }, { json: { order: 'ok-40', amount: basis === BY_ORDER ? 2 : 1 } }];
		const run = await runHttp(paymentWorkflow(basis, 'continueErrorOutput', `${gateway.url}/pay`), items, createVirtualRuntime());

		expect(run.status).toBe('success');
		const [failed, ...more] = run.jsonOf('HTTP', 1);
		expect(more).toHaveLength(0);
		expect(failed.error).toBe(message);
		expect(failed).toMatchObject(items[2].json);
		expect(gateway.requests('/pay/ok-40')).toHaveLength(1);
		expect(gateway.requests('/pay/ok-40')[0].body).toEqual({ order: 'ok-40', amount: 1 });
		expect(gatewayCharges()).toEqual({ 'ok-40': 1, 'ok-41': 1 });
		expect(run.jsonOf('OK')).toHaveLength(2);
	});

	it('Random keys are never refused: two equal items are two requests', async () => {
		const run = await runHttp(paymentWorkflow(RANDOM, 'continueErrorOutput', `${gateway.url}/pay`), [{ json: { order: 'ok-50', amount: 1 } }, { json: { order: 'ok-50', amount: 1 } }], createVirtualRuntime());
		expect(run.jsonOf('OK')).toHaveLength(2);
		expect(gatewayCharges()).toEqual({ 'ok-50': 2 });
	});
});
