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
import { derivedIdempotencyKey } from '../../nodes/shared/core/idempotency';
import { InMemoryDataTables } from './support/data-tables';
import { TrafficControl } from '../../nodes/TrafficControl/TrafficControl.node';
import { appNode, APP_NODE } from './support/app-node';

const WORKFLOWS = path.join(__dirname, '../../workflows');

/** Loads an example and points its Config node's baseUrl at the given server. */
export function loadExample(file: string, baseUrl: string): WorkflowJson {
	const workflow = readWorkflowFile(path.join(WORKFLOWS, file));
	const config = workflow.nodes.find((n: INode) => n.name === 'Config');
	if (!config) throw new Error(`${file} has no Config node`);
	const assignments = (config.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments;
	const base = assignments.find((a) => a.name === 'baseUrl');
	// an example whose API is reached through a credential's Base URL (11: the OpenAI node's) has none
	if (!base && workflow.nodes.some((n: INode) => n.credentials !== undefined)) return workflow;
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

const DEAD_LETTERS = 'Dead letters: webhook sender';
const SENDER = readWorkflowFile(path.join(WORKFLOWS, '06-webhook-sender-dead-letter.json'));
/** The key example 06's Deliver event derives from an event id (Key Based On: Selected Fields, body.id). */
const senderKey = (id: string) => derivedIdempotencyKey({ workflowId: SENDER.id!, nodeId: SENDER.nodes.find((n) => n.name === 'Deliver event')!.id }, 'fields', { 'body.id': id });

/** Example 06 receiving one event, as its webhook passes it on. */
const deliverEvent = async (base: string, id: string, dataTables: InMemoryDataTables, store: MemoryStateStore) =>
	await run('06-webhook-sender-dead-letter.json', base, { startNodeName: 'Event received', triggerItems: [{ json: { headers: {}, query: {}, body: { id, type: 'invoice.paid' } } }], dataTables }, store);

/** Example 07 started by its manual trigger. */
const replayDeadLetters = async (base: string, dataTables: InMemoryDataTables) => await run('07-replay-dead-letters.json', base, { startNodeName: 'Replay now', dataTables });

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
		// b succeeds on the loop's second pass, a on its third: one item each, with the server's answer
		const done = Array.from({ length: result.runsOf('Done') }, (_, run) => result.jsonOf('Done', 0, run)).flat();
		expect(done).toEqual([
			{ ok: true, key: 'loop-b', attempt: 2 },
			{ ok: true, key: 'loop-a', attempt: 3 },
		]);
		const [failed] = result.jsonOf('Failed items (keep for replay)');
		expect(failed).toMatchObject({ id: 'c', path: 'status/404/99/loop-c', _backoff: { stoppedBecause: 'final-status' } });
	},
	'05-long-retry-after-wait.json': async () => {
		const started = runtime.now();
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
			const tables = new InMemoryDataTables();
			const store = new MemoryStateStore();
			const ok = await deliverEvent(customer.url, 'ok-1', tables, store);
			expect(tables.tableNames()).toEqual([]);
			await deliverEvent(customer.url, 'bad-1', tables, store);
			await deliverEvent(customer.url, 'down-1', tables, store);

			expect(ok.jsonOf('Delivered')).toEqual([expect.objectContaining({ received: 'ok-1' })]);
			expect(customer.requests('/events/ok-1').map((r) => r.headers['idempotency-key'])).toEqual([senderKey('ok-1'), senderKey('ok-1')]);
			expect(customer.requests('/events/bad-1')).toHaveLength(1);
			expect(customer.requests('/events/down-1')).toHaveLength(3);
			// the table, created on the first failure, keeps what failed: the event, the error, the story, the key
			const rows = tables.rowsOf(DEAD_LETTERS);
			expect(rows).toHaveLength(2);
			const [bad, down] = rows;
			expect(bad).toMatchObject({ idempotencyKey: senderKey('bad-1'), reason: 'final-status', attempts: 1, retryAt: null, claimedBy: '' });
			expect(JSON.parse(bad.item as string)).toEqual({ body: { id: 'bad-1', type: 'invoice.paid' } });
			expect(JSON.parse(bad.error as string)).toMatchObject({ status: 400, reason: 'final-status', idempotencyKey: senderKey('bad-1') });
			expect(JSON.parse(bad.retryStory as string)).toMatchObject({ attempts: 1, stoppedBecause: 'final-status' });
			expect(down).toMatchObject({ idempotencyKey: senderKey('down-1'), reason: 'attempts-exhausted', attempts: 1 });
			// replayable a minute later (Config: replayAfterMinutes)
			expect((down.retryAt as Date).getTime() - (down.failedAt as Date).getTime()).toBeGreaterThanOrEqual(59_000);
		} finally {
			await customer.close();
		}
	},
	'07-replay-dead-letters.json': async () => {
		const customer = await startFlakyServer();
		try {
			const tables = new InMemoryDataTables();
			// nothing failed yet: the replay creates the table and finds nothing due
			const empty = await replayDeadLetters(customer.url, tables);
			expect(empty.status).toBe('success');
			expect(tables.tableNames()).toEqual([DEAD_LETTERS]);
			expect(empty.runsOf('Claim row')).toBe(0);

			// later-* fail three times (all the sender's attempts), then accept; down-* always fail (a
			// breaker state per delivery here: each failure is the event's own, none is refused by the breaker)
			for (const id of ['later-1', 'down-2', 'bad-3']) await deliverEvent(customer.url, id, tables, new MemoryStateStore());
			expect(tables.rowsOf(DEAD_LETTERS)).toHaveLength(3);
			const notYet = await replayDeadLetters(customer.url, tables);
			expect(notYet.runsOf('Claim row')).toBe(0);
			tables.editRows(DEAD_LETTERS, (row) => {
				if (row.retryAt) row.retryAt = new Date(Date.now() - 1000);
			});

			const before = Date.now();
			const replay = await replayDeadLetters(customer.url, tables);
			expect(replay.status).toBe('success');
			// later-1: sent again under the key of its first delivery, delivered, its row deleted
			expect(customer.requests('/events/later-1').map((r) => r.headers['idempotency-key'])).toEqual(Array(4).fill(senderKey('later-1')));
			expect(replay.jsonOf('Delete replayed row')).toEqual([expect.objectContaining({ idempotencyKey: senderKey('later-1') })]);
			// down-2: kept, a second attempt counted, a later retryAt (backoff 1 min), released
			const rows = tables.rowsOf(DEAD_LETTERS);
			expect(rows.map((r) => JSON.parse(r.item as string).body.id)).toEqual(['down-2', 'bad-3']);
			const [down, bad] = rows;
			expect(down).toMatchObject({ attempts: 2, reason: 'attempts-exhausted', claimedBy: '' });
			expect((down.retryAt as Date).getTime()).toBeGreaterThanOrEqual(before + 60_000);
			expect(customer.requests('/events/down-2').map((r) => r.time >= before)).toEqual([false, false, false, true, true, true]);
			// bad-3 waits for a person: never due, never sent again
			expect(bad).toMatchObject({ attempts: 1, retryAt: null });
			expect(customer.requests('/events/bad-3')).toHaveLength(1);
		} finally {
			await customer.close();
		}
	},
	'08-paginate-rate-limited-api.json': async () => {
		const result = await run('08-paginate-rate-limited-api.json');
		expect(result.status).toBe('success');
		// pass 1: 1, 2 (429), 2, 3 (503), 3 (503) -> error output -> Backoff Delay; pass 2 resumes: 3 (503), 3, 4 ([])
		const pages = upstream.requests('/paged/invoices').map((r) => new URL(r.url, 'http://x').searchParams.get('page'));
		expect(pages).toEqual(['1', '2', '2', '3', '3', '3', '3', '4']);
		expect(result.runsOf('All invoices')).toBe(2);
		expect(result.runsOf('Gave up (resume later)')).toBe(0);
		const invoices = result.jsonOf('Invoices');
		expect(invoices.map((j) => j.id)).toEqual(['inv-1', 'inv-2', 'inv-3', 'inv-4', 'inv-5', 'inv-6']);
		expect(invoices[0]._retry).toMatchObject({ stoppedBecause: 'success', pages: 4 });
		const failedPass = result.jsonOf('All invoices', 1, 0)[0].error as IDataObject;
		expect(failedPass.pagination).toMatchObject({ pagesFetched: 2, resumeFrom: { page: 3, parameters: { qs: { page: 3 } } } });
	},
	'09-poll-job-until-done.json': async () => {
		// the jobs run on the test's clock: the node's polls on virtual time, the Wait loop's (n8n's
		// Wait node) on real time, shortened here to 1 s jobs and a 0.25 s wait
		const jobs = await startFlakyServer({}, { now: runtime.now });
		try {
			const workflow = loadExample('09-poll-job-until-done.json', jobs.url);
			const assignments = (workflow.nodes.find((n) => n.name === 'Config')!.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments;
			for (const a of assignments) if (a.name === 'jobSeconds') a.value = 1;
			for (const a of assignments) if (a.name === 'loopWaitSeconds') a.value = 0.25;
			// a first poll within the 1 s job (the default 3 s would find it done at once)
			const node = workflow.nodes.find((n) => n.name === 'Start and poll the export')!;
			(node.parameters.retryOptions as IDataObject).pollInterval = 500;
			const result = await runWorkflow(workflow, { nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, new MemoryStateStore()), [BACKOFF_DELAY]: new BackoffDelay(runtime) } });
			expect(result.status).toBe('success');
			const [one] = result.jsonOf('Export done (one node)');
			expect(one).toMatchObject({ status: 'done', result: { file: 'export-export-one-node.csv' }, _retry: { stoppedBecause: 'success' } });
			const polls = jobs.log.filter((e) => e.path === '/jobs/1/export-one-node');
			expect(polls[0]).toMatchObject({ method: 'POST', status: 202 });
			expect(polls.slice(1).every((e) => e.method === 'GET')).toBe(true);
			expect(polls.at(-1)!.status).toBe(200);
			expect((one._retry as IDataObject).polls).toBe(polls.length - 2);
			// the summary counts the attempts as the story does: the POST, the polls and the last answer
			const story = one._retry as { attempts: number; summary: string };
			expect(story.attempts).toBe(polls.length);
			expect(story.summary).toMatch(new RegExp(`^Done on attempt ${polls.length}, after ${polls.length - 2} answers? not done yet`));
			const [loop] = result.jsonOf('Export done (loop)', 0, result.runsOf('Export done (loop)') - 1);
			expect(loop).toMatchObject({ status: 'done' });
		} finally {
			await jobs.close();
		}
	},
	'10-prometheus-metrics.json': async () => {
		const store = new MemoryStateStore();
		const nodeTypes = { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, store), ['n8n-nodes-resilient-http.resilientHttpTrafficControl']: new TrafficControl(runtime, store) };
		// Execute workflow: five requests (two 429s, three 503s first), then the API's counts as one item
		const traffic = await runWorkflow(loadExample('10-prometheus-metrics.json', upstream.url), { nodeTypes, startNodeName: 'Make some traffic' });
		expect(traffic.status).toBe('success');
		expect(traffic.jsonOf('Call the API')).toHaveLength(5);
		expect(upstream.log.map((e) => e.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 503, 503, 503]);
		const [counted] = traffic.jsonOf('Metrics as items');
		expect(counted).toMatchObject({ label: new URL(upstream.url).host, requests: { first: 5, resend: 5 }, resends: { throttled: 2, server_error: 3 }, responses: { '200': 5, '429': 2, '503': 3 } });
		expect(traffic.jsonOf('Metrics as items')).toHaveLength(1);
		// a scrape: the webhook's item, the text of the same counts, handed to Respond to Webhook
		const scrape = await runWorkflow(loadExample('10-prometheus-metrics.json', upstream.url), { nodeTypes, startNodeName: 'Scrape', mode: 'webhook', triggerItems: [{ json: { headers: {}, query: {}, body: {} } }] });
		expect(scrape.status).toBe('success');
		const [served] = scrape.jsonOf('Get Metrics');
		expect(served.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
		expect(String(served.metrics)).toContain(`resilient_http_client_responses_total{api="${new URL(upstream.url).host}",api_key="${String(counted.api)}",http_response_status_code="429"} 2\n`);
		expect(scrape.runsOf('Respond to Prometheus')).toBe(1);
	},
	'11-openai-node-behind-controller.json': async () => {
		// n8n's AI nodes are not in the engine: the OpenAI node is an app node of the same contract
		// (a call per item, only the message handed on under On Error); the real one runs in test/e2e/guarded-openai.e2e.mjs
		const workflow = loadExample('11-openai-node-behind-controller.json', upstream.url);
		const openai = workflow.nodes.find((n) => n.name === 'OpenAI') as INode;
		Object.assign(openai, { type: APP_NODE, typeVersion: 1, credentials: undefined, parameters: { url: `${upstream.url}/openai/e11/v1/responses`, body: '={{ { model: "gpt-4.1-mini", input: [{ role: "user", content: $json.prompt }] } }}' } });
		const store = new MemoryStateStore();
		const result = await runWorkflow(workflow, {
			nodeTypes: { ['n8n-nodes-resilient-http.resilientHttpTrafficControl']: new TrafficControl(runtime, store), [BACKOFF_DELAY]: new BackoffDelay(runtime), [APP_NODE]: appNode },
		});
		expect(result.status).toBe('success');
		// the key's first call is refused (429, OpenAI's body), the others answered
		expect(upstream.requests('/openai/e11/').map((r) => r.status)).toEqual([429, 200, 200, 200]);
		// p1 failed, went through Backoff Delay and Wait for Room again, and was answered
		expect(result.runsOf('Wait for Room')).toBe(2);
		const answered = Array.from({ length: result.runsOf('Answers') }, (_, run) => result.jsonOf('Answers', 0, run)).flat();
		expect(answered).toHaveLength(3);
		expect(answered.every((a) => a.object === 'response')).toBe(true);
		expect(result.runsOf('Gave up')).toBe(0);
		// every admission was reported: the API's controller holds nothing in flight
		const [state] = await store.list(runtime.now());
		expect(state.inFlight).toBe(0);
	},
};

describe('example workflows', () => {
	for (const [file, test] of Object.entries(TESTED)) it(file, test);
});

/** The rows' timestamps moved back, as if `days` had passed since they were written (time injected through the rows). */
const passDays = (tables: InMemoryDataTables, days: number) =>
	tables.editRows(DEAD_LETTERS, (row) => {
		for (const column of ['failedAt', 'retryAt'] as const) {
			const value = row[column];
			if (value instanceof Date) row[column] = new Date(value.getTime() - days * 86_400_000);
		}
	});
const eventIdOf = (row: IDataObject) => (JSON.parse(row.item as string) as { body: { id: string } }).body.id;

describe('example 07: a dead letter past keepDays (Config, 30 days)', () => {
	it('is expired once it is due: kept with reason "expired" and an empty retryAt, not sent, and the execution fails naming it; a younger row is still sent', async () => {
		const customer = await startFlakyServer();
		try {
			const tables = new InMemoryDataTables();
			for (const id of ['down-old', 'down-young', 'bad-old']) await deliverEvent(customer.url, id, tables, new MemoryStateStore());
			// down-old failed first 31 days ago, down-young 29; bad-old (a 400, retryAt empty) 40 days ago
			passDays(tables, 29);
			tables.editRows(DEAD_LETTERS, (row) => {
				if (eventIdOf(row) === 'down-old') row.failedAt = new Date((row.failedAt as Date).getTime() - 2 * 86_400_000);
				if (eventIdOf(row) === 'bad-old') row.failedAt = new Date((row.failedAt as Date).getTime() - 11 * 86_400_000);
			});
			const [oldRow] = tables.rowsOf(DEAD_LETTERS).filter((r) => eventIdOf(r) === 'down-old');
			const sentBefore = (id: string) => customer.requests(`/events/${id}`).length;
			const before = { old: sentBefore('down-old'), young: sentBefore('down-young') };

			const replay = await replayDeadLetters(customer.url, tables);
			expect(replay.status).toBe('error');
			expect(replay.error?.message).toBe(
				`1 dead letter(s) still undelivered after 30 days (keepDays) are kept in the Data Table "Dead letters: webhook sender" with reason "expired" and an empty retryAt: they are no longer replayed by themselves. Rows (id: event): ${String(oldRow.id)}: down-old. To send one again, set its failedAt to now and its retryAt to now; to drop it, delete its row.`,
			);
			// the young row was replayed (three more attempts) and rescheduled before the report
			expect(sentBefore('down-young')).toBe(before.young + 3);
			expect(replay.jsonOf('Reschedule row')).toHaveLength(1);
			// the old one was not sent again, and is kept
			expect(sentBefore('down-old')).toBe(before.old);
			const rows = tables.rowsOf(DEAD_LETTERS);
			expect(rows.map(eventIdOf)).toEqual(['down-old', 'down-young', 'bad-old']);
			expect(rows[0]).toMatchObject({ id: oldRow.id, reason: 'expired', retryAt: null, claimedBy: '', attempts: 1, item: oldRow.item, error: oldRow.error, retryStory: oldRow.retryStory });
			// a row already waiting for a person (empty retryAt) is not touched, however old
			expect(rows[2]).toMatchObject({ reason: 'final-status', retryAt: null });

			// reported once: the next replay finds nothing to expire and succeeds
			tables.editRows(DEAD_LETTERS, (row) => {
				if (row.retryAt) row.retryAt = new Date(Date.now() - 1000);
			});
			const next = await replayDeadLetters(customer.url, tables);
			expect(next.status).toBe('success');
			expect(next.runsOf('Report expired rows')).toBe(0);
			expect(sentBefore('down-old')).toBe(before.old);
			expect(tables.rowsOf(DEAD_LETTERS)).toHaveLength(3);
		} finally {
			await customer.close();
		}
	});
});

/** Example 07's cap check, switched on as its sticky note says, against a fake n8n public API. */
describe("example 07: Data Tables near n8n's cap (the branch shipped disabled)", () => {
	const MB = 1048576;
	/** n8n's public API: GET /api/v1/data-tables, two tables a page whatever `limit` asks, a cursor to the next. */
	const startN8nApi = async (tables: Array<{ name: string; sizeBytes: number }>) =>
		await startFlakyServer({
			api: (_req, res, { query, json }) => {
				const offset = query.cursor ? Number(JSON.parse(Buffer.from(query.cursor, 'base64').toString()).offset) : 0;
				const next = offset + 2 < tables.length ? Buffer.from(JSON.stringify({ offset: offset + 2, limit: 2 })).toString('base64') : null;
				json(res, 200, { data: tables.slice(offset, offset + 2).map((t, k) => ({ id: `t${offset + k}`, ...t })), nextCursor: next });
			},
		});
	const checkSizes = async (apiUrl: string, capMB: number) => {
		const workflow = loadExample('07-replay-dead-letters.json', upstream.url);
		const branch = ['Check sizes every hour', 'Cap config', 'Data table sizes', 'Add up sizes', 'Near the cap?', 'Report near the cap'];
		for (const node of workflow.nodes.filter((n) => branch.includes(n.name))) delete node.disabled;
		workflow.nodes.find((n) => n.name === 'Data table sizes')!.credentials = { n8nApi: { id: 'n8nApi', name: 'n8n account' } };
		const assignments = (workflow.nodes.find((n) => n.name === 'Cap config')!.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments;
		assignments.find((a) => a.name === 'n8nApiUrl')!.value = `${apiUrl}/api/v1`;
		assignments.find((a) => a.name === 'dataTablesCapMB')!.value = capMB;
		return await runWorkflow(workflow, {
			nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, new MemoryStateStore()) },
			startNodeName: 'Check sizes every hour',
			credentials: { n8nApi: { apiKey: 'n8n-api-key', baseUrl: `${apiUrl}/api/v1` } },
		});
	};
	const TABLES = [
		{ name: 'Dead letters: webhook sender', sizeBytes: 150 * MB },
		{ name: 'Customers', sizeBytes: 15 * MB },
		{ name: 'Orders', sizeBytes: 5 * MB },
	];

	it('ships disabled, with the n8n API credential type: n8n publishes 07 without an API key (it refuses an enabled node without its credential)', () => {
		const workflow = loadExample('07-replay-dead-letters.json', 'http://x');
		const sources = (name: string) => Object.entries(workflow.connections).filter(([, c]) => c.main.some((out) => out?.some((t) => t.node === name))).map(([from]) => from);
		const branch: string[] = [];
		for (let name: string | undefined = 'Report near the cap'; name; name = sources(name)[0]) branch.unshift(name);
		expect(branch).toEqual(['Check sizes every hour', 'Cap config', 'Data table sizes', 'Add up sizes', 'Near the cap?', 'Report near the cap']);
		for (const name of branch) expect(workflow.nodes.find((n) => n.name === name)).toMatchObject({ disabled: true });
		expect(workflow.nodes.find((n) => n.name === 'Data table sizes')?.parameters).toMatchObject({ authentication: 'predefinedCredentialType', nodeCredentialType: 'n8nApi' });
	});

	it("sums every table's sizeBytes over the API's pages and, at 80 % of the cap, fails naming the total and the dead-letter table's share", async () => {
		const api = await startN8nApi(TABLES);
		try {
			const run = await checkSizes(api.url, 200);
			expect(run.status).toBe('error');
			expect(run.error?.message).toBe(
				`Data tables hold 170 MB of n8n's 200 MB cap (85 %: ${170 * MB} of ${200 * MB} bytes, in 3 table(s)); "Dead letters: webhook sender" holds 150 MB (${150 * MB} bytes). At the cap n8n refuses every insert and update: new dead letters cannot be written and the replay stops. Fix the receiver and let the replay deliver the rows, delete rows you no longer need, or raise N8N_DATA_TABLES_MAX_SIZE_BYTES (and dataTablesCapMB in Cap config with it).`,
			);
			// two pages, the second asked for by the first's cursor, each with the API key
			const requests = api.requests('/api/v1/data-tables');
			expect(requests.map((r) => new URL(r.url, 'http://x').searchParams.get('cursor'))).toEqual([null, expect.any(String)]);
			expect(requests.map((r) => r.headers['x-n8n-api-key'])).toEqual(['n8n-api-key', 'n8n-api-key']);
		} finally {
			await api.close();
		}
	});

	it('succeeds under the threshold (80 % of the cap: n8n counts from there too)', async () => {
		const api = await startN8nApi(TABLES);
		try {
			// 170 MB of 213 MB is 79.8 %
			const under = await checkSizes(api.url, 213);
			expect(under.status).toBe('success');
			expect(under.jsonOf('Add up sizes')).toEqual([{ tables: 3, totalBytes: 170 * MB, deadLetterBytes: 150 * MB, capBytes: 213 * MB, warnAtBytes: Math.floor(213 * MB * 0.8) }]);
			expect(under.runsOf('Report near the cap')).toBe(0);
		} finally {
			await api.close();
		}
	});
});
