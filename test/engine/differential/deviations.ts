/**
 * Known, deliberate differences between Resilient HTTP Request and n8n's HTTP Request, each with its
 * reason. A difference a deviation matches is reported under the deviation's name; any other
 * difference is unexplained. Keep each matcher as narrow as its reason: a deviation that matched
 * more than it explains would hide the differences this suite exists to find.
 */
import type { DiffCase, Difference } from './harness';

export interface Deviation {
	name: string;
	reason: string;
	matches(difference: Difference, c: DiffCase): boolean;
}

const WHOLE_ITEM = /^outputs\[0\]\[\d+\]$/;
const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An item's json apart from the retry story (`_retry`, explained by its own deviation). */
function jsonWithoutStory(item: unknown): Record<string, unknown> | undefined {
	if (!isPlain(item) || !isPlain(item.json)) return undefined;
	const { _retry: _story, ...rest } = item.json;
	return rest;
}

/** Options > Response > Response Format of the case ('autodetect' when not set). */
function responseFormatOf(c: DiffCase): unknown {
	const options = c.parameters.options as { response?: { response?: { responseFormat?: unknown } } } | undefined;
	return options?.response?.response?.responseFormat ?? 'autodetect';
}

/** The node's one item where HTTP Request gave none: the item (its json checked), and the downstream node that ran for it. */
function itemWhereReferenceGaveNone(d: Difference, expected: (json: Record<string, unknown>) => boolean): boolean {
	if (d.path === 'downstream.OK') return d.reference === 0 && d.resilient === 1;
	const json = jsonWithoutStory(d.resilient);
	return WHOLE_ITEM.test(d.path) && d.reference === undefined && json !== undefined && expected(json);
}

/** HTTP Request's failed run where the node succeeded: the status, and the error (by its message). */
function referenceFailedWith(d: Difference, message: string): boolean {
	if (d.path === 'status') return d.reference === 'error' && d.resilient === 'success';
	return (d.path === 'executionError' || d.path === 'nodeError') && d.resilient === undefined && isPlain(d.reference) && d.reference.message === message;
}

/** The names of a key-value parameter list (queryParameters, bodyParameters) of the case. */
function fieldNames(c: DiffCase, parameter: string): string[] {
	const list = (c.parameters[parameter] as { parameters?: Array<{ name?: string }> } | undefined)?.parameters ?? [];
	return list.map((p) => p.name ?? '');
}

const repeatsAName = (names: string[]) => new Set(names).size < names.length;

/** A query string or form body read as HTTP Request 4.0-4.2 collects it: `a[0]`, `a[]` and a repeated `a` collapse to the last value. */
function lastValues(query: string): string {
	const last = new Map<string, string>();
	for (const [name, value] of new URLSearchParams(query)) last.set(name.replace(/\[\d*\]$/, ''), value);
	return JSON.stringify([...last].sort());
}

/** A header of a request after the first (a redirect's hop): its lowercase name. */
function laterHopHeader(path: string): string | undefined {
	return /^requests\[[1-9]\d*\]\.headers\.([^.]+)$/.exec(path)?.[1];
}

const credentialsAskedToFollow = (c: DiffCase) => (c.parameters.options as { sendCredentialsOnCrossOriginRedirect?: boolean } | undefined)?.sendCredentialsOnCrossOriginRedirect === true;

/** The headers (lowercase) the case's credential adds, Authorization aside: Header Auth's name, Custom Auth's headers. */
function credentialHeaderNames(c: DiffCase): string[] {
	const header = c.credentials?.httpHeaderAuth?.name;
	const custom = c.credentials?.httpCustomAuth?.json;
	const customHeaders = typeof custom === 'string' ? Object.keys((JSON.parse(custom) as { headers?: object }).headers ?? {}) : [];
	return [...(typeof header === 'string' ? [header] : []), ...customHeaders].map((h) => h.toLowerCase()).filter((h) => h !== 'authorization');
}

/** The fields Custom Auth adds to a body. */
function credentialBodyFields(c: DiffCase): string[] {
	const custom = c.credentials?.httpCustomAuth?.json;
	return typeof custom === 'string' ? Object.keys((JSON.parse(custom) as { body?: object }).body ?? {}) : [];
}

/** Two JSON bodies that are the same once the reference's credential fields are left out (and the resilient has none of them). */
function sameWithoutFields(reference: unknown, resilient: unknown, fields: string[]): boolean {
	if (typeof reference !== 'string' || typeof resilient !== 'string') return false;
	try {
		const ref = JSON.parse(reference) as Record<string, unknown>;
		const res = JSON.parse(resilient) as Record<string, unknown>;
		if (fields.some((f) => !(f in ref) || f in res)) return false;
		for (const f of fields) delete ref[f];
		return JSON.stringify(ref) === JSON.stringify(res);
	} catch {
		return false;
	}
}

/** Both URLs (or bodies) say the same once repeated names keep their last value. */
function sameWithLastValues(reference: unknown, resilient: unknown, isUrl: boolean): boolean {
	if (typeof reference !== 'string' || typeof resilient !== 'string') return false;
	const split = (s: string) => (isUrl ? [s.split('?')[0], s.split('?')[1] ?? ''] : ['', s]);
	const [refPath, refQuery] = split(reference);
	const [resPath, resQuery] = split(resilient);
	return refPath === resPath && lastValues(refQuery) === lastValues(resQuery);
}

/**
 * The node's headlines (nodes/shared/core/stop-messages.ts, the retry loop's summaries): after
 * retries, a refusal to retry, a stop at the API's traffic controller, or a final 429 or 503.
 */
const NODE_HEADLINE = /^(Page \d+ failed, \d+ pages? fetched before it: )?(Gave up after \d+ attempts?|Stopped after \d+ attempts?: |Not sent: |Not retried: |The server asked to wait |The API is held |The retry budget |Response (429|503) .* is final: )/;

/** HTTP Request's own message (`503 - ""`, its 429 advice), which its description repeats when the body has no words of its own. */
const HTTP_REQUEST_OWN_MESSAGE = /^(\d{3} - .*|Try spacing your requests out using the batching settings under 'Options')$/s;

export const DEVIATIONS: readonly Deviation[] = [
	{
		name: 'repeated-field-names-before-4.3',
		reason:
			'HTTP Request 4.0-4.2 keeps only the last value of a query or Form URL Encoded field whose name is given twice (`?tag=b`); 4.3 and 4.4 send every value (`tag[0]=a&tag[1]=b`, or as Array Format in Query asks). This node has one version and follows 4.4: no value the user entered is dropped. Pinned by resilient-http-features.test.ts ("a query or form field named twice").',
		matches: (d, c) => {
			if (c.typeVersion >= 4.3) return false;
			const inQuery = repeatsAName(fieldNames(c, 'queryParameters'));
			const inForm = c.parameters.contentType === 'form-urlencoded' && repeatsAName(fieldNames(c, 'bodyParameters'));
			if (inQuery && /^(requests\[\d+\]|outputs\[\d+\]\[\d+\]\.json)\.url$/.test(d.path)) return sameWithLastValues(d.reference, d.resilient, true);
			if (!inForm) return false;
			if (/^requests\[\d+\]\.body\.text$/.test(d.path)) return sameWithLastValues(d.reference, d.resilient, false);
			// the body's length follows from the body
			return /^(requests\[\d+\]\.headers\.content-length|outputs\[\d+\]\[\d+\]\.json\.bodyLength)$/.test(d.path);
		},
	},
	{
		name: 'no-credentials-cross-origin-by-default',
		reason:
			"HTTP Request 4.0-4.3 sends the Authorization header (Basic, Bearer, OAuth1's signature) to another origin a redirect leads to, unless Send Credentials on Cross-Origin Redirect is turned off; 4.4 no longer does by default. This node never does unless the option is on, whatever the case's typeVersion: a safer default, as 4.4's. Pinned by authentication.test.ts ('a credential stays on the first origin of a redirect by default').",
		matches: (d, c) => c.typeVersion < 4.4 && !credentialsAskedToFollow(c) && laterHopHeader(d.path) === 'authorization' && d.reference !== undefined && d.resilient === undefined,
	},
	{
		name: 'credential-headers-stay-on-their-origin',
		reason:
			"n8n's redirect handling takes only Authorization (and Cookie) off a request to another origin, and puts Authorization back when allowed: any other header a credential adds (Header Auth's X-Api-Key, Custom Auth's headers) follows a redirect to any origin in every version of HTTP Request, even with Send Credentials on Cross-Origin Redirect off. This node keeps every part of a credential on the first origin unless the option is on. Pinned by authentication.test.ts ('a credential stays on the first origin of a redirect by default').",
		matches: (d, c) => {
			const header = laterHopHeader(d.path);
			return header !== undefined && !credentialsAskedToFollow(c) && credentialHeaderNames(c).includes(header) && d.reference !== undefined && d.resilient === undefined;
		},
	},
	{
		name: 'oauth1-keeps-the-users-headers',
		reason:
			"n8n's OAuth1 helper replaces all of a request's headers with its Authorization header, so HTTP Request with an OAuth1 credential silently drops every header the user set under Send Headers (a bug: an API that needs one of them fails). This node sends them, next to the signature; the Accept header HTTP Request adds by default goes, as in HTTP Request (`*/*` is sent). Pinned by authentication.test.ts ('OAuth1 API (generic)').",
		matches: (d, c) => {
			const header = /^requests\[\d+\]\.headers\.([^.]+)$/.exec(d.path)?.[1];
			const own = fieldNames(c, 'headerParameters').map((h) => h.toLowerCase());
			return c.parameters.genericAuthType === 'oAuth1Api' && header !== undefined && own.includes(header) && d.reference === undefined;
		},
	},
	{
		name: 'no-body-on-get',
		reason:
			"With Send Body on a GET, HTTP Request sends the body (through n8n's deprecated `request` helper). The node sends through n8n's `httpRequest` helper, the one that takes an abort signal (each attempt's timeout and the execution's cancel close the connection), and that helper never sends a body with GET (RFC 9110: content in a GET has no defined meaning; many servers and proxies drop or refuse it). Pinned by resilient-http-features.test.ts ('Send Body on a GET').",
		matches: (d, c) => {
			if ((c.parameters.method ?? 'GET') !== 'GET' || c.parameters.sendBody !== true) return false;
			if (/^requests\[\d+\]\.body\.text$/.test(d.path)) return d.resilient === '';
			return /^(requests\[\d+\]\.headers\.content-length|outputs\[\d+\]\[\d+\]\.json\.bodyLength)$/.test(d.path) && (d.resilient === undefined || d.resilient === 0);
		},
	},
	{
		name: 'users-accept-kept-with-lowercase-headers-off',
		reason:
			"With Lowercase Headers off, HTTP Request looks for its default Accept under the lowercase name only, so a user's `Accept` header is overwritten by the default (a bug: the user's choice is dropped only when they asked to keep header names as typed). The node keeps the user's Accept, whatever the case of its name. Pinned by authentication.test.ts ('Lowercase Headers off: the user's own Accept is sent').",
		matches: (d, c) => {
			if ((c.parameters.options as { lowercaseHeaders?: boolean } | undefined)?.lowercaseHeaders !== false || !/^requests\[\d+\]\.headers\.accept$/.test(d.path)) return false;
			const own = ((c.parameters.headerParameters as { parameters?: Array<{ name?: string; value?: string }> } | undefined)?.parameters ?? []).find((p) => p.name === 'Accept');
			return own !== undefined && d.resilient === `Accept: ${own.value}`;
		},
	},
	{
		name: 'credentials-never-in-errors',
		reason:
			"HTTP Request's error item quotes the request it sent, credential included: `error.options.headers` holds the Authorization, X-Api-Key or Custom Auth header in clear (and `error.options.data` Custom Auth's body fields), on an item that goes on to logs, Data Tables and Slack alerts. This node's error item quotes the request without the credential, whose headers it never puts in an output (a rule of this package, held by security.test.ts).",
		matches: (d, c) => {
			const header = /^outputs\[\d+\]\[\d+\]\.json\.error\.options\.headers\.([^.]+)$/.exec(d.path)?.[1]?.toLowerCase();
			const credentialHeaders = [...credentialHeaderNames(c), ...(c.credentials ? ['authorization'] : [])];
			if (header !== undefined && credentialHeaders.includes(header) && d.reference !== undefined && d.resilient === undefined) return true;
			// Custom Auth's body fields: the quoted body without them (and its length with it)
			const fields = credentialBodyFields(c);
			if (fields.length === 0) return false;
			if (/^outputs\[\d+\]\[\d+\]\.json\.error\.options\.data$/.test(d.path)) return sameWithoutFields(d.reference, d.resilient, fields);
			return header === 'content-length' && Number(d.reference) > Number(d.resilient);
		},
	},
	{
		name: 'parameter-errors-name-the-item',
		reason:
			"A bad URL or pagination setting fails with HTTP Request's message, but HTTP Request's error for these leaves the item out of its context; this node's says which item (`context.itemIndex`, shown by the editor), as every parameter error of this node does: with 1,000 items, the one whose URL expression gave nothing is found at once. Pinned by bad-input.test.ts and resilient-http-features.test.ts ('parameter errors name the parameter and the item').",
		matches: (d) => /^(nodeError|executionError)\.context\.itemIndex$/.test(d.path) && d.reference === undefined && typeof d.resilient === 'number',
	},
	{
		name: 'credential-refused-before-the-request',
		reason:
			"When a credential's Allowed HTTP Request Domains exclude the URL's host, HTTP Request builds the whole request, credential included, and n8n's request helper refuses it: the thrown error quotes that request (`context.request`, with the credential's user and allowed domains, and its secrets replaced by `**hidden**` wherever their text appears, inside other words too). The node refuses the credential while it reads the item, before a request exists: the same error (n8n's, wrapped as HTTP Request wraps it) quotes no request. Pinned by resilient-http-features.test.ts ('a host outside the allowed domains gets no request').",
		matches: (d) => /^(nodeError|executionError)\.context\.request$/.test(d.path) && d.resilient === undefined && isPlain(d.reference) && 'allowedDomains' in d.reference,
	},
	{
		name: 'url-errors-without-query',
		reason:
			"HTTP Request's error for a URL that does not start with http(s) quotes the URL whole, query string included, where an API key often sits (`?api_key=...`); the error goes on to logs and alerts. This node quotes the URL without its query string and fragment, the rest of the message word for word. Pinned by resilient-http-features.test.ts ('parameter errors name the parameter and the item').",
		matches: (d) => {
			if (typeof d.reference !== 'string' || typeof d.resilient !== 'string' || !/(^|\.)(message|messages\[0\]|error)$/.test(d.path)) return false;
			const withoutQuery = d.reference.replace(/^(Invalid URL: [^?#\s]*)[?#]\S*(\. URL must start with "http" or "https"\.)$/, '$1$2');
			return withoutQuery !== d.reference && withoutQuery === d.resilient;
		},
	},
	{
		name: 'error-additions',
		reason:
			"An error item carries what this node adds beside HTTP Request's fields: the retry story (`_retry`), the reason it stopped, when the server allows another try (retryAt, retryAfterMs), the idempotency key and, for pagination, the pages fetched and where to resume (issue 21, point 3). Only the additions are explained: a field HTTP Request has and this node lacks, or fills otherwise, stays unexplained.",
		matches: (d) => /^outputs\[\d+\]\[\d+\]\.json\.error\.(_retry|reason|retryAt|retryAfterMs|idempotencyKey|idempotencyKeyOwner|pagination)$/.test(d.path) && d.reference === undefined,
	},
	{
		name: 'node-headline',
		reason:
			"A failed item's headline is the node's own account, where HTTP Request's would contradict it (issue 38): after retries or a refusal to retry (attempts used up, the total deadline, a Retry-After longer than Max Server-Requested Delay with the time another try is allowed, a POST without an idempotency key, the API held or paused, the retry budget), and for a final 429 or 503, the error's `message` (the error item's and the thrown error's) is the retry story's summary, where HTTP Request says `503 - \"\"`, \"Service unavailable - try again later or consider setting this node to retry automatically\" or \"Try spacing your requests out using the batching settings under 'Options'\". For any other final status or error HTTP Request's message stays. Only the message is explained: every other field of HTTP Request's error (httpCode, messages, statusCode, the body) stays the same. Pinned by failure-headlines.test.ts.",
		matches: (d) => /^((nodeError|executionError)|outputs\[\d+\]\[\d+\]\.json\.error)\.message$/.test(d.path) && typeof d.reference === 'string' && typeof d.resilient === 'string' && NODE_HEADLINE.test(d.resilient),
	},
	{
		name: 'story-in-description',
		reason:
			"A thrown error's description is the node's account as lines a person reads (issue 21, point 5; issue 38): what to do (after the node's own reason, where the headline stays HTTP Request's), the server's words where HTTP Request's description has them (\"The server's answer: ...\"; left out where it only repeats HTTP Request's message, such as `503 - \"\"`), then the retry story, one line per attempt (when, status or error, how long, the wait before the next and why) and how it ended. The same lines, HTML-escaped and joined by `<br>`, are in `context.descriptionTemplate`, which n8n's editor shows instead of the description (it renders a description as HTML, where a line break collapses). Only such a description is explained.",
		matches: (d) => {
			if (/^(nodeError|executionError)\.context\.descriptionTemplate$/.test(d.path)) return d.reference === undefined && typeof d.resilient === 'string' && d.resilient.includes('<br><br>Retry story: ');
			if (!/^(nodeError|executionError)\.description$/.test(d.path) || typeof d.resilient !== 'string') return false;
			const lines = d.resilient.split('\n');
			const blank = lines.indexOf('');
			const account = lines.slice(0, blank);
			if (blank < 0 || !lines[blank + 1]?.startsWith('Retry story: ') || !account.some((line) => line.startsWith('What to do: '))) return false;
			return typeof d.reference !== 'string' || d.reference === '' || account.includes(d.reference) || account.includes(`The server's answer: ${d.reference}`) || HTTP_REQUEST_OWN_MESSAGE.test(d.reference);
		},
	},
	{
		name: 'error-output-binary',
		reason:
			"An item on the error output keeps the input item's binary data (HTTP Request's drops it): a Backoff Delay loop sends the item again, and a request whose body is that binary needs it (docs/backoff-delay.md). Pinned by test/engine/backoff-delay.test.ts and resilient-http.test.ts.",
		matches: (d, c) => c.onError === 'continueErrorOutput' && /^outputs\[1\]\[\d+\]\.binary$/.test(d.path) && d.reference === undefined,
	},
	{
		name: 'cross-origin-credentials-quoted',
		reason:
			"HTTP Request before 4.4 sends credentials on a cross-origin redirect unless told otherwise, and its thrown error quotes that setting (context.request.sendCredentialsOnCrossOriginRedirect: true); this node follows 4.4 (off unless Send Credentials on Cross-Origin Redirect is on: the safer choice) and quotes its own setting. Pinned by test/engine/resilient-http-features.test.ts (no credentials to another origin on a redirect).",
		matches: (d, c) => c.typeVersion < 4.4 && /^(nodeError|executionError)\.context\.request\.sendCredentialsOnCrossOriginRedirect$/.test(d.path) && d.reference === true && d.resilient === false,
	},
	{
		name: 'scalar-json-under-field',
		reason:
			"A JSON body that is a number, a string or an array of them makes HTTP Request emit that value as an item's json (`json: 42`), which is not n8n item data: a downstream Edit Fields cannot add a field to it and passes it on unchanged. The node puts the value under the output field (`{ data: 42 }`), as HTTP Request does for a text body. Pinned in test/engine/response-items.test.ts.",
		matches: (d) => /^outputs\[0\]\[\d+\]\.json$/.test(d.path) && d.reference !== null && typeof d.reference !== 'object' && isPlain(d.resilient) && d.resilient.data === d.reference,
	},
	{
		name: 'empty-json-body-answered',
		reason:
			"With Response Format JSON and an empty body, HTTP Request fails the run with \"Cannot read properties of undefined (reading 'data')\" (its item has no json; a bug). The node answers `{}`, as HTTP Request itself does for a blank JSON body. Pinned in test/engine/response-items.test.ts.",
		matches: (d, c) =>
			responseFormatOf(c) === 'json' &&
			/^empty body/.test(c.name) &&
			(itemWhereReferenceGaveNone(d, (json) => Object.keys(json).length === 0) || referenceFailedWith(d, "Cannot read properties of undefined (reading 'data')")),
	},
	{
		name: 'raw-body-response-read',
		reason:
			"With Body Content Type Raw, HTTP Request asks n8n for the response as a stream and, under Response Format JSON, emits the stream object itself as the item's json (socket, buffers and all; a bug). The node reads the body as the format says: JSON parsed. Pinned in test/engine/response-items.test.ts.",
		matches: (d, c) => c.parameters.contentType === 'raw' && responseFormatOf(c) === 'json' && /^outputs\[0\]\[0\]\.json\./.test(d.path),
	},
	{
		name: 'compressed-file-name',
		reason:
			"When the server compresses a file (Content-Encoding: gzip), HTTP Request gets a decompressing stream instead of n8n's response, from which n8n's prepareBinaryData reads no name: the file loses its Content-Disposition or URL name and its directory and becomes data.<extension>. The node names a file the same way whether it came compressed or not (n8n's client removes Content-Encoding as it decompresses, so the node could not tell anyway). Pinned in test/engine/response-items.test.ts.",
		matches: (d, c) => /^gzip /.test(c.name) && /^outputs\[0\]\[0\]\.binary\.[^.]+\.(fileName|directory)$/.test(d.path),
	},
];

export type Verdict = 'identical' | `deliberate:${string}` | 'different';

export interface Judgement {
	verdict: Verdict;
	/** Names of the deviations that explained differences. */
	deviations: string[];
	/** Differences no deviation explains. */
	unexplained: Difference[];
}

/**
 * Collapses differences under a common path: `_retry.attempts`, `_retry.history` ... become one
 * `_retry` for the report (matching is done on the leaves).
 */
export function judge(differences: Difference[], c: DiffCase, deviations: readonly Deviation[] = DEVIATIONS): Judgement {
	const used = new Set<string>();
	const unexplained: Difference[] = [];
	for (const d of differences) {
		const deviation = deviations.find((dev) => dev.matches(d, c));
		if (deviation) used.add(deviation.name);
		else unexplained.push(d);
	}
	const names = [...used].sort();
	if (unexplained.length > 0) return { verdict: 'different', deviations: names, unexplained };
	if (names.length > 0) return { verdict: `deliberate:${names.join('+')}`, deviations: names, unexplained };
	return { verdict: 'identical', deviations: [], unexplained };
}
