/**
 * The node's execute(): plan the run, then for each item read its config once, send its request
 * (or its pages) through the shared retry loop, and turn the outcome into its items. Items are
 * independent: one item's retries never re-send another item.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { runItemPool } from '../shared/core/item-pool';
import type { Runtime } from '../shared/core/runtime';
import type { StateStore } from '../shared/core/traffic/store';
import { itemScope } from './config/item-scope';
import { planRun } from './config/run-plan';
import { settleThrown } from './output/thrown-errors';
import { processItem } from './process-item';

export async function executeResilientHttpRequest(ctx: IExecuteFunctions, runtime: Runtime, memoryStore: StateStore): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const plan = await planRun(ctx, runtime, memoryStore);
	const { signal } = plan.sending;
	const results: INodeExecutionData[][] = new Array(items.length);
	const failures = new Map<number, Error>();

	// Max Items in Flight bounds this run's items in progress; how many of their requests are in
	// flight at once is each API's traffic controller's to decide (its learned window)
	await runItemPool(items.length, plan.run.schedule, runtime, { signal, shouldStop: () => failures.size > 0 }, async (i) => {
		const scope = itemScope(ctx, i);
		try {
			results[i] = await processItem(ctx, scope, plan);
		} catch (error) {
			const settled = await settleThrown(ctx, scope, error, signal);
			if ('items' in settled) results[i] = settled.items;
			else failures.set(i, settled.error);
		}
	});

	plan.sending.tally.report(ctx, items.length);
	if (signal?.aborted) throw new NodeOperationError(ctx.getNode(), 'The execution was canceled');
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
	return [results.flat()];
}
