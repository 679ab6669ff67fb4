/**
 * The two nodes under comparison and the runs around them: n8n's HTTP Request 4.2 (with its node
 * setting Retry On Fail) and Resilient HTTP Request, each in Start -> Items -> HTTP, executed by
 * n8n-core's WorkflowExecute (test/engine/harness.ts).
 */
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { ResilientHttpRequest } from '../../nodes/ResilientHttpRequest/ResilientHttpRequest.node';
import { systemRuntime, type Runtime } from '../../nodes/shared/core/runtime';
import type { StateStore } from '../../nodes/shared/core/traffic/store';
import { runWorkflow, type WorkflowJson, type WorkflowRunResult } from '../engine/harness';
import { seededRandom } from '../engine/virtual-runtime';
import { itemsSource, ITEMS_SOURCE, RESILIENT_HTTP, withStoryOnEveryItem } from '../engine/workflow-builders';

/** Retry On Fail as n8n's node settings hold it; n8n allows at most 5 tries and 5000 ms. */
export interface RetryOnFail {
	maxTries: number;
	waitBetweenTries: number;
}
export const RETRY_ON_FAIL_DEFAULT: RetryOnFail = { maxTries: 3, waitBetweenTries: 1000 };
export const RETRY_ON_FAIL_MAX: RetryOnFail = { maxTries: 5, waitBetweenTries: 5000 };

/**
 * An URL expression whose last segment is `<prefix>-<n>` (n: the item's number): the upstream
 * counts and logs per last segment, so every item of every strategy is its own key.
 */
export const perItemUrl = (base: string, prefix: string) => `={{ "${base}/${prefix}-" + $json.n }}`;

/** The key the upstream logs for item n of `prefix`. */
export const itemKey = (prefix: string, n: number) => `${prefix}-${n}`;

/** No run of the benchmark may take longer by default: a stuck run is cancelled and counts as failed. */
export const RUN_LIMIT_MS = 120_000;

/**
 * n8n's HTTP Request. By default the node stops the workflow on error, as most Retry On Fail users
 * have it. With `onError` (continueErrorOutput), n8n's engine still re-runs the whole node while
 * the first item of its output is an error (WorkflowExecute's Retry On Fail loop checks
 * `data[0][0].json.error` before the error output is split off), and not when the first item
 * succeeded: then the failed items go to the error output without a retry.
 */
export function coreHttp(url: string, retry: RetryOnFail | undefined, method = 'GET', onError?: INode['onError']): INode {
	return {
		id: 'h',
		name: 'HTTP',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [200, 0],
		parameters: { method, url, options: {} },
		...(retry ? { retryOnFail: true, maxTries: retry.maxTries, waitBetweenTries: retry.waitBetweenTries } : {}),
		...(onError ? { onError } : {}),
	};
}

/**
 * Resilient HTTP Request with its defaults plus `parameters`. By default it stops the workflow on
 * error like the core node above; `onError` lets failed items go on (to count who succeeded).
 */
export function resilientHttp(url: string, parameters: IDataObject = {}, onError?: INode['onError']): INode {
	// the scenarios read each item's story (waits, attempts): Retry Story On Every Item, as before it became a choice
	return { id: 'h', name: 'HTTP', type: RESILIENT_HTTP, typeVersion: 1, position: [200, 0], parameters: withStoryOnEveryItem({ url, ...parameters }) as INode['parameters'], ...(onError ? { onError } : {}) };
}

export function benchWorkflow(id: string, http: INode): WorkflowJson {
	return {
		id,
		nodes: [
			{ id: 's', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'i', name: 'Items', type: ITEMS_SOURCE, typeVersion: 1, position: [100, 0], parameters: {} },
			http,
		],
		connections: { Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] }, Items: { main: [[{ node: 'HTTP', type: 'main', index: 0 }]] } },
	};
}

/** The real clock and sleeper with a seeded random source: real time, reproducible jitter. */
export function realTimeRuntime(seed: number): Runtime {
	return { ...systemRuntime, random: seededRandom(seed) };
}

export interface NodeUnderTest {
	runtime: Runtime;
	store: StateStore;
}

export const items = (from: number, count: number): INodeExecutionData[] => Array.from({ length: count }, (_, k) => ({ json: { n: from + k } }));

/** One execution of the workflow with these items; `resilient` wires the node's runtime and store. */
export async function runOnce(workflow: WorkflowJson, input: INodeExecutionData[], resilient?: NodeUnderTest, limitMs = RUN_LIMIT_MS): Promise<WorkflowRunResult> {
	return await runWorkflow(workflow, {
		cancelAfterMs: limitMs,
		nodeTypes: {
			[ITEMS_SOURCE]: itemsSource(input),
			...(resilient ? { [RESILIENT_HTTP]: new ResilientHttpRequest(resilient.runtime, resilient.store) } : {}),
		},
	});
}

export interface FleetExecution {
	n: number;
	succeeded: boolean;
	/** From the fleet's start to this execution's end. */
	completedMs: number;
	/** The HTTP node's output items (none when the execution failed). */
	output: INodeExecutionData[];
	/** Why the execution failed, when it did. */
	error?: string;
}

/**
 * `size` executions of the same workflow at once, one item each (item n). All start in the same
 * turn of the event loop; `completedMs` counts from then. With `resilient`, every execution gets
 * its own node instance over the same runtime and store: the executions of one n8n process share
 * its memory store, and so each API's traffic controller.
 */
export async function runFleet(size: number, workflow: WorkflowJson, resilient?: NodeUnderTest): Promise<{ startedAt: number; executions: FleetExecution[] }> {
	const startedAt = Date.now();
	const executions = await Promise.all(
		Array.from({ length: size }, async (_, n) => {
			const run = await runOnce(workflow, items(n, 1), resilient);
			const succeeded = run.status === 'success';
			return { n, succeeded, completedMs: Date.now() - startedAt, output: succeeded ? run.outputOf('HTTP') : [], ...(succeeded ? {} : { error: run.error?.message ?? run.status }) };
		}),
	);
	return { startedAt, executions };
}
