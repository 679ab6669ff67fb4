/**
 * The request as HTTP Request's thrown error quotes it (`context.request`): its request options
 * (the legacy request library's), built from the same parameters. Redacted by the caller, where
 * HTTP Request hides the credential's keys.
 */
import type { IDataObject } from 'n8n-workflow';
import type { RequestSpec } from '../types';
import type { QuotedOptions } from '../config/quoted-options';

/** The body as HTTP Request's options hold it: a JSON body as its object, a form as `form`; other bodies are left out. */
function bodyOptions(spec: RequestSpec): IDataObject {
	if (typeof spec.body !== 'string') return {};
	const type = Object.entries(spec.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
	if (type.includes('json')) {
		try {
			return { body: JSON.parse(spec.body) as IDataObject };
		} catch {
			return {};
		}
	}
	if (type.includes('x-www-form-urlencoded')) return { form: Object.fromEntries(new URLSearchParams(spec.body)) };
	return {};
}

/**
 * The quote of the item's request. A paginated request is quoted as n8n's pagination helper left
 * HTTP Request's options: a query (empty or not), and `simple: false`.
 */
export function requestContext(spec: RequestSpec, quoted: QuotedOptions, paginated = false): IDataObject {
	const body = bodyOptions(spec);
	// a JSON body or a form: HTTP Request leaves the content type to the request library
	const headers = Object.keys(body).length > 0 ? Object.fromEntries(Object.entries(spec.headers).filter(([name]) => name.toLowerCase() !== 'content-type')) : { ...spec.headers };
	return {
		...quoted.fields,
		headers,
		method: spec.method,
		uri: spec.url,
		...(spec.method !== 'GET' || quoted.follow ? { followAllRedirects: quoted.follow } : {}),
		...(Object.keys(spec.qs).length > 0 || paginated ? { qs: { ...spec.qs } } : {}),
		...(paginated ? { simple: false } : {}),
		...body,
	};
}
