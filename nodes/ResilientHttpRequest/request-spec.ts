/**
 * Turns the node's parameters for one item into a request description that can be sent again
 * unchanged on every attempt (bodies are finished bytes, never single-use streams).
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { encodeMultipart, type MultipartPart } from './multipart';

export interface RequestSpec {
	method: IHttpRequestMethods;
	url: string;
	qs: IDataObject;
	headers: Record<string, string>;
	body?: string | Buffer;
	arrayFormat?: 'indices' | 'brackets' | 'repeat';
}

interface KeyValue {
	name?: string;
	value?: unknown;
	parameterType?: string;
	inputDataFieldName?: string;
}

function keyValues(ctx: IExecuteFunctions, parameter: string, i: number): KeyValue[] {
	const collection = ctx.getNodeParameter(parameter, i, {}) as { parameters?: KeyValue[] };
	return (collection.parameters ?? []).filter((p) => (p.name ?? '') !== '' || p.parameterType === 'formBinaryData');
}

/** A JSON parameter may arrive as an object (expression) or as text the user typed. */
function jsonObjectParameter(ctx: IExecuteFunctions, parameter: string, i: number, label: string): IDataObject {
	const raw = ctx.getNodeParameter(parameter, i, '') as unknown;
	if (raw === '' || raw === undefined || raw === null) return {};
	let value: unknown = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), `${label} is not valid JSON`, {
				itemIndex: i,
				description: (error as Error).message,
			});
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		throw new NodeOperationError(ctx.getNode(), `${label} must be a JSON object`, { itemIndex: i });
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
		throw new NodeOperationError(ctx.getNode(), 'JSON Body is not valid JSON', { itemIndex: i, description: (error as Error).message });
	}
}

/** A header's value, whatever the case of its name; undefined when absent. */
export function headerValue(headers: Record<string, string>, name: string): string | undefined {
	const key = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
	return key === undefined ? undefined : headers[key];
}

function validateUrl(ctx: IExecuteFunctions, url: string, i: number): string {
	const trimmed = url.trim();
	let parsed: URL;
	try {
		parsed = new URL(trimmed);
	} catch {
		throw new NodeOperationError(ctx.getNode(), `Invalid URL: "${trimmed}"`, {
			itemIndex: i,
			description: 'The URL must start with http:// or https://',
		});
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		throw new NodeOperationError(ctx.getNode(), `Unsupported URL protocol "${parsed.protocol}"`, { itemIndex: i, description: 'Only http:// and https:// are supported' });
	}
	return trimmed;
}

async function binaryPart(ctx: IExecuteFunctions, i: number, field: string) {
	const item = ctx.getInputData()[i];
	const meta = item.binary?.[field];
	if (!meta) {
		throw new NodeOperationError(ctx.getNode(), `The item has no binary field "${field}"`, {
			itemIndex: i,
			description: `Check "Input Data Field Name". The item's binary fields: ${Object.keys(item.binary ?? {}).join(', ') || 'none'}`,
		});
	}
	const data = await ctx.helpers.getBinaryDataBuffer(i, field);
	return { data, fileName: meta.fileName ?? field, mimeType: meta.mimeType || 'application/octet-stream' };
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
			for (const p of keyValues(ctx, 'bodyParameters', i)) body[p.name as string] = p.value as IDataObject[string];
			return JSON.stringify(body);
		}
		case 'form-urlencoded': {
			setType('application/x-www-form-urlencoded');
			if ((ctx.getNodeParameter('specifyBody', i, 'keypair') as string) === 'string') return ctx.getNodeParameter('body', i, '') as string;
			const form = new URLSearchParams();
			for (const p of keyValues(ctx, 'bodyParameters', i)) form.append(p.name as string, String(p.value ?? ''));
			return form.toString();
		}
		case 'multipart-form-data': {
			const parts: MultipartPart[] = [];
			for (const p of keyValues(ctx, 'bodyParameters', i)) {
				if (p.parameterType === 'formBinaryData') {
					const field = (p.inputDataFieldName ?? '').trim() || 'data';
					parts.push({ name: p.name || field, ...(await binaryPart(ctx, i, field)) });
				} else {
					parts.push({ name: p.name as string, value: String(p.value ?? '') });
				}
			}
			const encoded = encodeMultipart(parts);
			headers['content-type'] = encoded.contentType;
			return encoded.body;
		}
		case 'binaryData': {
			const field = (ctx.getNodeParameter('inputDataFieldName', i, 'data') as string).trim() || 'data';
			const file = await binaryPart(ctx, i, field);
			setType(file.mimeType);
			return file.data;
		}
		case 'raw': {
			setType((ctx.getNodeParameter('rawContentType', i, 'text/plain') as string) || 'text/plain');
			return ctx.getNodeParameter('body', i, '') as string;
		}
		default:
			throw new NodeOperationError(ctx.getNode(), `Unknown body content type "${contentType}"`, { itemIndex: i });
	}
}

export async function readRequestSpec(ctx: IExecuteFunctions, i: number): Promise<RequestSpec> {
	const method = (ctx.getNodeParameter('method', i, 'GET') as string).toUpperCase() as IHttpRequestMethods;
	const url = validateUrl(ctx, ctx.getNodeParameter('url', i) as string, i);

	const qs: IDataObject = {};
	if (ctx.getNodeParameter('sendQuery', i, false) as boolean) {
		if ((ctx.getNodeParameter('specifyQuery', i, 'keypair') as string) === 'json') {
			Object.assign(qs, jsonObjectParameter(ctx, 'jsonQuery', i, 'Query Parameters JSON'));
		} else {
			for (const p of keyValues(ctx, 'queryParameters', i)) {
				const name = p.name as string;
				// repeated names become arrays, as in HTTP Request
				const previous = qs[name];
				qs[name] = previous === undefined ? (p.value as string) : ([] as unknown[]).concat(previous, p.value) as IDataObject[string];
			}
		}
	}

	const headers: Record<string, string> = {};
	if (ctx.getNodeParameter('sendHeaders', i, false) as boolean) {
		const entries =
			(ctx.getNodeParameter('specifyHeaders', i, 'keypair') as string) === 'json'
				? Object.entries(jsonObjectParameter(ctx, 'jsonHeaders', i, 'Headers JSON')).map(([name, value]) => ({ name, value }))
				: keyValues(ctx, 'headerParameters', i);
		for (const { name, value } of entries) headers[name as string] = String(value ?? '');
	}

	const body = await readBody(ctx, i, headers);
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const arrayFormat = options.queryParameterArrays as RequestSpec['arrayFormat'];
	return { method, url, qs, headers, ...(body !== undefined ? { body } : {}), ...(arrayFormat ? { arrayFormat } : {}) };
}
