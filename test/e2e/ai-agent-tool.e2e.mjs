// Resilient HTTP Request as an AI agent's tool, in a real n8n 2.41.1: an AI Agent (V3) with an
// OpenAI Chat Model pointed at a local OpenAI-compatible server (test/e2e/fake-openai.mjs, no
// internet) that calls the tool, filling a $fromAI() parameter of its URL and query. The tool's
// API answers 429 with Retry-After: 1 once, then JSON: the node waits, sends again, and the model
// receives the data; it answers with a final message quoting it. A second agent's API always
// answers 429 with Retry-After: 3600 and echoes the request's headers (the API key among them):
// the model receives the short failure account (status, attempts, requested wait), no stack and
// no credential value. (That n8n's node type list offers the tool, not a Backoff Delay tool, is
// checked in ai-tool-editor.e2e.mjs, where an n8n server runs anyway.)
// One n8n server runs every workflow, as the editor's *Execute workflow* does (an `n8n execute` per
// workflow booted n8n eight times: 171 s of CI's time); each workflow calls its own API server, so
// that one API's pause (Retry-After: 3600) is not another's, as it would not be in separate processes.
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import {
	REPO,
	executeOnServer,
	executionFailure,
	importCredentials,
	importWorkflow,
	nodeResults,
	ownerEnv,
	prepareUserFolder,
	restClient,
	startFlakyServer,
	startN8n,
	stopN8n,
	uniqueKey,
} from './harness.mjs';
import { startFakeOpenAi } from './fake-openai.mjs';

const { TOOL_DESCRIPTION } = createRequire(import.meta.url)(path.join(REPO, 'dist/nodes/ResilientHttpRequest/ResilientHttpRequest.node.js'));

const API_KEY = `sk-e2e-${uniqueKey('secret')}`;
const CUSTOM_DESCRIPTION = 'Looks up the current weather of a city in the Weather API.';
const PACKAGE = 'n8n-nodes-resilient-http';

let okApi;
let limitedApi;
let okModel;
let limitedModel;
let userFolder;
let client;
const okKey = uniqueKey('ok');
const limitedKey = uniqueKey('limited');

/**
 * Agents a user may have: V3 (n8n 2.x's default), V2 and V1's Tools Agent (workflows built on n8n 1.x).
 * They hand a tool's answer and a tool's error to the model by different code paths.
 */
const OLDER_AGENTS = [
	{ label: 'Agent V2 (2.2)', typeVersion: 2.2, parameters: {} },
	{ label: 'Agent V1 (1.9, Tools Agent)', typeVersion: 1.9, parameters: { agent: 'toolsAgent' } },
];

/** Manual Trigger -> AI Agent (V3 unless `agent` says) with an OpenAI Chat Model and the Resilient HTTP Request tool "Weather API". */
function agentWorkflow(id, { openAiCredentialId, api, apiPath, toolExtra = {}, agent = { typeVersion: 3.1, parameters: {} }, n8nHttpTool = false }) {
	return {
		id,
		name: `E2E AI agent tool ${id}`,
		nodes: [
			{ id: `${id}-start`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: `${id}-agent`,
				name: 'AI Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: agent.typeVersion,
				position: [200, 0],
				parameters: { ...agent.parameters, promptType: 'define', text: 'What is the weather in Paris?', options: {} },
			},
			{
				id: `${id}-model`,
				name: 'OpenAI Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [100, 200],
				parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
				credentials: { openAiApi: { id: openAiCredentialId, name: openAiCredentialId } },
			},
			{
				id: `${id}-tool`,
				name: 'Weather API',
				// the control: n8n's own HTTP Request Tool, same request
				type: n8nHttpTool ? 'n8n-nodes-base.httpRequestTool' : `${PACKAGE}.resilientHttpRequestTool`,
				typeVersion: n8nHttpTool ? 4.2 : 1,
				position: [300, 200],
				parameters: {
					method: 'GET',
					url: `=${api.url}${apiPath}/{{ $fromAI('city', 'The city to get the weather for', 'string') }}`,
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
					sendQuery: true,
					specifyQuery: 'keypair',
					queryParameters: { parameters: [{ name: 'units', value: "={{ $fromAI('units', 'metric or imperial', 'string') }}" }] },
					...(n8nHttpTool ? {} : { maxAttempts: 3 }),
					options: {},
					...toolExtra,
				},
				credentials: { httpHeaderAuth: { id: 'e2e-tool-api-key', name: 'Weather API key' } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			'Weather API': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

/** The tool's API: /weather/<key>/<city> answers 429 once then the weather, /limited/<key> always 429. */
async function startWeatherApi() {
	const weatherSeen = new Map();
	return await startFlakyServer({
		// one 429 with Retry-After: 1 per workflow (its key, /weather/<key>/<city>), then the weather
		weather: (req, res, { parts, entry, json, query }) => {
			const seen = (weatherSeen.get(parts[1]) ?? 0) + 1;
			weatherSeen.set(parts[1], seen);
			if (seen === 1) json(res, (entry.status = 429), { error: 'slow down' }, { 'retry-after': '1' });
			else json(res, (entry.status = 200), { city: parts[2], units: query.units, temperature: 21.5, sky: 'sunny-e2e' });
		},
		// always rate limited for an hour; the body echoes the request's headers, the API key among them
		limited: (req, res, { entry, json }) => json(res, (entry.status = 429), { error: 'rate limited', echo: req.headers }, { 'retry-after': '3600' }),
	});
}

before(async () => {
	[okApi, limitedApi] = await Promise.all([startWeatherApi(), startWeatherApi()]);
	okModel = await startFakeOpenAi({ toolArguments: { city: 'Paris', units: 'metric' } });
	limitedModel = await startFakeOpenAi({ toolArguments: { city: 'Paris', units: 'metric' } });
	for (const agent of OLDER_AGENTS) {
		agent.okModel = await startFakeOpenAi({ toolArguments: { city: 'Paris', units: 'metric' } });
		agent.limitedModel = await startFakeOpenAi({ toolArguments: { city: 'Paris', units: 'metric' } });
		agent.okKey = uniqueKey('ok');
		agent.limitedKey = uniqueKey('limited');
		agent.controlKey = uniqueKey('control');
		agent.controlModel = await startFakeOpenAi({ toolArguments: { city: 'Paris', units: 'metric' } });
		[agent.okApi, agent.limitedApi, agent.controlApi] = await Promise.all([startWeatherApi(), startWeatherApi(), startWeatherApi()]);
		agent.id = `e2eAgentToolV${String(agent.typeVersion).replace('.', '')}`;
	}
	userFolder = await prepareUserFolder({ tarball: true });
	await importCredentials(userFolder, [
		{ id: 'e2e-openai-ok', name: 'e2e-openai-ok', type: 'openAiApi', data: { apiKey: 'sk-fake-openai', url: okModel.url } },
		{ id: 'e2e-openai-limited', name: 'e2e-openai-limited', type: 'openAiApi', data: { apiKey: 'sk-fake-openai', url: limitedModel.url } },
		{ id: 'e2e-tool-api-key', name: 'Weather API key', type: 'httpHeaderAuth', data: { name: 'X-Api-Key', value: API_KEY } },
		...OLDER_AGENTS.flatMap((agent) => [
			{ id: `${agent.id}-openai-ok`, name: `${agent.id}-openai-ok`, type: 'openAiApi', data: { apiKey: 'sk-fake-openai', url: agent.okModel.url } },
			{ id: `${agent.id}-openai-limited`, name: `${agent.id}-openai-limited`, type: 'openAiApi', data: { apiKey: 'sk-fake-openai', url: agent.limitedModel.url } },
			{ id: `${agent.id}-openai-control`, name: `${agent.id}-openai-control`, type: 'openAiApi', data: { apiKey: 'sk-fake-openai', url: agent.controlModel.url } },
		]),
	]);
	await importWorkflow(userFolder, [
		agentWorkflow('e2eAgentToolOk', { openAiCredentialId: 'e2e-openai-ok', api: okApi, apiPath: `/weather/${okKey}` }),
		agentWorkflow('e2eAgentToolLimited', { openAiCredentialId: 'e2e-openai-limited', api: limitedApi, apiPath: `/limited/${limitedKey}`, toolExtra: { toolDescription: CUSTOM_DESCRIPTION } }),
		...OLDER_AGENTS.flatMap((agent) => [
			agentWorkflow(`${agent.id}Ok`, { openAiCredentialId: `${agent.id}-openai-ok`, api: agent.okApi, apiPath: `/weather/${agent.okKey}`, agent }),
			agentWorkflow(`${agent.id}Limited`, { openAiCredentialId: `${agent.id}-openai-limited`, api: agent.limitedApi, apiPath: `/limited/${agent.limitedKey}`, agent }),
			agentWorkflow(`${agent.id}Control`, { openAiCredentialId: `${agent.id}-openai-control`, api: agent.controlApi, apiPath: `/limited/${agent.controlKey}`, agent, n8nHttpTool: true }),
		]),
	]);
	client = await restClient(await startN8n(userFolder, { env: ownerEnv() }));
});

after(async () => {
	await stopN8n();
	await okApi?.close();
	await limitedApi?.close();
	await okModel?.close();
	await limitedModel?.close();
	for (const agent of OLDER_AGENTS) {
		await agent.okModel?.close();
		await agent.limitedModel?.close();
		await agent.controlModel?.close();
		for (const server of [agent.okApi, agent.limitedApi, agent.controlApi]) await server?.close();
	}
});

test('the agent calls the tool, the tool waits out a 429 (Retry-After: 1), and the model gets the data', async () => {
	const run = await executeOnServer(client, 'e2eAgentToolOk');
	const results = nodeResults(run);
	assert.equal(run.status, 'success', `the workflow succeeds: ${executionFailure(run)}`);

	// the model was offered the tool under its node's name, with the default description and the $fromAI() parameters
	const offered = okModel.requests[0].body.tools?.[0]?.function;
	assert.ok(offered, 'the first completion request offers a tool');
	assert.equal(offered.name, 'Weather_API');
	assert.equal(offered.description, TOOL_DESCRIPTION);
	assert.deepEqual(Object.keys(offered.parameters.properties).sort(), ['city', 'units']);

	// the API: exactly 2 requests, the second at least ~1 s after the first; $fromAI() filled URL and query; the key sent
	const calls = okApi.requests(`/weather/${okKey}`);
	assert.equal(calls.length, 2, `the API got ${calls.length} requests`);
	assert.equal(calls[0].status, 429);
	assert.equal(calls[1].status, 200);
	assert.ok(calls[1].time - calls[0].time >= 950, `second request ${calls[1].time - calls[0].time} ms after the first`);
	assert.equal(calls[1].path, `/weather/${okKey}/Paris`);
	assert.match(calls[1].url, /units=metric/);
	assert.equal(calls[1].headers['x-api-key'], API_KEY);

	// what the model received as the tool result: the API's data, without the retry story
	const toolResults = okModel.toolResults();
	assert.equal(toolResults.length, 1, `tool results: ${JSON.stringify(toolResults)}`);
	const received = JSON.parse(toolResults[0]);
	assert.deepEqual(received, [{ city: 'Paris', units: 'metric', temperature: 21.5, sky: 'sunny-e2e' }]);

	// the agent's final answer quotes it
	const output = results['AI Agent'].items[0].output;
	assert.match(output, /sunny-e2e/);
	assert.match(output, /21\.5/);
	console.log(`[ai-agent-tool] 429 then 200: second request ${calls[1].time - calls[0].time} ms after the first; tool result ${toolResults[0]}`);
});

test('an API that stays rate limited: the model gets the short account (status, attempts, wait), no stack, no credential', async () => {
	const run = await executeOnServer(client, 'e2eAgentToolLimited');
	assert.equal(run.status, 'success', `the agent still answers: ${executionFailure(run)}`);

	// the user's own tool description reaches the model
	assert.equal(limitedModel.requests[0].body.tools[0].function.description, CUSTOM_DESCRIPTION);

	// Retry-After: 3600 is more than Max Server-Requested Delay (1 min): one request, not waited for
	assert.equal(limitedApi.requests(`/limited/${limitedKey}`).length, 1);

	const toolResults = limitedModel.toolResults();
	assert.equal(toolResults.length, 1, `tool results: ${JSON.stringify(toolResults)}`);
	const received = toolResults[0];
	assert.match(received, /HTTP 429 Too Many Requests/);
	assert.match(received, /1 of 3 attempts/);
	assert.match(received, /retry after 3600 s/);
	assert.match(received, /do not call this tool again before/);
	assert.match(received, /rate limited/, "the server's own message is quoted");
	assert.doesNotMatch(received, /\bat .+\.js:\d+/, 'no stack trace');
	assert.doesNotMatch(received, /Retry story|history/, 'no retry story object');
	assert.ok(!received.includes(API_KEY), 'the API key the server echoed is not in the tool result');
	assert.ok(received.length < 1500, `short: ${received.length} characters`);

	const output = nodeResults(run)['AI Agent'].items[0].output;
	assert.match(output, /HTTP 429/);
	assert.ok(!JSON.stringify(run.data).includes(API_KEY), 'the API key appears nowhere in the run data');
	console.log(`[ai-agent-tool] stays rate limited: the model received ${received}`);
});

for (const agent of OLDER_AGENTS) {
	test(`${agent.label}: the tool waits out the 429 and the model gets the data; an API that stays rate limited gives it the short account, where HTTP Request Tool's reaches it empty`, async () => {
		const ok = await executeOnServer(client, `${agent.id}Ok`);
		assert.equal(ok.status, 'success', `the workflow succeeds: ${executionFailure(ok)}`);
		const calls = agent.okApi.requests(`/weather/${agent.okKey}`);
		assert.deepEqual(calls.map((c) => c.status), [429, 200]);
		assert.ok(calls[1].time - calls[0].time >= 950, `second request ${calls[1].time - calls[0].time} ms after the first`);
		assert.equal(calls[1].path, `/weather/${agent.okKey}/Paris`);
		const okResults = agent.okModel.toolResults();
		assert.equal(okResults.length, 1, `tool results: ${JSON.stringify(okResults)}`);
		assert.deepEqual(JSON.parse(okResults[0]), [{ city: 'Paris', units: 'metric', temperature: 21.5, sky: 'sunny-e2e' }]);
		assert.match(nodeResults(ok)['AI Agent'].items[0].output, /sunny-e2e/);

		const limited = await executeOnServer(client, `${agent.id}Limited`);
		assert.equal(limited.status, 'success', `the agent still answers: ${executionFailure(limited)}`);
		assert.equal(agent.limitedApi.requests(`/limited/${agent.limitedKey}`).length, 1);
		const limitedResults = agent.limitedModel.toolResults();
		assert.equal(limitedResults.length, 1, `tool results: ${JSON.stringify(limitedResults)}`);
		assert.match(limitedResults[0], /HTTP 429 Too Many Requests/);
		assert.match(limitedResults[0], /retry after 3600 s/);
		assert.doesNotMatch(limitedResults[0], /\bat .+\.js:\d+/, 'no stack trace');
		assert.ok(!limitedResults[0].includes(API_KEY), 'the API key the server echoed is not in the tool result');
		assert.ok(!JSON.stringify(limited.data).includes(API_KEY), 'the API key appears nowhere in the run data');

		// the control: n8n's HTTP Request Tool throws on the 429, and this agent hands the model nothing
		const control = await executeOnServer(client, `${agent.id}Control`);
		assert.equal(control.status, 'success', `the control agent answers too: ${executionFailure(control)}`);
		assert.equal(agent.controlApi.requests(`/limited/${agent.controlKey}`).length, 1);
		assert.deepEqual(agent.controlModel.toolResults(), [''], "HTTP Request Tool's failure reaches the model empty");
		console.log(`[ai-agent-tool] ${agent.label}: resent ${calls[1].time - calls[0].time} ms after the 429; stays rate limited: the model received ${limitedResults[0].slice(0, 300)}…; n8n's HTTP Request Tool: ${JSON.stringify(agent.controlModel.toolResults())}`);
	});
}
