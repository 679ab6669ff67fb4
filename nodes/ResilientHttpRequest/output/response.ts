/** Turns a response into output items, the way n8n's HTTP Request node does. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { HttpResponse } from '../transport/send-attempt';

export type ResponseFormat = 'autodetect' | 'json' | 'text' | 'file';

export interface ResponseSettings {
	format: ResponseFormat;
	fullResponse: boolean;
	outputPropertyName: string;
}

function contentTypeOf(response: HttpResponse): string {
	const value = response.headers['content-type'];
	return (Array.isArray(value) ? String(value[0]) : String(value ?? '')).toLowerCase();
}

function looksTextual(contentType: string): boolean {
	return contentType === '' || /^text\/|json|xml|javascript|x-www-form-urlencoded|yaml|csv|html/.test(contentType);
}

/** Decoded body: parsed JSON, text, or undefined when it is a file. */
export type DecodedBody = { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | { kind: 'file' } | { kind: 'invalid-json'; problem: string };

export function decodeBody(response: HttpResponse, format: ResponseFormat): DecodedBody {
	const contentType = contentTypeOf(response);
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

function fileNameFrom(response: HttpResponse, url: string): string | undefined {
	const disposition = String(response.headers['content-disposition'] ?? '');
	const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
	if (m) return decodeURIComponent(m[1]);
	const last = new URL(url).pathname.split('/').pop();
	return last || undefined;
}

/**
 * The response's items, before the retry story is added. Arrays in JSON bodies become one item each.
 * `decoded`: the body as decodeBody already read it in settings.format (a page that was read for
 * `$response`), so that it is not parsed again.
 */
export async function responseToItems(ctx: IExecuteFunctions, i: number, response: HttpResponse, settings: ResponseSettings, url: string, decoded: DecodedBody = decodeBody(response, settings.format)): Promise<INodeExecutionData[]> {
	if (decoded.kind === 'invalid-json') {
		throw new NodeOperationError(ctx.getNode(), 'The response is not valid JSON', {
			itemIndex: i,
			description: `Set Response Format to Text or Autodetect to receive it anyway. ${decoded.problem}`,
		});
	}
	const field = settings.outputPropertyName || 'data';
	const envelope = (body: unknown): IDataObject =>
		settings.fullResponse ? { body: body as IDataObject, headers: response.headers as IDataObject, statusCode: response.statusCode, statusMessage: response.statusMessage } : (body as IDataObject);

	if (decoded.kind === 'file') {
		const binary = await ctx.helpers.prepareBinaryData(response.body, fileNameFrom(response, url), contentTypeOf(response).split(';')[0] || undefined);
		const json = settings.fullResponse ? envelope(undefined) : {};
		if (settings.fullResponse) delete json.body;
		return [{ json, binary: { [field]: binary } }];
	}
	if (decoded.kind === 'text') {
		return [{ json: settings.fullResponse ? envelope(decoded.value) : { [field]: decoded.value } }];
	}
	const value = decoded.value;
	if (settings.fullResponse) return [{ json: envelope(value) }];
	if (Array.isArray(value)) {
		// HTTP Request drops the item on an empty array; keeping it means no input item vanishes
		if (value.length === 0) return [{ json: { [field]: [] } }];
		return value.map((entry) => ({ json: entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as IDataObject) : { [field]: entry as IDataObject[string] } }));
	}
	if (value !== null && typeof value === 'object') return [{ json: value as IDataObject }];
	return [{ json: { [field]: value as IDataObject[string] } }];
}
