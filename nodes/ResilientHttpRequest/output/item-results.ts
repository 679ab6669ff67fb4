/**
 * The items an item's request ends as: the response's items with the retry story, or, when it
 * finally failed, its response (Never Error), an error item (error output, Continue) or the error
 * that stops the node; as an AI agent's tool, the answer shaped for the model (tool-answer.ts).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { AttemptFailure } from '../../shared/core/classify';
import type { Redactor } from '../../shared/core/redact';
import { storyWithLines, type RetryStory } from '../../shared/core/retry-story';
import type { RetryOutcome } from '../../shared/core/retry-loop';
import type { Runtime } from '../../shared/core/runtime';
import type { ItemConfig } from '../config/item-config';
import type { ItemScope } from '../config/item-scope';
import type { HttpResponse, ToolAnswer } from '../types';
import { headersFor } from '../transport/auth-transport';
import { requestContext } from './request-context';
import { errorAdditions, errorDetails, failedItem, ItemFailedError, responseOf } from './error-output';
import { httpRequestError, httpRequestErrorFields, type SentRequest } from './http-request-error';
import { responseToItems } from './response';
import { headlineTheFailure } from './failure-headline';
import type { OutputSettings } from '../config/output-settings';
import { toolFailure, toolSuccessItems, type FailedRequest } from './tool-answer';

export function withStory(items: INodeExecutionData[], field: string, story: RetryStory, i: number): INodeExecutionData[] {
	return items.map((item) => ({ ...item, json: field ? { ...item.json, [field]: storyWithLines(story) as unknown as IDataObject } : item.json, pairedItem: { item: i } }));
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
	/** The request (its URL names a Never Error file response; method and URL head the tool's account; the error quotes it). */
	request: FailedRequest & SentRequest;
	settings: OutputSettings;
	runtime: Runtime;
	/** The item's redactor (ItemScope.redactor). */
	redactor: () => Promise<Redactor>;
	extras?: FailureExtras;
	/** Set when the node runs as an AI agent's tool: the answer is shaped for the model. */
	tool?: ToolAnswer;
	/** The request as the thrown error quotes it (HTTP Request's context.request), not yet redacted. */
	context?: IDataObject;
	/** A page of a paginated request failed: its error is n8n's pagination helper's. */
	page?: true;
}

export async function failedResult(ctx: IExecuteFunctions, i: number, pass: FailedPass): Promise<INodeExecutionData[]> {
	const { failure, story, request, settings, runtime, redactor, extras, tool } = pass;
	if (story.stoppedBecause === 'canceled') throw new NodeOperationError(ctx.getNode(), 'The execution was canceled', { itemIndex: i });
	const failedResponse = responseOf(failure);
	// Never Error answers a final status; a job still not done at the deadline is no answer
	if (settings.neverError && failedResponse && !failure.notYet) {
		const last = tool ? await toolSuccessItems(ctx, i, tool, failedResponse, settings.response, request.url) : await responseToItems(ctx, i, failedResponse, settings.response, request.url, extras ? 'page' : 'response');
		return withStory([...(extras?.items ?? []), ...last], tool ? '' : settings.storyField, story, i);
	}
	// the server's body may echo a credential: on the error output it is redacted like our own texts
	if (tool) {
		const details = (await redactor()).value({ ...errorDetails(failure, story, runtime.now()), ...(extras?.details ?? {}) });
		return await toolFailure(ctx, i, { request, details, story, redactor });
	}
	const error = httpRequestError((await redactor()).value(httpRequestErrorFields(failure, request, settings.response.format, pass.page === true)));
	// built as HTTP Request builds it, before the additions (NodeApiError reads `reason` as a message)
	const nodeError = new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex: i });
	// the node's headline, on the thrown error and on the error item; HTTP Request's other fields stay
	headlineTheFailure(nodeError, error, story, failure.status);
	const additions: IDataObject = { ...errorAdditions(failure, story, runtime.now()), ...(extras?.details ?? {}), ...(settings.failureStoryField ? { [settings.failureStoryField]: storyWithLines(story) as unknown as IDataObject } : {}) };
	for (const [key, value] of Object.entries(additions)) Object.defineProperty(error, key, { value, enumerable: true, writable: true, configurable: true });
	if (ctx.continueOnFail()) return [failedItem(ctx, i, error)];
	if (pass.context) nodeError.context.request = (await redactor()).value(pass.context);
	throw new ItemFailedError(nodeError);
}

/** The items of an item's one request (no pagination): its response's, or the failed pass's. */
export async function itemResult(ctx: IExecuteFunctions, scope: ItemScope, config: ItemConfig, outcome: RetryOutcome<HttpResponse>, runtime: Runtime): Promise<INodeExecutionData[]> {
	const { index: i } = scope;
	const { output, tool, request } = config;
	// a failed attempt's texts may quote the request (n8n's and axios' errors do, and a server may put
	// anything in its status text): redact the story whenever it holds a failed attempt, whatever the
	// outcome; the response of a success is the user's data and stays untouched
	const quotesErrors = !outcome.ok || outcome.story.history.length > 1;
	const story = quotesErrors ? (await scope.redactor()).value(outcome.story) : outcome.story;
	if (outcome.ok && tool) return await toolSuccessItems(ctx, i, tool, outcome.value, output.response, request.url);
	if (outcome.ok) return withStory(await responseToItems(ctx, i, outcome.value, output.response, request.url), output.storyField, story, i);
	const context = requestContext(request, config.quoted);
	// the error quotes the headers as they went out (OAuth1's helper replaces the default Accept)
	const sent = { ...request, headers: headersFor(config.transport.auth, request.headers, { redirected: false, acceptIsDefault: request.acceptIsDefault === true }) as Record<string, string> };
	return await failedResult(ctx, i, { failure: outcome.failure, story, request: sent, settings: output, runtime, redactor: scope.redactor, context, ...(tool ? { tool } : {}) });
}
