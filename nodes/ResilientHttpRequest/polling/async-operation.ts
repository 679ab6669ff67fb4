/**
 * Follow Asynchronous Operations: a 202 Accepted that names a status URL (`Operation-Location`,
 * `Azure-AsyncOperation`, `Location`) is followed: the status URL is polled (GET, through the retry
 * engine, at the polling pace or the Retry-After each answer gives, within what the total deadline
 * leaves) until the operation ends, then its result is the item's answer: the resource the status
 * names (`resourceLocation`, Azure's final GET), or the last answer. Credentials follow the status
 * URL only on the request's own origin, as on redirects.
 */
import type { AttemptFailure } from '../../shared/core/classify';
import { decideAfterFailure } from '../../shared/core/decide';
import { pollParamsAfter } from '../../shared/core/poll';
import { stopSummary } from '../../shared/core/stop-messages';
import { normalizeHeaders } from '../../shared/core/retry-after';
import { SENSITIVE_HEADERS } from '../../shared/core/redact';
import { successSummary, type RetryOutcome } from '../../shared/core/retry-loop';
import type { RetryStory } from '../../shared/core/retry-story';
import type { Runtime } from '../../shared/core/runtime';
import type { ItemConfig } from '../config/item-config';
import type { RetrySettings } from '../config/retry-settings';
import { decodeBody } from '../output/response';
import { notYetFailure } from './retry-when';
import type { HttpResponse, ItemSender, RequestSpec } from '../types';

/** The status URL's header, in the order Azure's SDKs look for them. */
const MONITOR_HEADERS = ['operation-location', 'azure-asyncoperation', 'location'] as const;
type MonitorHeader = (typeof MONITOR_HEADERS)[number];

/** A status monitor's body names the operation's state; these end it (Azure's REST guidelines; lower-cased). */
const FAILED_STATES = new Set(['failed', 'canceled', 'cancelled']);
const ENDED_STATES = new Set(['succeeded', ...FAILED_STATES]);

/**
 * "Not done yet", as n8n's pagination helper evaluates it (see retry-when.ts). A status monitor
 * (Operation-Location, Azure-AsyncOperation) answers with its `status` until it ends; a Location
 * answers 202 until the resource is there.
 */
const STILL_RUNNING: Record<MonitorHeader, string> = {
	'operation-location': `={{ $response.statusCode === 202 || !${JSON.stringify([...ENDED_STATES])}.includes(String(($response.body || {}).status || "").toLowerCase()) }}`,
	'azure-asyncoperation': '',
	location: '={{ $response.statusCode === 202 }}',
};
STILL_RUNNING['azure-asyncoperation'] = STILL_RUNNING['operation-location'];

interface Monitor {
	header: MonitorHeader;
	url: string;
	/** The Location beside a status monitor header: where a POST's result is (Azure's final GET). */
	location?: string;
}

function monitorOf(response: HttpResponse, requestUrl: string): Monitor | undefined {
	if (response.statusCode !== 202) return undefined;
	const headers = normalizeHeaders(response.headers);
	const header = MONITOR_HEADERS.find((name) => (headers[name] ?? '').trim() !== '');
	if (!header) return undefined;
	try {
		const url = new URL(headers[header].trim(), requestUrl).href;
		const location = header !== 'location' && headers.location ? new URL(headers.location.trim(), requestUrl).href : undefined;
		if (!/^https?:$/.test(new URL(url).protocol)) return undefined;
		return { header, url, ...(location ? { location } : {}) };
	} catch {
		return undefined;
	}
}

/** A GET of `url` with the request's headers, without its body, and without credentials off its origin. */
function getSpec(request: RequestSpec, url: string, config: ItemConfig): { spec: RequestSpec; config: ItemConfig } {
	const sameOrigin = new URL(url).origin === new URL(request.url).origin;
	const withCredentials = sameOrigin || config.transport.sendCredentialsCrossOrigin;
	const dropped = new Set(['content-type', 'content-length', config.idempotency.header.toLowerCase(), ...(withCredentials ? [] : SENSITIVE_HEADERS)]);
	const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !dropped.has(name.toLowerCase())));
	const spec: RequestSpec = { method: 'GET', url, qs: {}, headers, ...(request.acceptIsDefault ? { acceptIsDefault: true as const } : {}) };
	const transport = withCredentials ? config.transport : { ...config.transport, auth: { kind: 'none' as const } };
	return { spec, config: { ...config, request: spec, transport } };
}

/**
 * One story of the whole operation: its attempts one after the other, the last stop. The last
 * loop's summary counted its own attempts from 1: it is told again of the whole operation (a stop
 * with the loop's `why`; a stop the loop did not decide, at the API's controller, keeps its words).
 */
function joined(first: RetryStory, next: RetryStory, why?: string): RetryStory {
	const history = [...first.history, ...next.history].map((record, k) => ({ ...record, attempt: k + 1 }));
	const polls = (first.polls ?? 0) + (next.polls ?? 0);
	const elapsedMs = first.elapsedMs + next.elapsedMs;
	const summary =
		next.stoppedBecause === 'success'
			? successSummary(history.length, history, polls, next.maxAttempts ?? history.length)
			: why !== undefined
				? stopSummary(next.stoppedBecause, why, { attempts: history.length, elapsedMs })
				: next.summary;
	return { ...next, attempts: history.length, summary, elapsedMs, totalDelayMs: first.totalDelayMs + next.totalDelayMs, ...(polls > 0 ? { polls } : {}), history };
}

/** An outcome's `why`, when the loop decided its stop. */
const whyOf = (outcome: RetryOutcome<HttpResponse>) => (outcome.ok ? undefined : outcome.why);

/** A monitor that says the operation failed: a final failure carrying its answer. */
function operationFailed(response: HttpResponse, state: string): AttemptFailure {
	const { statusCode: status, statusMessage: statusText, headers } = response;
	return { kind: 'status', status, statusText, message: `${status}${statusText ? ` ${statusText}` : ''}`, reachedServer: 'yes', transient: false, finalBecause: `the operation ended "${state}"`, headers, body: response.body };
}

function stateOf(response: HttpResponse): string | undefined {
	const decoded = decodeBody(response, 'json');
	const body = decoded.kind === 'json' ? decoded.value : undefined;
	const status = body !== null && typeof body === 'object' ? (body as { status?: unknown }).status : undefined;
	return typeof status === 'string' ? status : undefined;
}

function resourceOf(response: HttpResponse, monitor: Monitor, request: RequestSpec): string | undefined {
	const decoded = decodeBody(response, 'json');
	const body = decoded.kind === 'json' && decoded.value !== null && typeof decoded.value === 'object' ? (decoded.value as { resourceLocation?: unknown }) : {};
	if (typeof body.resourceLocation === 'string' && body.resourceLocation !== '') return new URL(body.resourceLocation, monitor.url).href;
	if (monitor.header === 'location') return undefined;
	// Azure: a PUT or PATCH ends with a GET of its own URL; a POST with a GET of its Location
	if (request.method === 'PUT' || request.method === 'PATCH') return request.url;
	return monitor.location;
}

/**
 * The status loop's policy: the 202 that started the operation was its first "not yet" answer, so
 * the status is first asked for after the 202's Retry-After or the first poll interval (as Azure's
 * guidelines and SDKs do), not at once, and the pace goes on from there. When even that first wait
 * would end past the deadline, the status is asked for once at once, and the loop judges it.
 */
function statusPolicy(accepted: HttpResponse, policy: RetrySettings['policy'], remainingMs: number, runtime: Runtime): RetrySettings['policy'] {
	const within = { ...policy, totalDeadlineMs: remainingMs };
	const now = runtime.now();
	const safety = { method: 'GET', hasIdempotencyKey: false, allowUnsafeRetries: false };
	const decision = decideAfterFailure(notYetFailure(accepted, runtime), { attempts: 1, startedAt: now }, { ...within, safety }, now, () => runtime.random());
	const waitBeforeFirst = decision.retry ? { ms: decision.delayMs, reason: decision.delayReason, ...(decision.delayHeader ? { header: decision.delayHeader } : {}) } : undefined;
	return { ...within, ...(policy.poll ? { poll: pollParamsAfter(policy.poll, 1) } : {}), ...(waitBeforeFirst ? { waitBeforeFirst } : {}) };
}

/** What an operation is followed with: the run's clock, and the item's sender under a config of the status or result request's own. */
interface Following {
	runtime: Runtime;
	senderFor: (config: ItemConfig) => ItemSender;
}

export async function followOperation(config: ItemConfig, first: RetryOutcome<HttpResponse>, { runtime, senderFor }: Following): Promise<RetryOutcome<HttpResponse>> {
	if (!first.ok) return first;
	const monitor = monitorOf(first.value, config.request.url);
	if (!monitor) return first;
	const policy = config.retry.policy;
	const remainingMs = Math.max(1, policy.totalDeadlineMs - first.story.elapsedMs);
	const within = (c: ItemConfig, retryWhen: string | undefined): ItemConfig =>
		Object.freeze({ ...c, retry: { ...c.retry, ...(retryWhen !== undefined ? { retryWhen } : {}), followOperations: false, policy: statusPolicy(first.value, policy, remainingMs, runtime) } });
	// the user's Retry When, when set, judges the status answers in place of the built-in one
	const status = getSpec(config.request, monitor.url, config);
	const polled = await senderFor(within(status.config, config.retry.retryWhen ?? STILL_RUNNING[monitor.header]))(status.spec);
	const story = joined(first.story, polled.story, whyOf(polled));
	if (!polled.ok) return { ...polled, story };
	const state = stateOf(polled.value)?.toLowerCase();
	if (monitor.header !== 'location' && state !== undefined && FAILED_STATES.has(state)) {
		const failure = operationFailed(polled.value, state);
		return { ok: false, failure, story: { ...story, stoppedBecause: 'final-status', summary: `The operation ended "${state}" (${monitor.header}: ${monitor.url})` } };
	}
	const resource = resourceOf(polled.value, monitor, config.request);
	if (resource === undefined) return { ...polled, story };
	const final = getSpec(config.request, resource, config);
	// the result is fetched as any request: no condition on it
	const { retryWhen: _condition, ...retry } = final.config.retry;
	const fetched = await senderFor(Object.freeze({ ...final.config, retry: { ...retry, followOperations: false, policy: { ...policy, totalDeadlineMs: Math.max(1, remainingMs - polled.story.elapsedMs) } } }))(final.spec);
	return { ...fetched, story: joined(story, fetched.story, whyOf(fetched)) };
}
