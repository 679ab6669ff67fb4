/**
 * Credentials that add fields to the request body (Custom Auth's `body`, and the few predefined
 * types whose `authenticate` writes into the body) need the body as fields, not as finished text.
 * Only a JSON object body, a form-urlencoded body, or no body can take fields.
 */
import type { IDataObject } from 'n8n-workflow';
import { headerValue } from '../types';
import { stringifyForm } from './form-urlencoded';

type BodyFields = { kind: 'none' } | { kind: 'json' | 'form'; fields: IDataObject } | { kind: 'unsupported'; why: string };

function mediaType(headers: Record<string, string>): string {
	return (headerValue(headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
}

function isJsonMediaType(type: string): boolean {
	return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/** The body's fields, or why it cannot take more. */
export function bodyFields(body: string | Buffer | undefined, headers: Record<string, string>): BodyFields {
	if (body === undefined || body.length === 0) return { kind: 'none' };
	const type = mediaType(headers);
	const textBody = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (isJsonMediaType(type)) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(textBody);
		} catch {
			return { kind: 'unsupported', why: 'the body is not valid JSON' };
		}
		if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'unsupported', why: 'the JSON body is not an object' };
		return { kind: 'json', fields: parsed as IDataObject };
	}
	if (type === 'application/x-www-form-urlencoded') {
		const params = new URLSearchParams(textBody);
		const fields: IDataObject = {};
		for (const [name, value] of params) {
			if (name in fields) return { kind: 'unsupported', why: `the form body repeats the field "${name}"` };
			fields[name] = value;
		}
		return { kind: 'form', fields };
	}
	return { kind: 'unsupported', why: `a ${type || 'raw'} body cannot take fields (only a JSON or Form URL Encoded body, or none)` };
}

/** The body with the credential's fields added (they win, as in HTTP Request), as finished text. */
export function bodyWithFields(body: string | Buffer | undefined, headers: Record<string, string>, added: IDataObject): { body: string | Buffer | undefined; headers: Record<string, string> } {
	if (Object.keys(added).length === 0) return { body, headers };
	const current = bodyFields(body, headers);
	if (current.kind === 'form') {
		return { body: stringifyForm({ ...current.fields, ...added }), headers };
	}
	if (current.kind === 'json') return { body: JSON.stringify({ ...current.fields, ...added }), headers };
	if (current.kind === 'none') {
		const withType = headerValue(headers, 'content-type') === undefined ? { ...headers, 'content-type': 'application/json' } : headers;
		return { body: JSON.stringify(added), headers: withType };
	}
	// checked before any request (transport-settings.ts): never reached with an unsupported body
	throw new Error(`cannot add the credential's body fields: ${current.kind === 'unsupported' ? current.why : current.kind}`);
}
