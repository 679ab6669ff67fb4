/**
 * The request as HTTP Request's thrown error quotes it (`context.request`): its request options
 * (the legacy request library's), built from the same parameters. Redacted by the caller, where
 * HTTP Request hides the credential's keys.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { RequestSpec } from '../config/request-spec';
import type { ResponseFormat } from './response';

/** What the options say beside the request itself. */
interface ContextSettings {
	format: ResponseFormat;
	sendCredentialsCrossOrigin: boolean;
}

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

export function requestContext(ctx: IExecuteFunctions, i: number, spec: RequestSpec, settings: ContextSettings): IDataObject {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const redirect = ((options.redirect as IDataObject | undefined)?.redirect ?? undefined) as IDataObject | undefined;
	const follow = redirect === undefined || redirect.followRedirects === true;
	const maxRedirects = redirect?.maxRedirects;
	const streamed = settings.format === 'autodetect' || settings.format === 'file';
	const body = bodyOptions(spec);
	// a JSON body or a form: HTTP Request leaves the content type to the request library
	const headers = Object.keys(body).length > 0 ? Object.fromEntries(Object.entries(spec.headers).filter(([name]) => name.toLowerCase() !== 'content-type')) : { ...spec.headers };
	return {
		headers,
		method: spec.method,
		uri: spec.url,
		gzip: true,
		rejectUnauthorized: options.allowUnauthorizedCerts !== true,
		followRedirect: follow,
		...(spec.method !== 'GET' || follow ? { followAllRedirects: follow } : {}),
		...(follow && typeof maxRedirects === 'number' ? { maxRedirects } : {}),
		resolveWithFullResponse: true,
		sendCredentialsOnCrossOriginRedirect: settings.sendCredentialsCrossOrigin,
		timeout: typeof options.timeout === 'number' && options.timeout > 0 ? options.timeout : 300_000,
		...(Object.keys(spec.qs).length > 0 ? { qs: spec.qs } : {}),
		...body,
		...(streamed ? { encoding: null, json: false, useStream: true } : { json: true }),
	};
}
