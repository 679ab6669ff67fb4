/**
 * How an item's requests are sent: each attempt through the transport, classified for the retry
 * loop, reported to the editor's console in a manual run, and let through by the API's traffic
 * controller. One sender serves the item's request and each of its pages.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { classifyNetworkError, type AttemptFailure } from '../shared/core/classify';
import { runWithRetry, type AttemptContext, type AttemptResult } from '../shared/core/retry-loop';
import type { Runtime } from '../shared/core/runtime';
import { classifyResponse } from '../shared/core/server-signals';
import type { StateStore } from '../shared/core/traffic/store';
import type { ItemConfig } from './config/item-config';
import type { ItemScope } from './config/item-scope';
import { headerValue, type HttpResponse, type ItemSender, type RequestSpec } from './types';
import { errorBodyValue } from './output/error-output';
import { decodeBody } from './output/response';
import { contentTypeOf } from './output/response-body';
import type { RetryTally } from './output/retry-tally';
import { consoleReporter } from './output/console-requests';
import { thrownShape } from './output/http-request-error';
import { meetsRetryWhen, notYetFailure, retryWhenError } from './polling/retry-when';
import { asksForStream, requestTokenDemand } from './traffic/llm-body';
import { createHttpTrafficGate, trafficRequest } from './traffic/traffic-gate';
import { errorCodeOf, sendAttempt, TooManyRedirectsError } from './transport/send-attempt';

/** What every item of a run is sent with. */
export interface SendContext {
	runtime: Runtime;
	store: StateStore;
	signal: AbortSignal | undefined;
	/** Counts the retries of the run's items, for the output panel's hint. */
	tally: RetryTally;
}

/** A 3xx that was not followed: final (the same request would get the same answer). */
function redirectNotFollowed(response: HttpResponse): AttemptFailure {
	const { statusCode: status, statusMessage: statusText } = response;
	return { kind: 'status', status, statusText, message: `${status}${statusText ? ` ${statusText}` : ''}`, reachedServer: 'yes', transient: false, headers: response.headers, body: response.body };
}

/** A redirect past Max Redirects, as HTTP Request's client (follow-redirects under axios) reports it. */
function tooManyRedirects(): AttemptFailure {
	const code = 'ERR_FR_TOO_MANY_REDIRECTS';
	const name = `Error [${code}]`;
	const message = 'Maximum number of redirects exceeded';
	return { kind: 'network', code, message, reachedServer: 'yes', transient: false, thrown: { name, cause: { name, message, code } } };
}

/**
 * Retry Options > Retry When Body Is Not JSON: a 2xx whose body does not parse as JSON (a proxy's
 * HTML page, an empty body) where JSON was asked for, as a transient failure of its own code.
 */
function notJsonFailure(response: HttpResponse): AttemptFailure | undefined {
	const decoded = decodeBody(response, 'json');
	if (decoded.kind === 'json') return undefined;
	const { statusCode: status, statusMessage: statusText, headers } = response;
	const type = contentTypeOf(response) || 'none';
	const what = response.body.length === 0 ? 'an empty body' : `a body that is not JSON (${response.body.length} bytes, content type "${type}")`;
	return { kind: 'status', status, statusText, code: 'ENOTJSON', message: `${status}${statusText ? ` ${statusText}` : ''} with ${what}`, reachedServer: 'yes', transient: true, headers, body: response.body };
}

/** The code of the failure that ends an item's loop when Retry When cannot be evaluated. */
const WRONG_RETRY_WHEN = 'ERETRYWHEN';

/**
 * A 2xx answer: done, or "not yet" when it meets Retry When. A "not yet" carries the pace the
 * server gave (Retry-After, retry-after-ms on a 202 or any 2xx) and the answer, for the error
 * output when the deadline passes.
 */
async function answered(ctx: IExecuteFunctions, i: number, request: RequestSpec, config: ItemConfig, response: HttpResponse, runtime: Runtime): Promise<AttemptResult<HttpResponse>> {
	const { retryWhen } = config.retry;
	const done: AttemptResult<HttpResponse> = { ok: true, value: response, status: response.statusCode, statusText: response.statusMessage };
	const notJson = config.retry.retryNotJson ? notJsonFailure(response) : undefined;
	if (notJson) return { ok: false, failure: notJson };
	// following an operation, Retry When judges the status answers, not the request that started it
	if (retryWhen === undefined || config.retry.followOperations) return done;
	const verdict = await meetsRetryWhen(ctx, i, { expression: retryWhen, auth: config.transport.auth, format: config.output.response.format }, request, response);
	// a condition that cannot be evaluated ends the loop (final), and the item with a parameter error
	if ('wrong' in verdict) return { ok: false, failure: { kind: 'network', code: WRONG_RETRY_WHEN, message: verdict.wrong, reachedServer: 'yes', transient: false } };
	if (!verdict.holds) return done;
	return { ok: false, failure: notYetFailure(response, runtime) };
}

/** One attempt as the retry loop sees it: a 2xx response is a success (or "not yet"), anything else a classified failure. */
async function attemptOnce(ctx: IExecuteFunctions, i: number, request: RequestSpec, config: ItemConfig, attempt: AttemptContext, runtime: Runtime): Promise<AttemptResult<HttpResponse>> {
	let response: HttpResponse;
	try {
		response = await sendAttempt(ctx, request, config.transport, attempt);
	} catch (error) {
		if (error instanceof TooManyRedirectsError) return { ok: false, failure: tooManyRedirects() };
		const { code, message } = errorCodeOf(error);
		const failure = classifyNetworkError(code, message) ?? { kind: 'network' as const, message, reachedServer: 'maybe' as const, transient: false, ...(code ? { code } : {}) };
		return { ok: false, failure: { ...failure, thrown: thrownShape(error) } };
	}
	// as in HTTP Request (axios accepts 2xx only), a redirect not followed (Follow Redirects off, or no
	// Location) is a failure: a final status, never retried, answered by Never Error
	if (response.statusCode < 300) return await answered(ctx, i, request, config, response, runtime);
	if (response.statusCode < 400) return { ok: false, failure: redirectNotFollowed(response) };
	// status, headers and body are read here, once: whether to retry, and the server's requested wait;
	// the loop and the error output take both from the failure
	const { retryOn, obeyServerHints, readRateLimitHeaders } = config.retry;
	const facts = { status: response.statusCode, statusText: response.statusMessage, headers: response.headers, ...(obeyServerHints ? { body: errorBodyValue(response) } : {}) };
	const failure = classifyResponse(facts, { retryOn, obeyHints: obeyServerHints, readRateLimitHeaders }, runtime.now())!;
	return { ok: false, failure: { ...failure, headers: response.headers, body: response.body } };
}

export function itemSender(ctx: IExecuteFunctions, scope: ItemScope, config: ItemConfig, { runtime, store, signal, tally }: SendContext): ItemSender {
	const { retry, idempotency } = config;
	const gateOptions = { loopRetry: config.loopRetry, maxServerDelayMs: retry.policy.maxServerDelayMs, readRateLimitHeaders: retry.readRateLimitHeaders };
	const toConsole = consoleReporter(ctx, scope);
	const attempt = async (request: RequestSpec, context: AttemptContext): Promise<AttemptResult<HttpResponse>> => {
		const result = await attemptOnce(ctx, scope.index, request, config, context, runtime);
		await toConsole?.(request, context.attempt, result);
		return result;
	};
	return async (request) => {
		// a page carries its own key (<key>-page-<n>): the policy takes the key the request goes out with
		const key = headerValue(request.headers, idempotency.header);
		const policy = { ...retry.policy, method: request.method, ...(key !== undefined ? { idempotencyKey: key } : {}), ...(idempotency.owner !== undefined ? { idempotencyKeyOwner: idempotency.owner } : {}), ...(asksForStream(request.body) ? { streamed: true } : {}) };
		const tokens = requestTokenDemand(request.body);
		const gate = createHttpTrafficGate(ctx, store, config.traffic, runtime, signal, { ...gateOptions, request: trafficRequest(request.method, request.url), ...(tokens ? { tokens } : {}) });
		const outcome = await runWithRetry((context) => attempt(request, context), policy, runtime, signal, gate);
		// a Retry When that cannot be evaluated is a setting to fix, not a failure of the request
		if (!outcome.ok && outcome.failure.code === WRONG_RETRY_WHEN) retryWhenError(ctx, scope.index, outcome.failure.message);
		tally.add(scope.index, outcome.story, config.output);
		return outcome;
	};
}
