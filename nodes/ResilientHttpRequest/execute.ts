/**
 * The node's execute(): plan the run, read every item's config, then send each item's request (or
 * its pages) through the shared retry loop and turn the outcome into its items. Items are
 * independent: one item's retries never re-send another item.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { runItemPool } from '../shared/core/item-pool';
import { startOrder } from '../shared/core/traffic/fair-line';
import type { Runtime } from '../shared/core/runtime';
import type { StateStore } from '../shared/core/traffic/store';
import { readItemConfig, type ItemConfig } from './config/item-config';
import { itemScope, type ItemScope } from './config/item-scope';
import { planRun, type RunPlan } from './run-plan';
import { settleThrown } from './output/thrown-errors';
import { processItem } from './process-item';

interface ReadItems {
	scopes: ItemScope[];
	/** Undefined for an item whose config could not be read (settled already). */
	configs: (ItemConfig | undefined)[];
	/** The items before the first one whose reading error stops the node: only these are sent. */
	sendable: number;
}

type Settle = (scope: ItemScope, error: unknown) => Promise<void>;

/**
 * Every item's config, in input order, before the first request, as HTTP Request evaluates every
 * item's parameters before it sends: n8n evaluates an expression about twice as fast with no
 * requests in flight beside it (issue 24). An item whose config cannot be read is settled as it
 * would be at its turn; the first one that stops the node ends the reading, and the items before
 * it are still sent, as when items were read one by one at their turn.
 */
async function readItems(ctx: IExecuteFunctions, plan: RunPlan, settle: Settle, stopped: () => boolean): Promise<ReadItems> {
	const count = ctx.getInputData().length;
	const read: ReadItems = { scopes: [], configs: [], sendable: count };
	for (let i = 0; i < count; i++) {
		if (plan.sending.signal?.aborted) break;
		// the item's redactor reads the same parameters as its config: through the run's reader too
		const scope = itemScope(plan.parameters, i);
		read.scopes.push(scope);
		try {
			read.configs.push(await readItemConfig(plan.parameters, scope, plan.run));
		} catch (error) {
			read.configs.push(undefined);
			await settle(scope, error);
			if (stopped()) {
				read.sendable = i;
				break;
			}
		}
	}
	return read;
}

export async function executeResilientHttpRequest(ctx: IExecuteFunctions, runtime: Runtime, memoryStore: StateStore): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const plan = await planRun(ctx, runtime, memoryStore);
	const { signal } = plan.sending;
	const results: INodeExecutionData[][] = new Array(items.length);
	const failures = new Map<number, Error>();
	const settle: Settle = async (scope, error) => {
		const settled = await settleThrown(ctx, scope, error, signal);
		if ('items' in settled) results[scope.index] = settled.items;
		else failures.set(scope.index, settled.error);
	};
	const { scopes, configs, sendable } = await readItems(ctx, plan, settle, () => failures.size > 0);
	// a reading error that stops the node lets the items before it go; a sending error stops the rest
	const failuresRead = failures.size;

	// Max Items in Flight bounds this run's items in progress; how many of their requests are in
	// flight at once is each API's traffic controller's to decide (its learned window)
	// with Fair Share Key or Urgent, the items start urgent first and the shares in turn (fair-line.ts)
	const order = startOrder(configs.slice(0, sendable).map((config) => config?.traffic.lane));
	await runItemPool(sendable, plan.run.schedule, runtime, { signal, shouldStop: () => failures.size > failuresRead }, async (k) => {
		const i = order ? order[k] : k;
		const config = configs[i];
		if (config === undefined) return;
		try {
			results[i] = await processItem(ctx, scopes[i], config, plan);
		} catch (error) {
			await settle(scopes[i], error);
		}
	});

	plan.sending.tally.report(ctx, items.length);
	if (signal?.aborted) throw new NodeOperationError(ctx.getNode(), 'The execution was canceled');
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
	return [results.flat()];
}
