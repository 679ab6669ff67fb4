/**
 * The retry loop's gate for one item of this node: each attempt passes its API's traffic
 * controller before it is sent (nodes/shared/core/traffic/gate.ts) and reports what the answer
 * says of the API after: a throttle, a requested wait, the quota its rate-limit headers advertise,
 * an outage. State changes are logged once, by the request that caused them.
 */
import { hash } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import type { AttemptFailure } from '../../shared/core/classify';
import type { AttemptGate, AttemptResult, GateNote } from '../../shared/core/retry-loop';
import { formatDuration } from '../../shared/core/retry-story';
import type { Runtime } from '../../shared/core/runtime';
import type { Outcome, TrafficEvent } from '../../shared/core/traffic/controller';
import { passGate, reportOutcome, type GateContext, type GateResult } from '../../shared/core/traffic/gate';
import { newLeaseId } from '../../shared/core/traffic/lease-id';
import { readBucket, readEndpointQuota, readQuota } from '../../shared/core/traffic/quota-headers';
import { getProcessWaiters } from '../../shared/core/traffic/waiters';
import type { StateStore } from '../../shared/core/traffic/store';
import type { TrafficControl } from '../config/traffic-settings';
import type { HttpResponse } from '../types';

/**
 * The safety poll of a Redis-kept controller: another worker's report wakes this one's waiting
 * requests by pub/sub; if that news is lost, one waiting request per API looks again this often.
 */
const REDIS_POLL_MS = 2_000;
/** The memory store changes only in this process, which wakes its waiters: this is a safety net. */
const MEMORY_POLL_MS = 5_000;

/** Statuses by which an API says "too much at once, come back later". */
const OVERLOAD_STATUSES = new Set([429, 503, 529]);

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

/** What one attempt's result tells the API's controller. */
function outcomeOf(result: AttemptResult<HttpResponse>, nowMs: number, readRateLimitHeaders: boolean, request: TrafficRequest): Outcome {
	// a "not yet" answer (Retry When) is the API working: no sign of an outage, nor of throttling
	if (result.ok || result.failure.notYet) {
		const headers = result.ok ? result.value.headers : result.failure.headers;
		const facts = readRateLimitHeaders && headers ? quotaFacts(headers, nowMs, request) : {};
		return { success: true, outageFailure: false, overload: false, throttled: false, ...facts };
	}
	const failure = result.failure;
	const status = failure.status;
	const throttled = status === 429 || ((status === 503 || status === 529) && failure.serverDelay !== undefined);
	const facts = readRateLimitHeaders && failure.headers ? quotaFacts(failure.headers, nowMs, request) : {};
	return {
		success: false,
		// the API misbehaving: errors, timeouts, 5xx; a 4xx (429 included) is no sign of an outage
		outageFailure: failure.transient && (failure.kind !== 'status' || (status ?? 0) >= 500),
		overload: failure.kind === 'timeout' || (status !== undefined && OVERLOAD_STATUSES.has(status)),
		throttled,
		...(throttled && failure.serverDelay ? { serverWait: { ms: failure.serverDelay.delayMs, header: failure.serverDelay.header, ...(failure.serverDelay.inferred ? { inferred: true } : {}) } } : {}),
		...facts,
	};
}

/** The previous attempt was throttled and told when to come back: the retry is the server's pace. */
function wasPaced(last: AttemptFailure | undefined): boolean {
	return last !== undefined && last.serverDelay !== undefined && last.status !== undefined && OVERLOAD_STATUSES.has(last.status);
}

/**
 * What the attempt's record says of the API's traffic controller: only what explains a wait
 * before it (how long and why; the slots in flight for a slot, the budget's counters for the
 * budget) or that it was the probe after an outage. The controller's own step (a store's round
 * trip, no reason) is no wait a person needs to read of.
 */
function noteOf(result: GateResult): GateNote {
	const admission = result.go ? result.admission : undefined;
	const waited = Object.keys(result.waits).length > 0;
	const probe = result.go && result.probe;
	if (!waited && !probe) return {};
	const slots = result.waits.concurrency !== undefined && admission ? { inFlight: admission.inFlight, window: admission.window } : {};
	const note: GateNote = { traffic: { waitedMs: result.waitedMs, ...(waited ? { waitedFor: result.waits } : {}), ...(probe ? { probe: true as const } : {}), ...slots } };
	if (result.waits.budget !== undefined && admission?.budget) {
		const b = admission.budget;
		note.budget = { firstAttempts: b.firstAttempts, retries: b.retries, available: b.available, windowMs: b.windowMs };
	}
	return note;
}

/** A time for the log; a server's absurd wait stays a valid date (the latest JavaScript has). */
function isoTime(ms: number): string {
	return new Date(Math.min(ms, 8.64e15)).toISOString();
}

function pausedMessage(label: string, event: Extract<TrafficEvent, { kind: 'paused' }>, nowMs: number): string {
	const until = `${formatDuration(event.until - nowMs)} (${isoTime(event.until)})`;
	if (event.bucket !== undefined) return `the API ${label}'s rate-limit bucket "${event.bucket}" is spent: requests to it wait for its reset in ${until}; its other endpoints go on`;
	if (event.by === 'quota') return `the API ${label}'s rate-limit quota is spent: its requests wait for its reset in ${until}`;
	if (event.probedFrom === undefined) return `the API ${label} asked to wait (${event.by}): its requests are paused for ${until}`;
	return `the API ${label} throttled without saying until when (${event.by}): its requests are paused for at most ${until}, one request probing from ${isoTime(event.probedFrom)}`;
}

function resumedMessage(label: string, event: Extract<TrafficEvent, { kind: 'resumed' }>): string {
	if (event.how === 'refilled') return event.bucket !== undefined ? `the API ${label}'s rate-limit bucket "${event.bucket}" is refilled: requests to it go again` : `the API ${label}'s rate-limit quota is refilled: its requests go again`;
	if (event.how === 'hand') return `the API ${label}'s ${event.bucket !== undefined ? `rate-limit bucket "${event.bucket}"` : event.by} was ended by hand: its requests go again`;
	if (event.how === 'probe') return `the API ${label} takes requests again (a probe of the pause by ${event.by} was answered): the pause ends`;
	return `the API ${label}'s pause (${event.by}) is over: its requests go again`;
}

function logEvents(ctx: IExecuteFunctions, label: string, events: TrafficEvent[], nowMs: number): void {
	const node = `Resilient HTTP Request "${ctx.getNode().name}"`;
	for (const event of events) {
		switch (event.kind) {
			case 'paused':
				ctx.logger.info(`${node}: ${pausedMessage(label, event, nowMs)}`);
				break;
			case 'resumed':
				ctx.logger.info(`${node}: ${resumedMessage(label, event)}`);
				break;
			case 'down':
				ctx.logger.warn(`${node}: the API ${label} looks down: its requests are held, one probe at ${new Date(event.nextProbeAt).toISOString()}`);
				break;
			case 'recovered':
				ctx.logger.info(`${node}: the API ${label} answers again: the held requests come back gradually`);
				break;
			case 'window':
				ctx.logger.debug(`${node}: requests in flight to ${label} ${event.decrease.from} -> ${event.decrease.to}`);
				break;
			case 'rate-learned':
				ctx.logger.info(`${node}: the API ${label} throttles: its requests are paced at ${Math.round(event.rps * 10) / 10} per second`);
				break;
		}
	}
}

interface TrafficGateOptions {
	/** The item's first request is a retry too (it came back through a Backoff Delay loop). */
	loopRetry: boolean;
	/** The request this gate admits (its route names its bucket, once an answer said). */
	request: TrafficRequest;
	maxServerDelayMs: number;
	readRateLimitHeaders: boolean;
}

export function createTrafficGate(ctx: IExecuteFunctions, store: StateStore, control: TrafficControl, runtime: Runtime, signal: AbortSignal | undefined, options: TrafficGateOptions): AttemptGate<HttpResponse> {
	const gate: GateContext = {
		store,
		key: control.key,
		params: control.params,
		runtime,
		waiters: getProcessWaiters(),
		...(signal ? { signal } : {}),
		pollMs: store.kind === 'redis' ? REDIS_POLL_MS : MEMORY_POLL_MS,
		onEvents: (events) => logEvents(ctx, control.label, events, runtime.now()),
	};
	return {
		async enter(attempt, last, deadlineAt) {
			const id = newLeaseId();
			// asking again after a "not yet" is a poll, not a retry: it spends no retry budget, and its item has not failed
			const failedBefore = attempt > 1 && last?.notYet !== true;
			const retry = failedBefore || options.loopRetry;
			const paced = wasPaced(last);
			const result = await passGate(gate, { id, retry, paced, failedBefore, route: options.request.route }, { ...(deadlineAt !== undefined ? { deadlineAt } : {}), maxServerDelayMs: options.maxServerDelayMs });
			const note = noteOf(result);
			if (!result.go) return { go: false, stop: result.stop, why: result.why, ...(result.retryAt !== undefined ? { retryAt: result.retryAt } : {}), note };
			const lease = result.admission.lease;
			return {
				go: true,
				note,
				done: async (attemptResult) => {
					const outcome = outcomeOf(attemptResult, runtime.now(), options.readRateLimitHeaders, options.request);
					await reportOutcome(gate, lease, { ...outcome, ...(failedBefore ? { failedBefore } : {}), sent: !retry ? 'first' : paced ? 'paced' : 'retry' });
				},
			};
		},
	};
}
