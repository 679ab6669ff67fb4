/**
 * An item with Pagination on: its pages fetched through the item's sender (each page one request
 * for the retry engine), resumed at the page a failed pass of this node stopped at, and turned
 * into the item's items or its error item.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { ownResumePoint } from '../../shared/core/pagination';
import type { Runtime } from '../../shared/core/runtime';
import type { ItemConfig } from '../config/item-config';
import type { ItemScope } from '../config/item-scope';
import type { PaginationSettings } from '../config/pagination-settings';
import { requestContext } from '../output/request-context';
import { RequestRejection, type ItemSender } from '../types';
import { fetchPages } from './paginate';
import { paginatedResult } from './paginated-result';

export async function paginateItem(ctx: IExecuteFunctions, scope: ItemScope, config: ItemConfig & { pagination: PaginationSettings }, send: ItemSender, owner: string, { runtime, signal }: { runtime: Runtime; signal: AbortSignal | undefined }): Promise<INodeExecutionData[]> {
	const { idempotency } = config;
	const resume = ownResumePoint(scope.json, owner);
	const run = await fetchPages(ctx, scope.index, {
		settings: config.pagination,
		spec: config.request,
		format: config.output.response.format,
		owner,
		...(idempotency.key !== undefined ? { idempotency: { header: idempotency.header, key: idempotency.key } } : {}),
		...(resume ? { resume } : {}),
		auth: config.transport.auth,
		sendCredentialsCrossOrigin: config.transport.sendCredentialsCrossOrigin,
		fetchPage: send,
		sleep: async (ms) => await runtime.sleep(ms, signal),
	}).catch((error: unknown) => {
		// what n8n's helper refused quotes the request, as HTTP Request's thrown error does
		if (error instanceof RequestRejection) error.context = requestContext(config.request, config.quoted, true);
		throw error;
	});
	return await paginatedResult(ctx, scope, config, run, runtime, resume);
}
