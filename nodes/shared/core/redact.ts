/**
 * Removes secrets from what the node writes about a failure: the retry story, error messages and
 * descriptions, the error output and logs. Two nets, because neither alone is enough:
 * - known secret values (credential fields, auth headers and query parameters of the request) are
 *   replaced wherever they appear, also inside messages of errors thrown by n8n's helpers or axios,
 *   in the forms they take on the wire (URL-encoded, form-encoded, JSON-escaped, Basic's base64);
 * - patterns hide what no value list can know: the userinfo of any URL, query parameters with
 *   auth-like names, `Authorization: ...`-style header texts and `Bearer <token>` wherever it is
 *   quoted (e.g. an OAuth2 token fetched during the request).
 * Pure: knows nothing of n8n.
 */

export const REDACTED = '[redacted]';

/** Headers that carry credentials in any request or response: redacted, and never sent to another origin. */
export const SENSITIVE_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token', 'x-access-token'];

/** Query parameters that usually carry credentials (compared case-insensitively). */
const SENSITIVE_QUERY_PARAMETERS: readonly string[] = [
	'api_key',
	'apikey',
	'api-key',
	'access_token',
	'refresh_token',
	'id_token',
	'token',
	'key',
	'signature',
	'sig',
	'password',
	'passwd',
	'pwd',
	'secret',
	'client_secret',
	'auth',
];

/**
 * Shorter values are not searched for: a password "abc" or "7" would turn ordinary words and
 * numbers of every message into "[redacted]". The patterns still hide them in URLs and headers.
 */
export const MIN_SECRET_LENGTH = 4;

interface RedactionSources {
	/** Secret values as the user entered them. */
	secrets?: Iterable<string | undefined>;
	/** Header names that carry a secret here, e.g. a Header Auth credential's name. */
	headerNames?: Iterable<string>;
	/** Query parameter names that carry a secret here, e.g. a Query Auth credential's name. */
	queryNames?: Iterable<string>;
}

export interface Redactor {
	text(text: string): string;
	/** A deep copy with every string redacted, and the values of sensitive header-named keys hidden. */
	value<T>(value: T): T;
}

/** The forms a secret takes in URLs, form bodies and JSON texts. */
export function wireForms(secret: string): string[] {
	const forms = new Set([secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), JSON.stringify(secret).slice(1, -1)]);
	return [...forms];
}

/** What a Basic `Authorization` header carries besides the password itself. */
export function basicAuthForms(user: string, password: string): string[] {
	// nothing to hide: the base64 of ":" ("Og==") is no secret
	if (user === '' && password === '') return [];
	return [Buffer.from(`${user}:${password}`, 'utf8').toString('base64')];
}

/** The user and password of a URL (`https://user:password@host`), decoded; undefined when it has none. */
export function urlUserinfo(raw: string): { user: string; password: string } | undefined {
	const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@\s]*)@/i.exec(raw.trim());
	if (!userinfo) return undefined;
	const colon = userinfo[1].indexOf(':');
	const [user, password] = colon < 0 ? [userinfo[1], ''] : [userinfo[1].slice(0, colon), userinfo[1].slice(colon + 1)];
	return { user: safeDecode(user), password: safeDecode(password) };
}

/** The secret values of a URL: its userinfo and the values of auth-like query parameters. */
export function urlSecrets(raw: string, queryNames: Iterable<string> = []): string[] {
	const found: string[] = [];
	const names = new Set([...SENSITIVE_QUERY_PARAMETERS, ...[...queryNames].map((n) => n.toLowerCase())]);
	const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@\s]*)@/i.exec(raw.trim());
	if (userinfo) {
		for (const part of userinfo[1].split(':')) found.push(safeDecode(part));
	}
	for (const [, name, value] of raw.matchAll(/[?&;]([^=&#\s]+)=([^&#\s]*)/g)) {
		if (names.has(safeDecode(name).toLowerCase())) found.push(safeDecode(value.replace(/\+/g, ' ')));
	}
	return found;
}

/** The secret values of request headers: sensitive headers whole, and each cookie's value. */
export function headerSecrets(headers: Record<string, unknown>, headerNames: Iterable<string> = []): string[] {
	const names = new Set([...SENSITIVE_HEADERS, ...[...headerNames].map((n) => n.toLowerCase())]);
	const found: string[] = [];
	for (const [name, raw] of Object.entries(headers)) {
		if (!names.has(name.toLowerCase())) continue;
		for (const value of ([] as unknown[]).concat(raw).map(String)) {
			found.push(value);
			// "Bearer abc" / "Basic abc": the token alone too
			const scheme = /^\s*[A-Za-z-]+\s+(\S+)\s*$/.exec(value);
			if (scheme) found.push(scheme[1]);
			if (['cookie', 'set-cookie'].includes(name.toLowerCase())) {
				for (const pair of value.split(';')) {
					const eq = pair.indexOf('=');
					if (eq > 0) found.push(pair.slice(eq + 1).trim());
				}
			}
		}
	}
	return found;
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function createRedactor(sources: RedactionSources = {}): Redactor {
	const values = new Set<string>();
	for (const secret of sources.secrets ?? []) {
		if (typeof secret !== 'string' || secret.trim().length < MIN_SECRET_LENGTH) continue;
		for (const form of wireForms(secret)) values.add(form);
		if (secret !== secret.trim()) for (const form of wireForms(secret.trim())) values.add(form);
	}
	// longest first, so a secret that contains another is replaced whole
	const valuePattern = values.size === 0 ? undefined : new RegExp([...values].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
	const headerNames = new Set([...SENSITIVE_HEADERS, ...[...(sources.headerNames ?? [])].map((n) => n.toLowerCase()).filter((n) => n !== '')]);
	const queryNames = new Set([...SENSITIVE_QUERY_PARAMETERS, ...[...(sources.queryNames ?? [])].map((n) => n.toLowerCase()).filter((n) => n !== '')]);
	const names = (set: Set<string>) => [...set].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
	// scheme://user:password@ -> scheme://[redacted]@; the scheme is bounded: unbounded, a text
	// like "a-a-a-..." takes quadratic time (0.8 s for 50,000 characters)
	const userinfoPattern = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^/?#@\s"'<>]+@/gi;
	// ?api_key=abc -> ?api_key=[redacted]; also URL-encoded names such as access%5Ftoken are rare enough to leave
	const queryPattern = new RegExp(`([?&;](?:${names(queryNames)})=)[^&#\\s"'<>]*`, 'gi');
	// Authorization: Bearer abc / "authorization":"Bearer abc" / cookie=a=b -> name: [redacted]
	// A quoted name needs a quoted value ("authorization":"..." in JSON, 'x-api-key': '...' in
	// inspected objects), so a message such as `header "Authorization": it contains a line break`
	// stays readable; an unquoted name is a header line or an inspected key: up to the line's end.
	const quotedHeaderPattern = new RegExp(`((["'])(?:${names(headerNames)})\\2\\s*[:=]\\s*["'])[^"'\\r\\n]*`, 'gi');
	const bareHeaderPattern = new RegExp(`(^|[^"'\\w-])((?:${names(headerNames)})\\s*[:=]\\s*["']?)[^"'\\r\\n]+`, 'gi');
	// a bearer token quoted without its header's name (a token fetched during the request, which no
	// value list knows): RFC 6750's token characters after the scheme, 8 or more with a digit or a
	// symbol among them, so that words ("the Bearer Auth credential's Bearer Token") stay readable
	const bearerPattern = /\b(Bearer\s+)(?=[A-Za-z0-9\-._~+/]*[0-9\-._~+/])[A-Za-z0-9\-._~+/]{8,}=*/gi;

	const text = (input: string): string => {
		let out = valuePattern ? input.replace(valuePattern, REDACTED) : input;
		out = out.replace(userinfoPattern, `$1${REDACTED}@`);
		out = out.replace(queryPattern, `$1${REDACTED}`);
		out = out.replace(quotedHeaderPattern, `$1${REDACTED}`);
		out = out.replace(bareHeaderPattern, `$1$2${REDACTED}`);
		return out.replace(bearerPattern, `$1${REDACTED}`);
	};

	/** `ancestors`: the objects above this one; an object met twice side by side is copied twice. */
	const walk = (value: unknown, ancestors: Set<object>): unknown => {
		if (typeof value === 'string') return text(value);
		if (value === null || typeof value !== 'object') return value;
		if (Buffer.isBuffer(value) || ArrayBuffer.isView(value) || value instanceof Date) return value;
		if (ancestors.has(value)) return '[circular]';
		ancestors.add(value);
		let copy: unknown;
		if (Array.isArray(value)) {
			copy = value.map((entry) => walk(entry, ancestors));
		} else {
			const fields: Record<string, unknown> = {};
			for (const [key, entry] of Object.entries(value)) {
				fields[key] = headerNames.has(key.toLowerCase()) && entry !== undefined && entry !== null ? REDACTED : walk(entry, ancestors);
			}
			copy = fields;
		}
		ancestors.delete(value);
		return copy;
	};

	return { text, value: <T>(value: T): T => walk(value, new Set()) as T };
}

interface ErrorLike {
	message?: unknown;
	description?: unknown;
	stack?: unknown;
	messages?: unknown;
	cause?: unknown;
}

/**
 * Redacts an error in place: message, description, stack (it repeats the message), n8n's
 * `messages`, and its causes, which n8n serializes (`cause.message`) with the run data.
 */
export function redactError(error: unknown, redactor: Redactor, depth = 0): void {
	if (depth > 5 || typeof error !== 'object' || error === null) return;
	const e = error as ErrorLike;
	for (const key of ['message', 'description', 'stack'] as const) {
		if (typeof e[key] === 'string') {
			try {
				e[key] = redactor.text(e[key]);
			} catch {
				// a read-only property: nothing we could write there either
			}
		}
	}
	if (Array.isArray(e.messages)) e.messages = e.messages.map((m) => (typeof m === 'string' ? redactor.text(m) : m));
	redactError(e.cause, redactor, depth + 1);
}
