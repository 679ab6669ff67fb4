/**
 * The items an item's request ends as: the response's items with the retry story, or, when it
 * finally failed, its response (Never Error), an error item (error output, Continue) or the error
 * that stops the node; as an AI agent's tool, the answer shaped for the model (tool-answer.ts).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { AttemptFailure } from '../../shared/core/classify';
import type { Redactor } from '../../shared/core/redact';
import type { RetryStory } from '../../shared/core/retry-story';
import type { Runtime } from '../../shared/core/runtime';
import { errorDetails, failedItem, ItemFailedError, responseOf } from './error-output';
import { responseToItems } from './response';
import { itemRedactor } from '../auth/secrets';
import type { RetrySettings } from '../config/retry-settings';
import { toolFailure, toolSuccessItems, type FailedRequest, type ToolAnswer } from '../tool/tool-answer';

export function withStory(items: INodeExecutionData[], field: string, story: RetryStory, i: number): INodeExecutionData[] {
	return items.map((item) => ({ ...item, json: field ? { ...item.json, [field]: story as unknown as IDataObject } : item.json, pairedItem: { item: i } }));
}

/** What a failed pass adds: pagination's pages fetched (items) and what the details carry (its resume point). */
interface FailureExtras {
	items: INodeExecutionData[];
	details: IDataObject;
}

/** A request that finally failed, and what shapes its items. */
interface FailedPass {
	failure: AttemptFailure;
	story: RetryStory;
	/** The request (its URL names a Never Error file response; method and URL head the tool's account). */
	request: FailedRequest;
	settings: RetrySettings;
	runtime: Runtime;
	redactor?: Redactor;
	extras?: FailureExtras;
	/** Set when the node runs as an AI agent's tool: the answer is shaped for the model. */
	tool?: ToolAnswer;
}

export async function failedResult(ctx: IExecuteFunctions, i: number, { failure, story, request, settings, runtime, redactor, extras, tool }: FailedPass): Promise<INodeExecutionData[]> {
	if (story.stoppedBecause === 'canceled') throw new NodeOperationError(ctx.getNode(), 'The execution was canceled', { itemIndex: i });
	const failedResponse = responseOf(failure);
	if (settings.neverError && failedResponse) {
		const last = tool ? await toolSuccessItems(ctx, i, tool, failedResponse, settings.response, request.url) : await responseToItems(ctx, i, failedResponse, settings.response, request.url);
		return withStory([...(extras?.items ?? []), ...last], tool ? '' : settings.storyField, story, i);
	}
	// the server's body may echo a credential: on the error output it is redacted like our own texts
	const details = (redactor ?? (await itemRedactor(ctx, i))).value({ ...errorDetails(failure, story, runtime.now()), ...(extras?.details ?? {}) });
	if (tool) return await toolFailure(ctx, i, request, details, story);
	const nodeError = new NodeApiError(ctx.getNode(), details as JsonObject, {
		message: story.summary,
		description: `Retry story: ${JSON.stringify({ attempts: story.attempts, stoppedBecause: story.stoppedBecause, history: story.history })}`,
		itemIndex: i,
		...(failure.status !== undefined ? { httpCode: String(failure.status) } : {}),
	});
	// NodeApiError swaps messages that mention common error codes for generic texts; ours says more
	nodeError.message = story.summary;
	if (settings.storyField) details[settings.storyField] = story as unknown as IDataObject;
	if (ctx.continueOnFail()) return [failedItem(ctx, i, details)];
	throw new ItemFailedError(nodeError);
}
