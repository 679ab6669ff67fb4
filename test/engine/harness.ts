/**
 * Runs an n8n workflow JSON in process with n8n-core's WorkflowExecute: no database, no n8n
 * server. The equivalent of n8n's unpublished NodeTestHarness (packages/core/nodes-testing),
 * plus cancellation and waiting support.
 *
 *   const run = await runWorkflow(workflowJson, {
 *     nodeTypes: { 'n8n-nodes-resilient-http.resilientHttpRequest': new ResilientHttpRequest() },
 *     credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'secret' } },
 *   });
 *   expect(run.status).toBe('success');
 *   expect(run.jsonOf('Resilient HTTP')).toEqual([...]);
 *
 * n8n-nodes-base nodes (`n8n-nodes-base.*`) and credential types load lazily on first use.
 */
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ExecutionError,
	ExecutionStatus,
	ICredentialType,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IPinData,
	IRun,
	IRunExecutionData,
	ITaskData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow, createRunExecutionData } from 'n8n-workflow';
import { readFileSync } from 'node:fs';
import type PCancelable from 'p-cancelable';

import { CredentialTypeRegistry, InMemoryCredentialsHelper } from './support/credentials';
import type { InMemoryDataTables } from './support/data-tables';
import type { CredentialDataMap } from './support/credentials';
import { ensureEngineContainer } from './support/engine-container';
import { NodeTypeRegistry } from './support/node-types';

/** The parts of an exported n8n workflow the engine needs. */
export interface WorkflowJson {
	id?: string;
	name?: string;
	nodes: INode[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	pinData?: IPinData;
	staticData?: IDataObject;
}

export interface RunWorkflowOptions {
	/** Node types by full type name, e.g. 'n8n-nodes-resilient-http.resilientHttpRequest'. */
	nodeTypes?: Record<string, INodeType | IVersionedNodeType>;
	/** Decrypted credential data by credential type name, e.g. { httpHeaderAuth: { name, value } }. */
	credentials?: CredentialDataMap;
	/** Credential types not in n8n-nodes-base (e.g. this package's own credentials). */
	credentialTypes?: ICredentialType[];
	/** Name of the node to start from; default: the workflow's trigger (n8n's getStartNode). */
	startNodeName?: string;
	/**
	 * Items fed to the start node. A trigger ignores them in 'manual' mode (the Manual Trigger
	 * emits one empty item itself); in other modes the trigger passes them through.
	 */
	triggerItems?: INodeExecutionData[];
	/** Default 'manual', as when clicking "Execute workflow" (what n8n's own node tests use). */
	mode?: WorkflowExecuteMode;
	/** Aborting this cancels the execution, like the "Stop" button. */
	signal?: AbortSignal;
	/** Cancels the execution this many ms after it started. */
	cancelAfterMs?: number;
	/** n8n's workflow timeout: the engine stops before the next node once this has elapsed. */
	executionTimeoutMs?: number;
	executionId?: string;
	/** Receives what nodes send to the editor (sendMessageToUI: 'sendConsoleMessage'), as n8n's push does. */
	sendDataToUI?: IWorkflowExecuteAdditionalData['sendDataToUI'];
	/** n8n's Data Tables for the Data table node (in memory; shared between runs when the test passes the same one). */
	dataTables?: InMemoryDataTables;
}

export interface WorkflowRunResult {
	/** The IRun WorkflowExecute resolved with. */
	run: IRun;
	status: ExecutionStatus;
	/** The execution-level error (the failing node's error, or the cancellation error). */
	error: ExecutionError | undefined;
	/** Set when a node called `this.putExecutionToWait(date)`; then status is 'waiting'. */
	waitTill: Date | undefined;
	isWaiting: boolean;
	/** Nodes in the order they finished (each run counts once), from the nodeExecuteAfter hook. */
	nodeExecutionOrder: string[];
	durationMs: number;
	/** Items (json + binary) a node emitted on an output. Throws if the node did not run. */
	outputOf(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** Just the `json` of outputOf(...). */
	jsonOf(nodeName: string, outputIndex?: number, runIndex?: number): IDataObject[];
	/** How many times a node ran (0 if never). */
	runsOf(nodeName: string): number;
	/** The raw task data of one node run. Throws if it does not exist. */
	taskOf(nodeName: string, runIndex?: number): ITaskData;
	/**
	 * The error a node run threw. Also set when onError let the workflow continue after the throw;
	 * not set when the node caught the error itself and emitted error items.
	 */
	nodeErrorOf(nodeName: string, runIndex?: number): ExecutionError | undefined;
}

export interface RunningWorkflow {
	executionId: string;
	result: Promise<WorkflowRunResult>;
	/** Stops the execution; `result` still resolves, with status 'canceled'. */
	cancel(): void;
}

let executionCounter = 0;

/** Runs a workflow to completion (or cancellation / waiting) and returns what happened. */
export async function runWorkflow(
	workflowJson: WorkflowJson,
	options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
	return await startWorkflow(workflowJson, options).result;
}

/** Starts a workflow and returns a handle to cancel it while it runs. */
export function startWorkflow(workflowJson: WorkflowJson, options: RunWorkflowOptions = {}): RunningWorkflow {
	ensureEngineContainer();
	const mode = options.mode ?? 'manual';
	const executionId = options.executionId ?? `engine-test-${++executionCounter}`;
	const workflow = buildWorkflow(workflowJson, new NodeTypeRegistry(options.nodeTypes));
	const nodeExecutionOrder: string[] = [];
	const hooks = new ExecutionLifecycleHooks(mode, executionId, toWorkflowBase(workflow));
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		nodeExecutionOrder.push(nodeName);
	});
	const additionalData = buildAdditionalData(executionId, hooks, options);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: findStartNode(workflow, options.startNodeName),
					data: { main: [options.triggerItems ?? [{ json: {} }]] },
					source: null,
				},
			],
		},
		resultData: { pinData: workflowJson.pinData },
	});

	return runExecution(workflow, mode, runExecutionData, additionalData, nodeExecutionOrder, executionId, options);
}

function runExecution(
	workflow: Workflow,
	mode: WorkflowExecuteMode,
	runExecutionData: IRunExecutionData,
	additionalData: IWorkflowExecuteAdditionalData,
	nodeExecutionOrder: string[],
	executionId: string,
	options: RunWorkflowOptions,
): RunningWorkflow {
	const startedAt = performance.now();
	const execution = startExecution(new WorkflowExecute(additionalData, mode, runExecutionData), workflow);
	const stopCancelWiring = wireCancellation(execution, options);
	const result = execution
		.then((run) => toResult(run, nodeExecutionOrder, performance.now() - startedAt))
		.finally(stopCancelWiring);
	return { executionId, result, cancel: () => execution.cancel() };
}

/**
 * n8n's *Retry execution* of a failed run, as n8n 2.41.1 does it (ExecutionService.retry, then
 * WorkflowRunner with the stored data): the run data as stored (through JSON), without the
 * execution's error and without the failed run of the last node, executed again in mode 'retry'
 * from the stored execution stack, so the failed node gets the same input items as before.
 * `workflowJson` is the workflow to retry with: the original or the current one.
 */
export async function retryExecution(workflowJson: WorkflowJson, failed: IRun, options: RunWorkflowOptions = {}): Promise<WorkflowRunResult> {
	ensureEngineContainer();
	const executionId = options.executionId ?? `engine-test-${++executionCounter}`;
	const workflow = buildWorkflow(workflowJson, new NodeTypeRegistry(options.nodeTypes));
	const data = JSON.parse(JSON.stringify(failed.data)) as IRunExecutionData;
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const runs = data.resultData.runData?.[lastNodeExecuted];
		if (runs && runs.length > 0 && runs[runs.length - 1].error !== undefined) runs.pop();
	}
	if (!data.executionData) throw new Error('The failed run has no execution data: n8n cannot retry it either');
	// the stack holds node objects of the failed run; with the current workflow n8n takes its nodes
	for (const entry of data.executionData.nodeExecutionStack) {
		const node = workflow.getNode(entry.node.name);
		if (!node) throw new Error(`Node "${entry.node.name}" is not in the workflow: n8n cannot retry it either`);
		entry.node = node;
	}
	const nodeExecutionOrder: string[] = [];
	const hooks = new ExecutionLifecycleHooks('retry', executionId, toWorkflowBase(workflow));
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		nodeExecutionOrder.push(nodeName);
	});
	const additionalData = buildAdditionalData(executionId, hooks, options);
	return await runExecution(workflow, 'retry', data, additionalData, nodeExecutionOrder, executionId, options).result;
}

/** Reads a workflow exported from n8n (or hand-written) from disk. */
export function readWorkflowFile(filePath: string): WorkflowJson {
	const parsed = JSON.parse(readFileSync(filePath, 'utf8')) as Partial<WorkflowJson>;
	if (!Array.isArray(parsed.nodes) || typeof parsed.connections !== 'object' || !parsed.connections) {
		throw new Error(`${filePath} is not a workflow: it needs "nodes" and "connections"`);
	}
	return parsed as WorkflowJson;
}

function buildWorkflow(json: WorkflowJson, nodeTypes: NodeTypeRegistry): Workflow {
	// The Workflow constructor writes parameter defaults into the node objects: copy the JSON so a
	// test can run the same fixture twice.
	const { id, name, nodes, connections, settings, staticData } = structuredClone(json);
	return new Workflow({
		id: id ?? 'engine-test-workflow',
		name: name ?? 'Engine test workflow',
		nodes,
		connections,
		nodeTypes,
		staticData,
		// Workflows created in the n8n editor default to the v1 execution order.
		settings: settings ?? { executionOrder: 'v1' },
		active: false,
	});
}

function findStartNode(workflow: Workflow, startNodeName: string | undefined): INode {
	const node = startNodeName ? workflow.getNode(startNodeName) : workflow.getStartNode();
	if (!node) {
		throw new Error(
			startNodeName ? `Start node "${startNodeName}" is not in the workflow` : 'The workflow has no start node',
		);
	}
	return node;
}

function toWorkflowBase(workflow: Workflow): IWorkflowBase {
	// Hooks only keep this for reference; the engine never reads more than id/name/nodes/connections.
	return {
		id: workflow.id,
		name: workflow.name ?? '',
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		settings: workflow.settings,
	} as IWorkflowBase;
}

function buildAdditionalData(
	executionId: string,
	hooks: ExecutionLifecycleHooks,
	options: RunWorkflowOptions,
): IWorkflowExecuteAdditionalData {
	const notAvailable = (what: string) => async (): Promise<never> => {
		throw new Error(`${what} is not available in the engine test harness`);
	};
	const credentialsHelper = new InMemoryCredentialsHelper(
		new CredentialTypeRegistry(options.credentialTypes),
		options.credentials ?? {},
	);
	const additionalData: Partial<IWorkflowExecuteAdditionalData> = {
		hooks,
		credentialsHelper,
		executionId,
		currentNodeExecutionIndex: 0,
		executionTimeoutTimestamp:
			options.executionTimeoutMs === undefined ? undefined : Date.now() + options.executionTimeoutMs,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		variables: {},
		logAiEvent: () => {},
		executeWorkflow: notAvailable('Executing sub-workflows'),
		getRunExecutionData: notAvailable('Loading other executions'),
		getRuntimeCredential: notAvailable('Runtime credentials'),
		startRunnerTask: notAvailable('The task runner (Code node)'),
		...(options.sendDataToUI ? { sendDataToUI: options.sendDataToUI } : {}),
		...(options.dataTables?.additionalData() ?? {}),
	};
	// The remaining members (external secrets, OAuth flows...) are optional in practice: n8n-core
	// only touches them for features these tests do not use. Data tables: options.dataTables.
	return additionalData as IWorkflowExecuteAdditionalData;
}

/**
 * WorkflowExecute checks the workflow before starting and throws a generic "workflow has issues"
 * error; surface the actual issues (unknown parameters, missing credentials...).
 */
function startExecution(workflowExecute: WorkflowExecute, workflow: Workflow): PCancelable<IRun> {
	try {
		return workflowExecute.processRunExecutionData(workflow);
	} catch (error) {
		const issues = (error as { issues?: unknown }).issues;
		if (issues === undefined) throw error;
		throw new Error(`${(error as Error).message}\nIssues: ${JSON.stringify(issues, null, 2)}`);
	}
}

/**
 * WorkflowExecute's promise is a PCancelable whose onCancel handler aborts the AbortSignal every
 * node sees as `this.getExecutionCancelSignal()`. It is created with `shouldReject = false`, so
 * after cancel() the promise still resolves once the running node returns, with status 'canceled'.
 */
function wireCancellation(execution: PCancelable<IRun>, options: RunWorkflowOptions): () => void {
	const cancel = () => execution.cancel();
	const { signal, cancelAfterMs } = options;
	if (signal?.aborted) cancel();
	signal?.addEventListener('abort', cancel, { once: true });
	const timer = cancelAfterMs === undefined ? undefined : setTimeout(cancel, cancelAfterMs);
	return () => {
		signal?.removeEventListener('abort', cancel);
		clearTimeout(timer);
	};
}

function toResult(run: IRun, nodeExecutionOrder: string[], durationMs: number): WorkflowRunResult {
	const { runData } = run.data.resultData;
	const waitTill = run.waitTill ?? undefined;

	const taskOf = (nodeName: string, runIndex = 0): ITaskData => {
		const task = runData[nodeName]?.[runIndex];
		if (!task) {
			const ran = Object.keys(runData).map((name) => `${name} (${runData[name].length} runs)`);
			throw new Error(
				`Node "${nodeName}" has no run #${runIndex}. Status: ${run.status}. ` +
					`Nodes that ran: ${ran.join(', ') || 'none'}. ` +
					`Execution error: ${run.data.resultData.error?.message ?? 'none'}`,
			);
		}
		return task;
	};
	const outputOf = (nodeName: string, outputIndex = 0, runIndex = 0): INodeExecutionData[] =>
		taskOf(nodeName, runIndex).data?.main?.[outputIndex] ?? [];

	return {
		run,
		status: run.status,
		error: run.data.resultData.error,
		waitTill,
		isWaiting: run.status === 'waiting' && waitTill !== undefined,
		nodeExecutionOrder,
		durationMs,
		outputOf,
		jsonOf: (nodeName, outputIndex, runIndex) => outputOf(nodeName, outputIndex, runIndex).map((item) => item.json),
		runsOf: (nodeName) => runData[nodeName]?.length ?? 0,
		taskOf,
		nodeErrorOf: (nodeName, runIndex) => taskOf(nodeName, runIndex).error,
	};
}
