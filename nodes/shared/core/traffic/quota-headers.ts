/**
 * The quota an API advertises on its answers, successes included: how many requests it still
 * accepts, and when the count resets. Read from every common form:
 *
 *   RateLimit: "default";r=17;t=30          IETF draft 8+ (several policies, comma-separated)
 *   RateLimit: limit=100, remaining=17, reset=30       earlier drafts
 *   RateLimit-Remaining + RateLimit-Reset              IETF draft 6/7 and many APIs
 *   X-RateLimit-Remaining + X-RateLimit-Reset          GitHub, Shopify, Twitter, ... (delta or epoch)
 *   X-Rate-Limit-Remaining + X-Rate-Limit-Reset
 *   x-ratelimit-remaining-requests + x-ratelimit-reset-requests   OpenAI (and -tokens)
 *   anthropic-ratelimit-requests-remaining + -reset    Anthropic (RFC 3339 reset)
 *
 * Several quotas at once (per second and per day, requests and tokens): the one that binds first
 * counts, a spent one (remaining 0) before any other, with the longest reset among the spent ones.
 * Pure: the current time is passed in, and read once per answer.
 */
import { normalizeHeaders, parseResetValue, type HeaderBag } from '../retry-after';

interface Quota {
	remaining: number;
	/**
	 * When the count resets (epoch ms): the instant the server stated (an epoch or a date), or its
	 * delta from the clock read when the answer was parsed. Carried as an instant, so that every later
	 * reader (the controller's step, the operator's view, an item's retryAt) sees the same one.
	 */
	resetAt: number;
	/** The header the remaining count came from. */
	header: string;
}

function count(value: string | undefined): number | undefined {
	if (value === undefined || !/^\s*\d{1,15}\s*$/.test(value)) return undefined;
	return Number(value);
}

/** `ms` from now as an instant; an absurd delta (hundreds of digits) stays a finite, storable time. */
function instant(nowMs: number, ms: number): number {
	return Number.isFinite(ms) ? Math.min(nowMs + Math.max(0, ms), Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
}

/** A reset given in seconds from now, as an instant. */
function secondsFrom(nowMs: number, seconds: string): number {
	return instant(nowMs, Math.ceil(parseFloat(seconds) * 1000));
}

/** The IETF RateLimit header's own policies: r= (remaining) with t= (reset), or the early drafts' names. */
function ietfQuotas(value: string, nowMs: number): Quota[] {
	const quotas: Quota[] = [];
	const legacyRemaining = /(?:^|[,;\s])remaining=(\d{1,15})(?=\s*(?:[,;]|$))/i.exec(value);
	const legacyReset = /(?:^|[,;\s])reset=(\d+(?:\.\d+)?)(?=\s*(?:[,;]|$))/i.exec(value);
	if (legacyRemaining || legacyReset) {
		if (legacyRemaining && legacyReset) quotas.push({ remaining: Number(legacyRemaining[1]), resetAt: secondsFrom(nowMs, legacyReset[1]), header: 'ratelimit' });
		return quotas;
	}
	for (const policy of value.split(',')) {
		const r = /;\s*r=(\d{1,15})(?=\s*(?:;|$))/i.exec(policy);
		const t = /;\s*t=(\d+(?:\.\d+)?)(?=\s*(?:;|$))/i.exec(policy);
		if (r && t) quotas.push({ remaining: Number(r[1]), resetAt: secondsFrom(nowMs, t[1]), header: 'ratelimit' });
	}
	return quotas;
}

/** Every remaining / reset pair the headers hold. */
function allQuotas(headers: HeaderBag | undefined, nowMs: number): Quota[] {
	const h = normalizeHeaders(headers);
	const quotas: Quota[] = h['ratelimit'] !== undefined ? ietfQuotas(h['ratelimit'], nowMs) : [];
	for (const [name, value] of Object.entries(h)) {
		const remaining = count(value);
		if (remaining === undefined) continue;
		// x-ratelimit-remaining, x-ratelimit-remaining-requests, anthropic-ratelimit-requests-remaining
		const resetName = name.includes('-remaining') ? name.replace('-remaining', '-reset') : undefined;
		if (resetName === undefined || !/(^|-)ratelimit|rate-limit/.test(name)) continue;
		// an epoch or a date comes back as exactly its instant (ms from nowMs, added to nowMs)
		const reset = h[resetName] === undefined ? undefined : parseResetValue(h[resetName], nowMs);
		if (reset !== undefined) quotas.push({ remaining, resetAt: instant(nowMs, reset), header: name });
	}
	return quotas;
}

/** The quota that binds first, or undefined when the answer advertises none. */
export function readQuota(headers: HeaderBag | undefined, nowMs: number): Quota | undefined {
	const quotas = allQuotas(headers, nowMs);
	if (quotas.length === 0) return undefined;
	const spent = quotas.filter((q) => q.remaining <= 0);
	if (spent.length > 0) return spent.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
	return quotas.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt > a.resetAt) ? b : a));
}

/** Discord's top-level resources: a bucket's limit is counted per channel, guild or webhook (its id and token). */
const DISCORD_MAJOR = /^\/api(?:\/v\d+)?\/(channels\/\d+|guilds\/\d+|webhooks\/\d+(?:\/[^/]+)?)/;

/**
 * The rate-limit bucket an answer names: GitHub's `x-ratelimit-resource` (core, search, graphql...),
 * Discord's `x-ratelimit-bucket` (a hash shared by routes with one limit, counted per top-level
 * resource of the path: `majorOf` gives that part, hashed by the caller as it may hold a webhook's
 * token). Undefined when the answer names none: the API is the unit.
 */
export function readBucket(headers: HeaderBag | undefined, path: string, majorOf: (major: string) => string): string | undefined {
	const h = normalizeHeaders(headers);
	const clean = (value: string | undefined) => {
		const v = value?.trim();
		return v && v.length <= 64 && /^[\x21-\x7e]+$/.test(v) ? v : undefined;
	};
	const github = clean(h['x-ratelimit-resource']);
	if (github !== undefined) return github;
	const discord = clean(h['x-ratelimit-bucket']);
	if (discord === undefined) return undefined;
	const major = DISCORD_MAJOR.exec(path);
	return major ? `${discord}@${majorOf(major[1])}` : discord;
}

/** Zendesk's endpoint headers: `zendesk-ratelimit-tickets-index: total=100; remaining=99; resets=41`. */
const ENDPOINT_QUOTA_HEADER = /^zendesk-ratelimit-([a-z0-9][a-z0-9-]{0,47})$/;

/**
 * An endpoint's own quota, named by its header: Zendesk sends `zendesk-ratelimit-<endpoint>` on the
 * endpoints with a limit of their own (List Tickets: 100 a minute), beside the account's count of
 * the minute (`ratelimit-remaining`, which stays the API's). The endpoint is the bucket. Of several,
 * the one with the fewest requests left.
 */
export function readEndpointQuota(headers: HeaderBag | undefined, nowMs: number): { bucket: string; quota: Quota } | undefined {
	let found: { bucket: string; quota: Quota } | undefined;
	for (const [name, value] of Object.entries(normalizeHeaders(headers))) {
		const endpoint = ENDPOINT_QUOTA_HEADER.exec(name);
		if (!endpoint) continue;
		const remaining = /(?:^|;)\s*remaining=(\d{1,15})\s*(?=;|$)/i.exec(value);
		const resets = /(?:^|;)\s*resets=(\d+(?:\.\d+)?)\s*(?=;|$)/i.exec(value);
		if (!remaining || !resets) continue;
		const quota = { remaining: Number(remaining[1]), resetAt: secondsFrom(nowMs, resets[1]), header: name };
		if (!found || quota.remaining < found.quota.remaining) found = { bucket: endpoint[1], quota };
	}
	return found;
}
