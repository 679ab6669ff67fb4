/**
 * The node's execute(): reads each item's request and policy, runs the shared retry loop around
 * one attempt, and writes the result with its retry story. Items are independent: one item's
 * retries never re-send another item.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { classifyNetworkError } from '../shared/core/classify';
import { runItemPool } from '../shared/core/item-pool';
import { redactError } from '../shared/core/redact';
import { runWithRetry, type AttemptContext, type AttemptResult, type RetryPolicy } from '../shared/core/retry-loop';
import type { Runtime } from '../shared/core/runtime';
import type { StateStore } from '../shared/core/traffic/store';
import { isLoopRetry } from '../shared/core/item-records';
import { classifyResponse } from '../shared/core/server-signals';
import { IdempotencyKeys } from './config/idempotency-keys';
import { readTrafficControl } from './config/traffic-settings';
import { createTrafficGate } from './traffic/traffic-gate';
import { selectStateStore } from './traffic/state-store';
import { headerValue, readRequestSpec, type RequestSpec } from './config/request-spec';
import { responseToItems } from './output/response';
import { errorBodyValue, failedItem, ItemFailedError } from './output/error-output';
import { failedResult, withStory } from './output/item-results';
import { fetchPages } from './pagination/paginate';
import { paginatedResult } from './pagination/paginated-result';
import { readPaginationSettings } from './config/pagination-settings';
import { ownResumePoint } from '../shared/core/pagination';
import { itemRedactor } from './auth/secrets';
import { answersFailuresAsItems, readToolAnswer, toolSuccessItems } from './tool/tool-answer';
import { consoleReporter } from './output/console-requests';
import { readRetrySettings, readScheduleSettings, type RetrySettings, type ScheduleSettings } from './config/retry-settings';
import { errorCodeOf, sendAttempt, TooManyRedirectsError, type HttpResponse, type TransportSettings } from './transport/send-attempt';
import { readTransportSettings } from './config/transport-settings';

/** One attempt as the retry loop sees it: a response under 400 is a success, anything else a classified failure. */
async function attemptOnce(ctx: IExecuteFunctions, spec: RequestSpec, transport: TransportSettings, settings: RetrySettings, attempt: AttemptContext, runtime: Runtime): Promise<AttemptResult<HttpResponse>> {
	let response: HttpResponse;
	try {
		response = await sendAttempt(ctx, spec, transport, attempt);
	} catch (error) {
		if (error instanceof TooManyRedirectsError) return { ok: false, failure: { kind: 'network', code: 'EMAXREDIRECTS', message: error.message, reachedServer: 'yes', transient: false } };
		const { code, message } = errorCodeOf(error);
		const failure = classifyNetworkError(code, message) ?? { kind: 'network' as const, message, reachedServer: 'maybe' as const, transient: false, ...(code ? { code } : {}) };
		return { ok: false, failure };
	}
	if (response.statusCode < 400) return { ok: true, value: response, status: response.statusCode, statusText: response.statusMessage };
	// status, headers and body are read here, once: whether to retry, and the server's requested wait;
	// the loop and the error output take both from the failure
	const facts = { status: response.statusCode, statusText: response.statusMessage, headers: response.headers, ...(settings.obeyServerHints ? { body: errorBodyValue(response) } : {}) };
	const failure = classifyResponse(facts, { retryOn: settings.retryOn, obeyHints: settings.obeyServerHints, readRateLimitHeaders: settings.readRateLimitHeaders }, runtime.now())!;
	return { ok: false, failure: { ...failure, headers: response.headers, body: response.body } };
}

function policyFor(settings: RetrySettings, spec: RequestSpec, idempotencyKey: string | undefined, keyOwner: string | undefined): RetryPolicy {
	return {
		...settings.policy,
		method: spec.method,
		...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
		...(keyOwner !== undefined ? { idempotencyKeyOwner: keyOwner } : {}),
	};
}

async function processItem(ctx: IExecuteFunctions, i: number, runtime: Runtime, store: StateStore, signal: AbortSignal | undefined, schedule: ScheduleSettings, keys: IdempotencyKeys): Promise<INodeExecutionData[]> {
	const settings = readRetrySettings(ctx, i);
	const spec = await readRequestSpec(ctx, i);
	const transport = await readTransportSettings(ctx, i, spec, settings.policy.attemptTimeoutMs);
	// as an AI agent's tool the answer is shaped for the model (tool-answer.ts)
	const tool = readToolAnswer(ctx, i);
	const json = ctx.getInputData()[i].json;
	const control = readTrafficControl(ctx, i, spec.url, schedule, settings.policy.attemptTimeoutMs);
	const gate = createTrafficGate(ctx, store, control, runtime, signal, { loopRetry: isLoopRetry(json), maxServerDelayMs: settings.policy.maxServerDelayMs, readRateLimitHeaders: settings.readRateLimitHeaders });

	// a generated key belongs to this node: an item that comes back after a failed pass here (a
	// Backoff Delay loop) is the same request and goes out under the same key, never under a second one
	const { key: chosenKey, owner: keyOwner } = keys.pick(i, settings, json);
	let idempotencyKey = chosenKey;
	if (idempotencyKey !== undefined) spec.headers[settings.idempotencyHeader] = idempotencyKey;
	// a key the user set as a plain header protects the request just as well
	else idempotencyKey = headerValue(spec.headers, settings.idempotencyHeader);

	const toConsole = consoleReporter(ctx, i);
	const attempt = async (request: RequestSpec, context: AttemptContext) => {
		const result = await attemptOnce(ctx, request, transport, settings, context, runtime);
		await toConsole?.(request, context.attempt, result);
		return result;
	};
	const send = (request: RequestSpec) => runWithRetry((context) => attempt(request, context), policyFor(settings, request, headerValue(request.headers, settings.idempotencyHeader), keyOwner), runtime, signal, gate);
	const pagination = readPaginationSettings(ctx, i, settings.neverError, settings.response.format === 'file');
	if (pagination) {
		// an item back from a page that failed here goes on from that page
		const resume = ownResumePoint(json, keys.owner);
		const run = await fetchPages(ctx, i, {
			settings: pagination,
			spec,
			format: settings.response.format,
			owner: keys.owner,
			...(idempotencyKey !== undefined ? { idempotency: { header: settings.idempotencyHeader, key: idempotencyKey } } : {}),
			...(resume ? { resume } : {}),
			withCredentials: transport.auth.kind !== 'none',
			sendCredentialsCrossOrigin: transport.sendCredentialsCrossOrigin,
			fetchPage: send,
			sleep: async (ms) => await runtime.sleep(ms, signal),
		});
		return await paginatedResult(ctx, i, run, { settings, method: spec.method, runtime, ...(resume ? { resume } : {}), ...(idempotencyKey !== undefined ? { idempotencyKey } : {}), ...(tool ? { tool } : {}) });
	}

	const outcome = await send(spec);
	// a failed attempt's texts may quote the request (n8n's and axios' errors do, and a server may put
	// anything in its status text): redact the story whenever it holds a failed attempt, whatever the
	// outcome; the response of a success is the user's data and stays untouched
	const quotesErrors = !outcome.ok || outcome.story.history.length > 1;
	const redactor = quotesErrors ? await itemRedactor(ctx, i) : undefined;
	const story = redactor ? redactor.value(outcome.story) : outcome.story;
	if (outcome.ok && tool) return await toolSuccessItems(ctx, i, tool, outcome.value, settings.response, spec.url);
	if (outcome.ok) return withStory(await responseToItems(ctx, i, outcome.value, settings.response, spec.url), settings.storyField, story, i);
	return await failedResult(ctx, i, { failure: outcome.failure, story, request: spec, settings, runtime, redactor, ...(tool ? { tool } : {}) });
}

export async function executeResilientHttpRequest(ctx: IExecuteFunctions, runtime: Runtime, memoryStore: StateStore): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const store = await selectStateStore(ctx, memoryStore);
	const signal = ctx.getExecutionCancelSignal?.();
	const schedule = readScheduleSettings(ctx);
	// derived keys are planned for all items first, so that two items with the same key are told apart in input order
	const keys = IdempotencyKeys.plan(ctx);
	const results: INodeExecutionData[][] = new Array(items.length);
	const failures = new Map<number, Error>();

	// Max Items in Flight bounds this run's items in progress; how many of their requests are in
	// flight at once is each API's traffic controller's to decide (its learned window)
	await runItemPool(items.length, schedule, runtime, { signal, shouldStop: () => failures.size > 0 }, async (i) => {
		try {
			results[i] = await processItem(ctx, i, runtime, store, signal, schedule, keys);
		} catch (error) {
			const inner = error instanceof ItemFailedError ? error.nodeError : (error as Error);
			// ours is built redacted; others (parameter errors, n8n's helpers) may quote a URL or a header
			if (!(error instanceof ItemFailedError)) redactError(inner, await itemRedactor(ctx, i));
			// a tool called by Agent V1/V2 answers a bad parameter as an item too: a throw reaches the model empty
			if (answersFailuresAsItems(ctx) && !(signal?.aborted ?? false)) {
				// by name: the package may load another copy of n8n-workflow than n8n's own
				const description = ['NodeApiError', 'NodeOperationError'].includes(inner.name) ? (inner as NodeOperationError).description : undefined;
				results[i] = [failedItem(ctx, i, { message: inner.message, ...(description ? { description } : {}) })];
			} else {
				failures.set(i, inner);
			}
		}
	});

	if (signal?.aborted) throw new NodeOperationError(ctx.getNode(), 'The execution was canceled');
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
	return [results.flat()];
}
