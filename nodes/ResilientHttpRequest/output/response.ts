/**
 * Turns a response into output items, the way n8n's HTTP Request node does (HttpRequestV3's
 * output loop): the body read as HTTP Request reads it (response-body.ts), a file stored as it
 * stores one (response-file.ts), then the items each format gives.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { HttpResponse, ResponseFormat, ResponseSettings } from '../types';
import { contentTypeOf, isBlank, readResponseBody, type BodySource } from './response-body';
import { prepareResponseFile } from './response-file';

function looksTextual(contentType: string): boolean {
	return contentType === '' || /^text\/|json|xml|javascript|x-www-form-urlencoded|yaml|csv|html/.test(contentType);
}

/**
 * A failed response's body as the attempt reads the server's signals from it (synchronously, as
 * UTF-8, where the attempt is classified) and the tool's account quotes it: parsed JSON, text, or
 * nothing for a file. Every body that becomes items (and pagination's `$response`) is read as HTTP
 * Request reads it, by readResponseBody.
 */
type DecodedBody = { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | { kind: 'file' } | { kind: 'invalid-json'; problem: string };

export function decodeBody(response: HttpResponse, format: ResponseFormat): DecodedBody {
	const contentType = contentTypeOf(response).toLowerCase();
	if (format === 'file') return { kind: 'file' };
	const text = response.body.toString('utf8');
	if (format === 'text') return { kind: 'text', value: text };
	if (format === 'json' || contentType.includes('json')) {
		if (text.trim() === '') return { kind: 'text', value: '' };
		try {
			return { kind: 'json', value: JSON.parse(text) };
		} catch {
			// not the parser's message: it quotes the start of the body, which may echo a credential
			if (format === 'json') return { kind: 'invalid-json', problem: `The body (${text.length} characters, content type "${contentType || 'none'}") cannot be parsed as JSON.` };
			return { kind: 'text', value: text };
		}
	}
	return looksTextual(contentType) ? { kind: 'text', value: text } : { kind: 'file' };
}


/** HTTP Request's toText: parsed JSON as its JSON text, anything else (text, a number, nothing) as it is. */
function toText(value: unknown): IDataObject[string] {
	return (typeof value === 'object' && value !== null ? JSON.stringify(value) : value) as IDataObject[string];
}

function statusFields(response: HttpResponse): IDataObject {
	return { headers: response.headers as IDataObject, statusCode: response.statusCode, statusMessage: response.statusMessage };
}

/** Under JSON a body that is still text is parsed once more: blank is {}, anything else must parse. */
function parsedJson(ctx: IExecuteFunctions, i: number, value: unknown): unknown {
	if (typeof value !== 'string') return value;
	if (isBlank(value)) return {};
	try {
		return JSON.parse(value) as unknown;
	} catch {
		throw new NodeOperationError(ctx.getNode(), 'Response body is not valid JSON. Change "Response Format" to "Text"', { itemIndex: i });
	}
}

/**
 * One JSON value as an item's json: an object as it is, null as {} (HTTP Request's
 * replaceNullValues). A number, a string or an array HTTP Request would emit as the item's json,
 * which is no n8n item (a downstream Edit Fields cannot add a field to it): it goes under the
 * output field, as a text body does.
 */
function itemJson(value: unknown, field: string): IDataObject {
	if (value === null) return {};
	if (typeof value === 'object' && !Array.isArray(value)) return value as IDataObject;
	return { [field]: value as IDataObject[string] };
}

function jsonItems(ctx: IExecuteFunctions, i: number, response: HttpResponse, settings: ResponseSettings, value: unknown): IDataObject[] {
	const field = settings.outputPropertyName || 'data';
	if (settings.fullResponse) return [{ body: parsedJson(ctx, i, value) as IDataObject, ...statusFields(response) }];
	// an empty body: HTTP Request fails with "Cannot read properties of undefined"; the answer is {}
	const parsed = value === undefined ? {} : parsedJson(ctx, i, value);
	if (!Array.isArray(parsed)) return [itemJson(parsed, field)];
	// an empty array is an answer of no records: no item, as from HTTP Request (the nodes after it do
	// not run for it; n8n's Always Output Data setting gives an empty item instead)
	return parsed.map((entry) => itemJson(entry, field));
}

function textItem(response: HttpResponse, settings: ResponseSettings, value: unknown): IDataObject {
	const text = { [settings.outputPropertyName || 'data']: toText(value) };
	return settings.fullResponse ? { ...text, ...statusFields(response) } : text;
}

/** The file under the output field, beside the input item's binaries; the input item's json, or the status fields. */
async function fileItem(ctx: IExecuteFunctions, i: number, response: HttpResponse, settings: ResponseSettings, url: string): Promise<INodeExecutionData> {
	const field = settings.outputPropertyName || 'data';
	const input = ctx.getInputData()[i];
	const file = await prepareResponseFile(ctx, response, url, field);
	const json = settings.fullResponse ? statusFields(response) : { ...(input?.json ?? {}) };
	return { json, binary: { ...(input?.binary ?? {}), [field]: file } };
}

/**
 * The response's items, before the retry story is added. `url`: the URL the item asked for (a
 * file without a name of its own is named after it, as in HTTP Request). `source`: 'page' for a
 * page of pagination, whose body HTTP Request gets already read (response-body.ts).
 */
export async function responseToItems(ctx: IExecuteFunctions, i: number, response: HttpResponse, settings: ResponseSettings, url: string, source: BodySource = 'response'): Promise<INodeExecutionData[]> {
	const body = await readResponseBody(ctx, response, settings.format, settings.neverError, source);
	if (body.format === 'file') return [await fileItem(ctx, i, response, settings, url)];
	if (body.format === 'text') return [{ json: textItem(response, settings, body.value) }];
	return jsonItems(ctx, i, response, settings, body.value).map((json) => ({ json }));
}
