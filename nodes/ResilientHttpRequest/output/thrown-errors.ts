/**
 * An error thrown while an item was read or sent: its own failure (built redacted), a parameter
 * error, or an error of n8n's helpers (which may quote a URL or a header). It stops the node, or,
 * where a thrown error would reach no one, it becomes the item's error item.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { NodeOperationError } from 'n8n-workflow';
import { redactError } from '../../shared/core/redact';
import type { ItemScope } from '../config/item-scope';
import { answersFailuresAsItems, runsAsTool } from '../tool/tool-answer';
import { failedItem, inputItemWithError, ItemFailedError } from './error-output';

type ThrownOutcome = { items: INodeExecutionData[] } | { error: Error };

export async function settleThrown(ctx: IExecuteFunctions, scope: ItemScope, error: unknown, signal: AbortSignal | undefined): Promise<ThrownOutcome> {
	const inner = error instanceof ItemFailedError ? error.nodeError : (error as Error);
	if (!(error instanceof ItemFailedError)) redactError(inner, await scope.redactor());
	// a tool called by Agent V1/V2 answers a bad parameter as an item too: a throw reaches the model empty
	if (!answersFailuresAsItems(ctx) || (signal?.aborted ?? false)) return { error: inner };
	// under Continue, HTTP Request's item: the message alone (n8n adds the input json on the error output)
	if (ctx.continueOnFail() && !runsAsTool(ctx.getNode())) return { items: [failedItem(ctx, scope.index, inner.message)] };
	// a tool's caller hands the item's json to the model: the description says what to change
	// (by name: the package may load another copy of n8n-workflow than n8n's own)
	const description = ['NodeApiError', 'NodeOperationError'].includes(inner.name) ? (inner as NodeOperationError).description : undefined;
	return { items: [inputItemWithError(ctx, scope.index, { message: inner.message, ...(description ? { description } : {}) })] };
}
