// Proves the harness on real n8n with a core node only (no package needed): import, execute,
// parse the run data, count requests at the flaky server; and the failure path (exit 1).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { executeWorkflow, importWorkflow, nodeResults, prepareUserFolder, startFlakyServer, uniqueKey } from './harness.mjs';

let server;
let userFolder;
const key = uniqueKey('core');
before(async () => {
	server = await startFlakyServer();
	userFolder = await prepareUserFolder({ link: false });
	// both workflows in one import: each n8n command boots n8n
	await importWorkflow(userFolder, [
		workflow('e2eCoreSmoke0001', [
			httpNode('Flaky', `${server.url}/fail/2/${key}`, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 }),
			httpNode('Echo', `${server.url}/echo`),
		]),
		workflow('e2eCoreSmoke0002', [httpNode('Down', `${server.url}/down`)]),
	]);
});
after(async () => server?.close());

const trigger = { id: 'trigger', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
const httpNode = (name, url, extra = {}) => ({
	id: name,
	name,
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	position: [220, 0],
	parameters: { url, options: {} },
	...extra,
});
const workflow = (id, nodes) => ({
	id,
	name: id,
	active: false,
	settings: {},
	nodes: [trigger, ...nodes],
	connections: Object.fromEntries(
		[trigger, ...nodes].slice(0, -1).map((n, i) => [n.name, { main: [[{ node: nodes[i].name, type: 'main', index: 0 }]] }]),
	),
});

test('core HTTP Request with Retry On Fail succeeds on the 3rd try against /fail/2', async () => {
	const run = await executeWorkflow(userFolder, 'e2eCoreSmoke0001');
	console.log(`n8n execute took ${run.durationMs} ms`);
	assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
	assert.equal(run.output.status, 'success');
	const results = nodeResults(run.output);
	assert.deepEqual(results.Flaky.items, [{ ok: true, key, attempt: 3 }]);
	assert.equal(results.Echo.items[0].method, 'GET');
	const tries = server.requests(`/fail/2/${key}`);
	assert.deepEqual(tries.map((e) => e.status), [503, 503, 200]);
	// The engine's fixed wait: waitBetweenTries 0 means 1000 ms.
	for (let i = 1; i < tries.length; i++) assert.ok(tries[i].time - tries[i - 1].time >= 900);
});

test('a failing workflow exits 1 and still yields the run data', async () => {
	const run = await executeWorkflow(userFolder, 'e2eCoreSmoke0002');
	// n8n 2.41 sometimes dies of SIGSEGV inside exit() after it chose its exit code (isolated-vm's
	// exit handler; CI saw it twice in a row here, with only core nodes loaded): the harness then
	// reports the code n8n chose, and the run data must be whole all the same
	if (run.crashedOnExit) console.log(`n8n execute chose exit code ${run.exitCode}, then crashed (${run.crashedOnExit}) inside exit()`);
	assert.equal(run.exitCode, 1, `exit ${run.exitCode ?? run.signal}:\n${run.stderr.slice(-2000)}`);
	assert.equal(run.output.status, 'error');
	assert.equal(nodeResults(run.output).Down.error.name, 'NodeApiError');
	assert.equal(server.requests('/down').length, 1);
});
