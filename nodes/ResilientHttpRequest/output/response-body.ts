/**
 * A response's body as HTTP Request reads it for its items. With Response Format Autodetect it
 * asks n8n for the raw bytes and decides by Content-Type: `application/json` parsed (in the
 * content type's charset), a binary type a file, anything else text (in its charset). With JSON or
 * Text it asks n8n's client for JSON: the body is read as UTF-8 and parsed when it parses, so a
 * JSON answer is a value under Text too. An empty body is no value at all.
 *
 * A page of pagination under Autodetect is read otherwise: n8n's pagination helper has read it
 * before HTTP Request sees it (in the Content-Type's charset, without detection; JSON parsed, {}
 * when it does not parse; text kept as it is, empty too), and HTTP Request takes that body as it is.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';
import type { HttpResponse, ResponseFormat } from '../types';
import { charsetOf, decodeAs, decodeText } from './text-decoding';

/** How the items are built (HTTP Request's responseFormat after autodetection) and from what. */
export type ResponseBody = { format: 'json' | 'text'; value: unknown } | { format: 'file' };

/** HTTP Request's list: a Content-Type containing one of these is a file under Autodetect. */
const BINARY_CONTENT_TYPES = [
	'image/',
	'audio/',
	'video/',
	'application/octet-stream',
	'application/gzip',
	'application/zip',
	'application/vnd.rar',
	'application/epub+zip',
	'application/x-bzip',
	'application/x-bzip2',
	'application/x-cdf',
	'application/vnd.amazon.ebook',
	'application/msword',
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	'application/vnd.ms-fontobject',
	'application/vnd.oasis.opendocument.presentation',
	'application/pdf',
	'application/x-tar',
	'application/vnd.visio',
	'application/vnd.ms-excel',
	'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	'application/x-7z-compressed',
];

/** The Content-Type as the server sent it (HTTP Request matches it case-sensitively). */
export function contentTypeOf(response: HttpResponse): string {
	const value = response.headers['content-type'];
	return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : '';
}

export function isBlank(value: unknown): boolean {
	return typeof value === 'string' && value.trim().length === 0;
}

/** What axios gives n8n's client when JSON is asked for: UTF-8 without its byte order mark, parsed when it parses. */
function clientJsonValue(body: Buffer): unknown {
	const text = body.toString('utf8').replace(/^\uFEFF/, '');
	if (text === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

async function autodetected(ctx: IExecuteFunctions, response: HttpResponse, neverError: boolean): Promise<ResponseBody> {
	const contentType = contentTypeOf(response);
	if (contentType.includes('application/json')) {
		const text = await decodeText(ctx, response.body, contentType);
		// n8n's jsonParse: its error (a UserError) is the one HTTP Request throws; Never Error takes {} instead
		const value = isBlank(text) ? {} : jsonParse(text, neverError ? { fallbackValue: {} } : { errorMessage: 'Invalid JSON in response body' });
		return { format: 'json', value };
	}
	if (BINARY_CONTENT_TYPES.some((type) => contentType.includes(type))) return { format: 'file' };
	const text = await decodeText(ctx, response.body, contentType);
	return { format: 'text', value: text === '' ? undefined : text };
}

/** Where the body comes from: a response of its own, or a page n8n's pagination helper has read. */
export type BodySource = 'response' | 'page';

async function autodetectedPage(ctx: IExecuteFunctions, response: HttpResponse): Promise<ResponseBody> {
	const contentType = contentTypeOf(response);
	const isJson = contentType.includes('application/json');
	// a file page stays a file: n8n's helper would have read its bytes as text first, the node keeps them
	if (!isJson && BINARY_CONTENT_TYPES.some((type) => contentType.includes(type))) return { format: 'file' };
	const text = await decodeAs(ctx, response.body, charsetOf(contentType) ?? 'utf-8');
	return isJson ? { format: 'json', value: jsonParse(text, { fallbackValue: {} }) } : { format: 'text', value: text };
}

export async function readResponseBody(ctx: IExecuteFunctions, response: HttpResponse, format: ResponseFormat, neverError: boolean, source: BodySource): Promise<ResponseBody> {
	if (format === 'autodetect') return source === 'page' ? await autodetectedPage(ctx, response) : await autodetected(ctx, response, neverError);
	if (format === 'file') return { format: 'file' };
	return { format, value: clientJsonValue(response.body) };
}
