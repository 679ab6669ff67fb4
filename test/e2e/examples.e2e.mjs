// The example workflows 01-04, 08, 09 and 10 (workflows/*.json) in a real n8n that loaded the packed tarball,
// each with its Config node pointed at its own flaky upstream and run as the editor's *Execute
// workflow* button runs it (one n8n server for all: each has its own upstream, so the API state the
// node keeps per origin is each example's own).
// Asserts on what the upstream saw (paths, methods, headers, bodies, timing on the server's clock)
// and on the run data n8n printed (retry stories, _backoff annotations, which node got which item).
// The same examples run in n8n's engine in-process in test/engine/workflows.test.ts; example 05
// (a wait through n8n's waiting state) is in long-wait.e2e.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { executeOnServer, executionFailure, importWorkflow, loadExample, nodeResults, ownerEnv, prepareUserFolder, restClient, startFlakyServer, startN8n, stopN8n } from './harness.mjs';

const EXAMPLES = {
	ex1: '01-replace-retry-on-fail.json',
	ex2: '02-rate-limited-api.json',
	ex3: '03-payment-idempotency-key.json',
	ex4: '04-classic-loop-backoff-delay.json',
	ex8: '08-paginate-rate-limited-api.json',
	ex9: '09-poll-job-until-done.json',
	ex10: '10-prometheus-metrics.json',
};

const upstream = {};
const workflowIds = {};
const triggers = {};
let client;

before(async () => {
	// one flaky upstream per example: each log holds that example's requests and nothing else
	for (const name of Object.keys(EXAMPLES)) upstream[name] = await startFlakyServer();
	const userFolder = await prepareUserFolder({ tarball: true });
	const workflows = Object.entries(EXAMPLES).map(([name, file]) => {
		const workflow = loadExample(file, upstream[name].url);
		workflowIds[name] = workflow.id;
		triggers[name] = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger').name;
		return workflow;
	});
	await importWorkflow(userFolder, workflows); // one import for all: each n8n command boots n8n
	client = await restClient(await startN8n(userFolder, { env: ownerEnv() }));
});
after(async () => {
	await stopN8n();
	await Promise.all(Object.values(upstream).map((s) => s.close()));
});

/** *Execute workflow*, which must end in a successful run; returns the per-node results. */
async function run(name) {
	const execution = await executeOnServer(client, workflowIds[name], { trigger: triggers[name] });
	console.log(`${EXAMPLES[name]}: the execution took ${Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt)} ms`);
	assert.equal(execution.status, 'success', executionFailure(execution));
	return nodeResults(execution);
}

const statuses = (entries) => entries.map((e) => e.status);
const gaps = (entries) => entries.slice(1).map((e, i) => e.time - entries[i].time);
const ms = (iso) => Date.parse(iso);

describe('example workflows in real n8n (packed tarball)', () => {
	test('01 replace Retry On Fail: the disabled old node sends nothing, the new one retries with backoff', async () => {
		const results = await run('ex1');
		const server = upstream.ex1;

		// the whole conversation with the upstream: three GETs of the new node, none of the old
		assert.deepEqual(
			server.log.map((e) => [e.method, e.path]),
			Array(3).fill(['GET', '/fail/2/retry-on-fail-new']),
		);
		assert.deepEqual(statuses(server.log), [503, 503, 200]);
		assert.equal(server.requests('/fail/2/retry-on-fail-old').length, 0);

		// disabled: n8n passes Config's item through it untouched
		assert.deepEqual(results['Old: HTTP Request + Retry On Fail'].items, [{ baseUrl: server.url }]);

		const node = results['New: Resilient HTTP Request'];
		assert.equal(node.items.length, 1);
		const [item] = node.items;
		assert.equal(item.ok, true);
		assert.equal(item.key, 'retry-on-fail-new');
		assert.equal(item.attempt, 3, 'the upstream answered the third request');
		const story = item._retry;
		assert.equal(story.attempts, 3);
		assert.equal(story.maxAttempts, 5);
		assert.equal(story.stoppedBecause, 'success');
		assert.equal(story.idempotencyKey, undefined, 'a GET needs no key');
		assert.deepEqual(
			story.history.map((h) => [h.attempt, h.status]),
			[
				[1, 503],
				[2, 503],
				[3, 200],
			],
		);
		assert.deepEqual(
			story.history.map((h) => h.delayReason),
			[undefined, 'backoff', 'backoff'],
		);
		// full jitter under a doubling cap: at most 1 s, then at most 2 s (plus nothing: no Retry-After)
		assert.ok(story.history[1].delayBeforeMs <= 1000, JSON.stringify(story.history[1]));
		assert.ok(story.history[2].delayBeforeMs <= 2000, JSON.stringify(story.history[2]));
		assert.equal(story.totalDelayMs, story.history[1].delayBeforeMs + story.history[2].delayBeforeMs);
		// on the server's clock, each retry came no earlier than the backoff the story reports
		const serverGaps = gaps(server.log);
		for (let i = 0; i < serverGaps.length; i++) {
			assert.ok(serverGaps[i] >= story.history[i + 1].delayBeforeMs - 2, `gap ${serverGaps[i]} ms < delay ${story.history[i + 1].delayBeforeMs} ms`);
		}
	});

	test('02 rate-limited API: every contact sees [429, 200], retried no earlier than Retry-After; the first 429 pauses the API; batches of 2 every 500 ms at most', async () => {
		const results = await run('ex2');
		const server = upstream.ex2;
		assert.equal(server.log.length, 20, 'ten contacts, two requests each');

		const firstRequests = [];
		for (let id = 1; id <= 10; id++) {
			const path = `/429/1/contact-${id}`;
			const requests = server.log.filter((e) => e.path === path); // exact: contact-1 is not contact-10
			assert.deepEqual(statuses(requests), [429, 200], path);
			for (const r of requests) {
				assert.equal(r.method, 'PUT', path);
				assert.deepEqual(r.body, { id, email: `person${id}@example.com` }, path);
			}
			// the 429 asked for 1 s; the node never came back earlier (server's clock)
			const waited = requests[1].time - requests[0].time;
			assert.ok(waited >= 1000, `${path}: retried ${waited} ms after the 429`);
			firstRequests.push(requests[0]);
		}
		// the first 429 pauses the whole API for its Retry-After, not only its item: once the node has
		// it back, it starts no request of any item for a second. Later first requests' 429s may be
		// their own (retries that waited their Retry-After succeeded since: docs/traffic-control.md),
		// so only the first is judged here. Judged on the node's clock (each attempt's start and end in
		// the stories), not on the server's arrival times: a request the node sent before the 429 came
		// back may arrive after it, by hundreds of ms on a loaded machine.
		const attempts = results['Upsert contact'].items.flatMap((item) =>
			item._retry.history.map((h) => ({ contact: item.key, status: h.status, start: ms(h.startedAt), end: ms(h.startedAt) + h.durationMs })),
		);
		const [first] = attempts.filter((a) => a.status === 429).sort((a, b) => a.end - b.end);
		const during = attempts.filter((a) => a.start > first.end + 50 && a.start < first.end + 950);
		assert.deepEqual(during.map((a) => `${a.contact} +${a.start - first.end} ms`), [], `the pause after ${first.contact}'s 429`);
		// batching still spaces the starts: contacts 2k+1 and 2k+2 are batch k+1, which starts 500 ms
		// after batch k in the node; a pause may hold several batches, which then go together, but none
		// goes earlier than its turn. Judged on the node's clock (each first attempt's start), like the
		// pause: the server's arrival times add the way there, longer for the run's first request (CI
		// saw batch 1 arrive late enough that batch 4 came 1,277 ms after it on the server's clock).
		const startOf = (id) => ms(results['Upsert contact'].items.find((item) => item.key === `contact-${id}`)._retry.history[0].startedAt);
		const batchStarts = [0, 1, 2, 3, 4].map((k) => Math.min(startOf(2 * k + 1), startOf(2 * k + 2)));
		for (let k = 1; k < batchStarts.length; k++) {
			assert.ok(batchStarts[k] - batchStarts[0] >= 500 * k - 20, `batch ${k + 1} started ${batchStarts[k] - batchStarts[0]} ms after batch 1 (node's clock)`);
		}

		const out = results['Upsert contact'].items;
		assert.equal(out.length, 10);
		out.forEach((item, index) => {
			const id = index + 1;
			assert.equal(item.ok, true);
			assert.equal(item.key, `contact-${id}`, 'output in input order');
			assert.equal(item.attempt, 2);
			const story = item._retry;
			assert.equal(story.attempts, 2);
			assert.equal(story.maxAttempts, 4);
			assert.equal(story.stoppedBecause, 'success');
			assert.deepEqual(
				story.history.map((h) => h.status),
				[429, 200],
			);
			assert.equal(story.history[1].delayReason, 'retry-after');
			assert.equal(story.history[1].delayHeader, 'retry-after');
			// at least what was asked, plus a spread of at most 10 %
			assert.ok(story.history[1].delayBeforeMs >= 1000 && story.history[1].delayBeforeMs <= 1100, JSON.stringify(story.history[1]));
		});
		// the node's own clock: batch k+1 no earlier than 500 ms x k after batch 1 (a pause may hold several)
		const starts = [0, 2, 4, 6, 8].map((i) => ms(out[i]._retry.history[0].startedAt));
		for (let k = 1; k < starts.length; k++) assert.ok(starts[k] - starts[0] >= 500 * k - 10, `node: batch ${k + 1} started ${starts[k] - starts[0]} ms after batch 1`);
	});

	test('03 payment: the dropped POST is retried with the same Idempotency-Key and the payment happens once', async () => {
		const results = await run('ex3');
		const server = upstream.ex3;
		const requests = server.requests('/drop-after-processing/order-1001');
		assert.equal(server.log.length, requests.length, 'no other request');
		assert.deepEqual(statuses(requests), ['dropped', 200]);
		assert.deepEqual(
			requests.map((r) => r.method),
			['POST', 'POST'],
		);
		assert.deepEqual(
			requests.map((r) => r.headers['idempotency-key']),
			['order-1001', 'order-1001'],
		);
		for (const r of requests) assert.deepEqual(r.body, { amount: 2500, currency: 'eur', order: '1001' });
		// two requests, one payment
		assert.deepEqual(
			server.processed.filter((p) => p.key === 'order-1001').map((p) => [p.idempotencyKey, p.body]),
			[['order-1001', { amount: 2500, currency: 'eur', order: '1001' }]],
		);

		const charged = results.Charged.items;
		assert.equal(charged.length, 1);
		assert.equal(charged[0].ok, true);
		assert.equal(charged[0].processedCount, 1, 'the API answered with the first result');
		const story = charged[0]._retry;
		assert.equal(story.attempts, 2);
		assert.equal(story.stoppedBecause, 'success');
		assert.equal(story.idempotencyKey, 'order-1001');
		assert.equal(story.history[0].status, undefined, 'no answer to the first request');
		assert.match(story.history[0].errorCode, /^(ECONNRESET|EPIPE|ECONNABORTED)$/, JSON.stringify(story.history[0]));
		assert.equal(story.history[1].status, 200);
		assert.ok(requests[1].time - requests[0].time >= story.history[1].delayBeforeMs - 2);
		// nothing went to the error output
		assert.deepEqual(results.Charge.all[1] ?? [], []);
		assert.equal(results['Needs a human'], undefined, 'Needs a human did not run');
	});

	test('04 classic loop: Backoff Delay retries a and b, gives c (404) up at once for replay', async () => {
		const results = await run('ex4');
		const server = upstream.ex4;
		const a = server.requests('/fail/2/loop-a');
		const b = server.requests('/fail/1/loop-b');
		const c = server.requests('/status/404/99/loop-c');
		assert.deepEqual(statuses(a), [503, 503, 200]);
		assert.deepEqual(statuses(b), [503, 200]);
		assert.deepEqual(statuses(c), [404]);
		assert.equal(server.log.length, 6, 'no other request');
		assert.ok(server.log.every((e) => e.method === 'GET'));

		// Backoff Delay ran twice: pass 1 (a, b retried; c given up), pass 2 (a retried again)
		const backoff = results['Backoff Delay'];
		assert.equal(backoff.runs, 2);
		const [pass1, pass2] = backoff.perRun;
		assert.deepEqual(
			pass1.all[0].map((i) => [i.id, i._backoff.attempt, i._backoff.delayReason, i._backoff.lastFailure.status]),
			[
				['a', 2, 'backoff', 503],
				['b', 2, 'backoff', 503],
			],
		);
		assert.deepEqual(
			pass1.all[1].map((i) => i.id),
			['c'],
		);
		assert.deepEqual(
			pass2.all[0].map((i) => [i.id, i._backoff.attempt, i._backoff.lastFailure.status]),
			[['a', 3, 503]],
		);
		assert.deepEqual(pass2.all[1] ?? [], []);
		// the attempt count and the first failure travel on the item through the loop
		assert.equal(pass2.all[0][0]._backoff.firstFailureAt, pass1.all[0][0]._backoff.firstFailureAt);
		for (const item of [...pass1.all[0], ...pass2.all[0]]) {
			const annotation = item._backoff;
			assert.equal(annotation.maxAttempts, 4);
			// full jitter, base 500 ms doubling, cap 5 s: at most 500 ms before attempt 2, 1 s before 3
			assert.ok(annotation.delayMs >= 0 && annotation.delayMs <= 500 * 2 ** (annotation.attempt - 2), JSON.stringify(annotation));
		}
		// one wait per pass, for the longest delay among its items; the retries came no earlier
		for (const [pass, retries] of [
			[pass1, [a[1], b[1]]],
			[pass2, [a[2]]],
		]) {
			const waitUntil = new Set(pass.all[0].map((i) => i._backoff.waitUntil));
			assert.equal(waitUntil.size, 1, 'one waitUntil for the pass');
			// every item's nextAttemptAt is decision time + its own delay; waitUntil the latest of them
			const decidedAt = new Set(pass.all[0].map((i) => ms(i._backoff.nextAttemptAt) - i._backoff.delayMs));
			assert.equal(decidedAt.size, 1, 'one decision time per pass');
			assert.equal(ms([...waitUntil][0]), Math.max(...pass.all[0].map((i) => ms(i._backoff.nextAttemptAt))));
			for (const retry of retries) {
				assert.ok(retry.time >= ms([...waitUntil][0]) - 2, `${retry.path} retried at ${retry.time}, before ${[...waitUntil][0]}`);
			}
		}
		assert.ok(a[1].time - a[0].time >= Math.max(...pass1.all[0].map((i) => i._backoff.delayMs)) - 2);
		assert.ok(a[2].time - a[1].time >= pass2.all[0][0]._backoff.delayMs - 2);

		// which node got which item
		const done = results.Done.perRun.flatMap((r) => r.all[0]);
		assert.deepEqual(
			done.map((i) => [i.key, i.attempt]),
			[
				['loop-b', 2],
				['loop-a', 3],
			],
		);
		const failed = results['Failed items (keep for replay)'];
		assert.equal(failed.runs, 1);
		assert.equal(failed.items.length, 1);
		const [item] = failed.items;
		assert.equal(item.id, 'c');
		assert.equal(item.path, 'status/404/99/loop-c', 'the original data is kept for replay');
		assert.equal(item.error.status, 404);
		assert.equal(item._backoff.stoppedBecause, 'final-status');
		assert.equal(item._backoff.attempt, 1);
		assert.equal(item._backoff.lastFailure.status, 404);
	});
});

describe('example 08 in a real n8n', () => {
	test('08 every page of a rate-limited API: page 2 waits its Retry-After, the loop resumes at page 3, every invoice once', async () => {
		const results = await run('ex8');
		const server = upstream.ex8;
		const requests = server.log.filter((e) => e.path === '/paged/invoices');
		const pages = requests.map((e) => new URL(e.url, 'http://x').searchParams.get('page'));
		assert.deepEqual(pages, ['1', '2', '2', '3', '3', '3', '3', '4'], 'no page before the failed one fetched again');
		assert.deepEqual(statuses(requests), [200, 429, 200, 503, 503, 503, 200, 200]);
		assert.ok(requests[2].time - requests[1].time >= 1000, `Retry-After: 1 obeyed (${requests[2].time - requests[1].time} ms)`);
		const invoices = results.Invoices.items;
		assert.deepEqual(invoices.map((i) => i.id), ['inv-1', 'inv-2', 'inv-3', 'inv-4', 'inv-5', 'inv-6']);
		assert.equal(results['All invoices'].runs, 2, 'the loop sent the item back once');
		assert.equal(results['Gave up (resume later)'], undefined);
		const resumeFrom = results['All invoices'].perRun[0].all[1][0].error.pagination.resumeFrom;
		assert.deepEqual([resumeFrom.page, resumeFrom.parameters], [3, { qs: { page: 3 } }]);
	});
});

describe('example 09 in a real n8n', () => {
	test('09 start a job and poll it until done: one node follows the 202 to the result, beside the Wait + IF loop', async () => {
		const results = await run('ex9');
		const server = upstream.ex9;
		const one = server.log.filter((e) => e.path === '/jobs/8/export-one-node');
		assert.deepEqual([one[0].method, one[0].status], ['POST', 202]);
		assert.ok(one.slice(1).every((e) => e.method === 'GET'), 'the status URL is polled with GET');
		assert.equal(one.at(-1).status, 200);
		assert.ok(one.slice(1, -1).every((e) => e.status === 202));
		const oneMs = one.at(-1).time - one[0].time;
		// every poll before the last was answered 202 (above): the node saw the job done at its first
		// poll after the end, whatever the jitter and the machine's load made that time
		assert.ok(oneMs >= 8000, `the one node saw the job done ${oneMs} ms after starting it`);
		const [item] = results['Export done (one node)'].items;
		assert.equal(item.status, 'done');
		assert.equal(item.result.file, 'export-export-one-node.csv');
		assert.equal(item._retry.stoppedBecause, 'success');
		assert.equal(item._retry.polls ?? 0, one.length - 2);
		assert.equal(results['Not done by the deadline'], undefined);

		const loop = server.log.filter((e) => e.path === '/jobs/8/export-loop');
		const loopMs = loop.at(-1).time - loop[0].time;
		assert.ok(loopMs >= 10_000, `the Wait + IF loop saw it done after two 5 s waits (${loopMs} ms)`);
		assert.equal(results['Export done (loop)'].items[0].status, 'done');
		console.log(`09: one node ${one.length - 1} status requests, done after ${oneMs} ms; Wait + IF loop ${loop.length - 1}, ${loopMs} ms`);
	});
});

describe('example 10 in a real n8n', () => {
	test("10 metrics: a click sends five requests and shows the API's counts as one item, as the server saw them", async () => {
		const results = await run('ex10');
		const server = upstream.ex10;
		assert.deepEqual(statuses(server.log).sort(), [200, 200, 200, 200, 200, 429, 429, 503, 503, 503]);
		assert.equal(results['Call the API'].items.length, 5);
		const [metrics, ...more] = results['Metrics as items'].items;
		assert.equal(more.length, 0, 'Execute Once: one item for the API');
		assert.equal(metrics.label, new URL(server.url).host);
		assert.deepEqual(metrics.requests, { first: 5, resend: 5, poll: 0 });
		assert.deepEqual([metrics.resends.throttled, metrics.resends.server_error], [2, 3]);
		assert.deepEqual(metrics.responses, { 200: 5, 429: 2, 503: 3 });
		assert.equal(metrics.state.label, metrics.label);
		// the webhook half (Scrape -> Get Metrics -> Respond) is scraped by Prometheus in metrics.e2e.mjs
	});
});
