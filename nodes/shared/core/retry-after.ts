/**
 * Reads a server-requested wait from response headers: Retry-After (RFC 9110, seconds or
 * HTTP-date in its three formats), retry-after-ms, and rate-limit headers (X-RateLimit-Retry-After,
 * IETF RateLimit `t=` / `reset=`, RateLimit-Reset, X-RateLimit-Reset as delta or epoch,
 * OpenAI-style durations such as `6m0s` or `20ms`, Zendesk's `…; remaining=0; resets=N`).
 * Pure: the current time is passed in. Waits found in a response body are read by server-signals.ts.
 */
export type HeaderBag = Record<string, unknown>;

export interface ServerDelay {
	delayMs: number;
	/** The header the wait came from, lower-cased. */
	header: string;
	kind: 'retry-after' | 'rate-limit-reset';
	/** The end is the node's guess, not the server's word (a daily limit without a reset time): probed, not trusted. */
	inferred?: true;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Epoch seconds from here on are dates, not deltas (no API asks for a 31-year wait). */
const EPOCH_SECONDS_THRESHOLD = 1e9;
const EPOCH_MILLIS_THRESHOLD = 1e12;

function clampDelay(ms: number): number {
	if (!Number.isFinite(ms)) return Number.MAX_SAFE_INTEGER;
	return Math.min(Math.max(0, Math.ceil(ms)), Number.MAX_SAFE_INTEGER);
}

function utc(year: number, monthName: string, day: number, h: number, m: number, s: number): number | undefined {
	const month = MONTHS.indexOf(monthName.toLowerCase());
	if (month < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
	const t = Date.UTC(year, month, day, h, m, s);
	return Number.isFinite(t) ? t : undefined;
}

/** RFC 9110 section 5.6.7: a two-digit year more than 50 years ahead belongs to the previous century. */
function expandTwoDigitYear(twoDigits: number, nowMs: number): number {
	const nowYear = new Date(nowMs).getUTCFullYear();
	let year = Math.floor(nowYear / 100) * 100 + twoDigits;
	if (year > nowYear + 50) year -= 100;
	return year;
}

/** Parses an HTTP-date in IMF-fixdate, RFC 850 or asctime format; undefined when it is none of them. */
export function parseHttpDate(value: string, nowMs: number): number | undefined {
	const v = value.trim();
	let m = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(v);
	if (m) return utc(+m[3], m[2], +m[1], +m[4], +m[5], +m[6]);
	m = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(v);
	if (m) return utc(expandTwoDigitYear(+m[3], nowMs), m[2], +m[1], +m[4], +m[5], +m[6]);
	m = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(v);
	if (m) return utc(+m[6], m[1], +m[2].trim(), +m[3], +m[4], +m[5]);
	return undefined;
}

/** Retry-After: delay-seconds (decimals tolerated) or an HTTP-date. Returns milliseconds from now. */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
	const v = value.trim();
	if (/^\d+(\.\d+)?$/.test(v)) return clampDelay(parseFloat(v) * 1000);
	const date = parseHttpDate(v, nowMs);
	return date === undefined ? undefined : clampDelay(date - nowMs);
}

/**
 * Go-style durations as sent by LLM APIs: `6m0s`, `20ms`, `1h2m3.5s`, `0.5s`.
 * A bare number is not accepted here: its unit is ambiguous.
 */
export function parseDuration(value: string): number | undefined {
	const v = value.trim();
	if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(v)) return undefined;
	const factors: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
	let total = 0;
	for (const part of v.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) {
		total += parseFloat(part[1]) * factors[part[2]];
	}
	return clampDelay(total);
}

/**
 * A reset value: a delta in seconds, an epoch in seconds or milliseconds (told apart by size),
 * a duration string, or a date (RFC 3339 or HTTP-date). Returns milliseconds from now.
 */
export function parseResetValue(value: string, nowMs: number): number | undefined {
	const v = value.trim();
	if (/^\d+(\.\d+)?$/.test(v)) {
		const n = parseFloat(v);
		if (n >= EPOCH_MILLIS_THRESHOLD) return clampDelay(n - nowMs);
		if (n >= EPOCH_SECONDS_THRESHOLD) return clampDelay(n * 1000 - nowMs);
		return clampDelay(n * 1000);
	}
	const duration = parseDuration(v);
	if (duration !== undefined) return duration;
	if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v)) {
		const t = Date.parse(v);
		return Number.isFinite(t) ? clampDelay(t - nowMs) : undefined;
	}
	const date = parseHttpDate(v, nowMs);
	return date === undefined ? undefined : clampDelay(date - nowMs);
}

/**
 * IETF RateLimit header. Draft 08+: `"default";r=0;t=30` (several policies comma-separated);
 * earlier drafts: `limit=10, remaining=0, reset=5`. Returns the longest wait of the exhausted
 * policies, or of all of them when none says it is exhausted.
 */
export function parseRateLimitHeader(value: string): number | undefined {
	const waits: Array<{ ms: number; exhausted: boolean }> = [];
	// a number must end where the parameter ends: `t=1e400` is no `t=1`
	const legacy = /(?:^|[,;\s])reset=(\d+(?:\.\d+)?)(?=\s*(?:[,;]|$))/i.exec(value);
	if (legacy) {
		const remaining = /(?:^|[,;\s])remaining=(\d+)/i.exec(value);
		// Quota left: the header describes the window, it does not ask us to wait.
		if (remaining && remaining[1] !== '0') return undefined;
		return clampDelay(parseFloat(legacy[1]) * 1000);
	}
	for (const policy of value.split(',')) {
		const t = /;\s*t=(\d+(?:\.\d+)?)(?=\s*(?:;|$))/i.exec(policy);
		if (!t) continue;
		const r = /;\s*r=(\d+)/i.exec(policy);
		waits.push({ ms: clampDelay(parseFloat(t[1]) * 1000), exhausted: r !== null && r[1] === '0' });
	}
	if (waits.length === 0) return undefined;
	const exhausted = waits.filter((w) => w.exhausted);
	return Math.max(...(exhausted.length > 0 ? exhausted : waits).map((w) => w.ms));
}

/**
 * Each answer's headers are read by several readers (the server's wait, the quota, the bucket, the
 * endpoint's quota): the lower-cased copy is made once per header object and shared. Readers must
 * not change it; nobody changes an answer's headers once it has arrived.
 */
const normalized = new WeakMap<HeaderBag, Readonly<Record<string, string>>>();

/** Lower-cases header names and keeps the first value of repeated headers (a shared, read-only copy). */
export function normalizeHeaders(headers: HeaderBag | undefined): Readonly<Record<string, string>> {
	if (headers === undefined) return {};
	const known = normalized.get(headers);
	if (known !== undefined) return known;
	const out: Record<string, string> = {};
	for (const [name, raw] of Object.entries(headers)) {
		const value = Array.isArray(raw) ? raw[0] : raw;
		if (value === undefined || value === null) continue;
		out[name.toLowerCase()] = String(value);
	}
	normalized.set(headers, out);
	return out;
}

/**
 * Every value of one header, whatever the case of its name: repeated headers arrive as an array,
 * or as several keys of different case in a hand-built header object.
 */
export function headerValues(headers: HeaderBag | undefined, lowerName: string): string[] {
	const values: string[] = [];
	for (const [name, raw] of Object.entries(headers ?? {})) {
		if (name.toLowerCase() !== lowerName) continue;
		for (const value of Array.isArray(raw) ? raw : [raw]) if (value !== undefined && value !== null) values.push(String(value));
	}
	return values;
}

/** A folded list of delay-seconds (`1, 5`): what a proxy makes of repeated Retry-After lines. */
const SECONDS_LIST = /^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)+\s*$/;

/**
 * The longest of several Retry-After values (RFC 9110 allows one; a server or proxy that sends more
 * is served best by the wait that satisfies all of them). Unparseable values are skipped.
 */
export function longestRetryAfter(values: string[], nowMs: number): number | undefined {
	const waits = values
		.flatMap((value) => (SECONDS_LIST.test(value) ? value.split(',') : [value]))
		.map((value) => parseRetryAfter(value, nowMs))
		.filter((ms): ms is number => ms !== undefined);
	return waits.length === 0 ? undefined : Math.max(...waits);
}

function longestMillis(values: string[]): number | undefined {
	const waits = values.filter((v) => /^\d+(\.\d+)?$/.test(v.trim())).map((v) => clampDelay(parseFloat(v)));
	return waits.length === 0 ? undefined : Math.max(...waits);
}

export interface ServerDelayOptions {
	/** Read rate-limit reset headers as well as Retry-After. */
	readRateLimitHeaders: boolean;
	/** The response status: reset headers only count on a 429 or when a remaining counter is 0. */
	status?: number;
}

const RESET_HEADERS = ['ratelimit-reset', 'x-ratelimit-reset', 'x-rate-limit-reset'];

/**
 * Zendesk's per-endpoint limits: `zendesk-ratelimit-tickets-index: total=100; remaining=0; resets=41`
 * (seconds). Only an exhausted one asks for a wait; the longest of those counts.
 */
function endpointResets(h: Record<string, string>): ServerDelay | undefined {
	let longest: ServerDelay | undefined;
	for (const [name, value] of Object.entries(h)) {
		if (!name.includes('ratelimit')) continue;
		const resets = /(?:^|[;,\s])resets=(\d+(?:\.\d+)?)(?=\s*(?:[;,]|$))/i.exec(value);
		if (!resets || !/(?:^|[;,\s])remaining=0(?![\d.])/i.test(value)) continue;
		const delayMs = clampDelay(parseFloat(resets[1]) * 1000);
		if (!longest || delayMs > longest.delayMs) longest = { delayMs, header: name, kind: 'rate-limit-reset' };
	}
	return longest;
}

/** A header's count (a whole number), or undefined when it holds none. */
export function headerCount(value: string | undefined): number | undefined {
	return value !== undefined && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : undefined;
}

/**
 * OpenAI-style pairs: x-ratelimit-reset-requests with x-ratelimit-remaining-requests, and so on.
 * The reset of a counter at 0 (the longest, when several are); with none at 0 (a request larger
 * than what is left: 5,000 tokens asked, 2,000 left), the reset of the counter with the smallest
 * share of its limit left, the one the request did not fit. Taking the longest there waited for
 * the request budget's reset (a minute) after a 429 for tokens, and paused the API for it: 4 of 200
 * items of the real-n8n LLM benchmark left on the error output. Without limits to compare: the
 * longest.
 */
function suffixedResets(h: Record<string, string>, nowMs: number): ServerDelay | undefined {
	const candidates: Array<ServerDelay & { exhausted: boolean; share?: number }> = [];
	for (const [name, value] of Object.entries(h)) {
		const m = /^(x-ratelimit|anthropic-ratelimit-[a-z-]+?)-reset(-[a-z-]+)?$/.exec(name);
		if (!m || (m[2] === undefined && !name.startsWith('anthropic-'))) continue;
		const ms = parseResetValue(value, nowMs);
		if (ms === undefined) continue;
		const remaining = headerCount(h[name.replace(/-reset/, '-remaining')]);
		const limit = headerCount(h[name.replace(/-reset/, '-limit')]);
		const share = remaining !== undefined && limit !== undefined && limit > 0 ? remaining / limit : undefined;
		candidates.push({ delayMs: ms, header: name, kind: 'rate-limit-reset', exhausted: remaining === 0, ...(share !== undefined ? { share } : {}) });
	}
	if (candidates.length === 0) return undefined;
	const longest = (pool: typeof candidates) => pool.reduce((a, b) => (b.delayMs > a.delayMs ? b : a));
	const exhausted = candidates.filter((c) => c.exhausted);
	const shared = candidates.filter((c) => c.share !== undefined);
	const smallestShare = Math.min(...shared.map((c) => c.share!));
	const chosen = exhausted.length > 0 ? longest(exhausted) : shared.length > 0 ? longest(shared.filter((c) => c.share === smallestShare)) : longest(candidates);
	return { delayMs: chosen.delayMs, header: chosen.header, kind: chosen.kind };
}

/**
 * The wait a server asked for, if any. Retry-After wins over reset headers: it is the explicit
 * instruction; reset headers are read only on a 429 or when a remaining counter is at 0, since on
 * other responses they describe a quota, not a request to wait.
 */
export function serverRequestedDelay(headers: HeaderBag | undefined, nowMs: number, options: ServerDelayOptions): ServerDelay | undefined {
	const h = normalizeHeaders(headers);
	// retry-after-ms (OpenAI, Anthropic) and Azure's x-ms-retry-after-ms are the same instruction as
	// Retry-After, only more precise: read first, in that order, as Azure's SDKs read them
	for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
		const millis = longestMillis(headerValues(headers, name));
		if (millis !== undefined) return { delayMs: millis, header: name, kind: 'retry-after' };
	}
	const retryAfter = longestRetryAfter(headerValues(headers, 'retry-after'), nowMs);
	if (retryAfter !== undefined) return { delayMs: retryAfter, header: 'retry-after', kind: 'retry-after' };
	if (!options.readRateLimitHeaders) return undefined;
	// Symfony's rate limiter (and others, ky reads it): the same instruction as Retry-After, under another name
	const rateLimitRetryAfter = longestRetryAfter(headerValues(headers, 'x-ratelimit-retry-after'), nowMs);
	if (rateLimitRetryAfter !== undefined) return { delayMs: rateLimitRetryAfter, header: 'x-ratelimit-retry-after', kind: 'retry-after' };
	if (options.status !== 429 && rateLimitSpent(h) === undefined) return undefined;
	if (h['ratelimit'] !== undefined) {
		const ms = parseRateLimitHeader(h['ratelimit']);
		if (ms !== undefined) return { delayMs: ms, header: 'ratelimit', kind: 'rate-limit-reset' };
	}
	for (const name of RESET_HEADERS) {
		if (h[name] === undefined) continue;
		const ms = parseResetValue(h[name], nowMs);
		if (ms !== undefined) return { delayMs: ms, header: name, kind: 'rate-limit-reset' };
	}
	return suffixedResets(h, nowMs) ?? endpointResets(h);
}

/** A rate-limit header says the quota is spent: a `*-remaining` counter at 0, `r=0` or `remaining=0`. */
export function rateLimitSpent(headers: HeaderBag | undefined): string | undefined {
	const h = normalizeHeaders(headers);
	if (h['ratelimit'] !== undefined && /(?:^|[,;\s])(?:r|remaining)=0(?![\d.])/i.test(h['ratelimit'])) return `ratelimit: ${h['ratelimit']}`;
	const counter = Object.entries(h).find(([name, value]) => /(^|-)remaining(-|$)/.test(name) && value.trim() === '0');
	if (counter) return `${counter[0]}: 0`;
	const endpoint = endpointResets(h);
	return endpoint ? endpoint.header : undefined;
}
