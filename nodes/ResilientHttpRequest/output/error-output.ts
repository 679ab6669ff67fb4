/**
 * What an item that finally failed carries: the error details of the error output (message, status,
 * reason, the server-requested wait, the decoded body), the item itself around them, and the error
 * thrown when the node has no error output.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { AttemptFailure } from '../../shared/core/classify';
import type { RetryStory } from '../../shared/core/retry-story';
import { decodeBody } from './response';
import type { HttpResponse } from '../types';

/** The response a failed status attempt carried, if any. */
export function responseOf(failure: AttemptFailure): HttpResponse | undefined {
	if (failure.kind !== 'status' || !Buffer.isBuffer(failure.body)) return undefined;
	return { statusCode: failure.status ?? 0, statusMessage: failure.statusText ?? '', headers: failure.headers ?? {}, body: failure.body };
}

/** Error bodies up to this size are parsed (JSON) for the error output; larger ones are cut to ERROR_BODY_CHARS. */
const MAX_PARSED_ERROR_BODY_BYTES = 64 * 1024;
const ERROR_BODY_CHARS = 2000;

/** The response body of a failed attempt, decoded for the error output (files are left out). */
function failureBody(failure: AttemptFailure): unknown {
	const response = responseOf(failure);
	return response ? errorBodyValue(response) : undefined;
}

/**
 * A failed response's body as a value: JSON parsed (up to 64 KB), text cut to 2,000 characters,
 * files left out. The attempt reads the server's signals from it; the error output carries it.
 */
export function errorBodyValue(response: HttpResponse): unknown {
	if (response.body.length === 0) return undefined;
	// a large error body (an HTML page, a dump) is not parsed whole: the item carries its start as text
	const large = response.body.length > MAX_PARSED_ERROR_BODY_BYTES;
	const decoded = decodeBody(large ? { ...response, body: response.body.subarray(0, ERROR_BODY_CHARS * 4) } : response, 'autodetect');
	if (decoded.kind === 'file' || decoded.kind === 'invalid-json') return undefined;
	if (decoded.kind === 'text') return large || decoded.value.length > ERROR_BODY_CHARS ? `${decoded.value.slice(0, ERROR_BODY_CHARS)}…` : decoded.value;
	return decoded.value;
}

/**
 * What this node adds beside HTTP Request's error fields: why it stopped and, when the server asked
 * for a wait, the wait (also when the node stopped for another reason, so that a Backoff Delay
 * node can obey it), and the idempotency key with the node that generated it.
 */
export function errorAdditions(failure: AttemptFailure, story: RetryStory, nowMs: number): IDataObject {
	let retryAfter: IDataObject = {};
	if (story.retryAfterMs !== undefined) {
		retryAfter = { retryAfterMs: story.retryAfterMs, retryAt: story.retryAt };
	} else if (failure.serverDelay) {
		// read where the response was read: never parsed again here
		retryAfter = { retryAfterMs: failure.serverDelay.delayMs, retryAt: new Date(Math.min(nowMs + failure.serverDelay.delayMs, 8.64e15)).toISOString() };
	}
	return {
		reason: story.stoppedBecause,
		...retryAfter,
		// the key and the node that generated it travel with the item even without a retry story
		...(story.idempotencyKey !== undefined ? { idempotencyKey: story.idempotencyKey } : {}),
		...(story.idempotencyKeyOwner !== undefined ? { idempotencyKeyOwner: story.idempotencyKeyOwner } : {}),
	};
}

/** The failure as the tool's account reads it: message, status, code, the decoded body, and the additions. */
export function errorDetails(failure: AttemptFailure, story: RetryStory, nowMs: number): IDataObject {
	const body = failureBody(failure);
	const { reason, ...rest } = errorAdditions(failure, story, nowMs);
	return {
		message: story.summary,
		...(failure.status !== undefined ? { status: failure.status } : {}),
		...(failure.statusText ? { statusText: failure.statusText } : {}),
		...(failure.code ? { code: failure.code } : {}),
		reason,
		...rest,
		...(body !== undefined ? { body: body as IDataObject } : {}),
	};
}

/** An item that finally failed, thrown when the node has no error output and does not continue on fail. */
export class ItemFailedError extends Error {
	constructor(readonly nodeError: Error) {
		super(nodeError.message);
	}
}

/**
 * An item that failed, as HTTP Request gives it under *Continue*: `{ error }` and its paired item;
 * n8n merges the input item's json into it on the error output (its json has no key besides
 * `error`). On the error output the input's binary data stays too: a Backoff Delay loop sends the
 * item again, and a binary body needs it (HTTP Request drops it: deviation error-output-binary).
 */
export function failedItem(ctx: IExecuteFunctions, i: number, error: unknown): INodeExecutionData {
	const item = ctx.getInputData()[i];
	// getNode() copies the whole node: asked only when there is binary data to keep
	const keepBinary = item.binary !== undefined && ctx.getNode().onError === 'continueErrorOutput';
	return { json: { error: error as IDataObject }, ...(keepBinary ? { binary: item.binary } : {}), pairedItem: { item: i } };
}

/**
 * The tool's failure item: the input item, whole, with `error` added (a model reads the item's
 * json, and the input's fields tell it which call failed); n8n merges the input json itself on
 * the error output.
 */
export function inputItemWithError(ctx: IExecuteFunctions, i: number, error: IDataObject): INodeExecutionData {
	const item = ctx.getInputData()[i];
	const json = ctx.getNode().onError === 'continueErrorOutput' ? { error } : { ...item.json, error };
	return { json, ...(item.binary ? { binary: item.binary } : {}), pairedItem: { item: i } };
}
