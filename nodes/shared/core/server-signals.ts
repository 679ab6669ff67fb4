/**
 * What a server says about a failed response beyond its status, and the one judgement built on it:
 * is this response worth another try, and when. Both nodes classify a failed response here (the HTTP
 * node where an attempt's response is read, Backoff Delay where an item's failure is read), then the
 * engine's one decision (decide.ts) takes the classified failure. Pure: knows nothing of n8n.
 *
 * The README's table "What real APIs say" lists each signal with its source;
 * test/unit/real-apis.test.ts runs every row of it through this module and decide.ts.
 */
import { classifyStatus, type AttemptFailure, type ReachedServer, type StatusSet } from './classify';
import { headerValues, rateLimitSpent, serverRequestedDelay, type HeaderBag, type ServerDelay } from './retry-after';

/** A failed response as it was read: status, headers, and the body decoded (JSON as a value). */
interface ResponseFacts {
	status: number;
	statusText?: string;
	headers?: HeaderBag;
	body?: unknown;
}

interface SignalOptions {
	/**
	 * Obey Server Retry Hints: x-should-retry / Stripe-Should-Retry, waits and quota errors in a JSON
	 * body, a 403 that is a rate limit, a 413 that says when to come back. Off: the status list alone
	 * decides, and only headers give waits.
	 */
	obeyHints: boolean;
	/** Read Rate-Limit Headers (the HTTP node's option; Backoff Delay always reads them). */
	readRateLimitHeaders: boolean;
}

interface ResponseRules extends SignalOptions {
	retryOn: StatusSet;
}

export interface ServerSignals {
	/** The server's own verdict (x-should-retry, Stripe-Should-Retry); `false` wins when two disagree. */
	hint?: { retry: boolean; source: string };
	/** What shows that a refusal is a rate limit (a 403 that is one is retried like a 429). */
	rateLimit?: string;
	/** A quota that no wait restores (billing, credits): the failure is final. */
	quotaSpent?: string;
	/** The wait the server asked for, from its headers or its body. */
	serverDelay?: ServerDelay;
}

type Json = Record<string, unknown>;

const HINT_HEADERS = ['x-should-retry', 'stripe-should-retry'];

/** GitHub: "If you exceed a secondary rate limit ... Otherwise, wait for at least one minute" (Octokit's fallbackSecondaryRateRetryAfter). */
const GITHUB_SECONDARY_WAIT_MS = 60_000;
/** HubSpot's daily limit resets at midnight in the account's time zone: within a day, whatever the zone. */
const DAY_MS = 24 * 3600_000;

/** OpenAI's billing codes: "Retrying a billing, spending, or quota error does not restore access." */
const OPENAI_QUOTA_CODES = new Set(['insufficient_quota', 'credit_balance_exhausted', 'organization_spend_limit_exceeded', 'project_spend_limit_exceeded', 'organization_usage_limit_exceeded']);
/** Google APIs' per-minute quota reasons, sent with a 403 (Drive: "403: User rate limit exceeded ... use an exponential backoff"). */
const GOOGLE_RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(value: unknown, ...path: string[]): Json | undefined {
	let current: unknown = value;
	for (const key of path) current = isObject(current) ? current[key] : undefined;
	return isObject(current) ? current : undefined;
}

function arrayAt(value: unknown, ...path: string[]): unknown[] {
	let current: unknown = value;
	for (const key of path) current = isObject(current) ? current[key] : undefined;
	return Array.isArray(current) ? current : [];
}

/** Seconds as a body gives them: a finite number of 0 or more, or such a number as text. Anything else is no wait. */
function secondsOf(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
	if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return parseFloat(value);
	return undefined;
}

function millis(seconds: number): number {
	return Math.min(Math.ceil(seconds * 1000), Number.MAX_SAFE_INTEGER);
}

/** x-should-retry (OpenAI, Anthropic) and Stripe-Should-Retry: exactly `true` or `false` (any case); other values say nothing. */
function readRetryHint(headers: HeaderBag | undefined): ServerSignals['hint'] {
	let found: ServerSignals['hint'];
	for (const name of HINT_HEADERS) {
		for (const raw of headerValues(headers, name)) {
			const value = raw.trim().toLowerCase();
			if (value !== 'true' && value !== 'false') continue;
			// a server that says both has said "no" once: a retry it advised against may do harm (Stripe: a no-op or a duplicate)
			if (value === 'false') return { retry: false, source: `${name}: false` };
			found ??= { retry: true, source: `${name}: true` };
		}
	}
	return found;
}

/**
 * A protobuf Duration as JSON gives it (google.rpc.RetryInfo's retryDelay): "10s", "10.314s", or
 * { seconds, nanos } from libraries that print the message's fields. Seconds, or undefined.
 */
function durationSeconds(value: unknown): number | undefined {
	if (typeof value === 'string') {
		const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
		return match ? parseFloat(match[1]) : undefined;
	}
	if (!isObject(value)) return undefined;
	const seconds = secondsOf(value.seconds ?? 0);
	const nanos = secondsOf(value.nanos ?? 0);
	return seconds === undefined || nanos === undefined ? undefined : seconds + nanos / 1e9;
}

/** Google APIs' structured wait (Gemini, Cloud): `error.details[]` of @type google.rpc.RetryInfo, its `retryDelay`. */
function retryInfoWaits(body: Json): Array<[string, unknown]> {
	return arrayAt(body, 'error', 'details')
		.map((detail, i): [string, unknown] | undefined =>
			isObject(detail) && typeof detail['@type'] === 'string' && detail['@type'].endsWith('google.rpc.RetryInfo') ? [`body.error.details[${i}].retryDelay`, durationSeconds(detail.retryDelay)] : undefined,
		)
		.filter((candidate): candidate is [string, unknown] => candidate !== undefined);
}

/**
 * A wait written in a JSON error body: Discord's `retry_after`, Telegram's `parameters.retry_after`,
 * Dropbox's RateLimitError `error.retry_after`, monday.com's `extensions.retry_in_seconds`, Google's
 * google.rpc.RetryInfo `retryDelay`.
 */
function bodyWait(body: Json): ServerDelay | undefined {
	const candidates: Array<[string, unknown]> = [
		['body.retry_after', body.retry_after],
		['body.parameters.retry_after', objectAt(body, 'parameters')?.retry_after],
		['body.error.retry_after', objectAt(body, 'error')?.retry_after],
		...arrayAt(body, 'errors').map((e, i): [string, unknown] => [`body.errors[${i}].extensions.retry_in_seconds`, objectAt(e, 'extensions')?.retry_in_seconds]),
		...retryInfoWaits(body),
	];
	let longest: ServerDelay | undefined;
	for (const [header, value] of candidates) {
		const seconds = secondsOf(value);
		if (seconds === undefined) continue;
		const delayMs = millis(seconds);
		if (!longest || delayMs > longest.delayMs) longest = { delayMs, header, kind: 'retry-after' };
	}
	return longest;
}

/** A quota that resets at a known time: HubSpot's daily limit, Anthropic's monthly spend cap, monday.com's daily call limit. */
function quotaReset(body: Json, nowMs: number): ServerDelay | undefined {
	const now = new Date(nowMs);
	// the end is within a day, but when is the node's guess: the pause is probed (traffic controller)
	if (body.policyName === 'DAILY') return { delayMs: DAY_MS, header: 'body.policyName', kind: 'rate-limit-reset', inferred: true };
	if (objectAt(body, 'error', 'details')?.error_code === 'enforced_spend_limit_reached') {
		// "Usage pauses until 00:00 UTC on the first day of the next month"
		return { delayMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - nowMs, header: 'body.error.details.error_code', kind: 'rate-limit-reset' };
	}
	if (arrayAt(body, 'errors').some((e) => objectAt(e, 'extensions')?.code === 'DAILY_LIMIT_EXCEEDED')) {
		// "Wait until the limit resets at midnight UTC"
		return { delayMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - nowMs, header: 'body.errors[].extensions.code', kind: 'rate-limit-reset' };
	}
	return undefined;
}

function quotaSpentOf(body: Json): string | undefined {
	const error = objectAt(body, 'error');
	if (!error) return undefined;
	for (const field of ['code', 'type'] as const) {
		const value = error[field];
		if (typeof value === 'string' && OPENAI_QUOTA_CODES.has(value)) return `the server says a quota is spent that waiting does not restore (error.${field}: ${value})`;
	}
	return undefined;
}

/** What in a body shows a rate limit: GitHub's message ("API rate limit exceeded", "secondary rate limit"), Google's reasons. */
function bodyRateLimit(body: Json): string | undefined {
	if (typeof body.message === 'string' && /\brate limit\b/i.test(body.message)) return 'body.message';
	const reasons = arrayAt(body, 'error', 'errors').map((e) => (isObject(e) ? e.reason : undefined));
	const reason = reasons.find((r): r is string => typeof r === 'string' && GOOGLE_RATE_REASONS.has(r));
	return reason ? `body.error.errors[].reason: ${reason}` : undefined;
}

function isGithubSecondary(body: Json): boolean {
	return typeof body.message === 'string' && /\bsecondary rate limit/i.test(body.message);
}

function later(a: ServerDelay | undefined, b: ServerDelay | undefined): ServerDelay | undefined {
	if (!a || !b) return a ?? b;
	return b.delayMs > a.delayMs ? b : a;
}

/**
 * Everything the server said beside the status, read once. The wait: an explicit instruction in the
 * headers (Retry-After, retry-after-ms, X-RateLimit-Retry-After) first, then one in the body, then
 * the later of a rate-limit reset and a quota's documented reset, then GitHub's one minute.
 */
export function readServerSignals(facts: ResponseFacts, nowMs: number, options: SignalOptions): ServerSignals {
	const fromHeaders = serverRequestedDelay(facts.headers, nowMs, { readRateLimitHeaders: options.readRateLimitHeaders, status: facts.status });
	if (!options.obeyHints) return fromHeaders ? { serverDelay: fromHeaders } : {};
	const body = isObject(facts.body) ? facts.body : undefined;
	const hint = readRetryHint(facts.headers);
	const explicit = fromHeaders?.kind === 'retry-after' ? fromHeaders : undefined;
	const resets = later(fromHeaders?.kind === 'rate-limit-reset' ? fromHeaders : undefined, body ? quotaReset(body, nowMs) : undefined);
	const secondary = body && isGithubSecondary(body) ? { delayMs: GITHUB_SECONDARY_WAIT_MS, header: 'body.message', kind: 'rate-limit-reset' as const, inferred: true as const } : undefined;
	const serverDelay = explicit ?? (body ? bodyWait(body) : undefined) ?? resets ?? secondary;
	const headerLimit = options.readRateLimitHeaders ? rateLimitSpent(facts.headers) : undefined;
	const rateLimit = headerLimit ?? (explicit ? explicit.header : undefined) ?? (body ? bodyRateLimit(body) : undefined);
	const quotaSpent = body ? quotaSpentOf(body) : undefined;
	return { ...(hint ? { hint } : {}), ...(rateLimit ? { rateLimit } : {}), ...(quotaSpent ? { quotaSpent } : {}), ...(serverDelay ? { serverDelay } : {}) };
}

/**
 * Is the failed response worth another try? The status list decides, unless the server said more
 * (with Obey Server Retry Hints on): its own verdict first, then a spent quota (final), then a 403
 * that is a rate limit and a 413 that says when to come back (both retried, as a refusal).
 */
export function judgeResponse(facts: ResponseFacts, signals: ServerSignals, rules: ResponseRules): AttemptFailure {
	const base = classifyStatus(facts.status, facts.statusText, rules.retryOn) ?? {
		// a status under 400 on an item that failed is no verdict of its own: the item failed, try again
		kind: 'status' as const,
		status: facts.status,
		message: String(facts.status),
		reachedServer: 'yes' as const,
		transient: true,
	};
	const serverDelay = signals.serverDelay ? { serverDelay: signals.serverDelay } : {};
	if (!rules.obeyHints) return { ...base, ...serverDelay };
	const limited = facts.status === 403 && signals.rateLimit !== undefined;
	const comeBackLater = facts.status === 413 && signals.serverDelay?.kind === 'retry-after';
	// a rate limiter, or a server refusing a body it cannot take now, did no work (RFC 6585, RFC 9110 15.5.14)
	const reachedServer: ReachedServer = limited || comeBackLater ? 'refused' : base.reachedServer;
	if (signals.hint) {
		return { ...base, reachedServer, transient: signals.hint.retry, ...(signals.hint.retry ? {} : { finalBecause: `the server said not to retry it (${signals.hint.source})` }), ...serverDelay };
	}
	if (signals.quotaSpent) return { ...base, reachedServer, transient: false, finalBecause: signals.quotaSpent, quotaSpent: true, ...serverDelay };
	return { ...base, reachedServer, transient: base.transient || limited || comeBackLater, ...serverDelay };
}

/** The HTTP node's reading of a failed response: undefined for a status under 400 (a success). */
export function classifyResponse(facts: ResponseFacts, rules: ResponseRules, nowMs: number): AttemptFailure | undefined {
	if (facts.status < 400) return undefined;
	return judgeResponse(facts, readServerSignals(facts, nowMs, rules), rules);
}
