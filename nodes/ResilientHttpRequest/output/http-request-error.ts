/**
 * HTTP Request's error object for a request that failed: what n8n's HTTP Request 4.x puts in an
 * error item's `json.error` and builds its thrown NodeApiError from (n8n-core's legacy request:
 * an axios error with `options`, and for a status its `statusCode`, `error` and `response`). A
 * downstream node reads the same fields with the same values; what this node adds (the story, the
 * reason, the server's wait) is set beside them by the caller.
 */
import type { IDataObject } from 'n8n-workflow';
import type { AttemptFailure } from '../../shared/core/classify';
import type { ResponseFormat } from '../types';
import { charsetOf } from './text-decoding';

/**
 * Named as HTTP Request's error is: a Code node reading `error.constructor.name` sees the same, and
 * n8n's NodeApiError reads the status of an error by this class name. Every field is enumerable, as
 * axios makes `message` enumerable, so that a copy of the item keeps them.
 */
class AxiosError extends Error {
	constructor(fields: IDataObject) {
		super(String(fields.message ?? ''));
		for (const [key, value] of Object.entries(fields)) Object.defineProperty(this, key, { value, enumerable: true, writable: true, configurable: true });
	}
}

/** The request as HTTP Request's error quotes it (`options`): the axios config's url, method, data and headers. */
export interface SentRequest {
	method: string;
	url: string;
	headers?: Record<string, string>;
	body?: string | Buffer;
}

/** axios' status error codes (its `settle`): 4xx ERR_BAD_REQUEST, 5xx ERR_BAD_RESPONSE, none for a 3xx. */
function statusErrorCode(status: number): { code?: string } {
	if (status >= 500) return { code: 'ERR_BAD_RESPONSE' };
	return status >= 400 ? { code: 'ERR_BAD_REQUEST' } : {};
}

/** The headers as the axios config holds them: axios' and n8n's defaults, overridden case-insensitively by the request's. */
function configHeaders(request: SentRequest): IDataObject {
	const headers: IDataObject = {
		Accept: 'application/json, text/plain, */*',
		'Accept-Encoding': 'gzip, compress, deflate, br',
		'Content-Type': false,
		'User-Agent': 'n8n',
	};
	if (typeof request.body === 'string' && request.body !== '') headers['Content-Length'] = String(Buffer.byteLength(request.body));
	for (const [name, value] of Object.entries(request.headers ?? {})) {
		const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
		headers[existing ?? name] = value;
	}
	return headers;
}

function optionsOf(request: SentRequest): IDataObject {
	return {
		url: request.url,
		method: request.method.toLowerCase(),
		...(typeof request.body === 'string' ? { data: request.body } : {}),
		headers: configHeaders(request),
	};
}

/** Error bodies up to this size are carried whole; larger ones are cut to LARGE_ERROR_BODY_CHARS. */
const MAX_WHOLE_ERROR_BODY_BYTES = 64 * 1024;
const LARGE_ERROR_BODY_CHARS = 2000;

/** The bytes as text, by the response's charset (UTF-8 when it names none or one unknown). */
function decodeText(body: Buffer, failure: AttemptFailure): string {
	try {
		return new TextDecoder(charsetOf(String(failure.headers?.['content-type'] ?? '')) ?? 'utf-8').decode(body);
	} catch {
		return body.toString('utf8');
	}
}

/**
 * The response body as HTTP Request's error carries it (`error`): the text, decoded by its charset
 * (Autodetect, File: n8n reads the stream to a string); parsed when JSON is expected (JSON, Text:
 * axios parses JSON and keeps other text).
 */
function bodyValue(failure: AttemptFailure, format: ResponseFormat): unknown {
	const whole = Buffer.isBuffer(failure.body) ? failure.body : Buffer.alloc(0);
	// unlike HTTP Request, a large body (an HTML page, a dump) is not carried whole: its start, as text
	const large = whole.length > MAX_WHOLE_ERROR_BODY_BYTES;
	const body = large ? whole.subarray(0, LARGE_ERROR_BODY_CHARS * 4) : whole;
	const text = decodeText(body, failure);
	if (large) return `${text.slice(0, LARGE_ERROR_BODY_CHARS)}…`;
	if (format === 'autodetect' || format === 'file' || text.trim() === '') return text;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/** HTTP Request's words for a 429, set on its error before it is thrown or put on the item. */
const TOO_MANY_REQUESTS = "Try spacing your requests out using the batching settings under 'Options'";

/** The fields of a failed status's error. */
function statusError(failure: AttemptFailure, status: number, request: SentRequest, format: ResponseFormat): IDataObject {
	const error = bodyValue(failure, format);
	return {
		name: 'AxiosError',
		message: status === 429 ? TOO_MANY_REQUESTS : `${status} - ${JSON.stringify(error)}`,
		...statusErrorCode(status),
		isAxiosError: true,
		options: optionsOf(request),
		statusCode: status,
		status,
		error: error as IDataObject,
		response: { headers: (failure.headers ?? {}) as IDataObject, status, statusText: failure.statusText ?? '' },
	};
}

/** The fields of the error of a request that got no status: the network error as thrown, its cause's fields. */
function networkError(failure: AttemptFailure, request: SentRequest): IDataObject {
	return {
		name: failure.thrown?.name ?? 'Error',
		message: failure.message,
		...(failure.thrown?.cause ? { cause: failure.thrown.cause as IDataObject } : {}),
		...(failure.code ? { code: failure.code } : {}),
		isAxiosError: true,
		options: optionsOf(request),
	};
}

/**
 * The body as n8n's pagination helper quotes a page it will not go on from: JSON (by its Content
 * Type, or any body under Response Format JSON or Text) written again compactly, other bodies as text.
 */
function pageBodyText(failure: AttemptFailure, format: ResponseFormat): string {
	const whole = Buffer.isBuffer(failure.body) ? failure.body : Buffer.alloc(0);
	const text = whole.length > MAX_WHOLE_ERROR_BODY_BYTES ? `${decodeText(whole.subarray(0, LARGE_ERROR_BODY_CHARS * 4), failure).slice(0, LARGE_ERROR_BODY_CHARS)}…` : decodeText(whole, failure);
	const streamed = format === 'autodetect' || format === 'file';
	const isJson = String(failure.headers?.['content-type'] ?? '').includes('application/json');
	if (streamed && !isJson) return text;
	try {
		return JSON.stringify(JSON.parse(text));
	} catch {
		// the helper's jsonParse falls back to {} for a streamed body; the request library keeps the text
		return streamed ? '{}' : text;
	}
}

/** The error n8n's pagination helper throws for a page that is not 2xx: a plain Error, the body as text. */
function pageStatusError(failure: AttemptFailure, status: number, format: ResponseFormat): IDataObject {
	const error = pageBodyText(failure, format);
	return {
		name: 'Error',
		message: `${status} - "${error}"`,
		statusCode: status,
		error,
		isAxiosError: true,
		response: { headers: (failure.headers ?? {}) as IDataObject, status, statusText: failure.statusText ?? '' },
	};
}

/**
 * The fields of HTTP Request's error object for the failure of the request's last attempt (made an
 * error by httpRequestError once redacted). A page of a paginated request fails as n8n's pagination
 * helper fails it.
 */
export function httpRequestErrorFields(failure: AttemptFailure, request: SentRequest, format: ResponseFormat, page = false): IDataObject {
	if (failure.kind !== 'status' || failure.status === undefined) return networkError(failure, request);
	return page ? pageStatusError(failure, failure.status, format) : statusError(failure, failure.status, request, format);
}

/** follow-redirects' error class: axios keeps its error for a redirect loop as the cause. */
class CustomError extends Error {}

/** The error object of those fields, of the class HTTP Request's has: axios' error, or the pagination helper's plain Error. */
export function httpRequestError(fields: IDataObject): Error {
	const cause = fields.cause as IDataObject | undefined;
	// follow-redirects names its errors `Error [CODE]`
	if (typeof cause?.name === 'string' && cause.name.startsWith('Error [ERR_FR_')) fields = { ...fields, cause: Object.assign(new CustomError(String(cause.message)), cause) as unknown as IDataObject };
	if (fields.name !== 'Error' || 'options' in fields) return new AxiosError(fields);
	const { message, name: _name, ...rest } = fields;
	return Object.assign(new Error(String(message)), rest);
}

/** What a thrown network error leaves for the error object: its name and its cause's own fields (address, code, errno, port, syscall). */
export function thrownShape(error: unknown): NonNullable<AttemptFailure['thrown']> {
	const name = error instanceof Error ? error.name : 'Error';
	const cause = (error as { cause?: unknown } | null)?.cause;
	if (typeof cause !== 'object' || cause === null) return { name };
	const fields = Object.fromEntries(Object.entries(cause).filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value)));
	return { name, cause: fields };
}
