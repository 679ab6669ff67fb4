// The Resilient HTTP Request tool in the n8n editor, in a real browser against a real n8n 2.41.1,
// as a user builds an agent: the AI Agent's Tool "+" offers Resilient HTTP Request Tool and no
// Backoff Delay tool; the tool's panel shows its Description for the model; the user lets the
// model fill a query parameter with the panel's "Let the model define this parameter" button
// ($fromAI), saves, and *Execute workflow* runs the agent: the model (a local OpenAI-compatible
// server, test/e2e/fake-openai.mjs) calls the tool with that parameter, the API answers 429 with
// Retry-After: 1 once, and the tool waits, sends again and gives the model the data. n8n's node
// type list (what the editor is given) has the tool variant with its description, and no Backoff
// Delay tool.
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { closePopups, executeInEditor, launchBrowser, openNode, openWorkflow, requireBrowser, saveAndWaitForNode, signIn } from './browser.mjs';
import { REPO, importCredentials, ownerEnv, prepareUserFolder, restClient, startFlakyServer, startN8n, stopN8n, uniqueKey, waitFor } from './harness.mjs';
import { startFakeOpenAi } from './fake-openai.mjs';

const { TOOL_DESCRIPTION } = createRequire(import.meta.url)(path.join(REPO, 'dist/nodes/ResilientHttpRequest/ResilientHttpRequest.node.js'));

const PACKAGE = 'n8n-nodes-resilient-http';
const key = uniqueKey('editor');

let api;
let model;
let n8n;
let client;
let browser;

before(async () => {
	api = await startFlakyServer({
		// one 429 with Retry-After: 1, then the weather of the city in the query
		weather: (req, res, { count, entry, json, query }) => {
			if (count === 1) json(res, (entry.status = 429), { error: 'slow down' }, { 'retry-after': '1' });
			else json(res, (entry.status = 200), { city: query.city, temperature: 19.5, sky: 'clear-editor-e2e' });
		},
	});
	// the editor names the $fromAI() parameter: the model fills whatever the tool asks for with Paris
	model = await startFakeOpenAi({ toolArguments: (tool) => Object.fromEntries(Object.keys(tool.parameters?.properties ?? {}).map((name) => [name, 'Paris'])) });
	const userFolder = await prepareUserFolder({ tarball: true });
	await importCredentials(userFolder, [{ id: 'e2e-editor-openai', name: 'e2e-editor-openai', type: 'openAiApi', data: { apiKey: 'sk-fake-openai', url: model.url } }]);
	n8n = await startN8n(userFolder, { env: ownerEnv() });
	client = await restClient(n8n);
});
after(async () => {
	await browser?.close();
	await stopN8n();
	await api?.close();
	await model?.close();
});

/** Manual Trigger -> AI Agent (V3) with an OpenAI Chat Model and the tool "Weather API" (the city still a fixed value). */
async function createAgentWorkflow() {
	return await client.post('/rest/workflows', {
		name: 'E2E tool in the editor',
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'n2', name: 'AI Agent', type: '@n8n/n8n-nodes-langchain.agent', typeVersion: 3.1, position: [240, 0], parameters: { promptType: 'define', text: 'What is the weather in Paris?', options: {} } },
			{
				id: 'n3',
				name: 'OpenAI Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [160, 240],
				parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
				credentials: { openAiApi: { id: 'e2e-editor-openai', name: 'e2e-editor-openai' } },
			},
			{
				id: 'n4',
				name: 'Weather API',
				type: `${PACKAGE}.resilientHttpRequestTool`,
				typeVersion: 1,
				position: [400, 240],
				parameters: {
					url: `${api.url}/weather/${key}`,
					sendQuery: true,
					specifyQuery: 'keypair',
					queryParameters: { parameters: [{ name: 'city', value: 'Berlin' }] },
					maxAttempts: 3,
					options: {},
				},
			},
		],
		connections: {
			Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			'Weather API': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		},
	});
}

/**
 * Types a search into the node creator and resolves the names it lists once `shows(names,
 * noResults)` says the list answers that search (the list follows the typing 100-300 ms later).
 */
async function searchNodeCreator(page, text, shows, expected) {
	await page.locator('[data-test-id="node-creator-search-bar"]').first().fill(text);
	return await waitFor(
		async () => {
			const names = (await page.locator('[data-test-id="node-creator-item-name"]:visible').allInnerTexts()).map((name) => name.trim());
			const noResults = (await page.locator('[data-test-id="node-creator-no-results"]:visible').count()) > 0;
			return shows(names, noResults) ? names : undefined;
		},
		// a guard against a hang, not a bound on speed: on a loaded 2-core machine (another test
		// file's n8n beside this one) the creator once took over 15 s to answer a search
		{ timeoutMs: 45_000, intervalMs: 100, what: `the node creator's answer to "${text}": ${expected}` },
	);
}

test('the agent editor offers the tool, its panel lets the model fill a parameter, and Execute workflow rides out a 429', async (t) => {
	if (!requireBrowser(t)) return;
	const workflow = await createAgentWorkflow();
	browser = await launchBrowser();
	const { page } = browser;
	await signIn(page, n8n.url);
	await openWorkflow(page, n8n.url, workflow.id);

	// the AI Agent's Tool "+": the node creator lists the tools an agent can take
	await page.locator('[data-test-id="canvas-node-input-handle"][data-connection-type="ai_tool"][data-node-name="AI Agent"] [data-test-id="canvas-handle-plus"]').first().click();
	await page.locator('[data-test-id="node-creator-search-bar"]').first().waitFor({ timeout: 15_000 });
	// no tool is called Backoff Delay: the creator says it found nothing
	await searchNodeCreator(page, 'Backoff Delay', (names, noResults) => noResults && names.length === 0, 'no results');
	// "Backoff" finds the HTTP tool (an alias of the node), and still no Backoff Delay tool
	const backoff = await searchNodeCreator(page, 'Backoff', (names) => names.length > 0, 'some tool');
	assert.deepEqual(backoff, ['Resilient HTTP Request Tool'], `tools offered for "Backoff": ${backoff.join(', ')}`);
	// beside n8n's own HTTP Request Tool
	const http = await searchNodeCreator(page, 'HTTP Request', (names) => names.includes('HTTP Request Tool'), "n8n's HTTP Request Tool");
	assert.ok(http.includes('Resilient HTTP Request Tool'), `tools offered for "HTTP Request": ${http.join(', ')}`);
	await page.keyboard.press('Escape');
	await closePopups(page);

	// the tool's panel: the description the model reads, and the model fills the city
	await openNode(page, 'Weather API');
	const ndv = page.locator('[data-test-id="ndv"]');
	const description = ndv.locator('[data-test-id="parameter-input-toolDescription"] textarea, [data-test-id="parameter-input-toolDescription"] input').first();
	await description.waitFor({ timeout: 15_000 });
	assert.equal(await description.inputValue(), TOOL_DESCRIPTION);
	const cityValue = ndv.locator('[data-test-id="parameter-input-value"]').first();
	await cityValue.waitFor({ timeout: 15_000 });
	// each parameter has its own button: the one beside the city's value
	const override = cityValue.locator('xpath=ancestor::*[.//*[@data-test-id="from-ai-override-button"]][1]').locator('[data-test-id="from-ai-override-button"]').first();
	await override.waitFor({ timeout: 15_000 });
	await override.click();
	const saved = await saveAndWaitForNode(
		page,
		client,
		workflow.id,
		'Weather API',
		(node) => /\$fromAI\(/.test(String(node.parameters.queryParameters?.parameters?.[0]?.value ?? '')),
		'the workflow saved with the city from the model',
	);
	t.diagnostic(`the city parameter: ${saved.parameters.queryParameters.parameters[0].value}`);

	// Execute workflow: the agent calls the tool with the model's city; the tool waits out the 429
	await openWorkflow(page, n8n.url, workflow.id);
	const execution = await executeInEditor(page, client, workflow.id, { timeoutMs: 90_000 });
	assert.equal(execution.status, 'success', JSON.stringify(execution.data?.resultData?.error ?? {}).slice(0, 2000));

	const offered = model.requests[0].body.tools?.[0]?.function;
	assert.equal(offered?.name, 'Weather_API');
	assert.equal(offered.description, TOOL_DESCRIPTION);
	assert.equal(Object.keys(offered.parameters.properties).length, 1, `the model is asked for the city only: ${JSON.stringify(offered.parameters)}`);

	const calls = api.requests(`/weather/${key}`);
	assert.deepEqual(calls.map((c) => c.status), [429, 200]);
	assert.ok(calls[1].time - calls[0].time >= 950, `second request ${calls[1].time - calls[0].time} ms after the first`);
	assert.match(calls[1].url, /city=Paris/, 'the city the model chose, not the value typed before');
	assert.deepEqual(JSON.parse(model.toolResults()[0]), [{ city: 'Paris', temperature: 19.5, sky: 'clear-editor-e2e' }]);
	const agentOutput = execution.data.resultData.runData['AI Agent'][0].data.main[0][0].json.output;
	assert.match(agentOutput, /clear-editor-e2e/);
	assert.deepEqual(browser.errors, [], 'no uncaught error in the editor');
	t.diagnostic(`429 then 200: ${calls[1].time - calls[0].time} ms apart; the agent answered: ${agentOutput}`);
});

test("n8n's node type list offers the Resilient HTTP Request tool, not a Backoff Delay tool", async () => {
	const types = JSON.parse(await client.text('/types/nodes.json'));
	const ours = types.filter((type) => type.name.startsWith(`${PACKAGE}.`)).map((type) => type.name);
	assert.ok(ours.includes(`${PACKAGE}.resilientHttpRequest`), `our types: ${ours.join(', ')}`);
	assert.ok(ours.includes(`${PACKAGE}.backoffDelay`), `our types: ${ours.join(', ')}`);
	assert.ok(!ours.includes(`${PACKAGE}.backoffDelayTool`), `our types: ${ours.join(', ')}`);
	// n8n adds a `<name>Tool` variant of every node that sets usableAsTool (createAiTools)
	assert.ok(ours.includes(`${PACKAGE}.resilientHttpRequestTool`), `our types: ${ours.join(', ')}`);
	const tool = types.find((type) => type.name === `${PACKAGE}.resilientHttpRequestTool`);
	assert.equal(tool.properties.find((p) => p.name === 'toolDescription')?.default, TOOL_DESCRIPTION);
	assert.ok(tool.properties.some((p) => p.name === 'optimizeResponse'), 'Optimize Response is offered on the tool');
	console.log(`[ai-tool-editor] our node types: ${ours.join(', ')}`);
});
