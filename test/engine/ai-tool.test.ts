/**
 * The node as an AI agent's tool, in n8n-core's WorkflowExecute: the node type is registered under
 * its tool variant's name (`resilientHttpRequestTool`, what n8n's convertNodeToAiTool names it),
 * kept on main connections so the engine runs it like any node; the input item is what the model
 * passed (n8n resolves `$fromAI()` from it). What the node outputs or throws here is what n8n hands
 * the model (test/e2e/ai-agent-tool.e2e.mjs proves that in a real n8n with an AI Agent).
 */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import type { Runtime } from '../../nodes/shared/core/runtime';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { runWorkflow, type WorkflowJson, type WorkflowRunResult } from './harness';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, ITEMS_SOURCE, itemsSource, RESILIENT_HTTP } from './workflow-builders';

const TOOL_TYPE = `${RESILIENT_HTTP}Tool`;
const server = useLocalServers();
const API_KEY = 'tool-key-6c1f0b7e';

/** The node's type as n8n's tool variant names it (the parameters stay; `@tool` ones now show). */
function toolType(runtime: Runtime): INodeType {
	const node = new ResilientHttpRequest(runtime, new MemoryStateStore());
	return { description: { ...node.description, name: 'resilientHttpRequestTool', displayName: 'Resilient HTTP Request Tool' }, execute: node.execute };
}

function toolWorkflow(parameters: IDataObject, options: { onError?: INode['onError']; headerAuth?: boolean } = {}): WorkflowJson {
	const workflow = httpWorkflow(
		{ ...parameters, ...(options.headerAuth ? { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' } : {}) },
		{ ...(options.onError ? { onError: options.onError } : {}), ...(options.headerAuth ? { credentials: { httpHeaderAuth: { id: '1', name: 'key' } } } : {}) },
	);
	workflow.nodes.find((n) => n.name === 'HTTP')!.type = TOOL_TYPE;
	return workflow;
}

async function runTool(workflow: WorkflowJson, args: IDataObject, runtime = createVirtualRuntime()): Promise<WorkflowRunResult> {
	const items: INodeExecutionData[] = [{ json: args }];
	return await runWorkflow(workflow, {
		nodeTypes: { [TOOL_TYPE]: toolType(runtime), [ITEMS_SOURCE]: itemsSource(items) },
		credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: API_KEY } },
	});
}

describe('$fromAI() in URL, query, headers and body', () => {
	it("fills each with the model's arguments (text, number, JSON), and the answer is the response without the retry story", async () => {
		const api = await server(() => ({ body: { temperature: 21.5, sky: 'sunny' } }));
		const run = await runTool(
			toolWorkflow({
				method: 'POST',
				url: `=${api.url}/weather/{{ $fromAI('city', 'The city', 'string') }}`,
				sendQuery: true,
				specifyQuery: 'keypair',
				queryParameters: { parameters: [{ name: 'days', value: "={{ $fromAI('days', 'How many days', 'number') }}" }] },
				sendHeaders: true,
				specifyHeaders: 'keypair',
				headerParameters: { parameters: [{ name: 'Accept-Language', value: "={{ $fromAI('lang', 'Language', 'string') }}" }] },
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody: "={{ $fromAI('filter', 'A JSON filter', 'json') }}",
				options: {},
			}),
			{ city: 'Paris', days: 3, lang: 'fr', filter: { wind: true, hours: [6, 12] } },
		);
		expect(run.status).toBe('success');
		expect(api.requests).toHaveLength(1);
		const [request] = api.requests;
		expect(request.url).toBe('/weather/Paris?days=3');
		expect(request.headers['accept-language']).toBe('fr');
		expect(JSON.parse(request.body)).toEqual({ wind: true, hours: [6, 12] });
		expect(run.jsonOf('OK')).toEqual([{ temperature: 21.5, sky: 'sunny' }]);
	});

	it('a 429 with Retry-After is waited out; the model gets the data, not the story', async () => {
		const api = await server((_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '2' }, body: { error: 'slow down' } } : { body: [{ id: 1 }, { id: 2 }] }));
		const runtime = createVirtualRuntime();
		const run = await runTool(toolWorkflow({ method: 'GET', url: `=${api.url}/items/{{ $fromAI('kind') }}`, options: {} }), { kind: 'open' }, runtime);
		expect(run.status).toBe('success');
		expect(api.requests.map((r) => r.url)).toEqual(['/items/open', '/items/open']);
		expect(runtime.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2000);
		expect(run.jsonOf('OK')).toEqual([{ id: 1 }, { id: 2 }]);
	});
});

describe('Optimize Response (JSON), with HTTP Request Tool’s parameters', () => {
	it('Field Containing Data and Include Fields: Selected cut the answer down', async () => {
		const api = await server(() => ({ body: { records: [{ id: 1, name: 'a', big: 'x'.repeat(100) }, { id: 2, name: 'b', big: 'y' }], next: null } }));
		const run = await runTool(toolWorkflow({ method: 'GET', url: api.url, optimizeResponse: true, responseType: 'json', dataField: 'records', fieldsToInclude: 'selected', fields: 'id, name', options: {} }), {});
		expect(run.jsonOf('OK')).toEqual([
			{ id: 1, name: 'a' },
			{ id: 2, name: 'b' },
		]);
	});

	it('a Field Containing Data the response lacks fails the tool call, naming the fields it has', async () => {
		const api = await server(() => ({ body: { items: [] } }));
		const run = await runTool(toolWorkflow({ method: 'GET', url: api.url, optimizeResponse: true, dataField: 'records', options: {} }), {});
		expect(run.status).toBe('error');
		expect(run.nodeErrorOf('HTTP')?.message).toBe('Target field "records" not found in response.');
		expect(run.nodeErrorOf('HTTP')?.description).toBe('The response contained these fields: [items]');
	});

	it("HTTP Request Tool's HTML and Text types fail before any request, naming Expected Response Type", async () => {
		const api = await server(() => ({ body: '<html></html>' }));
		const run = await runTool(toolWorkflow({ method: 'GET', url: api.url, optimizeResponse: true, responseType: 'html', options: {} }), {});
		expect(run.status).toBe('error');
		expect(run.nodeErrorOf('HTTP')?.message).toBe('Expected Response Type "html" is not supported by Resilient HTTP Request: nothing was sent (item 0)');
		expect(api.requests).toHaveLength(0);
	});

	it('is ignored when the node is not a tool (the parameters show only on the tool)', async () => {
		const api = await server(() => ({ body: { records: [{ id: 1 }] } }));
		const runtime = createVirtualRuntime();
		const workflow = httpWorkflow({ method: 'GET', url: api.url, optimizeResponse: true, dataField: 'records', options: {} });
		const run = await runWorkflow(workflow, { nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, new MemoryStateStore()), [ITEMS_SOURCE]: itemsSource([{ json: {} }]) } });
		expect(run.jsonOf('OK')).toEqual([expect.objectContaining({ records: [{ id: 1 }], _retry: expect.objectContaining({ attempts: 1 }) })]);
	});
});

describe('a failure, as the model reads it', () => {
	/** Always 429 for an hour; the body echoes the request's headers, the API key among them. */
	const limited = () => server((request) => ({ status: 429, headers: { 'retry-after': '3600' }, body: { error: 'rate limited', echo: request.headers } }));

	it('the node error is the short account: status, attempts, requested wait; no story, no credential', async () => {
		const api = await limited();
		const run = await runTool(toolWorkflow({ method: 'GET', url: `${api.url}/weather?units=metric`, maxAttempts: 3, options: {} }, { headerAuth: true }), {});
		expect(run.status).toBe('error');
		expect(api.requests).toHaveLength(1);
		expect(api.requests[0].headers['x-api-key']).toBe(API_KEY);
		const error = run.nodeErrorOf('HTTP')!;
		expect(error.message).toMatch(new RegExp(`^GET ${api.url}/weather failed: HTTP 429 Too Many Requests, 1 of 3 attempts in \\d+ ms\\. `));
		expect(error.message).toContain('The server asked to retry after 3600 s (at ');
		expect(error.message).toContain('do not call this tool again before then.');
		expect(error.message).toContain('"error":"rate limited"');
		expect(error.message).not.toContain(API_KEY);
		expect(error.message).toContain('[redacted]');
		expect(error.description ?? undefined).toBeUndefined();
		expect(JSON.stringify(run.run.data)).not.toContain(API_KEY);
	});

	it('with On Error: continue, the answer is an item with the account as fields', async () => {
		const api = await limited();
		const run = await runTool(toolWorkflow({ method: 'GET', url: api.url, maxAttempts: 3, options: {} }, { onError: 'continueRegularOutput', headerAuth: true }), { city: 'Paris' });
		expect(run.status).toBe('success');
		const [item] = run.jsonOf('OK');
		expect(item.city).toBe('Paris');
		expect(item.error).toMatchObject({ status: 429, statusText: 'Too Many Requests', attempts: 1, maxAttempts: 3, reason: 'retry-after-too-long', retryAfterSeconds: 3600 });
		expect(String((item.error as IDataObject).error)).toContain('HTTP 429');
		expect(JSON.stringify(item)).not.toContain(API_KEY);
		expect(item).not.toHaveProperty('_retry');
	});

	it('a server error retried to the end: every attempt counted', async () => {
		const api = await server(() => ({ status: 503, body: { error: 'down' } }));
		const run = await runTool(toolWorkflow({ method: 'GET', url: api.url, maxAttempts: 3, options: {} }), {});
		expect(api.requests).toHaveLength(3);
		expect(run.nodeErrorOf('HTTP')?.message).toMatch(/HTTP 503 Service Unavailable, 3 of 3 attempts in .*Gave up after 3 attempts.*The service is failing or overloaded: try again later\./);
	});
});

/**
 * Agent V1/V2's way of calling a tool: the agent asks n8n-core for its ai_tool connection
 * (getInputConnectionData, which wraps the node in createNodeAsTool and runs it through
 * makeHandleToolInvocation with isToolExecution() true), and LangChain's AgentExecutor turns a
 * tool that throws into an empty observation. This agent does the same and outputs what the model
 * would read.
 */
describe('called by Agent V1/V2 (n8n-core runs the node as a LangChain tool)', () => {
	const AGENT = 'engine-test.langChainAgent';
	const TOOL = `${RESILIENT_HTTP}Tool`;

	function langChainAgent(args: IDataObject): INodeType {
		return {
			description: {
				displayName: 'Agent',
				name: 'langChainAgent',
				group: ['transform'],
				version: 1,
				description: 'Calls its tool once, as LangChain AgentExecutor does',
				defaults: { name: 'Agent' },
				inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tool' }],
				outputs: [NodeConnectionTypes.Main],
				properties: [],
			},
			async execute(this: IExecuteFunctions) {
				const connected = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as unknown;
				const [tool] = (Array.isArray(connected) ? connected : [connected]) as Array<{ invoke(input: IDataObject): Promise<unknown> }>;
				let observation: unknown;
				try {
					observation = await tool.invoke(args);
				} catch {
					// AgentExecutor: anything but a tool input parsing error is an empty observation
					observation = undefined;
				}
				return [[{ json: { observation: (observation ?? '') as string } }]];
			},
		};
	}

	/** The tool variant as n8n builds it (convertNodeToAiTool): no inputs, one ai_tool output. */
	function legacyToolType(runtime: Runtime): INodeType {
		const type = toolType(runtime);
		return { ...type, description: { ...type.description, inputs: [], outputs: [NodeConnectionTypes.AiTool] } };
	}

	async function runAgent(parameters: IDataObject, args: IDataObject, agentType = AGENT): Promise<WorkflowRunResult> {
		const workflow: WorkflowJson = {
			nodes: [
				{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: 'agent', name: 'Agent', type: agentType, typeVersion: 1, position: [200, 0], parameters: {} },
				{
					id: 'tool',
					name: 'Weather',
					type: TOOL,
					typeVersion: 1,
					position: [200, 200],
					parameters: { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', ...parameters } as INode['parameters'],
					credentials: { httpHeaderAuth: { id: '1', name: 'key' } },
				},
			],
			connections: {
				Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
				Weather: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
			},
		};
		return await runWorkflow(workflow, {
			nodeTypes: { [TOOL]: legacyToolType(createVirtualRuntime()), [agentType]: langChainAgent(args) },
			credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: API_KEY } },
		});
	}

	it('a failed request answers the model with the account, where a thrown error would reach it empty', async () => {
		const api = await server((request) => ({ status: 429, headers: { 'retry-after': '3600' }, body: { error: 'rate limited', echo: request.headers } }));
		const run = await runAgent({ method: 'GET', url: `={{ "${api.url}/weather/" + $fromAI("city", "the city", "string") }}`, maxAttempts: 3, options: {} }, { city: 'Paris' });
		expect(run.status).toBe('success');
		expect(api.requests.map((r) => r.url)).toEqual(['/weather/Paris']);
		const [{ observation }] = run.jsonOf('Agent');
		const answer = JSON.parse(String(observation)) as IDataObject[];
		expect(answer).toHaveLength(1);
		expect(answer[0].error).toMatchObject({ status: 429, statusText: 'Too Many Requests', attempts: 1, maxAttempts: 3, reason: 'retry-after-too-long', retryAfterSeconds: 3600 });
		expect(String((answer[0].error as IDataObject).error)).toMatch(new RegExp(`^GET ${api.url}/weather/Paris failed: HTTP 429 Too Many Requests, 1 of 3 attempts`));
		expect(String(observation)).toContain('do not call this tool again before then.');
		expect(String(observation)).not.toContain(API_KEY);
		expect(String(observation)).not.toContain('history');
		expect(JSON.stringify(run.run.data)).not.toContain(API_KEY);
	});

	it('a bad parameter answers the model with its message too, before any request', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const run = await runAgent({ method: 'GET', url: `${api.url}/weather`, maxAttempts: 0, options: {} }, {});
		expect(run.status).toBe('success');
		expect(api.requests).toHaveLength(0);
		const [{ observation }] = run.jsonOf('Agent');
		const [item] = JSON.parse(String(observation)) as IDataObject[];
		expect(String((item.error as IDataObject).message)).toMatch(/Max Attempts/);
	});

	it("the MCP Server Trigger, which reports a tool's thrown error to its client, still gets the error thrown", async () => {
		const api = await server(() => ({ status: 429, headers: { 'retry-after': '3600' }, body: { error: 'rate limited' } }));
		const run = await runAgent({ method: 'GET', url: `${api.url}/weather`, maxAttempts: 3, options: {} }, {}, '@n8n/n8n-nodes-langchain.mcpTrigger');
		expect(api.requests).toHaveLength(1);
		// this caller's catch stands for the trigger's: the tool threw
		expect(run.jsonOf('Agent')).toEqual([{ observation: '' }]);
		expect(run.nodeErrorOf('Weather')?.message).toMatch(/^GET .* failed: HTTP 429 Too Many Requests/);
	});

	it('a success is the response, as in every agent', async () => {
		const api = await server(() => ({ status: 200, body: { city: 'Paris', temperature: 21.5 } }));
		const run = await runAgent({ method: 'GET', url: `${api.url}/weather`, options: {} }, {});
		const [{ observation }] = run.jsonOf('Agent');
		expect(JSON.parse(String(observation))).toEqual([{ city: 'Paris', temperature: 21.5 }]);
	});
});
