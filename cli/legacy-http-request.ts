/**
 * HTTP Request v1 and v2 (n8n-nodes-base.httpRequest typeVersion 1 and 2) read as what they send,
 * and written as the parameters of HTTP Request v3 and later, which Resilient HTTP Request takes:
 * the migrate command's first step for these nodes. Each value is written out explicitly, since
 * the old node's defaults (a JSON answer, redirects followed for GET only, a JSON body) are not the
 * new node's. What the new parameters cannot send the same way is a blocker: the node is kept.
 * Read from n8n-nodes-base 2.41.1's HttpRequestV1 and HttpRequestV2 (description and execute) and
 * @n8n/backend-network's legacy request adapter, which sends their requests. Pure: no n8n.
 */
import { PREDEFINED_CREDENTIAL_TYPES } from '../nodes/ResilientHttpRequest/auth/generated/predefined-credentials';
import { LEGACY_DEFAULTS, LEGACY_OPTION_DEFAULTS } from './legacy-defaults';

type Json = Record<string, unknown>;
type Pair = { name: string; value: unknown };

interface LegacyTranslation {
	/** The same request as HTTP Request v3+ parameters; undefined when a blocker keeps the node. */
	parameters?: Json;
	/** Why the node must stay as it is. */
	blockers: string[];
	/** Where it behaves differently once migrated (not what it sends). */
	notes: string[];
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/** v1's Authentication values and the credential type each reads (the node's credentials keep those type names). */
const V1_AUTHENTICATION: Readonly<Record<string, string>> = {
	basicAuth: 'httpBasicAuth',
	digestAuth: 'httpDigestAuth',
	headerAuth: 'httpHeaderAuth',
	queryAuth: 'httpQueryAuth',
	oAuth1: 'oAuth1Api',
	oAuth2: 'oAuth2Api',
};
/** The generic auth types v2 applies; with any other it sends no credential at all. */
const V2_GENERIC_TYPES = ['httpBasicAuth', 'httpBearerAuth', 'httpDigestAuth', 'httpHeaderAuth', 'httpQueryAuth', 'httpTemplatedCustomAuth', 'oAuth1Api', 'oAuth2Api'];
/** The methods whose body v1 and v2 send as form or multipart when Body Content Type says so (any other sends JSON). */
const FORM_METHODS = ['PATCH', 'POST', 'PUT'];
/** The methods that show Body Parameters in v1 and v2. */
const BODY_METHODS = ['PATCH', 'POST', 'PUT', 'DELETE'];
/** The Content-Type axios gives a text or file body sent without one (v1 and v2 send RAW/Custom so). */
const AXIOS_BODY_TYPE = 'application/x-www-form-urlencoded';

/** What the old node reads: a saved value, or its default (n8n saves only values that differ from it). */
function reader(parameters: Json) {
	const options = isObject(parameters.options) ? parameters.options : {};
	return {
		value: (name: keyof typeof LEGACY_DEFAULTS) => parameters[name] ?? LEGACY_DEFAULTS[name],
		/** An option as execute reads it: undefined when not added (then most of them do nothing). */
		option: (name: keyof typeof LEGACY_OPTION_DEFAULTS): unknown => options[name],
	};
}
type Reader = ReturnType<typeof reader>;

/** Authentication as v3+ spells it, or why it cannot be. */
function authenticationOf(version: number, read: Reader, blockers: string[]): Json {
	const authentication = read.value('authentication');
	if (authentication === 'none') return { authentication: 'none' };
	if (version < 2) {
		const type = V1_AUTHENTICATION[String(authentication)];
		if (type) return { authentication: 'genericCredentialType', genericAuthType: type };
		blockers.push(`Authentication ${JSON.stringify(authentication)} is not one HTTP Request v1 knows`);
		return {};
	}
	if (authentication === 'predefinedCredentialType') return { authentication, nodeCredentialType: read.value('nodeCredentialType') };
	const genericAuthType = read.value('genericAuthType');
	if (authentication === 'genericCredentialType' && V2_GENERIC_TYPES.includes(String(genericAuthType))) return { authentication, genericAuthType };
	blockers.push(`Authentication ${JSON.stringify(authentication)} with the generic auth type ${JSON.stringify(genericAuthType)}: HTTP Request v2 sends no credential with it, Resilient HTTP Request would`);
	return {};
}

/** A key-value list as v1 and v2 build an object of it: one entry per name, at its first place, with its last value. */
function lastValuePerName(pairs: Pair[], lowercase = false): Pair[] {
	const byName = new Map<string, unknown>();
	for (const { name, value } of pairs) byName.set(lowercase ? String(name).toLowerCase() : String(name), value);
	return [...byName].map(([name, value]) => ({ name, value }));
}

const uiPairs = (value: unknown): Pair[] | undefined =>
	isObject(value) && Array.isArray(value.parameter) ? (value.parameter as Json[]).map((p) => ({ name: String(p.name ?? ''), value: p.value ?? '' })) : undefined;

/** A JSON parameter that parses to an object of plain values, as its pairs; undefined for an expression or anything else. */
function literalPairs(text: unknown, valueOk: (value: unknown) => boolean): Pair[] | undefined {
	if (typeof text !== 'string' || isExpression(text)) return undefined;
	try {
		const parsed: unknown = JSON.parse(text);
		if (!isObject(parsed) || !Object.values(parsed).every(valueOk)) return undefined;
		return Object.entries(parsed).map(([name, value]) => ({ name, value: String(value) }));
	} catch {
		return undefined;
	}
}
const isScalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);

/** The body of a request whose parameters are JSON/RAW (jsonParameters on). */
function jsonBody(contentType: string, read: Reader, blockers: string[]): Json {
	const text = read.value('bodyParametersJson');
	if (text === '') return {};
	// without a MIME type the text goes out as axios types a text body
	if (contentType === 'raw') return { sendBody: true, contentType: 'raw', body: text, rawContentType: read.option('bodyContentCustomMimeType') || AXIOS_BODY_TYPE };
	if (contentType === 'json') return { sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: text };
	const pairs = literalPairs(text, contentType === 'form-urlencoded' ? isScalar : (value) => typeof value === 'string');
	if (!pairs) {
		blockers.push(`Body Parameters (JSON) sent as ${contentType} from ${isExpression(text) ? 'an expression' : 'JSON other than an object of plain values'}: Resilient HTTP Request takes form fields one by one`);
		return {};
	}
	return { sendBody: true, contentType, specifyBody: 'keypair', bodyParameters: { parameters: pairs } };
}

/** Send Binary File: the file as the body (RAW/Custom) or as multipart fields (`key:field,key2:field2`). */
function binaryBody(contentType: string, read: Reader, blockers: string[]): Json {
	const property = String(read.value('binaryPropertyName'));
	if (contentType === 'raw') {
		const mimeType = read.option('bodyContentCustomMimeType');
		if (!mimeType) {
			blockers.push(`Send Binary File with Body Content Type RAW/Custom and no MIME Type: HTTP Request v1 and v2 send the file typed ${AXIOS_BODY_TYPE} (axios's default), which Resilient HTTP Request does not do with a file`);
			return {};
		}
		return { sendBody: true, contentType: 'binaryData', inputDataFieldName: property, binaryMimeType: mimeType };
	}
	if (contentType !== 'multipart-form-data') {
		blockers.push(`Send Binary File with Body Content Type ${JSON.stringify(contentType)}: HTTP Request v1 and v2 fail every item with it (they send a file as RAW/Custom or Form-Data Multipart only)`);
		return {};
	}
	const fields = property.split(',').map((entry) => entry.trim());
	const parameters = fields.map((entry) => {
		const [name, field] = entry.includes(':') ? entry.split(':') : ['file', entry];
		return { parameterType: 'formBinaryData', name, inputDataFieldName: field };
	});
	if (fields.length > 1 && !fields.every((entry) => entry.includes(':'))) blockers.push('Send Binary File with several fields not all named `key:field`: HTTP Request v1 and v2 fail every item with it');
	return { sendBody: true, contentType, bodyParameters: { parameters } };
}

/** The body of a request whose parameters are set in the panel (jsonParameters off). */
function uiBody(contentType: string, read: Reader, blockers: string[]): Json {
	const pairs = uiPairs(read.value('bodyParametersUi'));
	if (!pairs) return {};
	if (contentType === 'raw') {
		blockers.push('Body Content Type RAW/Custom with Body Parameters set in the panel: HTTP Request v1 and v2 cannot send them (an object is no raw body)');
		return {};
	}
	const entries = lastValuePerName(pairs);
	// v3+ reads a JSON body's names as paths (`a.b` nests); v1 and v2 send them as they are: fixed values become the JSON text they sent
	const paths = entries.filter(({ name }) => /[.[]/.test(name));
	if (contentType === 'json' && paths.length > 0) {
		if (entries.every(({ value }) => typeof value === 'string' && !isExpression(value))) {
			return { sendBody: true, contentType, specifyBody: 'json', jsonBody: JSON.stringify(Object.fromEntries(entries.map(({ name, value }) => [name, value]))) };
		}
		blockers.push(`Body Parameters named ${paths.map(({ name }) => JSON.stringify(name)).join(', ')} beside values from expressions: HTTP Request v3 and later nest a name with a dot or bracket, v1 and v2 send it as it is`);
		return {};
	}
	const parameters = contentType === 'multipart-form-data' ? entries.map((entry) => ({ parameterType: 'formData', ...entry })) : entries;
	return { sendBody: true, contentType, specifyBody: 'keypair', bodyParameters: { parameters } };
}

/**
 * The Body Content Type in effect. The option (like MIME Type) shows for PATCH, POST and PUT only,
 * and n8n hands a node no option its panel hides: on any other method the body is JSON.
 */
function effectiveContentType(method: string, read: Reader): string {
	return FORM_METHODS.includes(method) ? String(read.option('bodyContentType') ?? LEGACY_OPTION_DEFAULTS.bodyContentType) : 'json';
}

/**
 * The request's body as v3+ parameters: what v1 and v2 send for this method, content type and
 * parameters. Body Parameters show for PATCH, POST, PUT and DELETE, Send Binary File for PATCH, POST
 * and PUT: a value saved where the panel hides it never reaches the node.
 */
function bodyOf(method: string, contentType: string, read: Reader, blockers: string[]): Json {
	if (!BODY_METHODS.includes(method)) return {};
	if (read.value('jsonParameters') !== true) return uiBody(contentType, read, blockers);
	if (read.value('sendBinaryData') !== true) return jsonBody(contentType, read, blockers);
	// the JSON body hides while Send Binary File is on, also where Send Binary File itself is hidden (DELETE): no body then
	return FORM_METHODS.includes(method) ? binaryBody(contentType, read, blockers) : {};
}

/** Headers and query parameters, from the panel's lists or from JSON. */
function headersAndQuery(contentType: string, read: Reader, blockers: string[]): Json {
	const out: Json = {};
	if (read.value('jsonParameters') === true) {
		const headers = read.value('headerParametersJson');
		const query = read.value('queryParametersJson');
		// with RAW/Custom, v1 and v2 parse none of the three JSON parameters: a text is passed on as it is
		if (contentType === 'raw' && (headers !== '' || query !== '')) {
			blockers.push('Headers or Query Parameters as JSON with Body Content Type RAW/Custom: HTTP Request v1 and v2 do not read them as JSON then');
			return out;
		}
		// v1 and v2 look for their Accept default under `accept` only: a JSON `Accept` is sent, then overwritten by it
		if (typeof headers === 'string' && /"(?!accept")[aA][cC][cC][eE][pP][tT]"\s*:/.test(headers)) {
			blockers.push('Headers as JSON with an Accept header not spelled `accept`: HTTP Request v1 and v2 replace its value by their own default, Resilient HTTP Request sends it');
			return out;
		}
		// v1 and v2 send JSON headers with their names as written
		if (headers !== '') Object.assign(out, { sendHeaders: true, specifyHeaders: 'json', jsonHeaders: headers, lowercaseHeaders: false });
		if (query !== '') Object.assign(out, { sendQuery: true, specifyQuery: 'json', jsonQuery: query });
		return out;
	}
	const headers = uiPairs(read.value('headerParametersUi'));
	const query = uiPairs(read.value('queryParametersUi'));
	// v1 and v2 lowercase the panel's header names, and keep the last of a name
	if (headers) Object.assign(out, { sendHeaders: true, specifyHeaders: 'keypair', headerParameters: { parameters: lastValuePerName(headers, true) } });
	// a name given twice is sent twice (an array), as v3 does from v4.3 on
	if (query) Object.assign(out, { sendQuery: true, specifyQuery: 'keypair', queryParameters: { parameters: query } });
	return out;
}

/** Options > Response: the Response Format and where the answer goes, full response, never error. */
function responseOf(read: Reader): Json {
	const format = read.value('responseFormat');
	const response: Json = { responseFormat: format === 'string' ? 'text' : format };
	if (format !== 'json') response.outputPropertyName = read.value('dataPropertyName');
	if (read.option('fullResponse') === true) response.fullResponse = true;
	if (read.option('ignoreResponseCode') === true) response.neverError = true;
	return { response: { response } };
}

/** The options v3+ has for what v1 and v2 send: redirects, array format, batching, proxy, timeout, certificates. */
function optionsOf(method: string, read: Reader, sendsQuery: boolean): Json {
	const options: Json = { ...responseOf(read) };
	// the legacy adapter follows a redirect of GET and HEAD unless Follow GET/HEAD Redirect is off, of any method with Follow All Redirects
	const follows = ((method === 'GET' || method === 'HEAD') && read.option('followRedirect') !== false) || read.option('followAllRedirects') === true;
	options.redirect = { redirect: { followRedirects: follows } };
	if (sendsQuery) options.queryParameterArrays = read.option('useQueryString') === true ? 'repeat' : 'indices';
	const batchSize = Number(read.option('batchSize'));
	const batchInterval = Number(read.option('batchInterval'));
	// v1 and v2 batch only when both are set, the size not -1 and the interval above 0
	if (batchSize >= 0 && batchInterval > 0) options.batching = { batch: { batchSize: Math.max(1, batchSize), batchInterval } };
	if (typeof read.option('proxy') === 'string' && read.option('proxy') !== '') options.proxy = read.option('proxy');
	if (read.option('timeout') !== undefined) options.timeout = read.option('timeout');
	if (read.value('allowUnauthorizedCerts') === true) options.allowUnauthorizedCerts = true;
	return options;
}

/** A Content-Type the old node sends beside its body: a custom MIME type, or the JSON type it adds when it downloads a file. */
function contentTypeHeader(method: string, contentType: string, read: Reader, body: Json, blockers: string[]): string | undefined {
	const mimeType = FORM_METHODS.includes(method) ? read.option('bodyContentCustomMimeType') : undefined;
	// a form or multipart body replaces the MIME type by its own; over JSON it is sent as it is, unless it makes the adapter encode the body another way
	if (typeof mimeType === 'string' && mimeType !== '' && contentType === 'json') {
		if (!/x-www-form-urlencoded|multipart\/form-data/i.test(mimeType)) return mimeType;
		blockers.push(`MIME Type ${JSON.stringify(mimeType)} over a JSON body: HTTP Request v1 and v2 then encode the body as that type, Resilient HTTP Request sends JSON`);
		return undefined;
	}
	// Response Format File: v1 and v2 send `Content-Type: application/json` on PATCH, POST and PUT, with a body or without
	if (read.value('responseFormat') === 'file' && contentType !== 'raw' && FORM_METHODS.includes(method) && body.sendBody !== true) return 'application/json';
	return undefined;
}

/** Adds a header to the v3+ parameters, in the form (list or JSON) they already use. */
function addHeader(parameters: Json, name: string, value: string, blockers: string[]): void {
	if (parameters.sendHeaders !== true) Object.assign(parameters, { sendHeaders: true, specifyHeaders: 'keypair', headerParameters: { parameters: [{ name, value }] } });
	else if (parameters.specifyHeaders === 'keypair') (parameters.headerParameters as { parameters: Pair[] }).parameters.push({ name, value });
	else blockers.push(`Headers as JSON beside the \`Content-Type: ${value}\` HTTP Request v1 and v2 add (a MIME Type, or Response Format File): Resilient HTTP Request reads headers from the JSON or from a list, not both`);
}

/** The settings whose value decides which parameters are written: from an expression, what the node sent is known only when it runs. */
const DECIDING_PARAMETERS = ['authentication', 'requestMethod', 'jsonParameters', 'responseFormat', 'sendBinaryData'] as const;
const DECIDING_OPTIONS = ['bodyContentType', 'followRedirect', 'followAllRedirects', 'useQueryString', 'fullResponse', 'ignoreResponseCode', 'splitIntoItems', 'batchSize', 'batchInterval'] as const;

function expressionBlockers(read: Reader): string[] {
	const named = [...DECIDING_PARAMETERS.filter((name) => isExpression(read.value(name))), ...DECIDING_OPTIONS.filter((name) => isExpression(read.option(name))).map((name) => `options.${name}`)];
	return named.length > 0 ? [`${named.join(', ')} set by an expression: which request it sent is known only when it runs, so it cannot be written as fixed parameters`] : [];
}

const OAUTH1_PREDEFINED = new Set(PREDEFINED_CREDENTIAL_TYPES.filter((t) => t.kind === 'oAuth1').map((t) => t.name));

/**
 * OAuth1: n8n's OAuth1 helper replaces v1's and v2's headers by the Authorization header alone, so
 * they sent none of their own; then Accept is the adapter's (application/json for a JSON request,
 * none otherwise: axios's `*\/*`). A node with headers of its own is kept: it never sent them.
 */
function oAuth1Headers(parameters: Json, contentType: string, read: Reader, blockers: string[]): void {
	const type = parameters.authentication === 'predefinedCredentialType' ? parameters.nodeCredentialType : parameters.genericAuthType;
	if (type !== 'oAuth1Api' && !OAUTH1_PREDEFINED.has(String(type))) return;
	if (parameters.sendHeaders === true) {
		blockers.push("OAuth1 with headers of the node's own (a header, a MIME Type, a file's type): HTTP Request v1 and v2 sent none of them (n8n's OAuth1 helper keeps the Authorization header only), Resilient HTTP Request would");
		return;
	}
	const json = read.value('responseFormat') !== 'file' && contentType !== 'raw';
	addHeader(parameters, 'accept', json ? 'application/json' : '*/*', blockers);
}

/** The v3+ parameters that send what this HTTP Request v1 or v2 node sends, or the blockers. */
export function translateLegacyHttpRequest(version: number, saved: Json): LegacyTranslation {
	const read = reader(saved);
	const notes: string[] = [];
	const blockers = expressionBlockers(read);
	if (blockers.length > 0) return { blockers, notes };
	const method = String(read.value('requestMethod')).toUpperCase();
	const contentType = effectiveContentType(method, read);
	const body = bodyOf(method, contentType, read, blockers);
	const { lowercaseHeaders, ...headers } = headersAndQuery(contentType, read, blockers);
	const options = optionsOf(method, read, headers.sendQuery === true);
	if (lowercaseHeaders === false) options.lowercaseHeaders = false;
	const parameters: Json = { method, url: read.value('url'), ...authenticationOf(version, read, blockers), ...headers, ...body, options };
	const { binaryMimeType, ...rest } = parameters;
	const header = typeof binaryMimeType === 'string' ? binaryMimeType : contentTypeHeader(method, contentType, read, body, blockers);
	if (header) addHeader(rest, 'content-type', header, blockers);
	oAuth1Headers(rest, contentType, read, blockers);
	if (contentType === 'raw' && read.value('responseFormat') !== 'file') {
		notes.push('with Body Content Type RAW/Custom, HTTP Request v1 and v2 output the answer\'s stream object instead of its content; the node now outputs the answer, as its Response Format says');
	}
	notes.push("a failed request's error reads as HTTP Request v3 and later give it (message, description, HTTP code; with Continue, their error item), not as v1 and v2 gave it (the request library's error object)");
	if (read.value('responseFormat') === 'json' && read.option('splitIntoItems') !== true) {
		notes.push('a JSON array answer now gives one item per element (HTTP Request v1 and v2 gave one item holding the array unless Split Into Items was on)');
	}
	return blockers.length > 0 ? { blockers, notes } : { parameters: rest, blockers, notes };
}
