/**
 * Turns the node's parameters for one item into a request description that can be sent again
 * unchanged on every attempt (bodies are finished bytes, never single-use streams).
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { headerNameProblem, headerValueProblem } from '../../shared/core/idempotency';
import { setPath } from '../../shared/core/json-path';
import { httpRequestParameterError, parameterError } from '../../shared/n8n/parameters';
import { stringifyForm } from '../transport/form-urlencoded';
import { encodeMultipart, type MultipartPart } from '../transport/multipart';
import { headerValue, type RequestSpec } from '../types';

interface KeyValue {
	name?: string;
	value?: unknown;
	parameterType?: string;
	inputDataFieldName?: string;
}

function allKeyValues(ctx: IExecuteFunctions, parameter: string, i: number): KeyValue[] {
	const collection = ctx.getNodeParameter(parameter, i, {}) as { parameters?: KeyValue[] };
	return collection.parameters ?? [];
}

/** The entries with a name (a binary field needs none). */
function keyValues(ctx: IExecuteFunctions, parameter: string, i: number): KeyValue[] {
	return allKeyValues(ctx, parameter, i).filter((p) => (p.name ?? '') !== '' || p.parameterType === 'formBinaryData');
}

/**
 * Query and form fields as HTTP Request 4.3+ collects them: a name given again becomes an array of
 * its values (4.0-4.2 kept the last value only: a named deviation in the differential suite). An
 * empty name is kept, as HTTP Request keeps it (`?=x`).
 */
function collectFields(entries: KeyValue[]): IDataObject {
	const fields: IDataObject = {};
	for (const p of entries) {
		const name = p.name ?? '';
		const previous = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
		const value = previous === undefined ? p.value : ([] as unknown[]).concat(previous, p.value);
		// defined, not assigned: a name the user typed never reaches the object's prototype
		Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
	}
	return fields;
}

/** HTTP Request's error for JSON it cannot parse, by its name for the field; the parser's words as the description. */
function invalidJson(ctx: IExecuteFunctions, i: number, field: 'JSON Body' | 'JSON Query Parameters' | 'JSON Headers', error: unknown): never {
	httpRequestParameterError(ctx, i, `The value in the "${field}" field is not valid JSON`, (error as Error).message);
}

/** A JSON parameter may arrive as an object (expression) or as text the user typed. */
function jsonObjectParameter(ctx: IExecuteFunctions, parameter: string, i: number, label: string, field: 'JSON Query Parameters' | 'JSON Headers'): IDataObject {
	const raw = ctx.getNodeParameter(parameter, i, '') as unknown;
	if (raw === '' || raw === undefined || raw === null) return {};
	let value: unknown = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch (error) {
			invalidJson(ctx, i, field, error);
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		parameterError(ctx, i, label, `must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
	}
	return value as IDataObject;
}

function jsonBodyParameter(ctx: IExecuteFunctions, i: number): string {
	const raw = ctx.getNodeParameter('jsonBody', i, '') as unknown;
	if (typeof raw !== 'string') return JSON.stringify(raw ?? {});
	if (raw.trim() === '') return '{}';
	try {
		return JSON.stringify(JSON.parse(raw));
	} catch (error) {
		invalidJson(ctx, i, 'JSON Body', error);
	}
}

/**
 * A JSON body field named like `customer.name` or `items[0].id` becomes nested, as in HTTP Request
 * (v4 sets each field with lodash's `set`). A name with a key that could reach an object's
 * prototype is kept as it is (json-path.ts, the grammar of every path parameter).
 */
function setByPath(target: IDataObject, name: string, value: unknown): void {
	setPath(target, name, value);
}

/** HTTP Request's Accept header when none is set, by Response Format. */
function defaultAccept(format: unknown): string {
	if (format === 'json') return 'application/json,text/*;q=0.99';
	if (format === 'text') return 'application/json,text/html,application/xhtml+xml,application/xml,text/*;q=0.9, */*;q=0.1';
	return 'application/json,text/html,application/xhtml+xml,application/xml,text/*;q=0.9, image/*;q=0.8, */*;q=0.7';
}

/** What a URL error may show of the value: never its query string, which may hold an API key (deviation url-errors-without-query). */
function urlShown(url: string): string {
	const shown = url.split(/[?#]/)[0];
	return shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
}

const urlForMessage = (url: string) => JSON.stringify(urlShown(url));

/** HTTP Request's three checks of the URL in its words, then what n8n's client would refuse later, in ours. */
function validateUrl(ctx: IExecuteFunctions, raw: unknown, i: number): string {
	if (typeof raw !== 'string') httpRequestParameterError(ctx, i, `URL parameter must be a string, got ${raw === null ? 'null' : typeof raw}`);
	const trimmed = raw.trim();
	if (trimmed === '') httpRequestParameterError(ctx, i, 'URL parameter cannot be empty');
	if (!/^https?:\/\//i.test(trimmed)) httpRequestParameterError(ctx, i, `Invalid URL: ${urlShown(trimmed)}. URL must start with "http" or "https".`);
	let parsed: URL;
	try {
		parsed = new URL(trimmed);
	} catch {
		// the words "Invalid URL" are what Node and axios say: users search for them
		parameterError(ctx, i, 'URL', `must be an absolute URL starting with http:// or https://: Invalid URL ${urlForMessage(trimmed)}`);
	}
	if (parsed.hostname === '') parameterError(ctx, i, 'URL', `has no host: Invalid URL ${urlForMessage(trimmed)}`);
	return trimmed;
}

/** Header names and values Node's HTTP client would refuse (or that would inject headers) fail here, before any request. */
function validateHeader(ctx: IExecuteFunctions, i: number, label: string, name: string, value: string): void {
	const nameProblem = headerNameProblem(name);
	if (nameProblem) parameterError(ctx, i, label, `has an invalid header name: ${nameProblem}`);
	const valueProblem = headerValueProblem(value);
	if (valueProblem) parameterError(ctx, i, label, `has an invalid value for header "${name}": it ${valueProblem}`);
}

async function binaryPart(ctx: IExecuteFunctions, i: number, field: string) {
	// n8n's check, as HTTP Request makes it: its message and description for a missing field
	const meta = ctx.helpers.assertBinaryData(i, field);
	const data = await ctx.helpers.getBinaryDataBuffer(i, field);
	// HTTP Request's fallbacks: a file named "file"; a mime type only when there is none at all (an
	// empty one is sent empty)
	return { data, fileName: meta.fileName ?? 'file', mimeType: meta.mimeType ?? 'application/octet-stream' };
}

/** HTTP Request sets the length of a file or multipart body itself, under a lowercase name the server sees. */
function setContentLength(headers: Record<string, string>, body: Buffer): void {
	headers['content-length'] = String(body.length);
}

async function readBody(ctx: IExecuteFunctions, i: number, headers: Record<string, string>): Promise<string | Buffer | undefined> {
	if (!(ctx.getNodeParameter('sendBody', i, false) as boolean)) return undefined;
	const contentType = ctx.getNodeParameter('contentType', i, 'json') as string;
	const setType = (type: string) => {
		if (headerValue(headers, 'content-type') === undefined) headers['content-type'] = type;
	};
	switch (contentType) {
		case 'json': {
			setType('application/json');
			if ((ctx.getNodeParameter('specifyBody', i, 'keypair') as string) === 'json') return jsonBodyParameter(ctx, i);
			const body: IDataObject = {};
			for (const p of keyValues(ctx, 'bodyParameters', i)) setByPath(body, p.name as string, p.value);
			return JSON.stringify(body);
		}
		case 'form-urlencoded': {
			setType('application/x-www-form-urlencoded');
			// HTTP Request reads a typed body into fields (the last of a repeated name wins) and encodes them again
			if ((ctx.getNodeParameter('specifyBody', i, 'keypair') as string) === 'string') return stringifyForm(Object.fromEntries(new URLSearchParams(ctx.getNodeParameter('body', i, '') as string)));
			return stringifyForm(collectFields(allKeyValues(ctx, 'bodyParameters', i)));
		}
		case 'multipart-form-data': {
			const parts: MultipartPart[] = [];
			for (const p of keyValues(ctx, 'bodyParameters', i)) {
				if (p.parameterType === 'formBinaryData') {
					const field = (p.inputDataFieldName ?? '').trim() || 'data';
					const file = await binaryPart(ctx, i, field);
					// form-data guesses an empty mime type (from the name, else application/octet-stream)
					parts.push({ name: p.name || field, ...file, mimeType: file.mimeType || 'application/octet-stream' });
				} else {
					parts.push({ name: p.name as string, value: String(p.value ?? '') });
				}
			}
			const encoded = encodeMultipart(parts);
			headers['content-type'] = encoded.contentType;
			setContentLength(headers, encoded.body);
			return encoded.body;
		}
		case 'binaryData': {
			// an emptied field name fails the item as HTTP Request fails it (n8n's own check), rather than sending the file under "data"
			const field = (ctx.getNodeParameter('inputDataFieldName', i, 'data') as string).trim();
			const file = await binaryPart(ctx, i, field);
			setType(file.mimeType);
			setContentLength(headers, file.data);
			return file.data;
		}
		case 'raw': {
			// an emptied Content Type is sent empty, as HTTP Request sends it (a migrated node carries HTTP Request's empty default)
			setType(ctx.getNodeParameter('rawContentType', i, 'text/plain') as string);
			return ctx.getNodeParameter('body', i, '') as string;
		}
		default:
			throw new NodeOperationError(ctx.getNode(), `Unknown body content type "${contentType}"`, { itemIndex: i });
	}
}

/** The item's request; `options` is the item's Options collection, read once by its config. */
export async function readRequestSpec(ctx: IExecuteFunctions, i: number, options: IDataObject): Promise<RequestSpec> {
	const method = (ctx.getNodeParameter('method', i, 'GET') as string).toUpperCase() as IHttpRequestMethods;
	const url = validateUrl(ctx, ctx.getNodeParameter('url', i, '') as unknown, i);

	let qs: IDataObject = {};
	if (ctx.getNodeParameter('sendQuery', i, false) as boolean) {
		const asJson = (ctx.getNodeParameter('specifyQuery', i, 'keypair') as string) === 'json';
		qs = asJson ? { ...jsonObjectParameter(ctx, 'jsonQuery', i, 'Query Parameters (JSON)', 'JSON Query Parameters') } : collectFields(allKeyValues(ctx, 'queryParameters', i));
	}

	// HTTP Request lowercases the names of the headers the user sets, unless told not to
	const lowercase = options.lowercaseHeaders !== false;
	const headers: Record<string, string> = {};
	if (ctx.getNodeParameter('sendHeaders', i, false) as boolean) {
		const asJson = (ctx.getNodeParameter('specifyHeaders', i, 'keypair') as string) === 'json';
		const label = asJson ? 'Headers (JSON)' : 'Header Parameters';
		const entries = asJson ? Object.entries(jsonObjectParameter(ctx, 'jsonHeaders', i, label, 'JSON Headers')).map(([name, value]) => ({ name, value })) : keyValues(ctx, 'headerParameters', i);
		for (const { name, value } of entries) {
			if (typeof value === 'object' && value !== null) parameterError(ctx, i, label, `has a value for header "${name}" that is an object, not text`);
			const text = String(value ?? '');
			validateHeader(ctx, i, label, String(name), text);
			headers[lowercase ? String(name).toLowerCase() : String(name)] = text;
		}
	}

	const body = await readBody(ctx, i, headers);
	const acceptIsDefault = headerValue(headers, 'accept') === undefined;
	if (acceptIsDefault) headers.accept = defaultAccept(((options.response as IDataObject | undefined)?.response as IDataObject | undefined)?.responseFormat);
	const arrayFormat = options.queryParameterArrays as RequestSpec['arrayFormat'];
	return { method, url, qs, headers, ...(body !== undefined ? { body } : {}), ...(arrayFormat ? { arrayFormat } : {}), ...(acceptIsDefault ? { acceptIsDefault } : {}) };
}
