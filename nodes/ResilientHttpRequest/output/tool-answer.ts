/**
 * What the node answers when an AI agent calls it as a tool (n8n's "Resilient HTTP Request Tool"
 * variant): on success the response, as HTTP Request Tool gives it (optionally cut down by
 * *Optimize Response*), without the retry story; on failure a short account a model can act on
 * (what failed, the status, how many attempts, the server's requested wait) instead of the error
 * output's objects. The agent sees only this: n8n hands the tool's output items' json to the
 * model, and Agent V3 the thrown error's message (n8n 2.41.1: Agent V3's buildSteps); Agent V1/V2
 * would hand it nothing for a thrown error, so there the failure is an item (answersFailuresAsItems).
 */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { RetryStory } from '../../shared/core/retry-story';
import { formatDuration, storyCounts } from '../../shared/core/retry-story';
import type { StopReason } from '../../shared/core/stop-reasons';
import { inputItemWithError, ItemFailedError } from './error-output';
import { getPath, setPath, unsetPath } from '../../shared/core/json-path';
import { responseToItems } from './response';
import { readResponseBody } from './response-body';
import type { Redactor } from '../../shared/core/redact';
import type { HttpResponse, JsonOptimizer, ResponseSettings, ToolAnswer } from '../types';

/** n8n names a node's tool variant `<name>Tool` (convertNodeToAiTool) and shows `@tool` parameters on it alone. */
export function runsAsTool(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

/** What the optimizer gives: the records, or why the response cannot be optimized (the item's error). */
type Optimized = { ok: true; records: unknown[] } | { ok: false; message: string; description?: string };

const NOT_JSON = 'Optimize Response with Expected Response Type JSON needs a JSON response: turn Optimize Response off for this API';

/**
 * HTTP Request Tool's JSON optimizer (n8n-nodes-base 2.41.1 `jsonOptimizer`), same rules: the
 * records are the body (an array) or [body], or the Field Containing Data of it; Include Fields
 * keeps or drops fields of each record, by path (json-path.ts). Its errors do not quote the body:
 * a server that echoes the request would show the credential to the model.
 */
export function optimizeJson(body: unknown, optimizer: JsonOptimizer): Optimized {
	let data = body;
	if (typeof body === 'string') {
		try {
			data = JSON.parse(body);
		} catch {
			return { ok: false, message: `Received invalid JSON from response (${body.length} characters)`, description: NOT_JSON };
		}
	}
	if (typeof data !== 'object' || data === null) return { ok: false, message: 'The response type must be an object or an array of objects', description: NOT_JSON };
	let records: unknown[];
	const { dataField } = optimizer;
	if (Array.isArray(data)) {
		records = dataField ? data.map((record) => getPath(record, dataField)) : data;
	} else if (dataField) {
		if (!Object.prototype.hasOwnProperty.call(data, dataField)) {
			return { ok: false, message: `Target field "${dataField}" not found in response.`, description: `The response contained these fields: [${Object.keys(data).join(', ')}]` };
		}
		const inner = (data as IDataObject)[dataField];
		records = Array.isArray(inner) ? inner : [inner];
	} else {
		records = [data];
	}
	if (optimizer.fieldsToInclude === 'selected') {
		records = records.map((record) => {
			const picked: IDataObject = {};
			for (const field of optimizer.fields) setPath(picked, field, getPath(record, field));
			return picked;
		});
	}
	if (optimizer.fieldsToInclude === 'except') {
		for (const record of records) for (const field of optimizer.fields) unsetPath(record, field);
	}
	return { ok: true, records };
}

/** The records as output items: objects as they are, other values under the output field (as the node does). */
function recordsToItems(records: unknown[], field: string, i: number): INodeExecutionData[] {
	if (records.length === 0) return [{ json: { [field]: [] }, pairedItem: { item: i } }];
	return records.map((record) => ({
		json: record !== null && typeof record === 'object' && !Array.isArray(record) ? (record as IDataObject) : { [field]: record as IDataObject[string] },
		pairedItem: { item: i },
	}));
}

/** The success answer: the response's items (optimized when asked), no retry story. */
export async function toolSuccessItems(ctx: IExecuteFunctions, i: number, answer: ToolAnswer, response: HttpResponse, settings: ResponseSettings, url: string): Promise<INodeExecutionData[]> {
	if (!answer.optimize) return (await responseToItems(ctx, i, response, settings, url)).map((item) => ({ ...item, pairedItem: { item: i } }));
	// read as the items are read without Optimize Response: the same charset, the same JSON
	const read = await readResponseBody(ctx, response, settings.format === 'file' ? 'autodetect' : settings.format, settings.neverError, 'response');
	const optimized: Optimized = read.format === 'file' ? { ok: false, message: 'The response type must be an object or an array of objects', description: NOT_JSON } : optimizeJson(read.value, answer.optimize);
	if (!optimized.ok) throw new NodeOperationError(ctx.getNode(), optimized.message, { itemIndex: i, ...(optimized.description ? { description: optimized.description } : {}) });
	const records = optimized.records;
	if (settings.fullResponse) {
		return [{ json: { body: records as IDataObject[], headers: response.headers as IDataObject, statusCode: response.statusCode, statusMessage: response.statusMessage }, pairedItem: { item: i } }];
	}
	return recordsToItems(records, settings.outputPropertyName || 'data', i);
}

/** The short account of a failure, as fields (the tool's error item) and as one text (the thrown error's message). */
interface ToolFailureAccount {
	error: string;
	status?: number;
	statusText?: string;
	code?: string;
	attempts: number;
	/** At most this many attempts (a paginated item's: per page, maxAttemptsPerPage). */
	maxAttempts?: number;
	maxAttemptsPerPage?: number;
	reason: StopReason;
	retryAfterSeconds?: number;
	retryAt?: string;
	serverAnswer?: string;
}

export interface FailedRequest {
	method: string;
	url: string;
}

/** What the error output carries that the account reads (errorDetails' fields). */
interface FailureDetails {
	message?: unknown;
	status?: unknown;
	statusText?: unknown;
	code?: unknown;
	retryAfterMs?: unknown;
	retryAt?: unknown;
	body?: unknown;
}

const SERVER_ANSWER_CHARS = 300;
const URL_CHARS = 200;

/** The server's answer, cut short: its own error message often tells the model what to change. */
function serverAnswer(body: unknown): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const flat = text.replace(/\s+/g, ' ').trim();
	if (flat === '') return undefined;
	return flat.length > SERVER_ANSWER_CHARS ? `${flat.slice(0, SERVER_ANSWER_CHARS)}…` : flat;
}

/** The URL without its query string (which may hold a key), cut short. */
function shownUrl(url: string): string {
	const shown = url.split(/[?#]/)[0];
	return shown.length > URL_CHARS ? `${shown.slice(0, URL_CHARS)}…` : shown;
}

/** What the model can do about it, by why the node stopped. */
function advice(reason: StopReason, status: number | undefined, retryAfterSeconds: number | undefined, retryAt: string | undefined): string {
	if (retryAfterSeconds !== undefined) return `The server asked to retry after ${retryAfterSeconds} s${retryAt ? ` (at ${retryAt})` : ''}: do not call this tool again before then.`;
	switch (reason) {
		case 'final-status':
			if (status === 401 || status === 403) return 'Access was refused: calling again will not help.';
			if (status === 404) return 'Nothing was found at this URL: check the values you passed.';
			if (status !== undefined && status < 500) return 'The server refused this request: change its arguments rather than sending it again.';
			return 'The server failed on this request: calling again with the same arguments is unlikely to help.';
		case 'not-safe-to-retry':
			return 'The request may have been processed: check before sending it again.';
		case 'not-retryable-error':
			return 'The service could not be reached.';
		default:
			return 'The service is failing or overloaded: try again later.';
	}
}

/**
 * The account of a failed item: built from the error output's details (already redacted) and the
 * retry story. One line per fact would read better, but n8n shows the message as the error's title.
 */
export function toolFailureAccount(request: FailedRequest, details: FailureDetails, story: Pick<RetryStory, 'attempts' | 'maxAttempts' | 'maxAttemptsPerPage' | 'pages' | 'stoppedBecause' | 'summary' | 'elapsedMs'>): ToolFailureAccount {
	const status = typeof details.status === 'number' ? details.status : undefined;
	const statusText = typeof details.statusText === 'string' && details.statusText !== '' ? details.statusText : undefined;
	const code = typeof details.code === 'string' && details.code !== '' ? details.code : undefined;
	const retryAfterSeconds = typeof details.retryAfterMs === 'number' ? Math.ceil(details.retryAfterMs / 1000) : undefined;
	const retryAt = typeof details.retryAt === 'string' ? details.retryAt : undefined;
	const answer = serverAnswer(details.body);
	const what = status !== undefined ? `HTTP ${status}${statusText ? ` ${statusText}` : ''}` : (code ?? 'no response');
	const n = story.attempts;
	const max = story.maxAttempts ?? n;
	const counts = story.maxAttemptsPerPage === undefined ? `${n} of ${max} attempt${max === 1 ? '' : 's'}` : storyCounts(story);
	const attempts = `${counts} in ${formatDuration(story.elapsedMs)}`;
	const summary = typeof details.message === 'string' && details.message !== '' ? details.message : story.summary;
	const text = [
		`${request.method} ${shownUrl(request.url)} failed: ${what}, ${attempts}.`,
		`${summary.replace(/\.$/, '')}.`,
		advice(story.stoppedBecause, status, retryAfterSeconds, retryAt),
		...(answer ? [`Server's answer: ${answer}`] : []),
	].join(' ');
	return {
		error: text,
		...(status !== undefined ? { status } : {}),
		...(statusText ? { statusText } : {}),
		...(code ? { code } : {}),
		attempts: n,
		...(story.maxAttemptsPerPage !== undefined ? { maxAttemptsPerPage: story.maxAttemptsPerPage } : { maxAttempts: story.maxAttempts ?? n }),
		reason: story.stoppedBecause,
		...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
		...(retryAt ? { retryAt } : {}),
		...(answer ? { serverAnswer: answer } : {}),
	};
}

/** Callers that hand a tool's thrown error on: the MCP Server Trigger answers it as an MCP error result. */
const CALLERS_THAT_REPORT_THROWN_ERRORS = new Set(['@n8n/n8n-nodes-langchain.mcpTrigger']);

/**
 * Whether the node was called as a tool by a caller that would drop a thrown error. n8n-core's
 * makeHandleToolInvocation runs the node in a context where isToolExecution() is true, for Agent
 * V1/V2 among others: they run tools in LangChain's AgentExecutor, which hands the model an empty
 * observation for a tool that throws. Agent V3 runs the tool as a node of the execution (not
 * this path) and hands the model the error's message. The context's execute data is the caller's.
 */
function callerDropsThrownErrors(ctx: IExecuteFunctions): boolean {
	if (typeof ctx.isToolExecution !== 'function' || !ctx.isToolExecution()) return false;
	const caller = ctx.getExecuteData?.()?.node?.type;
	return caller === undefined || !CALLERS_THAT_REPORT_THROWN_ERRORS.has(caller);
}

/** Whether an item's failure is answered as an item rather than thrown: On Error continues, or a thrown error would not reach the model. */
export function answersFailuresAsItems(ctx: IExecuteFunctions): boolean {
	return ctx.continueOnFail() || (runsAsTool(ctx.getNode()) && callerDropsThrownErrors(ctx));
}

/** A request that finally failed, as the tool's failure answer takes it. */
interface ToolFailure {
	request: FailedRequest;
	details: IDataObject;
	story: RetryStory;
	/** The item's redactor (ItemScope.redactor). */
	redactor: () => Promise<Redactor>;
}

/**
 * The failure answer of item i: with *On Error* set to continue, or when thrown errors would not
 * reach the model (answersFailuresAsItems), an item carrying the account (the model receives its
 * json); otherwise the node error whose message is the account (the model receives that message).
 * The account is redacted again: it quotes the request's URL.
 */
export async function toolFailure(ctx: IExecuteFunctions, i: number, { request, details, story, redactor }: ToolFailure): Promise<INodeExecutionData[]> {
	const account = (await redactor()).value(toolFailureAccount(request, details, story));
	if (answersFailuresAsItems(ctx)) return [inputItemWithError(ctx, i, account as unknown as IDataObject)];
	const nodeError = new NodeApiError(ctx.getNode(), account as unknown as JsonObject, { message: account.error, itemIndex: i, ...(account.status !== undefined ? { httpCode: String(account.status) } : {}) });
	// NodeApiError replaces messages it recognizes and derives a description; the account is both
	nodeError.message = account.error;
	nodeError.description = null;
	throw new ItemFailedError(nodeError);
}
