// The flaky upstream's remaining scenarios against Resilient HTTP Request in a real n8n, in one
// execution: a 429 whose Retry-After is an HTTP-date, a server that hangs, and a long outage.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PACKAGE_NAME, executeWorkflow, importWorkflow, nodeResults, prepareUserFolder, startFlakyServer, uniqueKey } from './harness.mjs';

let server;
before(async () => {
	server = await startFlakyServer();
});
after(async () => server?.close());

const node = (name, y, parameters) => ({
	id: name,
	name,
	type: `${PACKAGE_NAME}.resilientHttpRequest`,
	typeVersion: 1,
	position: [240, y],
	onError: 'continueErrorOutput',
	// the test reads each success item's story: Retry Story On Every Item
	parameters: { ...parameters, retryOptions: { retryStory: 'everyItem', ...parameters.retryOptions } },
});

test('HTTP-date Retry-After obeyed, a hanging server timed out per attempt, a long outage bounded', async () => {
	const userFolder = await prepareUserFolder({ tarball: true });
	const key = uniqueKey('scn');
	const id = 'e2eScenarios0001';
	await importWorkflow(userFolder, {
		id,
		name: 'scenarios',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 't', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			node('Date', 0, { url: `${server.url}/429date/2/${key}` }),
			node('Hang', 200, { url: `${server.url}/hang/${key}`, maxAttempts: 2, retryOptions: { attemptTimeout: 500, baseDelay: 100 } }),
			node('Down', 400, { url: `${server.url}/down/${key}`, maxAttempts: 3, retryOptions: { baseDelay: 100, maxDelay: 200 } }),
		],
		connections: { Start: { main: [[{ node: 'Date', type: 'main', index: 0 }, { node: 'Hang', type: 'main', index: 0 }, { node: 'Down', type: 'main', index: 0 }]] } },
	});
	const run = await executeWorkflow(userFolder, id);
	assert.equal(run.exitCode, 0, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
	const results = nodeResults(run.output);

	// HTTP-date: 429 then 200, the retry no earlier than the date (second resolution: >= 1 s later)
	const date = server.requests(`/429date/2/${key}`);
	assert.deepEqual(date.map((e) => e.status), [429, 200]);
	assert.ok(date[1].time - date[0].time >= 1000, `retry after ${date[1].time - date[0].time} ms`);
	const dateStory = results.Date.items[0]._retry;
	assert.equal(dateStory.history[1].delayReason, 'retry-after');

	// hang: each attempt cut at 500 ms, two attempts, then the error output with ETIMEDOUT
	assert.equal(server.requests(`/hang/${key}`).length, 2);
	const [hung] = results.Hang.all[1];
	assert.equal(hung.error.code, 'ETIMEDOUT');
	assert.equal(hung.error.reason, 'attempts-exhausted');
	assert.equal(hung.error._retry.attempts, 2);

	// outage: exactly Max Attempts requests, then the error output
	assert.equal(server.requests(`/down/${key}`).length, 3);
	assert.equal(results.Down.all[1][0].error.reason, 'attempts-exhausted');
});
