// n8n's own OpenAI node behind an API's traffic controller, in a real n8n that loaded the packed
// tarball: example 11 (Traffic Control's Wait for Room -> OpenAI: Message a Model -> Report Outcome,
// Backoff Delay on Failed) against an OpenAI-compatible Responses API that refuses each prompt's
// first call with OpenAI's 429 (test/support/flaky-upstream.js, route /openai, as npm start's demo
// API serves it). Then the controller shared across nodes: a Resilient HTTP Request whose API Scope
// is the same text meets a 429 with Retry-After, and the OpenAI node's next calls wait for it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { executeOnServer, executionFailure, importCredentials, importWorkflow, loadExample, nodeResults, ownerEnv, prepareUserFolder, restClient, startFlakyServer, startN8n, stopN8n } from './harness.mjs';

const EXAMPLE = '11-openai-node-behind-controller.json';
const PAUSE_S = 4;
let server;
let client;
let example;

/** A workflow whose Resilient HTTP Request shares the API Scope "openai" and meets a 429 with Retry-After. */
function pausingWorkflow(url) {
	return {
		id: 'e2eGuardPauser',
		name: 'e2e: Resilient HTTP Request under API Scope openai',
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'http',
				name: 'Same API',
				type: 'n8n-nodes-resilient-http.resilientHttpRequest',
				typeVersion: 1,
				position: [220, 0],
				parameters: { url, maxAttempts: 1, sharedLimits: { budgetScope: 'openai' } },
				onError: 'continueRegularOutput',
			},
		],
		connections: { Start: { main: [[{ node: 'Same API', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

before(async () => {
	// cycle: each prompt's first call is refused, as under npm start
	server = await startFlakyServer({}, { cycle: true });
	const userFolder = await prepareUserFolder({ tarball: true });
	await importCredentials(userFolder, [{ id: 'rhDemoOpenAi', name: "Demo OpenAI (npm start's demo API)", type: 'openAiApi', data: { apiKey: 'sk-demo-not-a-real-key', url: `${server.url}/openai/demo/v1` } }]);
	example = loadExample(EXAMPLE, server.url);
	await importWorkflow(userFolder, [example, pausingWorkflow(`${server.url}/429/${PAUSE_S}/e2e-guard-pause`)]);
	client = await restClient(await startN8n(userFolder, { env: ownerEnv() }));
});
after(async () => {
	await stopN8n();
	await server?.close();
});

const calls = () => server.requests('/openai/demo/v1/responses');
const answersOf = (execution) => (execution.data.resultData.runData.Answers ?? []).flatMap((run) => run.data?.main?.[0] ?? []).map((item) => item.json);

describe("n8n's OpenAI node behind the API's controller (example 11)", () => {
	test("one click: each prompt's 429 goes to Report Outcome's Failed, through Backoff Delay and Wait for Room again, and every prompt is answered", async () => {
		const execution = await executeOnServer(client, example.id, { trigger: "When clicking 'Execute workflow'" });
		assert.equal(execution.status, 'success', executionFailure(execution));
		const results = nodeResults(execution);
		// OpenAI's node made the calls: its Responses API request, with the prompt and the model
		assert.equal(calls()[0].body.model, 'gpt-4.1-mini');
		assert.match(JSON.stringify(calls()[0].body.input), /Summarise invoice 1001/);
		// every call refused once was sent again, and only once more
		const statuses = calls().map((c) => c.status);
		assert.equal(statuses.filter((s) => s === 200).length, 3, `statuses ${statuses}`);
		assert.ok(statuses.filter((s) => s === 429).length >= 1, `statuses ${statuses}`);
		const answers = answersOf(execution);
		assert.equal(answers.length, 3, JSON.stringify(answers).slice(0, 500));
		for (const id of ['1001', '1002', '1003']) assert.ok(answers.some((a) => JSON.stringify(a).includes(`invoice ${id}`)), `answer for ${id}`);
		assert.equal(results['Gave up'], undefined, 'nothing gave up');
		// the retries came back through Wait for Room: it ran once per pass
		assert.ok(execution.data.resultData.runData['Wait for Room'].length >= 2);
		// the failed item Report Outcome routed carried n8n's status headline and its prompt
		const failed = execution.data.resultData.runData['Report Outcome'].flatMap((run) => run.data?.main?.[1] ?? []).map((i) => i.json);
		assert.ok(failed.length >= 1);
		assert.equal(failed[0].error, 'The service is receiving too many requests from you');
		assert.match(failed[0].prompt, /^Summarise invoice/);
		console.log(`[guarded-openai] statuses ${statuses.join(', ')}; Wait for Room ran ${execution.data.resultData.runData['Wait for Room'].length} times`);
	});

	test('a 429 with Retry-After that a Resilient HTTP Request under the same API Scope met pauses the OpenAI node\'s calls: they wait for its end at Wait for Room', async () => {
		const pauser = await executeOnServer(client, 'e2eGuardPauser', { trigger: 'Start' });
		assert.equal(pauser.status, 'success', executionFailure(pauser));
		const [refused] = server.requests(`/429/${PAUSE_S}/e2e-guard-pause`);
		assert.equal(refused.status, 429);
		const before = calls().length;
		const execution = await executeOnServer(client, example.id, { trigger: "When clicking 'Execute workflow'" });
		assert.equal(execution.status, 'success', executionFailure(execution));
		const first = calls()[before];
		const waited = first.time - refused.time;
		// the pause counts from the 429's report, a moment after the server answered it
		assert.ok(waited >= PAUSE_S * 1000 - 100, `the OpenAI node's first call came ${waited} ms after the 429 (Retry-After: ${PAUSE_S} s)`);
		assert.equal(answersOf(execution).length, 3);
		console.log(`[guarded-openai] the OpenAI node's first call came ${waited} ms after the other node's 429 (Retry-After: ${PAUSE_S} s)`);
	});
});
