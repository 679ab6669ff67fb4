/** One item, its config already read: its request (or its pages) sent, its items made. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { ItemConfig } from './config/item-config';
import type { ItemScope } from './config/item-scope';
import type { RunPlan } from './run-plan';
import { itemResult } from './output/item-results';
import { paginateItem } from './pagination/paginate-item';
import { followOperation } from './polling/async-operation';
import { itemSender } from './send-with-retries';

export async function processItem(ctx: IExecuteFunctions, scope: ItemScope, config: ItemConfig, { run, sending }: RunPlan): Promise<INodeExecutionData[]> {
	const send = itemSender(ctx, scope, config, sending);
	if (config.pagination) return await paginateItem(ctx, scope, { ...config, pagination: config.pagination }, send, run.keys.owner, sending);
	const outcome = await send(config.request);
	const final = config.retry.followOperations ? await followOperation(config, outcome, { runtime: sending.runtime, senderFor: (followed) => itemSender(ctx, scope, followed, sending) }) : outcome;
	return await itemResult(ctx, scope, config, final, sending.runtime);
}
