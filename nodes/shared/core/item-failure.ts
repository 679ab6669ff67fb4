/**
 * Reads what went wrong from an item that reached a retry loop: from the Resilient HTTP Request
 * error output, from n8n's HTTP Request error output, from a full response (Never Error on), or
 * from any node's "continue on fail" error. Pure: works on the item's json.
 */
import { classifyNetworkError, isErrorCode, type AttemptFailure, type StatusSet } from './classify';
import type { ServerDelay } from './retry-after';
import { parseRetryAfter, parseResetValue, serverRequestedDelay } from './retry-after';
import { judgeResponse, readServerSignals, type ServerSignals } from './server-signals';
import { readStopReason, type StopReason } from './stop-reasons';

type Json = Record<string, unknown>;

export interface ItemFailure {
	/** The item carries a failure (an error, or a response status of 400 or more). */
	failed: boolean;
	status?: number;
	code?: string;
	message?: string;
	statusText?: string;
	/** Set when the item came from the Resilient HTTP Request error output. */
	resilientReason?: string;
	/** A wait the server asked for, as found on the item. */
	serverDelay?: ServerDelay;
	/** What the server said beside the status, read from the item's headers and body (server-signals.ts). */
	signals?: ServerSignals;
}

interface ItemReading {
	/** Obey Server Retry Hints: read the body and hint headers too. */
	obeyHints: boolean;
}

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOf(value: unknown): number | undefined {
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	if (typeof value === 'string' && /^\d{3}$/.test(value.trim())) return Number(value);
	return undefined;
}

function errorCodeOf(value: unknown): string | undefined {
	return isErrorCode(value) ? value : undefined;
}

function headersFrom(...candidates: unknown[]): Json | undefined {
	return candidates.find(isObject);
}

/** The wait the Resilient HTTP Request node handed over: retryAt is absolute, so it is preferred. */
function resilientDelay(error: Json, nowMs: number): ServerDelay | undefined {
	if (typeof error.retryAt === 'string') {
		const at = Date.parse(error.retryAt);
		if (Number.isFinite(at)) return { delayMs: Math.max(0, at - nowMs), header: 'retryAt', kind: 'retry-after' };
	}
	const ms = numberOf(error.retryAfterMs);
	return ms === undefined ? undefined : { delayMs: Math.max(0, ms), header: 'retryAfterMs', kind: 'retry-after' };
}

/** The server's signals on an item: from the status, headers and body found there, as the HTTP node reads a response. */
function signalsOf(status: number | undefined, headers: Json | undefined, body: unknown, nowMs: number, reading: ItemReading): ServerSignals | undefined {
	if (status === undefined) {
		// a network error that carries headers (a response cut short): only a wait can be read
		const serverDelay = headers ? serverRequestedDelay(headers, nowMs, { readRateLimitHeaders: true }) : undefined;
		return serverDelay ? { serverDelay } : undefined;
	}
	const signals = readServerSignals({ status, ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) }, nowMs, { obeyHints: reading.obeyHints, readRateLimitHeaders: true });
	return Object.keys(signals).length > 0 ? signals : undefined;
}

/** A response body HTTP Request's error holds as text: parsed when it is JSON (its waits and quotas are read from it). */
function bodyText(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	try {
		return JSON.parse(value) as unknown;
	} catch {
		return value === '' ? undefined : value;
	}
}

/**
 * The headlines n8n's NodeApiError gives an HTTP status (n8n-workflow's STATUS_CODE_MESSAGES): many
 * nodes hand on only the headline under "continue on fail" (`{ error: message }`: n8n's OpenAI node,
 * and most app nodes), and it is then all that tells the status. The generic 4XX and 5XX lines say
 * only the class. Held to n8n-workflow's own table by a test.
 */
export const N8N_STATUS_HEADLINES: ReadonlyArray<readonly [headline: string, status: number]> = [
	['Bad request - please check your parameters', 400],
	['Authorization failed - please check your credentials', 401],
	['Payment required - perhaps check your payment details?', 402],
	['Forbidden - perhaps check your credentials?', 403],
	['The resource you are requesting could not be found', 404],
	['Method not allowed - please check you are using the right HTTP method', 405],
	['The service is receiving too many requests from you', 429],
	['The service was not able to process your request', 500],
	['Bad gateway - the service failed to handle your request', 502],
	['Service unavailable - try again later or consider setting this node to retry automatically (in the node settings)', 503],
	['Gateway timed out - perhaps try again later?', 504],
];
const STATUS_BY_HEADLINE = new Map(N8N_STATUS_HEADLINES);

/** The status an n8n headline names, when the message is one (exactly, as NodeApiError sets it). */
export function statusOfN8nHeadline(message: unknown): number | undefined {
	return typeof message === 'string' ? STATUS_BY_HEADLINE.get(message.trim()) : undefined;
}

export function readItemFailure(json: Json, nowMs: number, reading: ItemReading = { obeyHints: true }): ItemFailure {
	const error = json.error;
	if (isObject(error)) {
		const response = isObject(error.response) ? error.response : {};
		const status = numberOf(error.status) ?? numberOf(error.statusCode) ?? numberOf(response.status) ?? numberOf(error.httpCode) ?? statusOfN8nHeadline(error.message);
		const code = errorCodeOf(error.code) ?? errorCodeOf(error.httpCode);
		const headers = headersFrom(response.headers, error.headers);
		const resilientReason = typeof error.reason === 'string' ? error.reason : undefined;
		// an earlier Resilient HTTP Request's error output carries the decoded body; HTTP Request's
		// error (and ours, in its shape) the body as text under `error`; an axios error its data
		const signals = signalsOf(status, headers, error.body ?? bodyText(error.error) ?? response.body ?? response.data, nowMs, reading);
		const statusText = typeof error.statusText === 'string' ? error.statusText : response.statusText;
		const serverDelay = resilientDelay(error, nowMs) ?? signals?.serverDelay;
		return {
			failed: true,
			...(status !== undefined ? { status } : {}),
			...(code ? { code } : {}),
			...(typeof error.message === 'string' ? { message: error.message } : {}),
			...(typeof statusText === 'string' && statusText !== '' ? { statusText } : {}),
			...(resilientReason ? { resilientReason } : {}),
			...(serverDelay ? { serverDelay } : {}),
			...(signals ? { signals } : {}),
		};
	}
	if (typeof error === 'string' && error !== '') {
		const status = statusOfN8nHeadline(error);
		return { failed: true, message: error, ...(status !== undefined ? { status } : {}) };
	}
	const statusCode = numberOf(json.statusCode);
	if (statusCode !== undefined) {
		if (statusCode < 400) return { failed: false, status: statusCode };
		const signals = signalsOf(statusCode, headersFrom(json.headers), json.body, nowMs, reading);
		const statusText = typeof json.statusMessage === 'string' && json.statusMessage !== '' ? { statusText: json.statusMessage } : {};
		return {
			failed: true,
			status: statusCode,
			...(typeof json.statusMessage === 'string' ? { message: json.statusMessage } : {}),
			...statusText,
			...(signals?.serverDelay ? { serverDelay: signals.serverDelay } : {}),
			...(signals ? { signals } : {}),
		};
	}
	// Nothing says what failed (a polling loop, a Code node's own "not ready yet"): still a failure.
	return { failed: true };
}

/** The verdicts of the node that made the attempt which the loop must follow: it knew the request. */
const FOLLOWED_VERDICTS: ReadonlySet<StopReason> = new Set(['not-safe-to-retry', 'final-status', 'not-retryable-error', 'retry-budget-exhausted']);

export interface ItemClassification extends ItemReading {
	/** false: retry whatever failed (Only Retry Transient Failures off). */
	onlyTransient: boolean;
	retryOn: StatusSet;
}

/**
 * The failure on an item, classified once with the same rules as the HTTP node's attempts, for the
 * engine's one decision. A verdict of Resilient HTTP Request (also in the words of earlier versions)
 * is followed; an open circuit is transient by nature (its retryAt says when the probe may go).
 */
export function classifyItemFailure(found: ItemFailure, rules: ItemClassification): AttemptFailure {
	const verdict = readStopReason(found.resilientReason, found.status !== undefined);
	const serverDelay = found.serverDelay ? { serverDelay: found.serverDelay } : {};
	if (!found.failed) return { kind: 'status', ...(found.status !== undefined ? { status: found.status } : {}), message: String(found.status ?? ''), reachedServer: 'yes', transient: false, judged: 'not-a-failure' };
	const judged = verdict && FOLLOWED_VERDICTS.has(verdict) ? { judged: verdict } : {};
	const forced = !rules.onlyTransient || verdict === 'api-held';
	if (found.status !== undefined) {
		// the same judgement as the HTTP node's on a response: the status list, and what the server said
		const facts = { status: found.status, ...(found.statusText !== undefined ? { statusText: found.statusText } : {}) };
		const { serverDelay: _read, ...status } = judgeResponse(facts, found.signals ?? {}, { retryOn: rules.retryOn, obeyHints: rules.obeyHints, readRateLimitHeaders: true });
		return { ...status, transient: forced || status.transient, ...serverDelay, ...judged };
	}
	if (found.code) {
		// the code says what failed; an item's message is often a node's own summary of it
		const network = classifyNetworkError(found.code, found.message ?? '');
		const base = network ? { ...network, message: '' } : { kind: 'network' as const, code: found.code, message: '', reachedServer: 'maybe' as const, transient: found.code === 'ECANCELED' };
		return { ...base, transient: forced || base.transient, ...serverDelay, ...judged };
	}
	// nothing says what failed (a polling loop, a Code node's own "not ready yet"): worth another try
	return { kind: 'network', message: found.message ?? '', reachedServer: 'maybe', transient: true, ...serverDelay, ...judged };
}

/**
 * A wait given by an expression: a number is milliseconds; text is a Retry-After value
 * (seconds or HTTP-date) or a date (ISO 8601). Undefined when empty; throws on garbage.
 */
export function parseWaitValue(value: unknown, nowMs: number): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'number') {
		if (!Number.isFinite(value) || value < 0) throw new Error(`must be a number of milliseconds of 0 or more, got ${value}`);
		return value;
	}
	if (value instanceof Date) return Math.max(0, value.getTime() - nowMs);
	if (typeof value === 'string') {
		const ms = parseRetryAfter(value, nowMs) ?? parseResetValue(value, nowMs);
		if (ms !== undefined) return ms;
		// only ISO 8601 dates: Date.parse also reads "-1" or "1" as years
		const date = /^\d{4}-\d{2}-\d{2}(?:$|[T ])/.test(value.trim()) ? Date.parse(value) : NaN;
		if (Number.isFinite(date)) return Math.max(0, date - nowMs);
	}
	throw new Error(`must be milliseconds, a Retry-After value or a date, got ${JSON.stringify(value)}`);
}
