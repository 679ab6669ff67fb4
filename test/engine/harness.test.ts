/**
 * Proves the engine harness: real n8n-core WorkflowExecute, real n8n-nodes-base nodes, HTTP via
 * nock and via a real local server, credentials, the error output, cancellation and waiting.
 */
import type { INode, INodeParameters, IConnections } from 'n8n-workflow';
import nock from 'nock';

import { runWorkflow, startWorkflow } from './harness';
import type { WorkflowJson } from './harness';
import { startLocalServer } from './local-server';
import type { LocalServer } from './local-server';
import {
	AuthRequestProbe,
	BinaryProbe,
	BinaryReadProbe,
	createCancelProbe,
	ErrorShapeProbe,
	PROBE_PREFIX,
	ThrowApiErrorProbe,
} from './support/probe-nodes';
import type { CancelObservation } from './support/probe-nodes';

const API = 'https://api.example.test';

function node(name: string, type: string, typeVersion: number, parameters: INodeParameters = {}, extra: Partial<INode> = {}): INode {
	return { id: name, name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

const trigger = node('Start', 'n8n-nodes-base.manualTrigger', 1);

/** Connects the nodes in a line through main output 0. */
function linear(...nodes: INode[]): WorkflowJson {
	const connections: IConnections = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { nodes, connections };
}

function httpRequest(name: string, parameters: INodeParameters, extra: Partial<INode> = {}): INode {
	return node(name, 'n8n-nodes-base.httpRequest', 4.2, { options: {}, ...parameters }, extra);
}

function waitNode(amount: number): INode {
	return node('Wait', 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount, unit: 'seconds' }, { webhookId: 'wait-hook' });
}

beforeAll(() => nock.disableNetConnect());
beforeEach(() => nock.enableNetConnect('127.0.0.1'));
afterEach(() => {
	const pending = nock.pendingMocks();
	nock.cleanAll();
	expect(pending).toEqual([]);
});
// nock patches node's own http module, which Jest shares between the test files of a worker: unpatch it
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

describe('runWorkflow with core nodes', () => {
	test('(a) Manual Trigger -> HTTP Request v4.2 GET returns the JSON body as the item', async () => {
		nock(API).get('/items/42').reply(200, { id: 42, name: 'widget' });

		const run = await runWorkflow(linear(trigger, httpRequest('Get item', { url: `${API}/items/42` })));

		expect(run.status).toBe('success');
		expect(run.error).toBeUndefined();
		expect(run.nodeExecutionOrder).toEqual(['Start', 'Get item']);
		expect(run.runsOf('Get item')).toBe(1);
		expect(run.runsOf('Never there')).toBe(0);
		expect(run.jsonOf('Get item')).toEqual([{ id: 42, name: 'widget' }]);
		expect(() => run.outputOf('Never there')).toThrow(/has no run #0/);
	});

	test('(b) HTTP Request with a generic Header Auth credential sends the header', async () => {
		nock(API, { reqheaders: { 'x-api-key': 'secret' } }).get('/private').reply(200, { ok: true });

		const run = await runWorkflow(
			linear(
				trigger,
				httpRequest(
					'Private',
					{ url: `${API}/private`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' },
					{ credentials: { httpHeaderAuth: { id: '1', name: 'Header Auth account' } } },
				),
			),
			{ credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'secret' } } },
		);

		expect(run.status).toBe('success');
		expect(run.jsonOf('Private')).toEqual([{ ok: true }]);
	});

	test('(c) onError=continueErrorOutput routes a 503 item to output 1', async () => {
		nock(API).get('/flaky').reply(503, { message: 'try later' });
		const workflow: WorkflowJson = {
			nodes: [
				trigger,
				httpRequest('Flaky', { url: `${API}/flaky` }, { onError: 'continueErrorOutput' }),
				node('On success', 'n8n-nodes-base.noOp', 1),
				node('On error', 'n8n-nodes-base.noOp', 1),
			],
			connections: {
				Start: { main: [[{ node: 'Flaky', type: 'main', index: 0 }]] },
				Flaky: {
					main: [[{ node: 'On success', type: 'main', index: 0 }], [{ node: 'On error', type: 'main', index: 0 }]],
				},
			},
		};

		const run = await runWorkflow(workflow);

		expect(run.status).toBe('success');
		expect(run.outputOf('Flaky', 0)).toEqual([]);
		expect(run.runsOf('On success')).toBe(0);
		const [errorItem] = run.outputOf('Flaky', 1);
		/*
		 * What the error item carries (core HTTP Request v4.2, n8n 2.41, 503 with a JSON body):
		 *   item = { json: { error }, pairedItem: { item: 0 } }; `item.error` is NOT set.
		 *   `error` is the live AxiosError thrown by n8n's legacy request helper (the node only strips
		 *   circular references). Own properties:
		 *     message:    '503 - ' + JSON.stringify(rawBody)       (status + raw body, quoted)
		 *     name:       'AxiosError'
		 *     code:       'ERR_BAD_RESPONSE'
		 *     status:     503, statusCode: 503
		 *     error:      '{"message":"try later"}'               (raw response body text)
		 *     response:   { status: 503, statusText, headers }     (no body)
		 *     options:    { url, method, data, headers }           (the request that failed)
		 *     config, request, isAxiosError, stack
		 *   Once serialised (AxiosError#toJSON, i.e. what n8n stores and the UI shows) only
		 *   { message, name, stack, code, status } remain.
		 * It went to output 1 because its json has no key besides `error` (see the routing test below).
		 */
		expect(errorItem.json).toEqual({
			error: expect.objectContaining({
				name: 'AxiosError',
				// `503 - ` + the body JSON-encoded once more: 503 - "{\"message\":\"try later\"}"
				message: `503 - ${JSON.stringify('{"message":"try later"}')}`,
				status: 503,
				statusCode: 503,
				error: '{"message":"try later"}',
			}),
		});
		expect(errorItem.error).toBeUndefined();
		expect(errorItem.pairedItem).toEqual({ item: 0 });
		expect(run.jsonOf('On error')).toHaveLength(1);
		// The node run itself is not marked as failed: the error only lives in the item.
		expect(run.nodeErrorOf('Flaky')).toBeUndefined();
	});
});

describe('cancellation and waiting', () => {
	test('(d) cancelling an in-process 30 s Wait ends the run as canceled', async () => {
		const controller = new AbortController();
		let abortedDuringTheRun = false;
		// the Wait would last as long as the test's timeout: only the cancellation can end the run in time
		setTimeout(() => {
			abortedDuringTheRun = true;
			controller.abort();
		}, 200);

		const run = await runWorkflow(linear(trigger, waitNode(30), node('After', 'n8n-nodes-base.noOp', 1)), {
			signal: controller.signal,
		});

		// ended by the abort, not before it
		expect(abortedDuringTheRun).toBe(true);
		expect(run.status).toBe('canceled');
		expect(run.error?.name).toMatch(/Cancelled/);
		expect(run.runsOf('After')).toBe(0);
	});

	test('nodes see this.getExecutionCancelSignal() abort on cancel()', async () => {
		const observations: CancelObservation[] = [];
		const running = startWorkflow(linear(trigger, node('Probe', `${PROBE_PREFIX}cancelProbe`, 1)), {
			nodeTypes: { [`${PROBE_PREFIX}cancelProbe`]: createCancelProbe(observations) },
		});
		setTimeout(() => running.cancel(), 100);

		const run = await running.result;

		expect(run.status).toBe('canceled');
		expect(observations).toHaveLength(1);
		// the node's cancellation handler ended its 10 s wait, not the wait's own timer
		expect(observations[0]).toMatchObject({ abortedBefore: false, abortedAfter: true, endedBy: 'cancellation' });
	});

	test('cancelAfterMs cancels without a signal', async () => {
		const run = await runWorkflow(linear(trigger, waitNode(30), node('After', 'n8n-nodes-base.noOp', 1)), { cancelAfterMs: 50 });
		expect(run.status).toBe('canceled');
		expect(run.error?.name).toMatch(/Cancelled/);
		expect(run.runsOf('After')).toBe(0);
	});

	test('(e) a Wait longer than 65 s puts the execution into waiting', async () => {
		const before = Date.now();
		const run = await runWorkflow(linear(trigger, waitNode(120), node('After', 'n8n-nodes-base.noOp', 1)));
		const after = Date.now();

		expect(run.status).toBe('waiting');
		expect(run.isWaiting).toBe(true);
		expect(run.waitTill).toBeInstanceOf(Date);
		// 120 s from when the Wait node ran, which was during the run
		const waitTill = (run.waitTill as Date).getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 120_000);
		expect(waitTill).toBeLessThanOrEqual(after + 120_000);
		expect(run.runsOf('Wait')).toBe(1);
		expect(run.runsOf('After')).toBe(0);
	});
});

describe('custom node types, credentials, binary data and a real local server', () => {
	let server: LocalServer;

	beforeEach(async () => {
		server = await startLocalServer((request) => ({ status: 200, body: { path: request.url } }));
	});
	afterEach(async () => await server.close());

	test('httpRequestWithAuthentication applies a generic credential and swaps in the execution signal', async () => {
		const type = `${PROBE_PREFIX}authRequestProbe`;
		const run = await runWorkflow(
			linear(
				trigger,
				node('Auth probe', type, 1, { url: `${server.url}/me` }, {
					credentials: { httpHeaderAuth: { id: '1', name: 'Header Auth account' } },
				}),
			),
			{ nodeTypes: { [type]: new AuthRequestProbe() }, credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 's3cret' } } },
		);

		expect(run.status).toBe('success');
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0].headers['x-api-key']).toBe('s3cret');
		// n8n-core overwrites requestOptions.abortSignal with the execution cancel signal.
		expect(run.jsonOf('Auth probe')).toEqual([
			{ body: { path: '/me' }, ownSignalKept: false, executionSignalUsed: true },
		]);
	});

	test('core HTTP Request POST against a server that drops the connection after reading the body', async () => {
		await server.close();
		server = await startLocalServer(() => ({ drop: true }));

		const run = await runWorkflow(
			linear(
				trigger,
				httpRequest('Create order', {
					method: 'POST',
					url: `${server.url}/orders`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '{"orderId":"A-1"}',
				}),
			),
		);

		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/orders', body: '{"orderId":"A-1"}' });
		expect(run.status).toBe('error');
		// Run data holds a plain copy of the NodeApiError's own enumerable fields: name, message,
		// httpCode, messages, context ({ itemIndex, request }), node, level, timestamp, stack...
		expect(run.nodeErrorOf('Create order')).toMatchObject({
			name: 'NodeApiError',
			httpCode: 'ECONNRESET',
			messages: expect.arrayContaining(['socket hang up']),
			message: expect.stringMatching(/connection to the server was closed unexpectedly/),
		});
		expect(run.error).toMatchObject({ name: 'NodeApiError', httpCode: 'ECONNRESET' });
	});

	test('cancelling during a request to a hanging server aborts the request', async () => {
		await server.close();
		server = await startLocalServer(() => ({ hang: true }));
		const type = `${PROBE_PREFIX}authRequestProbe`;

		const run = await runWorkflow(
			linear(
				trigger,
				node('Auth probe', type, 1, { url: `${server.url}/slow` }, {
					credentials: { httpHeaderAuth: { id: '1', name: 'Header Auth account' } },
				}),
			),
			{
				nodeTypes: { [type]: new AuthRequestProbe() },
				credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 's3cret' } },
				cancelAfterMs: 150,
			},
		);

		// the server never answers: only the cancellation ends the run
		expect(server.requests).toHaveLength(1);
		// The aborted request rejects with axios' CanceledError, which httpRequestWithAuthentication
		// wraps in a NodeApiError; the engine reports the run as canceled only because that error's
		// message contains "canceled" (WorkflowExecute.processSuccessExecution). A node that
		// rethrows its own error with another message turns a cancellation into status 'error'.
		expect(run.status).toBe('canceled');
		expect(run.error).toMatchObject({ name: 'NodeApiError', message: 'canceled', httpCode: 'ERR_CANCELED' });
	});

	test('prepareBinaryData and getBinaryDataBuffer work in memory', async () => {
		const workflow = linear(
			trigger,
			node('Set text', 'n8n-nodes-base.set', 3.4, {
				assignments: { assignments: [{ id: 'a', name: 'text', value: 'hello binary', type: 'string' }] },
				options: {},
			}),
			node('Write', `${PROBE_PREFIX}binaryProbe`, 1),
			node('Read', `${PROBE_PREFIX}binaryReadProbe`, 1),
		);

		const run = await runWorkflow(workflow, {
			nodeTypes: {
				[`${PROBE_PREFIX}binaryProbe`]: new BinaryProbe(),
				[`${PROBE_PREFIX}binaryReadProbe`]: new BinaryReadProbe(),
			},
		});

		expect(run.status).toBe('success');
		const [written] = run.outputOf('Write');
		expect(written.binary?.data).toMatchObject({ mimeType: 'text/plain', fileName: 'probe.txt' });
		expect(Buffer.from(written.binary?.data.data ?? '', 'base64').toString()).toBe('hello binary');
		expect(run.jsonOf('Read')).toEqual([{ readBack: 'hello binary' }]);
	});

	test('a node throwing NodeApiError fails the execution with that error', async () => {
		const type = `${PROBE_PREFIX}throwApiErrorProbe`;
		const run = await runWorkflow(linear(trigger, node('Thrower', type, 1)), {
			nodeTypes: { [type]: new ThrowApiErrorProbe() },
		});

		expect(run.status).toBe('error');
		expect(run.error).toMatchObject({ name: 'NodeApiError', httpCode: '503', message: 'The service was not available' });
		expect(run.nodeErrorOf('Thrower')).toMatchObject({ name: 'NodeApiError', description: 'Gave up after 3 attempts' });
		expect(run.outputOf('Thrower')).toEqual([]);
	});
});

describe('error output routing (what a node author must know)', () => {
	/*
	 * WorkflowExecute.handleNodeErrorOutput, for onError=continueErrorOutput: an item goes to the
	 * error output if `item.error` is set, or if `json.error` is truthy AND every json key is one of
	 * error/message/details. Error items are then merged over their paired input item's json.
	 * Afterwards normalizeNodeErrors replaces the json of every item with `item.error` set by
	 * { error: item.error.message }, dropping everything else in it.
	 */
	test('where each output shape lands and what its json becomes', async () => {
		const type = `${PROBE_PREFIX}errorShapeProbe`;
		const workflow: WorkflowJson = {
			nodes: [trigger, node('Shapes', type, 1, {}, { onError: 'continueErrorOutput' })],
			connections: { Start: { main: [[{ node: 'Shapes', type: 'main', index: 0 }]] } },
		};
		const variants = ['onlyErrorKeys', 'errorPlusOtherKeys', 'itemErrorField', 'success'];

		const run = await runWorkflow(workflow, {
			nodeTypes: { [type]: new ErrorShapeProbe() },
			// Outside 'manual' mode a trigger passes the given items through.
			mode: 'trigger',
			triggerItems: variants.map((variant, index) => ({ json: { variant, orderId: index } })),
		});

		expect(run.status).toBe('success');
		expect(run.jsonOf('Shapes', 0)).toEqual([{ error: 'boom', attempts: 3 }, { ok: true }]);
		expect(run.jsonOf('Shapes', 1)).toEqual([
			{ variant: 'onlyErrorKeys', orderId: 0, error: 'boom', message: 'failed', details: { attempts: 3 } },
			{ error: 'Gave up' },
		]);
	});

	test('a node that throws while onError=continueErrorOutput sends its input down output 0', async () => {
		const type = `${PROBE_PREFIX}throwApiErrorProbe`;
		const workflow: WorkflowJson = {
			nodes: [
				trigger,
				node('Thrower', type, 1, {}, { onError: 'continueErrorOutput' }),
				node('OK', 'n8n-nodes-base.noOp', 1),
				node('Failed', 'n8n-nodes-base.noOp', 1),
			],
			connections: {
				Start: { main: [[{ node: 'Thrower', type: 'main', index: 0 }]] },
				Thrower: { main: [[{ node: 'OK', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
			},
		};

		const run = await runWorkflow(workflow, {
			nodeTypes: { [type]: new ThrowApiErrorProbe() },
			mode: 'trigger',
			triggerItems: [{ json: { orderId: 'A-1' } }],
		});

		// handleNodeExecutionError passes the node's *input* items on output 0 and only records the
		// error on the task: error routing applies to items a node returns, never to a throw. A node
		// must catch and emit error items itself when this.continueOnFail() is true.
		expect(run.status).toBe('success');
		expect(run.nodeErrorOf('Thrower')).toMatchObject({ name: 'NodeApiError', message: 'The service was not available' });
		expect(run.jsonOf('Thrower', 0)).toEqual([{ orderId: 'A-1' }]);
		expect(run.outputOf('Thrower', 1)).toEqual([]);
		expect(run.runsOf('OK')).toBe(1);
		expect(run.runsOf('Failed')).toBe(0);

		// And if that node is the last one to run, its error still becomes the execution's error.
		const alone = await runWorkflow(linear(trigger, node('Thrower', type, 1, {}, { onError: 'continueErrorOutput' })), {
			nodeTypes: { [type]: new ThrowApiErrorProbe() },
		});
		expect(alone.status).toBe('error');
	});
});
