/**
 * What a run decides once, before its first item: the node-wide schedule, every item's derived key,
 * the reader of its parameters, where the traffic controllers' state lives, the cancel signal, and
 * the tally of retries.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { Runtime } from '../shared/core/runtime';
import type { StateStore } from '../shared/core/traffic/store';
import { RetryTally } from './output/retry-tally';
import { runsAsTool } from './output/tool-answer';
import { selectStateStore } from './traffic/state-store';
import type { SendContext } from './send-with-retries';
import { IdempotencyKeys } from './config/idempotency-keys';
import type { RunSettings } from './config/item-config';
import { runParameters } from './config/run-parameters';
import { readScheduleSettings } from './config/schedule-settings';

export interface RunPlan {
	run: RunSettings;
	/** The node's parameters as the items' configs read them (run-parameters.ts). */
	parameters: IExecuteFunctions;
	sending: SendContext;
}

export async function planRun(ctx: IExecuteFunctions, runtime: Runtime, memoryStore: StateStore): Promise<RunPlan> {
	const sending: SendContext = { runtime, store: await selectStateStore(ctx, memoryStore), signal: ctx.getExecutionCancelSignal?.(), tally: new RetryTally() };
	// one copy of the node for the run (ctx.getNode() copies it whole)
	const node = ctx.getNode();
	const parameters = runParameters(ctx, node.parameters);
	// derived keys are planned for all items first, so that two items with the same key are told apart in input order
	return { run: { schedule: readScheduleSettings(ctx), keys: IdempotencyKeys.plan(parameters), asTool: runsAsTool(node), node }, parameters, sending };
}
