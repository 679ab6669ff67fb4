/**
 * Sends one attempt through n8n's HTTP helpers, following redirects by hand so that no credential
 * (auth header, basic auth, query auth, cookies) ever reaches an origin other than the first one.
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { isErrorCode } from '../../shared/core/classify';
// the headers redaction hides are the ones that never follow a redirect to another origin
import { SENSITIVE_HEADERS } from '../../shared/core/redact';
import type { AttemptContext } from '../../shared/core/retry-loop';
import type { AuthPlan } from '../auth/auth-plan';
import { headersFor, sendAuthenticated, type HopFacts, type RawResponse } from './auth-transport';
import type { HttpResponse, RequestSpec } from '../types';
import { responseUrl } from './response-url';

/** TLS options of an SSL Certificates credential: the CA for every hop, the client certificate only where credentials go. */
export interface TlsOptions {
	ca?: string;
	clientCertificate?: { cert?: string; key?: string; passphrase?: string };
}

export interface TransportSettings {
	auth: AuthPlan;
	tls?: TlsOptions;
	followRedirects: boolean;
	maxRedirects: number;
	/** Options > Send Credentials on Cross-Origin Redirect: credentials follow the redirect chain anywhere. */
	sendCredentialsCrossOrigin: boolean;
	/** Options > Timeout: the wait for the server's response on one request (the attempt's own bound still applies). */
	responseTimeoutMs?: number;
	skipSslCertificateValidation: boolean;
	proxy?: IHttpRequestOptions['proxy'];
}


function isRedirect(status: number): boolean {
	return [301, 302, 303, 307, 308].includes(status);
}

/** RFC 9110 section 15.4: 303 turns into GET; browsers and HTTP clients also turn POST into GET on 301 and 302. */
function redirectMethod(method: IHttpRequestMethods, status: number): IHttpRequestMethods {
	if (status === 303 && method !== 'HEAD') return 'GET';
	if ((status === 301 || status === 302) && method === 'POST') return 'GET';
	return method;
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

function toBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	if (body === undefined || body === null || body === '') return Buffer.alloc(0);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	return Buffer.from(JSON.stringify(body), 'utf8');
}

function agentOptionsFor(tls: TlsOptions | undefined, withCredentials: boolean): IHttpRequestOptions['agentOptions'] | undefined {
	if (!tls) return undefined;
	const options = { ...(tls.ca ? { ca: tls.ca } : {}), ...(withCredentials ? tls.clientCertificate : {}) };
	return Object.keys(options).length > 0 ? options : undefined;
}

async function sendHop(ctx: IExecuteFunctions, options: IHttpRequestOptions, settings: TransportSettings, hop: HopFacts & { withCredentials: boolean }, attempt: AttemptContext): Promise<HttpResponse> {
	const { withCredentials } = hop;
	// n8n's credential helper writes the auth header (e.g. X-Api-Key) into the objects it is given:
	// fresh copies keep it off the next hop, which may go to another origin
	const agentOptions = agentOptionsFor(settings.tls, withCredentials);
	const request: IHttpRequestOptions = { ...options, headers: { ...(headersFor(settings.auth, options.headers, hop) ?? {}) }, qs: { ...(options.qs ?? {}) }, abortSignal: attempt.signal, ...(agentOptions ? { agentOptions } : {}) };
	const pending = sendAuthenticated(ctx, request, withCredentials ? settings.auth : { kind: 'none' }, hop);
	const raw = await pending.catch((error: unknown) => Promise.reject(isCutResponse(error) ? new ResponseCutError() : error));
	const full = raw as RawResponse;
	const url = responseUrl(options.url, options.qs ?? {}, options.arrayFormat);
	return { statusCode: full.statusCode, statusMessage: full.statusMessage ?? '', headers: full.headers ?? {}, body: toBuffer(full.body), url };
}

/**
 * The server sent a status and headers, then closed the connection before the body was complete.
 * Node's code for a stream that ended early: classified like a reset connection (transient; the
 * server may have acted on the request).
 */
class ResponseCutError extends Error {
	readonly code = 'ERR_STREAM_PREMATURE_CLOSE';
	constructor() {
		super('the connection closed before the response body was complete');
		this.name = 'ResponseCutError';
	}
}

/** axios rejects a response whose connection closed mid-body with "stream has been aborted" (ERR_BAD_RESPONSE). */
function isCutResponse(error: unknown, depth = 0): boolean {
	if (depth > 5 || typeof error !== 'object' || error === null) return false;
	const e = error as { message?: unknown; cause?: unknown };
	return (typeof e.message === 'string' && /^stream has been aborted$/i.test(e.message)) || isCutResponse(e.cause, depth + 1);
}

/** The helper's timeout: Options > Timeout when set, within what the attempt has left. */
function timeoutOf(attemptMs: number, responseMs: number | undefined): { timeout?: number } {
	const bounds = [attemptMs > 0 ? attemptMs : Infinity, responseMs ?? Infinity];
	const timeout = Math.min(...bounds);
	return Number.isFinite(timeout) ? { timeout } : {};
}

export class TooManyRedirectsError extends Error {
	constructor(max: number) {
		super(`Maximum number of redirects (${max}) exceeded`);
		this.name = 'TooManyRedirectsError';
	}
}

export async function sendAttempt(ctx: IExecuteFunctions, spec: RequestSpec, settings: TransportSettings, attempt: AttemptContext): Promise<HttpResponse> {
	const firstOrigin = new URL(spec.url).origin;
	let url = spec.url;
	let method = spec.method;
	let body = spec.body;
	let headers = { ...spec.headers };
	let qs: IDataObject = spec.qs;
	// once a redirect left the first origin, the rest of the chain carries no credential, also back
	// on the first origin: another origin must not choose where our credentials go
	let leftFirstOrigin = false;
	for (let hop = 0; ; hop++) {
		const withCredentials = settings.sendCredentialsCrossOrigin || (!leftFirstOrigin && new URL(url).origin === firstOrigin);
		const options: IHttpRequestOptions = {
			url,
			method,
			qs,
			headers: withCredentials ? headers : withoutHeaders(headers, SENSITIVE_HEADERS),
			...(body !== undefined ? { body } : {}),
			encoding: 'arraybuffer',
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			skipSslCertificateValidation: settings.skipSslCertificateValidation,
			...timeoutOf(attempt.timeoutMs, settings.responseTimeoutMs),
			...(settings.proxy ? { proxy: settings.proxy } : {}),
			...(spec.arrayFormat ? { arrayFormat: spec.arrayFormat } : {}),
		};
		const response = await sendHop(ctx, options, settings, { withCredentials, redirected: hop > 0, acceptIsDefault: spec.acceptIsDefault === true }, attempt);
		const location = response.headers.location;
		if (!settings.followRedirects || !isRedirect(response.statusCode) || typeof location !== 'string' || location === '') return response;
		if (hop >= settings.maxRedirects) throw new TooManyRedirectsError(settings.maxRedirects);
		const next = new URL(location, url);
		const nextMethod = redirectMethod(method, response.statusCode);
		if (nextMethod !== method) {
			body = undefined;
			headers = withoutHeaders(headers, ['content-type', 'content-length']);
		}
		method = nextMethod;
		url = next.href;
		qs = {};
		if (next.origin !== firstOrigin && !settings.sendCredentialsCrossOrigin) {
			headers = withoutHeaders(headers, SENSITIVE_HEADERS);
			leftFirstOrigin = true;
		}
	}
}

/** Finds a Node or axios error code (ECONNRESET, ETIMEDOUT, ...) however deeply n8n wrapped it. */
export function errorCodeOf(error: unknown, depth = 0): { code?: string; message: string } {
	if (depth > 5 || typeof error !== 'object' || error === null) return { message: String(error) };
	const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
	const message = typeof e.message === 'string' ? e.message : String(error);
	if (isErrorCode(e.code)) return { code: e.code, message };
	for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
		const found = errorCodeOf(inner, depth + 1);
		if (found.code) return found;
	}
	return { message };
}
