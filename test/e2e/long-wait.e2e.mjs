// Example 05 in a real n8n (`n8n start`): a Retry-After longer than Resilient HTTP Request's Max
// Server-Requested Delay (60 s) goes to Backoff Delay, whose wait is longer than its In-Process
// Wait Limit (65 s): the execution is stored as *waiting* and n8n resumes it.
//
//   A (restart): triggered on server 1, stored as waiting, server 1 stopped (by PID) and a new
//     server started on the same database while it waits: the new server resumes it.
//   B (no restart): triggered on server 2 right after it started, resumed by that same running
//     server.
//   C: as B, with a second node on Fetch report's error output: the annotation Backoff Delay
//     puts on its input before the wait must not leak to it, nor to Fetch report's output.
// All waits overlap in one window of about 70 s.
//
// How n8n 2.41.1 resumes (packages/cli/src/wait-tracker.ts, ExecutionRepository
// .getWaitingExecutions): on the leader, the WaitTracker queries the database at start and every
// 60 s for executions with status 'waiting' and waitTill <= now + 70 s, and sets a timer for each
// at its waitTill (at once when already due). As the look-ahead (70 s) is longer than the poll
// interval (60 s), a running server resumes an execution at its waitTill, not up to a minute
// later; A exercises the query at start, B the periodic one (its wait begins after server 2's
// first query). The timeouts below allow a full extra poll cycle.
//
// The example asks for Retry-After: 90; here 70 (still above both 60 s and 65 s) keeps it short.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
	callWebhook,
	getExecution,
	importWorkflow,
	listExecutions,
	loadExample,
	nodeResults,
	ownerEnv,
	prepareUserFolder,
	publishOnServer,
	restClient,
	startFlakyServer,
	startN8n,
	stopN8n,
	waitFor,
	withWebhookTrigger,
} from './harness.mjs';

const RETRY_AFTER_S = 70;
const PATH = `/429/${RETRY_AFTER_S}/long-wait-report`;
const SERVER_ENV = { ...ownerEnv(), N8N_LOG_LEVEL: 'debug' }; // debug: the wait tracker's log lines

/** Example 05 pointed at upstream, with Retry-After 70 s, triggered by GET /webhook/<webhookPath>. */
function longWaitWorkflow(id, upstream, webhookPath) {
	const workflow = withWebhookTrigger(loadExample('05-long-retry-after-wait.json', upstream.url), { id, path: webhookPath });
	const fetch = workflow.nodes.find((n) => n.name === 'Fetch report');
	assert.match(fetch.parameters.url, /\/429\/90\/long-wait-report$/, 'the example as written');
	fetch.parameters.url = fetch.parameters.url.replace('/429/90/', `/429/${RETRY_AFTER_S}/`);
	return workflow;
}

/**
 * Example 05 with a second node on Fetch report's error output, below Backoff Delay (so it runs
 * after it): what a failure logger there receives, and what Fetch report's recorded output shows.
 */
function withFailureLogger(workflow) {
	workflow.nodes.push({ id: 'e2e-log-failure', name: 'Log failure', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [700, 640], parameters: {} });
	workflow.connections['Fetch report'].main[1].push({ node: 'Log failure', type: 'main', index: 0 });
	return workflow;
}

const scenario = {
	restart: { id: 'e2eLongWaitRstrt', webhook: 'long-wait-restart' },
	running: { id: 'e2eLongWaitRunng', webhook: 'long-wait-running' },
	logger: { id: 'e2eLongWaitLoggr', webhook: 'long-wait-logger' },
};
let userFolder;
let server1;
let server2;
let client2;

async function trigger(server, client, s, upstream) {
	const response = await callWebhook(server, s.webhook);
	assert.equal(response.status, 200, await response.text());
	s.triggeredAt = Date.now();
	// the execution as stored once the Backoff Delay put it to wait
	const [summary] = await waitFor(
		async () => {
			const list = await listExecutions(client, s.id);
			return list.length === 1 && list[0].status === 'waiting' ? list : undefined;
		},
		{ timeoutMs: 30_000, what: `${s.id} to be stored as waiting` },
	);
	s.executionId = summary.id;
	s.stored = await getExecution(client, summary.id);
	// what the API had received when the execution was stored as waiting: on a loaded machine the
	// test may look again only after the wait is over
	s.statusesWhenStored = upstream.requests(PATH).map((e) => e.status);
}

/** Waits until the execution is no longer waiting or running; returns it with its run data. */
async function finished(client, s) {
	const waitTill = Date.parse(s.stored.waitTill);
	// due at waitTill; allow one more 60 s poll cycle and the run itself
	const timeoutMs = Math.max(0, waitTill - Date.now()) + 75_000;
	const execution = await waitFor(
		async () => {
			const e = await getExecution(client, s.executionId);
			return ['waiting', 'running', 'new'].includes(e.status) ? undefined : e;
		},
		{ timeoutMs, intervalMs: 1000, what: `execution ${s.executionId} (${s.id}) to finish` },
	);
	s.finishedSeenAt = Date.now();
	return execution;
}

function assertStoredWaiting(s, upstream) {
	const { stored } = s;
	assert.equal(stored.status, 'waiting');
	assert.equal(stored.finished, false);
	// exactly one request when it was stored: the 429; the wait is the Retry-After, counted from it
	assert.deepEqual(s.statusesWhenStored, [429]);
	const refusedAt = upstream.requests(PATH)[0].time;
	const waitTill = Date.parse(stored.waitTill);
	assert.ok(waitTill >= refusedAt + RETRY_AFTER_S * 1000, `waitTill ${stored.waitTill} is less than ${RETRY_AFTER_S} s after the 429`);
	// the longer of Retry-After and the backoff (full jitter, at most 1 s), plus at most 1 s spread
	assert.ok(waitTill <= refusedAt + RETRY_AFTER_S * 1000 + 2000 + 1000, `waitTill ${stored.waitTill} too late`);
	const results = nodeResults(stored);
	const fetchNode = results['Fetch report'];
	assert.equal(fetchNode.runs, 1);
	const [handedOver] = fetchNode.all[1];
	assert.equal(handedOver.error.status, 429);
	assert.equal(handedOver.error.reason, 'retry-after-too-long');
	assert.equal(handedOver.error.retryAfterMs, RETRY_AFTER_S * 1000);
	const backoff = results['Backoff Delay'];
	assert.equal(backoff.status, 'waiting');
	const [annotated] = backoff.items;
	assert.equal(annotated._backoff.attempt, 2);
	assert.equal(annotated._backoff.delayReason, 'retry-after');
	assert.equal(Date.parse(annotated._backoff.waitUntil), waitTill, 'the node waits until its waitUntil');
	assert.equal(results.Report, undefined);
	assert.equal(results['Gave up'], undefined);
}

function assertResumedAndSucceeded(s, execution, upstream) {
	const diagnostics = JSON.stringify({ status: execution.status, error: execution.data?.resultData?.error }, null, 1);
	assert.equal(execution.status, 'success', diagnostics);
	assert.equal(execution.finished, true);
	assert.equal(execution.waitTill ?? null, null);

	const requests = upstream.requests(PATH);
	assert.deepEqual(
		requests.map((e) => [e.method, e.status]),
		[
			['GET', 429],
			['GET', 200],
		],
	);
	// the retry came no earlier than Retry-After after the 429, on the server's clock
	const waited = requests[1].time - requests[0].time;
	assert.ok(waited >= RETRY_AFTER_S * 1000, `retried ${waited} ms after the 429`);
	const waitTill = Date.parse(s.stored.waitTill);
	assert.ok(requests[1].time >= waitTill, 'not before the stored waitTill');
	s.lateMs = requests[1].time - waitTill;
	// docs/backoff-delay.md: "resumes within a minute of the due time, when n8n's poller looks"
	assert.ok(s.lateMs < 61_000, `resumed ${s.lateMs} ms after waitTill`);

	const results = nodeResults(execution);
	// Fetch report ran twice: the 429 (to its error output), then the 200
	assert.equal(results['Fetch report'].runs, 2);
	const [second] = results['Fetch report'].perRun[1].all[0];
	assert.equal(second.ok, true);
	assert.equal(second.attempt, 2, 'the upstream saw the second request');
	assert.equal(second._retry.stoppedBecause, 'success');
	assert.deepEqual(results.Report.items.map((i) => [i.ok, i.key, i.attempt]), [[true, 'long-wait-report', 2]]);
	assert.equal(results['Gave up'], undefined, 'nothing given up');

	// The resumed Backoff Delay: n8n re-runs the waiting node as disabled, passing its stored input
	// through its first output. The attempt number written before the wait must be on that item.
	const backoff = results['Backoff Delay'];
	assert.equal(backoff.runs, 1, 'the waiting run is replaced by the resumed one');
	assert.equal(backoff.all[0].length, 1);
	const [resumed] = backoff.all[0];
	assert.ok(resumed._backoff, `the resumed item carries _backoff: ${JSON.stringify(resumed).slice(0, 500)}`);
	assert.equal(resumed._backoff.attempt, 2, 'the attempt about to be made is the 2nd');
	assert.equal(resumed._backoff.maxAttempts, 3);
	assert.equal(resumed._backoff.delayReason, 'retry-after');
	assert.equal(Date.parse(resumed._backoff.waitUntil), waitTill);
	assert.equal(resumed.error.status, 429, 'the item keeps its failure');
}

const upstreams = {};

describe('long Backoff Delay through n8n waiting state (example 05)', { timeout: 300_000 }, () => {
	before(async () => {
		upstreams.restart = await startFlakyServer();
		upstreams.running = await startFlakyServer();
		upstreams.logger = await startFlakyServer();
		userFolder = await prepareUserFolder({ tarball: true });
		await importWorkflow(userFolder, [
			longWaitWorkflow(scenario.restart.id, upstreams.restart, scenario.restart.webhook),
			longWaitWorkflow(scenario.running.id, upstreams.running, scenario.running.webhook),
			withFailureLogger(longWaitWorkflow(scenario.logger.id, upstreams.logger, scenario.logger.webhook)),
		]);

		// A: trigger on server 1, let it be stored as waiting, stop server 1 by PID
		server1 = await startN8n(userFolder, { env: SERVER_ENV });
		const client1 = await restClient(server1);
		await publishOnServer(client1, Object.values(scenario).map((s) => s.id));
		await trigger(server1, client1, scenario.restart, upstreams.restart);
		const pid1 = server1.pid;
		await stopN8n(server1);
		assert.ok(server1.child.exitCode !== null || server1.child.signalCode !== null, 'server 1 exited');
		assert.throws(() => process.kill(pid1, 0), { code: 'ESRCH' }, 'server 1 is gone');
		scenario.restart.stoppedAt = Date.now();

		// server 2 on the same database; B: triggered there, resumed there
		server2 = await startN8n(userFolder, { env: SERVER_ENV });
		client2 = await restClient(server2);
		scenario.restart.afterRestart = await getExecution(client2, scenario.restart.executionId);
		await trigger(server2, client2, scenario.running, upstreams.running);
		await trigger(server2, client2, scenario.logger, upstreams.logger);
		console.log(
			`A stored waiting until ${scenario.restart.stored.waitTill}; server 1 stopped ${scenario.restart.stoppedAt - scenario.restart.triggeredAt} ms after the trigger; ` +
				`B stored waiting until ${scenario.running.stored.waitTill}`,
		);
	});

	after(async () => {
		await stopN8n(); // every server still running (by PID, with its task runner)
		await Promise.all(Object.values(upstreams).map((u) => u.close()));
	});

	test('A: stored as waiting, survives an n8n restart, and completes with correct attempt numbers', async () => {
		const s = scenario.restart;
		assertStoredWaiting(s, upstreams.restart);
		// still waiting on the new server, and nothing sent while n8n was down
		assert.equal(s.afterRestart.status, 'waiting');
		assert.equal(s.afterRestart.waitTill, s.stored.waitTill);
		assert.ok(Date.parse(s.stored.waitTill) > s.stoppedAt, 'stopped before the due time');

		const execution = await finished(client2, s);
		console.log(`A resumed ${upstreams.restart.requests(PATH)[1]?.time - Date.parse(s.stored.waitTill)} ms after waitTill`);
		assertResumedAndSucceeded(s, execution, upstreams.restart);
	});

	test('B: resumed by the running server, without a restart, with correct attempt numbers', async () => {
		const s = scenario.running;
		assertStoredWaiting(s, upstreams.running);
		const execution = await finished(client2, s);
		console.log(`B resumed ${upstreams.running.requests(PATH)[1]?.time - Date.parse(s.stored.waitTill)} ms after waitTill`);
		assert.ok(server2.child.exitCode === null && server2.child.signalCode === null, 'server 2 ran throughout');
		assertResumedAndSucceeded(s, execution, upstreams.running);
		const trackerLines = server2
			.logs()
			.split('\n')
			.filter((l) => /waiting executions|Setting timer for IDs|Resuming execution/.test(l));
		console.log(`wait tracker on server 2:\n${trackerLines.slice(-8).join('\n')}`);
	});

	// Before a long wait Backoff Delay puts its decision on new items in its execution-stack entry
	// (n8n resumes a waiting node by passing that input through). It must not change the items it
	// received: n8n hands a node the very array and objects of the upstream node's output
	// (`connectionDataArray[index] = nodeSuccessData[outputIndex]`), shared with other branches.
	test(
		'C: a second node on the error output gets the failure as Fetch report emitted it, and Fetch report\'s recorded output is unchanged',
		async () => {
			const s = scenario.logger;
			const execution = await finished(client2, s);
			assert.equal(execution.status, 'success');
			const results = nodeResults(execution);
			assert.equal(results['Backoff Delay'].items[0]._backoff?.attempt, 2, 'the resumed item is annotated (as in A and B)');
			const logged = results['Log failure'];
			assert.equal(logged.runs, 1);
			assert.equal(logged.items.length, 1);
			assert.equal(logged.items[0].error.status, 429);
			const emitted = results['Fetch report'].perRun[0].all[1][0];
			assert.equal(emitted._backoff, undefined, `Fetch report's recorded error output carries Backoff Delay's annotation: ${JSON.stringify(emitted._backoff)}`);
			assert.equal(logged.items[0]._backoff, undefined, `Log failure received Backoff Delay's annotation: ${JSON.stringify(logged.items[0]._backoff)}`);
		},
	);
});
