/**
 * An error thrown while an item was read or sent: its own failure (built redacted), a parameter
 * error, an error of n8n's helpers while the request was under way (a RequestRejection), or
 * another error of n8n's helpers (which may quote a URL or a header). It stops the node, or, where
 * a thrown error would reach no one, it becomes the item's error item.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, type NodeOperationError } from 'n8n-workflow';
import { redactError } from '../../shared/core/redact';
import type { ItemScope } from '../config/item-scope';
import { answersFailuresAsItems, runsAsTool } from './tool-answer';
import { failedItem, inputItemWithError, ItemFailedError } from './error-output';
import { RequestRejection } from '../types';

type ThrownOutcome = { items: INodeExecutionData[] } | { error: Error };

/** The error HTTP Request throws for a rejection: a NodeApiError as it is, any other wrapped in one, quoting the request. */
function rejectionError(ctx: IExecuteFunctions, i: number, rejection: RequestRejection, redact: (value: IDataObject) => IDataObject): Error {
	const { reason } = rejection;
	// by name: n8n's helpers may throw another copy of n8n-workflow's classes than the package's
	const error = reason.name === 'NodeApiError' ? (reason as NodeApiError) : new NodeApiError(ctx.getNode(), reason as unknown as JsonObject, { itemIndex: i });
	error.context.itemIndex = i;
	if (rejection.context) error.context.request = redact(rejection.context);
	return error;
}

export async function settleThrown(ctx: IExecuteFunctions, scope: ItemScope, error: unknown, signal: AbortSignal | undefined): Promise<ThrownOutcome> {
	let inner = error instanceof ItemFailedError ? error.nodeError : (error as Error);
	if (error instanceof RequestRejection) {
		const redactor = await scope.redactor();
		redactError(error.reason, redactor);
		// under Continue, HTTP Request's item holds the rejection's error itself
		if (ctx.continueOnFail() && !runsAsTool(ctx.getNode()) && !(signal?.aborted ?? false)) return { items: [failedItem(ctx, scope.index, error.reason)] };
		inner = rejectionError(ctx, scope.index, error, (value) => redactor.value(value));
	} else if (!(error instanceof ItemFailedError)) redactError(inner, await scope.redactor());
	// a tool called by Agent V1/V2 answers a bad parameter as an item too: a throw reaches the model empty
	if (!answersFailuresAsItems(ctx) || (signal?.aborted ?? false)) return { error: inner };
	// under Continue, HTTP Request's item: the message alone (n8n adds the input json on the error output)
	if (ctx.continueOnFail() && !runsAsTool(ctx.getNode())) return { items: [failedItem(ctx, scope.index, inner.message)] };
	// a tool's caller hands the item's json to the model: the description says what to change
	// (by name: the package may load another copy of n8n-workflow than n8n's own)
	const description = ['NodeApiError', 'NodeOperationError'].includes(inner.name) ? (inner as NodeOperationError).description : undefined;
	return { items: [inputItemWithError(ctx, scope.index, { message: inner.message, ...(description ? { description } : {}) })] };
}
