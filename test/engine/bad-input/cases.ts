/**
 * The bad-input cases of test/engine/bad-input.test.ts. Each row is run through n8n's engine and
 * is a row of the table "Bad input" (docs/testing.md): the result text is built from what the test asserts.
 *
 * Parameter cases put the bad value on one item (`$json.v`, through an expression, so that values
 * the editor cannot type are covered too) between two good items.
 */
import type { IDataObject } from 'n8n-workflow';

export type NodeName = 'Resilient HTTP Request' | 'Backoff Delay';

/** Stands for the local upstream's URL of the item (only the test knows the port). */
export const GOOD_URL = Symbol('good url');

export interface ParameterCase {
	node: NodeName;
	/** What is wrong, for the docs. */
	input: string;
	/** The node's parameters; the bad or good value is read from the item. */
	parameters: IDataObject;
	bad: unknown;
	good: unknown;
	/** The item field holding the value (default `v`). */
	field?: string;
	/** The exact error message; `{item}` is the item's index. */
	error: string;
}

/** A case of one node: (input, parameters, bad, good, error, field?) */
const caseOf =
	(node: NodeName) =>
	(input: string, parameters: IDataObject, bad: unknown, good: unknown, error: string, field?: string): ParameterCase => ({ node, input, parameters, bad, good, error, ...(field ? { field } : {}) });
const http = caseOf('Resilient HTTP Request');
const backoff = caseOf('Backoff Delay');

const V = '={{ $json.v }}';
const headerParameter = (name: string, value: string) => ({ sendHeaders: true, specifyHeaders: 'keypair', headerParameters: { parameters: [{ name, value }] } });
const jsonBody = { method: 'POST', sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: V };
const keyFromExpression = { method: 'POST', idempotencyKeyMode: 'expression', idempotencyKey: V };
const keyFromFields = { method: 'POST', idempotencyKeyMode: 'generate', generatedKeyBasis: 'fields' };
const STATUS_LIST_ERROR = '"abc" is not a status code, a class like 5xx, or a range like 500-504';
const HEADER_NAME_RULE = 'is not a valid HTTP header name: no spaces, control characters, non-ASCII letters or separators such as : ( ) , / " are allowed';

export const PARAMETER_CASES: ParameterCase[] = [
	http('URL empty', { url: V }, '', GOOD_URL, 'URL parameter cannot be empty'),
	http('URL relative (`/orders`)', { url: V }, '/orders', GOOD_URL, 'Invalid URL: /orders. URL must start with "http" or "https".'),
	http('URL without scheme (`api.example.com/x`)', { url: V }, 'api.example.com/x', GOOD_URL, 'Invalid URL: api.example.com/x. URL must start with "http" or "https".'),
	http('URL `file:///etc/passwd`', { url: V }, 'file:///etc/passwd', GOOD_URL, 'Invalid URL: file:///etc/passwd. URL must start with "http" or "https".'),
	http('URL `ftp://example.com/x`', { url: V }, 'ftp://example.com/x', GOOD_URL, 'Invalid URL: ftp://example.com/x. URL must start with "http" or "https".'),
	http('URL an object (expression)', { url: V }, { host: 'example.com' }, GOOD_URL, 'URL parameter must be a string, got object'),
	http('header name with spaces (`X Api Key`)', headerParameter(V, 'k'), 'X Api Key', 'X-Trace', `Parameter "Header Parameters" has an invalid header name: "X Api Key" ${HEADER_NAME_RULE} (item {item})`),
	http('header name with a control character (BEL, U+0007)', headerParameter(V, 'k'), 'X-Id\u0007', 'X-Trace', `Parameter "Header Parameters" has an invalid header name: "X-Id\\u0007" ${HEADER_NAME_RULE} (item {item})`),
	http('header name with a line break, in Headers (JSON)', { sendHeaders: true, specifyHeaders: 'json', jsonHeaders: V }, '{"X-Id\\n": "1"}', '{"X-Trace": "1"}', `Parameter "Headers (JSON)" has an invalid header name: "X-Id\\n" ${HEADER_NAME_RULE} (item {item})`),
	http('header value with CR LF (header injection)', headerParameter('X-Note', V), 'a\r\nX-Injected: 1', 'fine', 'Parameter "Header Parameters" has an invalid value for header "X-Note": it contains control characters (a line break, for example), which a header value cannot carry (item {item})'),
	http('Headers (JSON) with an object as a value', { sendHeaders: true, specifyHeaders: 'json', jsonHeaders: V }, '{"X-Trace": {"id": 1}}', '{"X-Trace": "1"}', 'Parameter "Headers (JSON)" has a value for header "X-Trace" that is an object, not text (item {item})'),
	http('Headers (JSON) malformed', { sendHeaders: true, specifyHeaders: 'json', jsonHeaders: V }, '{"X-Trace": }', '{"X-Trace": "1"}', 'The value in the "JSON Headers" field is not valid JSON'),
	http('Query Parameters (JSON) an array', { sendQuery: true, specifyQuery: 'json', jsonQuery: V }, '[1, 2]', '{"page": 1}', 'Parameter "Query Parameters (JSON)" must be a JSON object, got an array (item {item})'),
	http('JSON body malformed (`{"amount": 5,}`)', jsonBody, '{"amount": 5,}', '{"amount": 5}', 'The value in the "JSON Body" field is not valid JSON'),
	http('Max Attempts 0', { maxAttempts: V }, 0, 3, 'Parameter "Max Attempts" must be at least 1, got 0 (item {item})'),
	http('Max Attempts -1', { maxAttempts: V }, -1, 3, 'Parameter "Max Attempts" must be at least 1, got -1 (item {item})'),
	http('Max Attempts 2.5', { maxAttempts: V }, 2.5, 3, 'Parameter "Max Attempts" must be a whole number, got 2.5 (item {item})'),
	http('Max Attempts `"three"`', { maxAttempts: V }, 'three', 3, 'Parameter "Max Attempts" must be a number, got "three" (item {item})'),
	http('Max Attempts 1e9', { maxAttempts: V }, 1e9, 3, 'Parameter "Max Attempts" must be at most 100, got 1000000000 (item {item})'),
	http('Max Attempts 1000000', { maxAttempts: V }, 1_000_000, 3, 'Parameter "Max Attempts" must be at most 100, got 1000000 (item {item})'),
	http('Attempt Timeout -1', { retryOptions: { attemptTimeout: V } }, -1, 5000, 'Parameter "Attempt Timeout (Ms)" must be at least 0, got -1 (item {item})'),
	http('Attempt Timeout above a day (`90000000`)', { retryOptions: { attemptTimeout: V } }, 90_000_000, 5000, 'Parameter "Attempt Timeout (Ms)" must be at most 86400000, got 90000000 (item {item})'),
	http('Max Attempts `{{ 1 / $json.v }}` with v = 0 (Infinity)', { maxAttempts: '={{ 1 / $json.v }}' }, 0, 1, 'Parameter "Max Attempts" must be a number, got Infinity (item {item})'),
	http('Base Delay 60000 above Max Delay 30000', { retryOptions: { baseDelay: V, maxDelay: 30_000 } }, 60_000, 100, 'Parameter "Base Delay (Ms)" must not be more than Max Delay (Ms) (30000), got 60000 (item {item})'),
	http('Base Delay -5', { retryOptions: { baseDelay: V } }, -5, 100, 'Parameter "Base Delay (Ms)" must be at least 0, got -5 (item {item})'),
	http('Max Delay -1', { retryOptions: { maxDelay: V, baseDelay: 0 } }, -1, 100, 'Parameter "Max Delay (Ms)" must be at least 0, got -1 (item {item})'),
	http('Total Deadline -1000 (a deadline in the past)', { retryOptions: { totalDeadline: V } }, -1000, 5000, 'Parameter "Total Deadline (Ms)" must be at least 0, got -1000 (item {item})'),
	http('Attempt Timeout `"soon"`', { retryOptions: { attemptTimeout: V } }, 'soon', 5000, 'Parameter "Attempt Timeout (Ms)" must be a number, got "soon" (item {item})'),
	http('Retry On Status Codes `5xx, abc, 99`', { retryOnStatusCodes: V }, '5xx, abc, 99', '5xx', `Parameter "Retry On Status Codes" is invalid: ${STATUS_LIST_ERROR} (item {item})`),
	http('Retry On Status Codes `99`', { retryOnStatusCodes: V }, '429, 99', '5xx', 'Parameter "Retry On Status Codes" is invalid: "99" is not a status code, a class like 5xx, or a range like 500-504 (item {item})'),
	http('Jitter `random`', { retryOptions: { jitter: V } }, 'random', 'none', 'Parameter "Jitter" must be one of full, equal, decorrelated, none, got "random" (item {item})'),
	http('Max Redirects `"many"`', { options: { redirect: { redirect: { maxRedirects: V } } } }, 'many', 5, 'Parameter "Max Redirects" must be a number, got "many" (item {item})'),
	http('Max Redirects -1', { options: { redirect: { redirect: { maxRedirects: V } } } }, -1, 5, 'Parameter "Max Redirects" must be at least 0, got -1 (item {item})'),
	http('Max Redirects 2.5', { options: { redirect: { redirect: { maxRedirects: V } } } }, 2.5, 5, 'Parameter "Max Redirects" must be a whole number, got 2.5 (item {item})'),
	http('idempotency key empty', keyFromExpression, '', 'order-1', 'Parameter "Key" (the idempotency key) is empty (item {item})'),
	http('idempotency key an object', keyFromExpression, { order: 1 }, 'order-1', 'Parameter "Key" (the idempotency key) must be text, got object (item {item})'),
	http('idempotency key of 256 characters', keyFromExpression, 'k'.repeat(256), 'order-1', 'Parameter "Key" (the idempotency key) is 256 characters long; at most 255 are allowed (item {item})'),
	http('idempotency key with a newline', keyFromExpression, 'order-1\nX-Evil: 1', 'order-1', 'Parameter "Key" (the idempotency key) contains control characters (item {item})'),
	http('Obey Server Retry Hints `"yes"`', { retryOptions: { obeyServerHints: V } }, 'yes', true, 'Parameter "Obey Server Retry Hints" must be true or false, got "yes" (item {item})'),
	http('Obey Server Retry Hints `1`', { retryOptions: { obeyServerHints: V } }, 1, false, 'Parameter "Obey Server Retry Hints" must be true or false, got 1 (item {item})'),
	http('Fields to Hash empty (Key Based On: Selected Fields)', { ...keyFromFields, keyFields: V }, '', 'id', 'Parameter "Fields to Hash" is empty: list the fields that identify the request, separated by commas (item {item})'),
	http('Fields to Hash naming a field the item lacks', { ...keyFromFields, keyFields: 'id, orderId' }, undefined, 'o-1', 'Parameter "Fields to Hash" names "orderId", which is missing from the item (item {item})', 'orderId'),
	http('Fields to Hash naming a field that is null on the item', { ...keyFromFields, keyFields: 'id, orderId' }, null, 'o-1', 'Parameter "Fields to Hash" names "orderId", which is empty on the item (item {item})', 'orderId'),
	http('Header Name for Idempotency Key `Idempotency Key`', { ...keyFromExpression, idempotencyKey: 'order-1', retryOptions: { idempotencyHeaderName: V } }, 'Idempotency Key', 'Idempotency-Key', `Parameter "Header Name for Idempotency Key" is invalid: "Idempotency Key" ${HEADER_NAME_RULE} (item {item})`),

	backoff('attempt field holding text (`_backoff.attempt: "three"`)', {}, { attempt: 'three' }, undefined, 'Field "_backoff" of item {item} has attempt "three", which is not an attempt number (a whole number of 1 or more)', '_backoff'),
	backoff('attempt field 0', {}, { attempt: 0 }, undefined, 'Field "_backoff" of item {item} has attempt 0, which is not an attempt number (a whole number of 1 or more)', '_backoff'),
	backoff('attempt field not an object (`_backoff: "x"`)', {}, 'x', undefined, 'Field "_backoff" of item {item} holds "x", not the node\'s state object', '_backoff'),
	backoff('Max Attempts 0', { maxAttempts: V }, 0, 3, 'Parameter "Max Attempts" must be at least 1, got 0 (item {item})'),
	backoff('Max Attempts -1', { maxAttempts: V }, -1, 3, 'Parameter "Max Attempts" must be at least 1, got -1 (item {item})'),
	backoff('Max Attempts 1000000', { maxAttempts: V }, 1_000_000, 3, 'Parameter "Max Attempts" must be at most 100, got 1000000 (item {item})'),
	backoff('Max Attempts `"five"`', { maxAttempts: V }, 'five', 3, 'Parameter "Max Attempts" must be a number, got "five" (item {item})'),
	backoff('Base Delay 60000 above Max Delay 30000', { options: { baseDelay: V, maxDelay: 30_000 } }, 60_000, 100, 'Parameter "Base Delay (Ms)" must not be more than Max Delay (Ms) (30000), got 60000 (item {item})'),
	backoff('Base Delay -1', { options: { baseDelay: V } }, -1, 100, 'Parameter "Base Delay (Ms)" must be at least 0, got -1 (item {item})'),
	backoff('Max Delay `"soon"`', { options: { maxDelay: V } }, 'soon', 30_000, 'Parameter "Max Delay (Ms)" must be a number, got "soon" (item {item})'),
	backoff('Total Deadline -1 (a deadline in the past)', { options: { totalDeadline: V } }, -1, 60_000, 'Parameter "Total Deadline (Ms)" must be at least 0, got -1 (item {item})'),
	backoff('Server-Requested Wait `-1`', { options: { serverWait: V } }, '-1', '100', 'Parameter "Server-Requested Wait" must be milliseconds, a Retry-After value or a date, got "-1" (item {item})'),
	backoff('Server-Requested Wait `abc`', { options: { serverWait: V } }, 'abc', '100', 'Parameter "Server-Requested Wait" must be milliseconds, a Retry-After value or a date, got "abc" (item {item})'),
	backoff('Server-Requested Wait -5 (number)', { options: { serverWait: V } }, -5, 100, 'Parameter "Server-Requested Wait" must be a number of milliseconds of 0 or more, got -5 (item {item})'),
	backoff('Obey Server Retry Hints `"yes"`', { options: { obeyServerHints: V } }, 'yes', true, 'Parameter "Obey Server Retry Hints" must be true or false, got "yes" (item {item})'),
	backoff('Backoff Field empty', { options: { stateField: V } }, ' ', '_backoff', 'Parameter "Backoff Field" must not be empty: the node keeps the attempt number there (item {item})'),
];

/** What a server-side case must come to. */
export type ServerOutcome =
	/** The value is ignored: the plain backoff wait (100 ms in these cases). */
	| { kind: 'backoff' }
	/** Obeyed: the retry does not go out before the instant the server named. */
	| { kind: 'obeyed'; header: string }
	/** Too long: no wait, the item is handed on with the server's wait (error output / Give up). */
	| { kind: 'too-long' }
	/** Final: the status (or the server's own word) says no retry; one request, no wait. */
	| { kind: 'final' };

export interface ServerCase {
	node: NodeName;
	input: string;
	status: number;
	/** Headers of the first response, built at the moment it is sent (dates are relative to it). */
	headers: (nowMs: number) => Record<string, string | string[]>;
	/** The first response's body (objects are sent as JSON). */
	body?: string | object;
	outcome: ServerOutcome;
	/** For `obeyed`: the instant asked for, from the headers and the moment they were sent. */
	askedAt?: (nowMs: number) => number;
}

const retryAfter = (node: NodeName, input: string, value: string | string[] | ((nowMs: number) => string), outcome: ServerOutcome, askedAt?: (nowMs: number) => number): ServerCase => ({
	node,
	input,
	status: 503,
	headers: (nowMs) => ({ 'retry-after': typeof value === 'function' ? value(nowMs) : value }),
	outcome,
	...(askedAt ? { askedAt } : {}),
});

const BACKOFF: ServerOutcome = { kind: 'backoff' };
const TOO_LONG: ServerOutcome = { kind: 'too-long' };
const OBEYED: ServerOutcome = { kind: 'obeyed', header: 'retry-after' };
const FINAL: ServerOutcome = { kind: 'final' };
/** A server-side case: `status` answered first with `headers` and `body`. */
const answer = (node: NodeName, input: string, status: number, headers: Record<string, string | string[]>, outcome: ServerOutcome, extra: Partial<ServerCase> = {}): ServerCase => ({
	node,
	input,
	status,
	headers: () => headers,
	outcome,
	...extra,
});
const FOUR_HUNDRED_DIGITS = '9'.repeat(400);
/** An HTTP-date `s` seconds after `nowMs`, rounded up to a whole second (HTTP-dates have no milliseconds). */
const httpDateIn = (nowMs: number, s: number) => new Date(Math.ceil(nowMs / 1000) * 1000 + s * 1000).toUTCString();
const R = 'Resilient HTTP Request';
const B = 'Backoff Delay';

export const SERVER_CASES: ServerCase[] = [
	retryAfter(R, 'Retry-After `-1`', '-1', BACKOFF),
	retryAfter(R, 'Retry-After `abc`', 'abc', BACKOFF),
	retryAfter(R, 'Retry-After `1e309`', '1e309', BACKOFF),
	retryAfter(R, 'Retry-After `Infinity`', 'Infinity', BACKOFF),
	retryAfter(R, 'Retry-After `NaN`', 'NaN', BACKOFF),
	retryAfter(R, 'Retry-After empty', '', BACKOFF),
	retryAfter(R, 'Retry-After a date in 1970', 'Thu, 01 Jan 1970 00:00:00 GMT', BACKOFF),
	retryAfter(R, 'Retry-After a date in year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT', TOO_LONG),
	retryAfter(R, 'Retry-After of 400 digits', '9'.repeat(400), TOO_LONG),
	retryAfter(R, 'Retry-After `Feb 30` (impossible date)', 'Mon, 30 Feb 2026 10:00:00 GMT', BACKOFF),
	retryAfter(R, 'Retry-After `2`', '2', OBEYED, (now) => now + 2000),
	retryAfter(R, 'Retry-After `1.5` (decimal)', '1.5', OBEYED, (now) => now + 1500),
	retryAfter(R, 'Retry-After an HTTP-date 3 s ahead', (now) => httpDateIn(now, 3), OBEYED, (now) => Date.parse(httpDateIn(now, 3))),
	retryAfter(R, 'two Retry-After lines (`1`, `3`): Node keeps the first', ['1', '3'], OBEYED, (now) => now + 1000),
	retryAfter(R, 'Retry-After folded `1, 3`: the longest counts', '1, 3', OBEYED, (now) => now + 3000),
	{ node: R, input: '`retry-after-ms: -100`', status: 503, headers: () => ({ 'retry-after-ms': '-100' }), outcome: BACKOFF },
	{ node: R, input: '429 with `X-RateLimit-Reset: -5`', status: 429, headers: () => ({ 'x-ratelimit-reset': '-5' }), outcome: BACKOFF },
	{ node: R, input: '429 with `RateLimit-Reset: abc`', status: 429, headers: () => ({ 'ratelimit-reset': 'abc' }), outcome: BACKOFF },
	{ node: R, input: '429 with `RateLimit: "default";r=0;t=1e400`', status: 429, headers: () => ({ ratelimit: '"default";r=0;t=1e400' }), outcome: BACKOFF },
	answer(R, '`x-should-retry` empty (503)', 503, { 'x-should-retry': '' }, BACKOFF),
	answer(R, '`x-should-retry: yes` (503): no hint, the status list', 503, { 'x-should-retry': 'yes' }, BACKOFF),
	answer(R, '`x-should-retry: 1` (400): no hint, the status list', 400, { 'x-should-retry': '1' }, FINAL),
	answer(R, '`x-should-retry: true` with `Stripe-Should-Retry: false` (503): both hints, "no" wins', 503, { 'x-should-retry': 'true', 'stripe-should-retry': 'false' }, FINAL),
	answer(R, 'two `x-should-retry` lines (`true`, `false`): Node folds them into `true, false`, no hint', 503, { 'x-should-retry': ['true', 'false'] }, BACKOFF),
	answer(R, '`Stripe-Should-Retry: false ` with a trailing space (500)', 500, { 'stripe-should-retry': 'false ' }, FINAL),
	answer(R, '429 with `X-RateLimit-Retry-After: -1`', 429, { 'x-ratelimit-retry-after': '-1' }, BACKOFF),
	answer(R, '429 with `X-RateLimit-Retry-After: abc`', 429, { 'x-ratelimit-retry-after': 'abc' }, BACKOFF),
	answer(R, '429 with `X-RateLimit-Retry-After` empty', 429, { 'x-ratelimit-retry-after': '' }, BACKOFF),
	answer(R, '429 with `X-RateLimit-Retry-After` of 400 digits', 429, { 'x-ratelimit-retry-after': FOUR_HUNDRED_DIGITS }, TOO_LONG),
	{ node: R, input: '429 with `X-RateLimit-Retry-After: 2`', status: 429, headers: () => ({ 'x-ratelimit-retry-after': '2' }), outcome: { kind: 'obeyed', header: 'x-ratelimit-retry-after' }, askedAt: (now) => now + 2000 },
	answer(R, '429 with `zendesk-ratelimit-tickets-index: total=100; remaining=0; resets=-1`', 429, { 'zendesk-ratelimit-tickets-index': 'total=100; remaining=0; resets=-1' }, BACKOFF),
	answer(R, '429 with `zendesk-ratelimit-tickets-index: …; remaining=0; resets=abc`', 429, { 'zendesk-ratelimit-tickets-index': 'total=100; remaining=0; resets=abc' }, BACKOFF),
	answer(R, '429 with `zendesk-ratelimit-tickets-index: …; remaining=0; resets=` of 400 digits', 429, { 'zendesk-ratelimit-tickets-index': `total=100; remaining=0; resets=${FOUR_HUNDRED_DIGITS}` }, TOO_LONG),
	answer(R, '429 with a JSON body `retry_after: -1`', 429, {}, BACKOFF, { body: { retry_after: -1 } }),
	answer(R, '429 with a JSON body `retry_after: "abc"`', 429, {}, BACKOFF, { body: { retry_after: 'abc' } }),
	answer(R, '429 with a JSON body `retry_after: null`', 429, {}, BACKOFF, { body: { retry_after: null } }),
	answer(R, '429 with a JSON body `retry_after: 1e308`', 429, {}, TOO_LONG, { body: { retry_after: 1e308 } }),
	answer(R, '429 with a JSON body `parameters.retry_after: "soon"`', 429, {}, BACKOFF, { body: { parameters: { retry_after: 'soon' } } }),
	answer(R, '429 with a text body `retry_after: 5` (not JSON)', 429, { 'content-type': 'text/plain' }, BACKOFF, { body: 'retry_after: 5' }),
	{ node: R, input: '429 with a JSON body `retry_after: 2`', status: 429, headers: () => ({}), body: { retry_after: 2 }, outcome: { kind: 'obeyed', header: 'body.retry_after' }, askedAt: (now) => now + 2000 },
	answer(R, '403 with `x-ratelimit-remaining: abc`: no rate-limit evidence', 403, { 'x-ratelimit-remaining': 'abc', 'x-ratelimit-reset': '1' }, FINAL),
	answer(R, '403 with `retry-after: abc`: no rate-limit evidence', 403, { 'retry-after': 'abc' }, FINAL),
	answer(R, '413 with `Retry-After: -1`: no wait, so final', 413, { 'retry-after': '-1' }, FINAL),
	retryAfter(B, 'Retry-After `-1` (full response)', '-1', BACKOFF),
	retryAfter(B, 'Retry-After `abc` (full response)', 'abc', BACKOFF),
	retryAfter(B, 'Retry-After `Infinity` (full response)', 'Infinity', BACKOFF),
	retryAfter(B, 'Retry-After a date in 1970 (full response)', 'Thu, 01 Jan 1970 00:00:00 GMT', BACKOFF),
	retryAfter(B, 'Retry-After a date in year 9999 (full response)', 'Fri, 31 Dec 9999 23:59:59 GMT', TOO_LONG),
	retryAfter(B, 'Retry-After `2` (full response)', '2', OBEYED, (now) => now + 2000),
	answer(B, '`x-should-retry: maybe` (503, full response): no hint', 503, { 'x-should-retry': 'maybe' }, BACKOFF),
	answer(B, '`x-should-retry: false` (503, full response)', 503, { 'x-should-retry': 'false' }, FINAL),
	answer(B, 'a JSON body `retry_after: -1` (429, full response)', 429, {}, BACKOFF, { body: { retry_after: -1 } }),
	answer(B, 'a JSON body `retry_after: 1e308` (429, full response)', 429, {}, TOO_LONG, { body: { retry_after: 1e308 } }),
	{ node: B, input: 'a JSON body `retry_after: 2` (429, full response)', status: 429, headers: () => ({}), body: { retry_after: 2 }, outcome: { kind: 'obeyed', header: 'body.retry_after' }, askedAt: (now) => now + 2000 },
];
