/**
 * Every example workflow in workflows/ executed in n8n's engine against the flaky upstream, with
 * its Config node pointed at it. The same workflows run in a real n8n in test/e2e.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { IDataObject, INode } from 'n8n-workflow';
import { startFlakyServer, type FlakyServer } from '../support/flaky-upstream';
import { readWorkflowFile, runWorkflow, type RunWorkflowOptions, type WorkflowJson } from './harness';
import { createVirtualRuntime, type VirtualRuntime } from './virtual-runtime';
import { BACKOFF_DELAY, RESILIENT_HTTP } from './workflow-builders';
import { BackoffDelay } from '../../nodes/BackoffDelay/BackoffDelay.node';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';

const WORKFLOWS = path.join(__dirname, '../../workflows');

/** Loads an example and points its Config node's baseUrl at the given server. */
export function loadExample(file: string, baseUrl: string): WorkflowJson {
	const workflow = readWorkflowFile(path.join(WORKFLOWS, file));
	const config = workflow.nodes.find((n: INode) => n.name === 'Config');
	if (!config) throw new Error(`${file} has no Config node`);
	const assignments = (config.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments;
	const base = assignments.find((a) => a.name === 'baseUrl');
	if (!base) throw new Error(`${file}: Config has no baseUrl`);
	base.value = baseUrl;
	return workflow;
}

let upstream: FlakyServer;
let runtime: VirtualRuntime;
beforeEach(async () => {
	upstream = await startFlakyServer();
	runtime = createVirtualRuntime();
});
afterEach(async () => upstream.close());

const run = async (file: string, base = upstream.url, extra: Partial<RunWorkflowOptions> = {}, store = new MemoryStateStore()) =>
	await runWorkflow(loadExample(file, base), { nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, store), [BACKOFF_DELAY]: new BackoffDelay(runtime) }, ...extra });

it('every example workflow has a test here and a Config node with baseUrl', () => {
	const files = readdirSync(WORKFLOWS).filter((f) => f.endsWith('.json'));
	expect(files.sort()).toEqual(Object.keys(TESTED).sort());
	for (const file of files) expect(() => loadExample(file, 'http://x')).not.toThrow();
});

const TESTED: Record<string, () => Promise<void>> = {
	'01-replace-retry-on-fail.json': async () => {
		const result = await run('01-replace-retry-on-fail.json');
		expect(result.status).toBe('success');
		expect(upstream.requests('/fail/2/retry-on-fail-new')).toHaveLength(3);
		// the Retry On Fail node is there for comparison only: disabled
		expect(upstream.requests('/fail/2/retry-on-fail-old')).toHaveLength(0);
		const [item] = result.jsonOf('New: Resilient HTTP Request');
		expect(item).toMatchObject({ ok: true, _retry: { attempts: 3, stoppedBecause: 'success' } });
	},
	'02-rate-limited-api.json': async () => {
		const result = await run('02-rate-limited-api.json');
		expect(result.status).toBe('success');
		const out = result.jsonOf('Upsert contact');
		expect(out).toHaveLength(10);
		for (let id = 1; id <= 10; id++) {
			const requests = upstream.log.filter((r) => r.path === `/429/1/contact-${id}`);
			expect(requests.map((r) => r.status)).toEqual([429, 200]);
			expect(requests[1].method).toBe('PUT');
			expect(requests[1].body).toMatchObject({ id, email: `person${id}@example.com` });
		}
		// every retry waited at least the Retry-After (1 s); batches of 2 paused 500 ms four times
		const retryWaits = out.map((o) => ((o._retry as IDataObject).history as IDataObject[])[1].delayBeforeMs as number);
		expect(Math.min(...retryWaits)).toBeGreaterThanOrEqual(1000);
		expect(runtime.sleeps.filter((ms) => ms === 500)).toHaveLength(4);
	},
	'03-payment-idempotency-key.json': async () => {
		const result = await run('03-payment-idempotency-key.json');
		expect(result.status).toBe('success');
		const requests = upstream.requests('/drop-after-processing/order-1001');
		expect(requests.map((r) => r.status)).toEqual(['dropped', 200]);
		expect(requests.map((r) => r.headers['idempotency-key'])).toEqual(['order-1001', 'order-1001']);
		// two requests, one payment
		expect(upstream.processed.filter((p) => p.key === 'order-1001')).toHaveLength(1);
		expect(result.jsonOf('Charged')).toHaveLength(1);
	},
	'04-classic-loop-backoff-delay.json': async () => {
		const result = await run('04-classic-loop-backoff-delay.json');
		expect(result.status).toBe('success');
		expect(upstream.requests('/fail/2/loop-a')).toHaveLength(3);
		expect(upstream.requests('/fail/1/loop-b')).toHaveLength(2);
		expect(upstream.requests('/status/404/99/loop-c')).toHaveLength(1);
		const done = result.outputOf('Done', 0, 0).concat(result.runsOf('Done') > 1 ? result.outputOf('Done', 0, 1) : []);
		expect(done.length).toBeGreaterThanOrEqual(1);
		const [failed] = result.jsonOf('Failed items (keep for replay)');
		expect(failed).toMatchObject({ id: 'c', path: 'status/404/99/loop-c', _backoff: { stoppedBecause: 'final-status' } });
	},
	'05-long-retry-after-wait.json': async () => {
		const started = Date.now();
		const result = await run('05-long-retry-after-wait.json');
		// the 90 s Retry-After is beyond the node's 60 s maximum: it goes to Backoff Delay, which
		// puts the execution into n8n's waiting state (resumed by n8n; proven in test/e2e)
		expect(result.status).toBe('waiting');
		expect(result.waitTill!.getTime() - started).toBeGreaterThanOrEqual(90_000);
		expect(upstream.requests('/429/90/long-wait-report')).toHaveLength(1);
		expect(runtime.sleeps).toHaveLength(0);
	},
	'06-webhook-sender-dead-letter.json': async () => {
		// the built-in events scenario: ok-* fail once then accept, bad-* are rejected (400), down-* always 503
		const customer = await startFlakyServer();
		try {
			const store = new MemoryStateStore();
			const deliver = async (id: string) =>
				await run('06-webhook-sender-dead-letter.json', customer.url, { startNodeName: 'Event received', triggerItems: [{ json: { headers: {}, query: {}, body: { id, type: 'invoice.paid' } } }] }, store);
			const ok = await deliver('ok-1');
			const bad = await deliver('bad-1');
			const down = await deliver('down-1');

			expect(ok.jsonOf('Delivered')).toEqual([expect.objectContaining({ received: 'ok-1' })]);
			expect(customer.requests('/events/ok-1').map((r) => r.headers['idempotency-key'])).toEqual(['event-ok-1', 'event-ok-1']);
			expect(customer.requests('/events/bad-1')).toHaveLength(1);
			expect(customer.requests('/events/down-1')).toHaveLength(3);
			const [badLetter] = bad.jsonOf('Dead letter (replay from here)');
			expect(badLetter).toMatchObject({ event: { id: 'bad-1', type: 'invoice.paid' }, reason: 'final-status' });
			const [downLetter] = down.jsonOf('Dead letter (replay from here)');
			expect(downLetter).toMatchObject({ event: { id: 'down-1' }, reason: 'attempts-exhausted' });
			expect(typeof downLetter.failedAt).toBe('string');
		} finally {
			await customer.close();
		}
	},
};

describe('example workflows', () => {
	for (const [file, test] of Object.entries(TESTED)) it(file, test);
});
