/**
 * How an item's requests are sent: each attempt through the transport, classified for the retry
 * loop, reported to the editor's console in a manual run, and let through by the API's traffic
 * controller. One sender serves the item's request and each of its pages.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { classifyNetworkError, type AttemptFailure } from '../../shared/core/classify';
import { runWithRetry, type AttemptContext, type AttemptResult, type RetryOutcome } from '../../shared/core/retry-loop';
import type { Runtime } from '../../shared/core/runtime';
import { classifyResponse } from '../../shared/core/server-signals';
import type { StateStore } from '../../shared/core/traffic/store';
import type { ItemConfig } from '../config/item-config';
import type { ItemScope } from '../config/item-scope';
import { headerValue, type RequestSpec } from '../config/request-spec';
import { errorBodyValue } from '../output/error-output';
import type { RetryTally } from '../output/retry-tally';
import { consoleReporter } from '../output/console-requests';
import { thrownShape } from '../output/http-request-error';
import { createTrafficGate, trafficRequest } from '../traffic/traffic-gate';
import { errorCodeOf, sendAttempt, TooManyRedirectsError, type HttpResponse } from './send-attempt';

/** What every item of a run is sent with. */
export interface SendContext {
	runtime: Runtime;
	store: StateStore;
	signal: AbortSignal | undefined;
	/** Counts the retries of the run's items, for the output panel's hint. */
	tally: RetryTally;
}

export type ItemSender = (request: RequestSpec) => Promise<RetryOutcome<HttpResponse>>;

/** A 3xx that was not followed: final (the same request would get the same answer). */
function redirectNotFollowed(response: HttpResponse): AttemptFailure {
	const { statusCode: status, statusMessage: statusText } = response;
	return { kind: 'status', status, statusText, message: `${status}${statusText ? ` ${statusText}` : ''}`, reachedServer: 'yes', transient: false, headers: response.headers, body: response.body };
}

/** One attempt as the retry loop sees it: a 2xx response is a success, anything else a classified failure. */
async function attemptOnce(ctx: IExecuteFunctions, request: RequestSpec, config: ItemConfig, attempt: AttemptContext, runtime: Runtime): Promise<AttemptResult<HttpResponse>> {
	let response: HttpResponse;
	try {
		response = await sendAttempt(ctx, request, config.transport, attempt);
	} catch (error) {
		if (error instanceof TooManyRedirectsError) return { ok: false, failure: { kind: 'network', code: 'EMAXREDIRECTS', message: error.message, reachedServer: 'yes', transient: false } };
		const { code, message } = errorCodeOf(error);
		const failure = classifyNetworkError(code, message) ?? { kind: 'network' as const, message, reachedServer: 'maybe' as const, transient: false, ...(code ? { code } : {}) };
		return { ok: false, failure: { ...failure, thrown: thrownShape(error) } };
	}
	// as in HTTP Request (axios accepts 2xx only), a redirect not followed (Follow Redirects off, or no
	// Location) is a failure: a final status, never retried, answered by Never Error
	if (response.statusCode < 300) return { ok: true, value: response, status: response.statusCode, statusText: response.statusMessage };
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
	const attempt = async (request: RequestSpec, context: AttemptContext) => {
		const result = await attemptOnce(ctx, request, config, context, runtime);
		await toConsole?.(request, context.attempt, result);
		return result;
	};
	return async (request) => {
		// a page carries its own key (<key>-page-<n>): the policy takes the key the request goes out with
		const key = headerValue(request.headers, idempotency.header);
		const policy = { ...retry.policy, method: request.method, ...(key !== undefined ? { idempotencyKey: key } : {}), ...(idempotency.owner !== undefined ? { idempotencyKeyOwner: idempotency.owner } : {}) };
		const gate = createTrafficGate(ctx, store, config.traffic, runtime, signal, { ...gateOptions, request: trafficRequest(request.method, request.url) });
		const outcome = await runWithRetry((context) => attempt(request, context), policy, runtime, signal, gate);
		tally.add(scope.index, outcome.story);
		return outcome;
	};
}
