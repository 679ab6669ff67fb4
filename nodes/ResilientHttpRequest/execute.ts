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
import { IdempotencyKeys } from './config/idempotency-keys';
import { readItemConfig, type RunSettings } from './config/item-config';
import { itemScope, type ItemScope } from './config/item-scope';
import { readScheduleSettings } from './config/schedule-settings';
import { itemResult } from './output/item-results';
import { RetryTally } from './output/retry-tally';
import { settleThrown } from './output/thrown-errors';
import { paginateItem } from './pagination/paginate-item';
import { selectStateStore } from './traffic/state-store';
import { itemSender, type SendContext } from './transport/item-sender';

async function processItem(ctx: IExecuteFunctions, scope: ItemScope, run: RunSettings, sending: SendContext): Promise<INodeExecutionData[]> {
	const config = await readItemConfig(ctx, scope, run);
	const send = itemSender(ctx, scope, config, sending);
	if (config.pagination) return await paginateItem(ctx, scope, { ...config, pagination: config.pagination }, send, run.keys.owner, sending);
	return await itemResult(ctx, scope, config, await send(config.request), sending.runtime);
}

export async function executeResilientHttpRequest(ctx: IExecuteFunctions, runtime: Runtime, memoryStore: StateStore): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const signal = ctx.getExecutionCancelSignal?.();
	const sending: SendContext = { runtime, store: await selectStateStore(ctx, memoryStore), signal, tally: new RetryTally() };
	// derived keys are planned for all items first, so that two items with the same key are told apart in input order
	const run: RunSettings = { schedule: readScheduleSettings(ctx), keys: IdempotencyKeys.plan(ctx) };
	const results: INodeExecutionData[][] = new Array(items.length);
	const failures = new Map<number, Error>();

	// Max Items in Flight bounds this run's items in progress; how many of their requests are in
	// flight at once is each API's traffic controller's to decide (its learned window)
	await runItemPool(items.length, run.schedule, runtime, { signal, shouldStop: () => failures.size > 0 }, async (i) => {
		const scope = itemScope(ctx, i);
		try {
			results[i] = await processItem(ctx, scope, run, sending);
		} catch (error) {
			const settled = await settleThrown(ctx, scope, error, signal);
			if ('items' in settled) results[i] = settled.items;
			else failures.set(i, settled.error);
		}
	});

	sending.tally.report(ctx, items.length);
	if (signal?.aborted) throw new NodeOperationError(ctx.getNode(), 'The execution was canceled');
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
	return [results.flat()];
}
