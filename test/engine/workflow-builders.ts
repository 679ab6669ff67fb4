/** Small builders for engine-test workflows around the Resilient HTTP Request node. */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { BackoffDelay } from '../../nodes/BackoffDelay/BackoffDelay.node';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import type { Runtime } from '../../nodes/shared/core/runtime';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import type { StateStore } from '../../nodes/shared/core/traffic/store';
import { runWorkflow, type RunWorkflowOptions, type WorkflowJson, type WorkflowRunResult } from './harness';

export const RESILIENT_HTTP = 'n8n-nodes-resilient-http.resilientHttpRequest';
export const ITEMS_SOURCE = 'engine-test.itemsSource';

/** Emits the items it was built with: how a test feeds json and binary into the node under test. */
export function itemsSource(items: INodeExecutionData[]): INodeType {
	return {
		description: {
			displayName: 'Items',
			name: 'itemsSource',
			group: ['transform'],
			version: 1,
			description: 'Emits fixed test items',
			defaults: { name: 'Items' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			return [items.map((item) => ({ ...item, pairedItem: { item: 0 }, json: { ...item.json } }))];
		},
	};
}

export interface HttpNodeOptions {
	onError?: INode['onError'];
	credentials?: INode['credentials'];
}

/**
 * The node's parameters with Retry Story On Every Item, unless the test sets it: these tests read
 * what happened to an item in its story, which the default writes on failed items only (the
 * default itself is tested where it is the subject: resilient-http.test.ts, the differential suite).
 */
export function withStoryOnEveryItem(parameters: IDataObject): IDataObject {
	const retryOptions = (parameters.retryOptions ?? {}) as IDataObject;
	return { ...parameters, retryOptions: { retryStory: 'everyItem', ...retryOptions } };
}

/** Start -> Items -> HTTP -> OK (output 0) / Failed (output 1, when the error output is on). */
export function httpWorkflow(parameters: IDataObject, options: HttpNodeOptions = {}): WorkflowJson {
	const http: INode = {
		id: 'http',
		name: 'HTTP',
		type: RESILIENT_HTTP,
		typeVersion: 1,
		position: [200, 0],
		parameters: withStoryOnEveryItem(parameters) as INode['parameters'],
		...(options.onError ? { onError: options.onError } : {}),
		...(options.credentials ? { credentials: options.credentials } : {}),
	};
	const noOp = (name: string, y: number): INode => ({ id: name, name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [400, y], parameters: {} });
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'items', name: 'Items', type: ITEMS_SOURCE, typeVersion: 1, position: [100, 0], parameters: {} },
			http,
			noOp('OK', 0),
			noOp('Failed', 200),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] },
			HTTP: { main: [[{ node: 'OK', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
		},
	};
}

/**
 * Runs the workflow with the given items fed into the HTTP node. Each run gets a fresh state store
 * (budget, breakers) unless the test passes one to share between runs.
 */
export async function runHttp(workflow: WorkflowJson, items: INodeExecutionData[], runtime: Runtime, extra: RunWorkflowOptions & { store?: StateStore } = {}): Promise<WorkflowRunResult> {
	const { store = new MemoryStateStore(), ...options } = extra;
	return await runWorkflow(workflow, {
		nodeTypes: { [RESILIENT_HTTP]: new ResilientHttpRequest(runtime, store), [BACKOFF_DELAY]: new BackoffDelay(runtime), [ITEMS_SOURCE]: itemsSource(items) },
		...options,
	});
}

export const BACKOFF_DELAY = 'n8n-nodes-resilient-http.backoffDelay';

/** A request node for loops: ours with one attempt (the loop retries), or n8n's HTTP Request v4.2. */
export function requestNode(kind: 'resilient' | 'core', parameters: IDataObject): INode {
	return kind === 'resilient'
		? { id: 'http', name: 'HTTP', type: RESILIENT_HTTP, typeVersion: 1, position: [200, 0], parameters: withStoryOnEveryItem({ maxAttempts: 1, ...parameters }) as INode['parameters'], onError: 'continueErrorOutput' }
		: { id: 'http', name: 'HTTP', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [200, 0], parameters: { method: 'GET', options: {}, ...parameters } as INode['parameters'], onError: 'continueErrorOutput' };
}

/**
 * The classic retry loop rebuilt: Items -> HTTP; HTTP error output -> Backoff Delay;
 * Retry -> back to HTTP; Give up -> "Gave up". Successes go to "OK".
 * With `successOutputToBackoff`, HTTP's first output goes to Backoff Delay too (Never Error mode).
 */
export function loopWorkflow(http: INode, backoffParameters: IDataObject, options: { successOutputToBackoff?: boolean } = {}): WorkflowJson {
	const noOp = (name: string, y: number): INode => ({ id: name, name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, y], parameters: {} });
	const backoff: INode = { id: 'backoff', name: 'Backoff', type: BACKOFF_DELAY, typeVersion: 1, position: [400, 200], parameters: backoffParameters as INode['parameters'] };
	const toBackoff = [{ node: 'Backoff', type: 'main' as const, index: 0 }];
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'items', name: 'Items', type: ITEMS_SOURCE, typeVersion: 1, position: [100, 0], parameters: {} },
			http,
			backoff,
			noOp('OK', 0),
			noOp('Gave up', 400),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] },
			HTTP: { main: options.successOutputToBackoff ? [toBackoff] : [[{ node: 'OK', type: 'main', index: 0 }], toBackoff] },
			Backoff: { main: [[{ node: 'HTTP', type: 'main', index: 0 }], [{ node: 'Gave up', type: 'main', index: 0 }]] },
		},
	};
}
