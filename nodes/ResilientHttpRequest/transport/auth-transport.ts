/**
 * Sends one request (one hop of one attempt) signed by the item's credential, the way HTTP Request
 * signs it, through n8n's helpers:
 * - a type with `authenticate` (Bearer, Header, Simplified Custom Auth, most predefined types):
 *   httpRequestWithAuthentication, which also refreshes a fetched token on a 401;
 * - OAuth2 and OAuth1 (n8n's generic types, this package's, and every predefined type extending
 *   them): requestOAuth2 / requestOAuth1, the calls HTTP Request makes, so the token, its refresh
 *   on a 401 (or the type's own status) and the signature are n8n's own;
 * - Basic, Digest, Query and Custom Auth, which have no `authenticate`: applied here, as HTTP
 *   Request applies them; Digest answers the server's challenge (n8n's helper does the round trip).
 * Every status comes back as a response: the retry loop decides what a 401 or a 503 means.
 */
// IRequestOptions: the format n8n's OAuth helpers (requestOAuth2, requestOAuth1) take, deprecated with
// them; they are the only helpers that apply n8n's generic OAuth types, and HTTP Request calls them
// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
import type { IExecuteFunctions, IHttpRequestOptions, IRequestOptions } from 'n8n-workflow';
import type { AuthPlan } from '../auth/auth-plan';
import { bodyFields, bodyWithFields } from './body-fields';

/** What the credential needs to know of the request beyond its options. */
export interface HopFacts {
	/** The request follows a redirect: HTTP Request follows the Location as it is, the credential's query and body fields not added again. */
	redirected: boolean;
	/** The Accept header is HTTP Request's default, which n8n's OAuth1 helper replaces. */
	acceptIsDefault: boolean;
}

/** What n8n's helpers resolve with when asked for the full response. */
export interface RawResponse {
	statusCode: number;
	statusMessage?: string;
	headers?: Record<string, unknown>;
	body?: unknown;
}

/**
 * n8n's httpRequestWithAuthentication replaces the request's abortSignal by the execution's cancel
 * signal when its `this` has getExecutionCancelSignal. The attempt's signal aborts on cancellation
 * too, and also at the attempt timeout: without it a timed-out attempt's connection would stay open
 * (a server dripping bytes keeps the socket timeout from ever firing). So the helper gets a view of
 * the context without that method; everything else reads through to the context.
 */
function withoutCancelSignal(ctx: IExecuteFunctions): IExecuteFunctions {
	return new Proxy(ctx, { has: (target, key) => key !== 'getExecutionCancelSignal' && Reflect.has(target, key) });
}

/**
 * n8n's OAuth helpers sign a request given in the deprecated request format and hand it to
 * `this.helpers.request`. This context hands it instead to the modern httpRequest, with the
 * request exactly as the node built it (finished body, attempt's abort signal, no redirects)
 * plus the headers the helper signed it with: the token's, or OAuth1's signature (n8n's OAuth1
 * helper replaces all other headers; they are kept here).
 */
function signingContext(ctx: IExecuteFunctions, request: IHttpRequestOptions): IExecuteFunctions {
	// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
	const send = async (signed: IRequestOptions): Promise<unknown> =>
		await ctx.helpers.httpRequest({
			...request,
			headers: { ...(request.headers ?? {}), ...(signed.headers ?? {}) },
			// n8n's OAuth2 helper applies the credential's "Ignore SSL Issues"
			...(signed.rejectUnauthorized === false ? { skipSslCertificateValidation: true } : {}),
		});
	const helpers = new Proxy(ctx.helpers, { get: (target, key, receiver) => (key === 'request' ? send : Reflect.get(target, key, receiver)) });
	return new Proxy(ctx, { get: (target, key, receiver) => (key === 'helpers' ? helpers : Reflect.get(target, key, receiver)) });
}

/** The request in the deprecated format n8n's OAuth helpers sign: what they read (URL, method, query, form fields) and the answer they expect (every status, in full). */
// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
function toSignable(request: IHttpRequestOptions): IRequestOptions {
	const headers = (request.headers ?? {}) as Record<string, string>;
	const fields = typeof request.body === 'string' || Buffer.isBuffer(request.body) ? bodyFields(request.body, headers) : { kind: 'none' as const };
	return {
		uri: request.url,
		method: request.method,
		qs: { ...(request.qs ?? {}) },
		headers: { ...headers },
		// OAuth1 signs a form body's fields (RFC 5849, 3.4.1.3); the body sent is the node's own
		...(fields.kind === 'form' ? { form: fields.fields } : {}),
		resolveWithFullResponse: true,
		simple: false,
		json: false,
	};
}

/** A status n8n's helper threw (it throws only the statuses told to it: refresh or digest challenge), as a response. */
function responseOfError(error: unknown, depth = 0): RawResponse | undefined {
	if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
	const response = (error as { response?: { status?: unknown; statusText?: unknown; headers?: unknown; data?: unknown } }).response;
	if (response && typeof response.status === 'number') {
		return { statusCode: response.status, statusMessage: typeof response.statusText === 'string' ? response.statusText : '', headers: (response.headers ?? {}) as Record<string, unknown>, body: response.data };
	}
	return responseOfError((error as { cause?: unknown }).cause, depth + 1);
}

/** The retry loop classifies every other failure (attemptOnce): it is passed on as it came. */
async function statusesAsResponses(pending: Promise<unknown>): Promise<unknown> {
	return await pending.catch((error: unknown) => responseOfError(error) ?? Promise.reject(error));
}

/** A request whose body must reach n8n's helper as fields (the credential's `authenticate` adds its own). */
function withBodyAsFields(request: IHttpRequestOptions): IHttpRequestOptions {
	if (typeof request.body !== 'string' && !Buffer.isBuffer(request.body)) return request;
	const fields = bodyFields(request.body, (request.headers ?? {}) as Record<string, string>);
	if (fields.kind === 'json' || fields.kind === 'form') return { ...request, body: fields.fields };
	// no body: n8n's helper creates the object itself (an unsupported body failed before any request)
	const { body: _omitted, ...rest } = request;
	return rest;
}

/**
 * The headers a request with the plan's credential goes out with, on every hop (also where the
 * credential itself no longer goes). n8n's OAuth1 helper replaces all headers with its
 * Authorization, so with OAuth1 HTTP Request's default Accept goes and its request helper's `*\/*`
 * is sent: so here. The user's own headers are kept (HTTP Request drops them: deviation
 * oauth1-keeps-the-users-headers).
 */
export function headersFor(plan: AuthPlan, headers: IHttpRequestOptions['headers'], hop: HopFacts): IHttpRequestOptions['headers'] {
	if (plan.kind !== 'oAuth1' || !hop.acceptIsDefault) return headers;
	const others = Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== 'accept'));
	return { ...others, accept: '*/*' };
}

/** Custom Auth's query and body fields, added to the first request only (a redirect is followed as it is). */
function withCustomAuth(request: IHttpRequestOptions, plan: AuthPlan & { kind: 'custom' }, hop: HopFacts): IHttpRequestOptions {
	const headers = (request.headers ?? {}) as Record<string, string>;
	const body = typeof request.body === 'string' || Buffer.isBuffer(request.body) || request.body === undefined ? request.body : undefined;
	// a redirect that turned the request into a GET has no body: the credential's fields do not make one
	const merged = hop.redirected && body === undefined ? { body, headers: { ...headers, ...plan.headers } } : bodyWithFields(body, { ...headers, ...plan.headers }, plan.body);
	return { ...request, headers: merged.headers, qs: { ...(request.qs ?? {}), ...(hop.redirected ? {} : plan.qs) }, ...(merged.body !== undefined ? { body: merged.body } : {}) };
}

/** Sends `request` signed by the plan's credential. `request` is a fresh copy: the helpers may write into it. */
export async function sendAuthenticated(ctx: IExecuteFunctions, request: IHttpRequestOptions, plan: AuthPlan, hop: HopFacts): Promise<unknown> {
	switch (plan.kind) {
		case 'none':
			return await ctx.helpers.httpRequest(request);
		case 'basic':
			return await ctx.helpers.httpRequest({ ...request, auth: { username: plan.username, password: plan.password } });
		case 'digest':
			// the first request carries no credential; the server's 401 challenge is answered by n8n's
			// helper, which throws that status only when told to
			return await statusesAsResponses(
				ctx.helpers.httpRequest({ ...request, auth: { username: plan.username, password: plan.password, sendImmediately: false }, ignoreHttpStatusErrors: { ignore: true, except: [401] } }),
			);
		case 'query':
			return await ctx.helpers.httpRequest(hop.redirected ? request : { ...request, qs: { ...(request.qs ?? {}), [plan.name]: plan.value } });
		case 'custom':
			return await ctx.helpers.httpRequest(withCustomAuth(request, plan, hop));
		case 'authenticate': {
			const options: IHttpRequestOptions = {
				...(plan.writesBody ? withBodyAsFields(request) : request),
				// only a status after which n8n re-authenticates is thrown to the helper
				ignoreHttpStatusErrors: plan.refreshOn.length > 0 ? { ignore: true, except: plan.refreshOn } : true,
			};
			return await statusesAsResponses(ctx.helpers.httpRequestWithAuthentication.call(withoutCancelSignal(ctx), plan.credentialType, options));
		}
		case 'oAuth2':
			return await ctx.helpers.requestOAuth2.call(signingContext(ctx, request), plan.credentialType, toSignable(request), plan.oauth2);
		case 'oAuth1':
			return await ctx.helpers.requestOAuth1.call(signingContext(ctx, request), plan.credentialType, toSignable(request));
	}
}

