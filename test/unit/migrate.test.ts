/** The migrate command: rewriting HTTP Request nodes, and the files it reads and writes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatReport, main } from '../../cli/main';
import { migratePath, outputPathOf } from '../../cli/migrate-files';
import { HTTP_REQUEST_TYPE, RESILIENT_TOOL_TYPE, RESILIENT_TYPE, migrateWorkflow, type WorkflowNode } from '../../cli/migrate-workflow';

const http = (name: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}): WorkflowNode => ({ id: `id-${name}`, name, type: HTTP_REQUEST_TYPE, typeVersion: 4.2, position: [100, 200], parameters, ...extra });
const workflowOf = (...nodes: WorkflowNode[]) => ({
	id: 'wf1',
	name: 'Orders',
	nodes: [{ id: 't', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, ...nodes],
	connections: { Start: { main: [[{ node: nodes[0]?.name ?? 'Start', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	pinData: {},
});
const only = (result: ReturnType<typeof migrateWorkflow>, name: string) => ({ node: result.workflow.nodes.find((n) => n.name === name) as WorkflowNode, report: result.nodes.find((r) => r.node === name) });

describe('migrateWorkflow', () => {
	it('turns an HTTP Request node into a Resilient HTTP Request node with the same parameters, credentials and settings', () => {
		const node = http(
			'Get orders',
			{ method: 'GET', url: 'https://api.example.com/orders', authentication: 'predefinedCredentialType', nodeCredentialType: 'stripeApi', sendQuery: true, queryParameters: { parameters: [{ name: 'limit', value: '10' }] }, options: { timeout: 10000 } },
			{ credentials: { stripeApi: { id: 'c1', name: 'Stripe' } }, onError: 'continueErrorOutput', notes: 'keep me', alwaysOutputData: true },
		);
		const result = migrateWorkflow(workflowOf(node));
		const { node: migrated, report } = only(result, 'Get orders');
		expect(migrated).toEqual({ ...node, type: RESILIENT_TYPE, typeVersion: 1 });
		expect(report).toMatchObject({ action: 'migrated', changes: [`type ${HTTP_REQUEST_TYPE} v4.2 -> ${RESILIENT_TYPE} v1`] });
		// the rest of the workflow is untouched
		expect({ ...result.workflow, nodes: undefined }).toEqual({ ...workflowOf(node), nodes: undefined });
		expect(result.workflow.nodes[0]).toEqual(workflowOf(node).nodes[0]);
		expect(result.notes).toEqual(['the success items of a migrated node are as HTTP Request gives them; an item that fails carries its retry story in error._retry, and the output panel says how many items needed retries (Retry Options > Retry Story: On Every Item puts the story on every item)']);
	});

	it.each([
		[{ retryOnFail: true }, 3, 1000],
		[{ retryOnFail: true, maxTries: 5, waitBetweenTries: 2000 }, 5, 2000],
		[{ retryOnFail: true, maxTries: 9, waitBetweenTries: 9000 }, 5, 5000],
		[{ retryOnFail: true, maxTries: 1, waitBetweenTries: 0 }, 2, 1000],
	])('Retry On Fail %j: turned off; %i tries become Max Attempts, a wait of %i ms Base Delay (as n8n reads them)', (settings, tries, wait) => {
		const { node, report } = only(migrateWorkflow(workflowOf(http('Call', { url: 'https://x.test/' }, settings))), 'Call');
		expect([node.retryOnFail, node.maxTries, node.waitBetweenTries]).toEqual([undefined, undefined, undefined]);
		expect(node.parameters).toMatchObject({ maxAttempts: tries, retryOptions: { baseDelay: wait } });
		expect(report?.changes[1]).toBe(`Retry On Fail turned off; its ${tries} tries became Max Attempts ${tries}, its wait of ${wait} ms Base Delay ${wait} ms (later waits double, with jitter, up to Max Delay)`);
	});

	it('a node without Retry On Fail gets the node\'s retries, and the report says so', () => {
		const { node, report } = only(migrateWorkflow(workflowOf(http('Call', { url: 'https://x.test/' }))), 'Call');
		expect(node.parameters?.maxAttempts).toBeUndefined();
		expect(report?.notes).toContain("retries now: Max Attempts 5 (the node's default) where the node made one attempt; set Max Attempts to 1 for none");
	});

	it('keeps what behaves differently in the notes: cross-origin credentials before v4.4, the attempt timeout, POST without a key, repeated query names before v4.3', () => {
		const node = http('Pay', { method: 'POST', url: 'https://x.test/pay', authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', sendQuery: true, queryParameters: { parameters: [{ name: 'tag', value: 'a' }, { name: 'tag', value: 'b' }] } });
		const { report } = only(migrateWorkflow(workflowOf(node)), 'Pay');
		expect(report?.notes).toEqual([
			"retries now: Max Attempts 5 (the node's default) where the node made one attempt; set Max Attempts to 1 for none",
			'credentials no longer follow a redirect to another origin (HTTP Request before v4.4 sent them): set Options > Send Credentials on Cross-Origin Redirect to keep that',
			'each attempt is bounded by Attempt Timeout (30 s) where HTTP Request waited up to 5 minutes for an answer: raise it for slow APIs (LLMs, reports)',
			'POST is retried only when it provably never reached the server or got a 429: set Idempotency Key (Generate, or From Expression with an id) if the API honours one',
			'query parameters named more than once (tag) are all sent, where HTTP Request before v4.3 sent the last one only',
		]);
		const recent = only(migrateWorkflow(workflowOf({ ...node, typeVersion: 4.4, parameters: { ...node.parameters, method: 'GET' } })), 'Pay').report;
		expect(recent?.notes.some((n) => n.includes('cross-origin') || n.includes('more than once') || n.includes('POST'))).toBe(false);
	});

	it('Batching that paces requests: the note names the rate to set in Traffic Control instead', () => {
		const { node, report } = only(migrateWorkflow(workflowOf(http('Paced', { url: 'https://x.test/', options: { batching: { batch: { batchSize: 10, batchInterval: 2000 } } } }))), 'Paced');
		expect(node.parameters?.options).toEqual({ batching: { batch: { batchSize: 10, batchInterval: 2000 } } });
		expect(report?.notes).toContain(
			'Batching (10 items every 2000 ms) paces this execution only: if it keeps an API\'s rate limit, set Traffic Control > Rate Limit to 5 per second instead, which holds for every execution and worker together, and turn Batching off',
		);
		for (const batch of [{ batchSize: -1, batchInterval: 1000 }, { batchSize: 10, batchInterval: 0 }]) {
			const unpaced = only(migrateWorkflow(workflowOf(http('Unpaced', { url: 'https://x.test/', options: { batching: { batch } } }))), 'Unpaced');
			expect(unpaced.report?.notes.some((n) => n.startsWith('Batching'))).toBe(false);
		}
	});

	it('a Timeout longer than the attempt timeout raises Attempt Timeout to it', () => {
		const { node, report } = only(migrateWorkflow(workflowOf(http('Slow', { url: 'https://x.test/', options: { timeout: 120000 } }))), 'Slow');
		expect(node.parameters).toMatchObject({ options: { timeout: 120000 }, retryOptions: { attemptTimeout: 120000 } });
		expect(report?.changes).toContain("Attempt Timeout set to the node's Timeout, 120000 ms (each attempt must be allowed as long as one request was)");
	});

	it('HTTP Request v3: follows no redirect unless told to, and keeps doing so', () => {
		const { node, report } = only(migrateWorkflow(workflowOf({ ...http('Old', { url: 'https://x.test/' }), typeVersion: 3 })), 'Old');
		expect(node.parameters?.options).toEqual({ redirect: { redirect: { followRedirects: false } } });
		expect(report?.changes).toContain('Options > Redirects > Follow Redirects set to off, as HTTP Request v3 did by default');
		const told = only(migrateWorkflow(workflowOf({ ...http('Old', { url: 'https://x.test/', options: { redirect: { redirect: { followRedirects: true } } } }), typeVersion: 3 })), 'Old');
		expect(told.node.parameters?.options).toEqual({ redirect: { redirect: { followRedirects: true } } });
	});

	it.each([
		['a credential type it does not offer', http('Odd', { url: 'https://x.test/', authentication: 'predefinedCredentialType', nodeCredentialType: 'someCommunityApi' }), 'the credential type "someCommunityApi" is not one Resilient HTTP Request offers (it offers the 321 types HTTP Request offers in n8n 2.41.1)'],
		[
			'HTTP Request v1 with a setting it cannot send the same way',
			{ ...http('Ancient', { requestMethod: 'POST', url: 'https://x.test/', bodyParametersUi: { parameter: [{ name: 'a', value: '1' }] }, options: { bodyContentType: 'raw' } }), typeVersion: 1 },
			'HTTP Request v1: Body Content Type RAW/Custom with Body Parameters set in the panel: HTTP Request v1 and v2 cannot send them (an object is no raw body)',
		],
		['the LangChain HTTP Request Tool', { ...http('Old tool', { url: 'https://x.test/', placeholderDefinitions: {} }), type: '@n8n/n8n-nodes-langchain.toolHttpRequest', typeVersion: 1.1 }, "the LangChain HTTP Request Tool (v1, with placeholders) has other parameters: replace it by n8n's current HTTP Request Tool, then migrate"],
		[
			'an HTTP Request Tool optimizing HTML',
			{ ...http('Page tool', { url: 'https://x.test/', optimizeResponse: true, responseType: 'html' }), type: 'n8n-nodes-base.httpRequestTool' },
			'Optimize Response with Expected Response Type "html": Resilient HTTP Request Tool optimizes JSON only (HTML and Text need parsers n8n does not lend to community nodes)',
		],
	])('%s: the node is kept as it is, and the report says why', (_label, node, why) => {
		const result = migrateWorkflow(workflowOf(node));
		expect(result.workflow.nodes[1]).toEqual(node);
		expect(result.nodes).toEqual([{ node: node.name, action: 'kept', changes: [why], notes: [] }]);
		expect(result.notes).toEqual([]);
	});

	it.each([
		['Response Contains Next URL', { paginationMode: 'responseContainsNextURL', nextURL: '={{ $response.body.next }}' }],
		['its default mode (Update a Parameter in Each Request)', { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] } }],
	])('pagination (%s): migrated with its parameters, and a note on what changes', (_label, pagination) => {
		const source = http('P', { url: 'https://x.test/', options: { pagination: { pagination } } });
		const { node, report } = only(migrateWorkflow(workflowOf(source)), 'P');
		expect(report?.action).toBe('migrated');
		expect(node.parameters?.options).toEqual({ pagination: { pagination } });
		expect(report?.notes.some((n) => n.startsWith('pagination: each page is retried on its own'))).toBe(true);
	});

	it("an HTTP Request Tool becomes a Resilient HTTP Request Tool with its description, $fromAI() parameters and Optimize Response", () => {
		const parameters = { toolDescription: 'Gets the weather of a city', url: "=https://x.test/weather/{{ $fromAI('city', 'The city', 'string') }}", optimizeResponse: true, responseType: 'json', dataField: 'data', options: {} };
		const source = { ...http('Weather', parameters, { retryOnFail: true, maxTries: 2 }), type: 'n8n-nodes-base.httpRequestTool' };
		const { node, report } = only(migrateWorkflow(workflowOf(source)), 'Weather');
		expect(node.type).toBe(RESILIENT_TOOL_TYPE);
		expect(node.typeVersion).toBe(1);
		expect(node.parameters).toMatchObject({ ...parameters, maxAttempts: 2 });
		expect(report?.changes[0]).toBe(`type n8n-nodes-base.httpRequestTool v4.2 -> ${RESILIENT_TOOL_TYPE} v1`);
		expect(report?.notes.some((n) => n.startsWith('as a tool the model gets the same answer'))).toBe(true);
	});

	it('pagination set to Off is no pagination: migrated without the note', () => {
		const result = migrateWorkflow(workflowOf(http('P', { url: 'https://x.test/', options: { pagination: { pagination: { paginationMode: 'off' } } } })));
		expect(result.nodes[0].action).toBe('migrated');
		expect(result.nodes[0].notes.some((n) => n.startsWith('pagination'))).toBe(false);
	});
});

describe('migrate files', () => {
	let dir: string;
	beforeEach(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-migrate-'));
	});
	afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
	const write = (name: string, value: unknown) => {
		const file = path.join(dir, name);
		fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
		return file;
	};
	const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;

	it('writes <name>.resilient.json next to the file, and leaves the original as it was', () => {
		const source = write('orders.json', workflowOf(http('Call', { url: 'https://x.test/' })));
		const before = fs.readFileSync(source, 'utf8');
		const [file] = migratePath(source);
		expect(file.output).toBe(path.join(dir, 'orders.resilient.json'));
		expect(outputPathOf(source)).toBe(file.output);
		expect((read(file.output as string) as { nodes: WorkflowNode[] }).nodes[1].type).toBe(RESILIENT_TYPE);
		expect(fs.readFileSync(source, 'utf8')).toBe(before);
	});

	it('never overwrites a result unless forced; a dry run writes nothing', () => {
		const source = write('orders.json', workflowOf(http('Call', { url: 'https://x.test/' })));
		migratePath(source);
		fs.writeFileSync(outputPathOf(source), 'mine');
		expect(() => migratePath(source)).toThrow(`not overwriting ${outputPathOf(source)}: move it away, or pass --force`);
		expect(fs.readFileSync(outputPathOf(source), 'utf8')).toBe('mine');
		migratePath(source, { dryRun: true });
		expect(fs.readFileSync(outputPathOf(source), 'utf8')).toBe('mine');
		migratePath(source, { force: true });
		expect(fs.readFileSync(outputPathOf(source), 'utf8')).not.toBe('mine');
	});

	it('a folder: every workflow file, an array of workflows (export --all) too; other files skipped and said so; earlier results not read again', () => {
		write('a.json', workflowOf(http('A', { url: 'https://x.test/' })));
		write('all.json', [workflowOf(http('B', { url: 'https://x.test/' })), { ...workflowOf(), name: 'Empty' }]);
		write('broken.json', '{ not json');
		write('settings.json', { theme: 'dark' });
		write('nothing.json', workflowOf());
		write('old.resilient.json', workflowOf(http('C', { url: 'https://x.test/' })));
		const files = migratePath(dir);
		expect(files.map((f) => [path.basename(f.source), f.output ? path.basename(f.output) : f.skipped ?? 'no output'])).toEqual([
			['a.json', 'a.resilient.json'],
			['all.json', 'all.resilient.json'],
			['broken.json', expect.stringMatching(/^not valid JSON/)],
			['nothing.json', 'no output'],
			['settings.json', 'not an n8n workflow (no "nodes" and "connections")'],
		]);
		const all = read(path.join(dir, 'all.resilient.json')) as Array<{ nodes: WorkflowNode[] }>;
		expect(all).toHaveLength(2);
		expect(all[0].nodes[1].type).toBe(RESILIENT_TYPE);
		expect(fs.existsSync(path.join(dir, 'old.resilient.resilient.json'))).toBe(false);
	});

	it('main: usage, exit codes, and the report printed', () => {
		const source = write('orders.json', workflowOf(http('Call', { url: 'https://x.test/' }, { retryOnFail: true }), http('Odd', { url: 'https://x.test/', authentication: 'predefinedCredentialType', nodeCredentialType: 'someCommunityApi' })));
		const out: string[] = [];
		const err: string[] = [];
		const run = (...argv: string[]) => main(argv, (t) => out.push(t), (t) => err.push(t));
		expect(run()).toBe(1);
		expect(run('frobnicate', source)).toBe(1);
		expect(err.pop()).toMatch(/^Unknown command "frobnicate"/);
		expect(run('migrate', source, '--overwrite')).toBe(1);
		expect(err.pop()).toMatch(/^Unknown option --overwrite/);
		expect(run('migrate')).toBe(1);
		expect(run('migrate', source)).toBe(0);
		expect(out.pop()).toBe(
			[
				`${source} -> ${path.join(dir, 'orders.resilient.json')}`,
				'  workflow "Orders"',
				'    "Call": migrated',
				`      - type ${HTTP_REQUEST_TYPE} v4.2 -> ${RESILIENT_TYPE} v1`,
				'      - Retry On Fail turned off; its 3 tries became Max Attempts 3, its wait of 1000 ms Base Delay 1000 ms (later waits double, with jitter, up to Max Delay)',
				'      ! each attempt is bounded by Attempt Timeout (30 s) where HTTP Request waited up to 5 minutes for an answer: raise it for slow APIs (LLMs, reports)',
				'    "Odd": kept as it is',
				'      - the credential type "someCommunityApi" is not one Resilient HTTP Request offers (it offers the 321 types HTTP Request offers in n8n 2.41.1)',
				'    ! the success items of a migrated node are as HTTP Request gives them; an item that fails carries its retry story in error._retry, and the output panel says how many items needed retries (Retry Options > Retry Story: On Every Item puts the story on every item)',
			].join('\n'),
		);
		expect(run('migrate', source)).toBe(1);
		expect(err.pop()).toMatch(/^not overwriting/);
		expect(run('migrate', source, '--dry-run')).toBe(0);
		expect(out.pop()).toMatch(/\(dry run: not written\)/);
		expect(run('migrate', path.join(dir, 'missing.json'))).toBe(1);
		expect(err.pop()).toBe(`${path.join(dir, 'missing.json')}: no such file or folder`);
		expect(formatReport([], false)).toBe('');
	});
});
