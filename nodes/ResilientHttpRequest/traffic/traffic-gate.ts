/**
 * The traffic gate of this node's items (the one every node shares: nodes/shared/n8n/traffic/
 * traffic-gate.ts), with what an HTTP answer says of the API: a throttle, a requested wait, the
 * quota its rate-limit headers advertise, an outage; and the route a request counts against.
 */
import { hash } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import type { AttemptGate, AttemptResult } from '../../shared/core/retry-loop';
import type { Runtime } from '../../shared/core/runtime';
import type { Outcome } from '../../shared/core/traffic/controller';
import { failureOutcome, wasPaced } from '../../shared/core/traffic/failure-outcome';
import { readBucket, readEndpointQuota, readQuota } from '../../shared/core/traffic/quota-headers';
import { NO_TOKENS, tokenUsage, type TokenDemand } from '../../shared/core/traffic/token-estimate';
import { MAX_LLM_BODY_BYTES } from './llm-body';
import { readTokenStatements } from '../../shared/core/traffic/token-headers';
import type { StateStore } from '../../shared/core/traffic/store';
import { createTrafficGate } from '../../shared/n8n/traffic/traffic-gate';
import type { TrafficControl } from '../config/traffic-settings';
import type { HttpResponse } from '../types';
import { NODE_DISPLAY_NAME } from './display-name';

function shortHash(text: string): string {
	return hash('sha256', text, 'base64url').slice(0, 16);
}

/** The request as the controller knows it: its route (hashed: a path may hold a token) and path. */
interface TrafficRequest {
	route: string;
	path: string;
}

/** A request's route: its method and path (not its query), hashed. */
export function trafficRequest(method: string, url: string): TrafficRequest {
	const path = new URL(url).pathname;
	return { route: shortHash(`${method.toUpperCase()} ${path}`), path };
}

/**
 * The quota an answer advertises, and the bucket it names (when it names one): a bucket named by
 * its own header (GitHub, Discord) owns the answer's quota; an endpoint's own quota header (Zendesk)
 * is that endpoint's, beside the API's quota.
 */
function quotaFacts(headers: Record<string, unknown> | undefined, nowMs: number, request: TrafficRequest): Pick<Outcome, 'quota' | 'bucket' | 'route' | 'apiQuota'> {
	const quota = readQuota(headers, nowMs);
	const bucket = readBucket(headers, request.path, shortHash);
	if (bucket !== undefined) return { ...(quota ? { quota } : {}), bucket, route: request.route };
	const endpoint = readEndpointQuota(headers, nowMs);
	if (endpoint) return { quota: endpoint.quota, bucket: endpoint.bucket, route: request.route, ...(quota ? { apiQuota: quota } : {}) };
	return quota ? { quota } : {};
}

/** What an LLM answer says of tokens: the budget its headers state, and its usage. */
function tokenFacts(headers: Record<string, unknown> | undefined, body: Buffer | undefined, nowMs: number, readRateLimitHeaders: boolean): Pick<Outcome, 'tokens'> {
	const statements = readRateLimitHeaders && headers ? readTokenStatements(headers, nowMs) : [];
	const usage = body && body.length <= MAX_LLM_BODY_BYTES ? tokenUsage(body.toString('utf8')) : undefined;
	return statements.length > 0 || usage ? { tokens: { counted: NO_TOKENS, ...(statements.length > 0 ? { statements } : {}), ...(usage ? { usage } : {}) } } : {};
}

/** What one attempt's result tells the API's controller. `llm`: the request asked tokens of the API's budget. */
function outcomeOf(result: AttemptResult<HttpResponse>, nowMs: number, readRateLimitHeaders: boolean, request: TrafficRequest, llm: boolean): Outcome {
	// a "not yet" answer (Retry When) is the API working: no sign of an outage, nor of throttling
	if (result.ok || result.failure.notYet) {
		const headers = result.ok ? result.value.headers : result.failure.headers;
		const facts = readRateLimitHeaders && headers ? quotaFacts(headers, nowMs, request) : {};
		const tokens = llm ? tokenFacts(headers, result.ok ? result.value.body : undefined, nowMs, readRateLimitHeaders) : {};
		return { success: true, outageFailure: false, overload: false, throttled: false, ...facts, ...tokens };
	}
	const failure = result.failure;
	const facts = readRateLimitHeaders && failure.headers ? quotaFacts(failure.headers, nowMs, request) : {};
	// a refused LLM request states the budget too (a 429 with 0 tokens left); it used none
	const tokens = llm ? tokenFacts(failure.headers, undefined, nowMs, readRateLimitHeaders) : {};
	return { ...tokens, ...failureOutcome(failure), ...facts };
}

interface TrafficGateOptions {
	/** The item's first request is a retry too (it came back through a Backoff Delay loop). */
	loopRetry: boolean;
	/** The request this gate admits (its route names its bucket, once an answer said). */
	request: TrafficRequest;
	maxServerDelayMs: number;
	readRateLimitHeaders: boolean;
	/** The request is an LLM request: what it asks of the API's token budget. */
	tokens?: TokenDemand;
}

export function createHttpTrafficGate(ctx: IExecuteFunctions, store: StateStore, control: TrafficControl, runtime: Runtime, signal: AbortSignal | undefined, options: TrafficGateOptions): AttemptGate<HttpResponse> {
	return createTrafficGate<HttpResponse>(ctx, store, control, runtime, signal, {
		nodeType: NODE_DISPLAY_NAME,
		loopRetry: options.loopRetry,
		route: options.request.route,
		maxServerDelayMs: options.maxServerDelayMs,
		reading: { outcomeOf: (result, nowMs) => outcomeOf(result, nowMs, options.readRateLimitHeaders, options.request, options.tokens !== undefined), wasPaced },
		...(options.tokens ? { tokens: options.tokens } : {}),
	});
}
