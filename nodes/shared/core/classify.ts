/**
 * Decides what a failed attempt means: is it worth another try, and could the server have acted
 * on the request? Pure: knows nothing of n8n.
 */

import type { ServerDelay } from './retry-after';
import type { StopReason } from './stop-reasons';

/** Why an attempt failed, as the retry loop sees it. */
type FailureKind = 'status' | 'network' | 'timeout';

/**
 * Whether the server may have processed the request.
 * 'no': the request provably never reached it (refused, DNS failure, unreachable, TLS handshake).
 * 'maybe': the connection broke or timed out after the request may have been sent.
 * 'refused': the server answered that it refused the request without processing it: a rate limit
 *   (429, or a 403 that is one), an overload refusal (529), a body it cannot take now (413 with a wait).
 * 'yes': the server answered with a status.
 */
export type ReachedServer = 'no' | 'maybe' | 'refused' | 'yes';

export interface AttemptFailure {
	kind: FailureKind;
	status?: number;
	statusText?: string;
	/** A Node/axios error code such as ECONNRESET or ETIMEDOUT. */
	code?: string;
	message: string;
	reachedServer: ReachedServer;
	/** Network and timeout failures: transient by nature. Status failures: set by the status policy. */
	transient: boolean;
	/** Why a failure is final although its status may be listed: the server said so (server-signals.ts). */
	finalBecause?: string;
	/**
	 * The server said a quota is spent that no wait restores (billing, credits: OpenAI's
	 * `insufficient_quota`): final for the item, and no sign that the API is overloaded or throttling
	 * its callers (its traffic controller neither pauses, paces nor shrinks its window for it).
	 */
	quotaSpent?: true;
	/** The wait the server asked for, read once where the response was read. */
	serverDelay?: ServerDelay;
	/**
	 * A stop already decided by the node that made the attempt (an item from Resilient HTTP
	 * Request's error output reaching Backoff Delay): the decision follows it.
	 */
	judged?: StopReason;
	/**
	 * A 2xx answer that met Retry When: the job is not done yet. Retried at the polling pace, bounded
	 * by the total deadline only; it is no failure of the API (no health, no retry budget, no attempt
	 * of Max Attempts spent).
	 */
	notYet?: true;
	/** The response headers of a failed status, kept for the output (Never Error). */
	headers?: Record<string, unknown>;
	/** The response body of a failed status, kept for the error output. */
	body?: unknown;
	/** A network failure: the thrown error's name and its cause's fields, for the error output (HTTP Request's shape). */
	thrown?: { name: string; cause?: Record<string, unknown> };
}

/** axios' own codes for a status error: they say "a status", not what failed. */
const STATUS_ERROR_CODES = new Set(['ERR_BAD_RESPONSE', 'ERR_BAD_REQUEST']);

/** An error code worth classifying (ECONNRESET, UND_ERR_SOCKET, ERR_STREAM_PREMATURE_CLOSE), wherever it was found. */
export function isErrorCode(value: unknown): value is string {
	return typeof value === 'string' && /^[A-Z][A-Z0-9_]+$/.test(value) && !STATUS_ERROR_CODES.has(value);
}

/** Codes of requests that never left this machine or never reached the server. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

/** Codes of connections that broke or timed out: the request may have been processed. */
const MAYBE_SENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE', 'EPROTO_PREMATURE']);

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);

/** The TLS handshake failed before a byte of the request was written. */
const TLS_HANDSHAKE_RESET = /before secure TLS connection was established/i;

/**
 * Classifies a network-level error code. Returns undefined for codes that are not transient
 * (ENOTFOUND: the host does not exist; certificate errors: configuration, not luck).
 */
export function classifyNetworkError(code: string | undefined, message: string): AttemptFailure | undefined {
	const c = (code ?? '').toUpperCase();
	if (c === 'ECONNRESET' && TLS_HANDSHAKE_RESET.test(message)) {
		return { kind: 'network', code: c, message, reachedServer: 'no', transient: true };
	}
	if (TIMEOUT_CODES.has(c)) {
		// connect timeouts never reached the server; others may have
		const reached: ReachedServer = c === 'UND_ERR_CONNECT_TIMEOUT' ? 'no' : 'maybe';
		return { kind: 'timeout', code: c, message, reachedServer: reached, transient: true };
	}
	if (NEVER_SENT_CODES.has(c)) return { kind: 'network', code: c, message, reachedServer: 'no', transient: true };
	if (MAYBE_SENT_CODES.has(c)) return { kind: 'network', code: c, message, reachedServer: 'maybe', transient: true };
	if (/socket hang up/i.test(message)) {
		return { kind: 'network', code: c || 'ECONNRESET', message, reachedServer: 'maybe', transient: true };
	}
	return undefined;
}

/** A set of status codes written as `408, 429, 5xx, 520-599`. */
export interface StatusSet {
	has(status: number): boolean;
	readonly source: string;
}

/** The list parsed last: every item of a run reads the same one (a set is never changed). */
let lastParsed: StatusSet | undefined;

/** Parses a status list; throws an Error naming the bad entry (the node turns it into a parameter error). */
export function parseStatusList(source: string): StatusSet {
	if (lastParsed !== undefined && lastParsed.source === source) return lastParsed;
	const ranges: Array<[number, number]> = [];
	for (const raw of source.split(/[,\s]+/)) {
		const entry = raw.trim().toLowerCase();
		if (entry === '') continue;
		let m = /^([1-5])xx$/.exec(entry);
		if (m) {
			ranges.push([+m[1] * 100, +m[1] * 100 + 99]);
			continue;
		}
		m = /^(\d{3})-(\d{3})$/.exec(entry);
		if (m && +m[1] <= +m[2] && +m[1] >= 100 && +m[2] <= 599) {
			ranges.push([+m[1], +m[2]]);
			continue;
		}
		m = /^(\d{3})$/.exec(entry);
		if (m && +m[1] >= 100 && +m[1] <= 599) {
			ranges.push([+m[1], +m[1]]);
			continue;
		}
		throw new Error(`"${raw}" is not a status code, a class like 5xx, or a range like 500-504`);
	}
	lastParsed = Object.freeze({ source, has: (status: number) => ranges.some(([lo, hi]) => status >= lo && status <= hi) });
	return lastParsed;
}

/**
 * Statuses that say the server refused the request before doing any work: 429 (RFC 6585, a rate
 * limiter) and 529 (Anthropic's overloaded_error, Notion's service_overload: the API turned the
 * request down). A 503 is not among them: a gateway may answer 503 after the application got the
 * request (Heroku's router does on its 30 s timeout), so a POST that got one may have been processed.
 */
const REFUSING_STATUSES = new Set([429, 529]);

/** A status failure: transient when the user's list says so. 2xx and 3xx are not failures. */
export function classifyStatus(status: number, statusText: string | undefined, retryOn: StatusSet): AttemptFailure | undefined {
	if (status < 400) return undefined;
	return {
		kind: 'status',
		status,
		statusText,
		message: `${status}${statusText ? ` ${statusText}` : ''}`,
		reachedServer: REFUSING_STATUSES.has(status) ? 'refused' : 'yes',
		transient: retryOn.has(status),
	};
}
