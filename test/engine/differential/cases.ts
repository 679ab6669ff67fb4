/**
 * The differential cases, generated from tables of dimensions (each group crosses its own), so a
 * new response kind or option adds a row, not a hand-written case per combination.
 *
 * Parameters are HTTP Request's, as a user's workflow JSON holds them (defaults omitted, `options`
 * present); URLs use BASE / OTHER (the case's paths on the main and on a second origin).
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';
import { BASE, DEFAULT_ITEMS, OTHER, TYPE_VERSIONS, type DiffCase, type OnError, type TypeVersion } from './harness';
import type { CaseHandler, CaseResponse, RouteContext } from './server';

const b64 = (s: string | Buffer) => (Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8')).toString('base64');
const answer = (response: CaseResponse): CaseHandler => () => response;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\n%%EOF\n', 'latin1');

/** The server's answer, echoing nothing: each kind of response body a user meets. */
export const RESPONSE_KINDS: Record<string, CaseResponse> = {
	'json object': { body: { id: 1, name: 'Ada', nested: { list: [1, 'two', null], flag: true }, empty: {} } },
	'json array': { body: [{ n: 1 }, { n: 2 }, { n: 3 }] },
	'json array of scalars': { body: [1, 'two', null] },
	'json empty array': { body: [] },
	'json scalar': { headers: { 'content-type': 'application/json' }, body: '42' },
	'json null': { headers: { 'content-type': 'application/json' }, body: 'null' },
	'json with charset': { headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ city: 'Zürich', emoji: '🙂' }) },
	'json vendor type': { headers: { 'content-type': 'application/vnd.api+json' }, body: JSON.stringify({ data: { id: '1' } }) },
	'empty body 200 no content-type': { status: 200, body: '' },
	'empty body 200 json content-type': { status: 200, headers: { 'content-type': 'application/json' }, body: '' },
	'empty body 204': { status: 204 },
	'whitespace json body': { headers: { 'content-type': 'application/json' }, body: '  \n' },
	'text/plain': { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'hello, world\nline 2 — ünïcödé' },
	'text/plain looks like json': { headers: { 'content-type': 'text/plain' }, body: '{"a":1}' },
	html: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><html><body><h1>Hi</h1></body></html>' },
	xml: { headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><root><a>1</a></root>' },
	csv: { headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2\n' },
	'invalid json': { headers: { 'content-type': 'application/json' }, body: '{"a": 1,' },
	'no content-type with text': { headers: {}, body: 'plain words' },
	'latin1 text (charset=latin1)': { headers: { 'content-type': 'text/plain; charset=latin1' }, body: Buffer.from('café, niño, 10 EUR, «ß»', 'latin1') },
	'latin1 text (charset=ISO-8859-1)': { headers: { 'content-type': 'text/html; charset=ISO-8859-1' }, body: Buffer.from('<p>Größe: groß</p>', 'latin1') },
	'latin1 json (charset=iso-8859-1)': { headers: { 'content-type': 'application/json; charset=iso-8859-1' }, body: Buffer.from('{"name":"José"}', 'latin1') },
	'png with Content-Disposition': { headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="chart.png"' }, body: PNG },
	'png without Content-Disposition': { headers: { 'content-type': 'image/png' }, body: PNG },
	'pdf with Content-Disposition inline': { headers: { 'content-type': 'application/pdf', 'content-disposition': 'inline; filename="invoice 7.pdf"' }, body: PDF },
	'octet-stream without name': { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 1, 2, 253, 254, 255]) },
	'zip with RFC 5987 file name': { headers: { 'content-type': 'application/zip', 'content-disposition': "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.zip" }, body: Buffer.from('PK\x03\x04', 'latin1') },
	'gzip json': { body: { compressed: true, list: [1, 2, 3] }, gzip: true },
	'gzip text': { headers: { 'content-type': 'text/plain' }, body: 'compressed text', gzip: true },
	'chunked json': { body: { chunked: true, words: ['a', 'b', 'c', 'd', 'e', 'f'] }, chunked: true },
	'chunked text': { headers: { 'content-type': 'text/plain' }, body: 'chunk one, chunk two, chunk three', chunked: true },
	'large json (~1 MB)': { body: { blob: 'x'.repeat(1_000_000), n: 1 } },
	'large text (~1 MB)': { headers: { 'content-type': 'text/plain' }, body: 'abcdefghij'.repeat(100_000) },
};

export const RESPONSE_FORMATS = ['autodetect', 'json', 'text', 'file'] as const;

const GET = (path: string, options: IDataObject = {}, extra: IDataObject = {}): IDataObject => ({ url: `${BASE}${path}`, ...extra, options });
const responseOption = (response: IDataObject) => ({ response: { response } });

/** An echo of the request as JSON (what the server saw is compared anyway; this lets items differ too). */
const echo: CaseHandler = ({ request }) => ({ body: { method: request.method, url: request.url, bodyLength: request.body.length } });

function cases(): DiffCase[] {
	const all: DiffCase[] = [];
	const add = (c: Omit<DiffCase, 'typeVersion'> & { typeVersion?: TypeVersion }) => all.push({ typeVersion: 4.2, ...c });

	// --- methods -------------------------------------------------------------------------------
	for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
		add({ group: 'methods', name: `${method} without body`, parameters: { method, url: `${BASE}/m`, options: {} }, handler: method === 'HEAD' ? answer({ headers: { 'content-type': 'application/json', 'x-h': '1' } }) : echo });
		if (method !== 'GET' && method !== 'HEAD') {
			add({ group: 'methods', name: `${method} with a JSON body`, parameters: { method, url: `${BASE}/m`, sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] }, options: {} }, handler: echo });
		}
	}
	add({ group: 'methods', name: 'GET with a JSON body (sendBody on GET)', parameters: { url: `${BASE}/m`, sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] }, options: {} }, handler: echo });
	add({ group: 'methods', name: 'HEAD with a body (not sent)', parameters: { method: 'HEAD', url: `${BASE}/m`, sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] }, options: {} }, handler: answer({ headers: { 'content-type': 'text/plain' } }) });
	add({ group: 'methods', name: 'HEAD with Include Response Headers and Status', parameters: { method: 'HEAD', url: `${BASE}/m`, options: responseOption({ fullResponse: true }) }, handler: answer({ headers: { 'content-type': 'application/json', 'x-total': '12' } }) });
	for (const tv of TYPE_VERSIONS) {
		add({ group: 'methods', name: `typeVersion ${tv}: POST JSON body`, typeVersion: tv, parameters: { method: 'POST', url: `${BASE}/m`, sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] }, options: {} }, handler: echo });
		add({ group: 'methods', name: `typeVersion ${tv}: GET json`, typeVersion: tv, parameters: GET('/m'), handler: echo });
	}

	// --- query -----------------------------------------------------------------------------------
	const queryFields = [
		['one field', [{ name: 'q', value: 'shoes' }]],
		['two fields', [{ name: 'q', value: 'shoes' }, { name: 'limit', value: '10' }]],
		['the same name twice', [{ name: 'tag', value: 'a' }, { name: 'tag', value: 'b' }]],
		['characters to encode', [{ name: 'q', value: 'a b&c=d/é?' }, { name: 'x y', value: '+' }]],
		['an empty value', [{ name: 'q', value: '' }]],
		['an empty name', [{ name: '', value: 'x' }]],
	] as const;
	for (const [label, parameters] of queryFields) {
		for (const tv of label === 'the same name twice' ? TYPE_VERSIONS : ([4.2] as const)) {
			add({ group: 'query', name: `fields: ${label} (v${tv})`, typeVersion: tv, parameters: GET('/q', {}, { sendQuery: true, queryParameters: { parameters } }), handler: echo });
		}
	}
	add({ group: 'query', name: 'fields added to a URL that has a query', parameters: { url: `${BASE}/q?existing=1`, sendQuery: true, queryParameters: { parameters: [{ name: 'q', value: 'x' }] }, options: {} }, handler: echo });
	for (const format of [undefined, 'repeat', 'brackets', 'indices'] as const) {
		const options = format ? { queryParameterArrays: format } : {};
		add({ group: 'query', name: `JSON with arrays and objects, array format ${format ?? 'default'}`, parameters: GET('/q', options, { sendQuery: true, specifyQuery: 'json', jsonQuery: '{"ids":[1,2,3],"filter":{"a":"b"},"s":"x y"}' }), handler: echo });
		for (const tv of [4.2, 4.3] as const) {
			add({ group: 'query', name: `fields: same name twice, array format ${format ?? 'default'} (v${tv})`, typeVersion: tv, parameters: GET('/q', options, { sendQuery: true, queryParameters: { parameters: [{ name: 'id', value: '1' }, { name: 'id', value: '2' }] } }), handler: echo });
		}
	}
	add({ group: 'query', name: 'JSON that is not JSON (stop)', parameters: GET('/q', {}, { sendQuery: true, specifyQuery: 'json', jsonQuery: '{ids: 1' }), handler: echo });
	add({ group: 'query', name: 'JSON that is not JSON (continueRegularOutput)', onError: 'continueRegularOutput', parameters: GET('/q', {}, { sendQuery: true, specifyQuery: 'json', jsonQuery: '{ids: 1' }), handler: echo });
	add({ group: 'query', name: 'JSON that is not JSON (continueErrorOutput)', onError: 'continueErrorOutput', parameters: GET('/q', {}, { sendQuery: true, specifyQuery: 'json', jsonQuery: '{ids: 1' }), handler: echo });
	add({ group: 'query', name: 'expression values from the item', parameters: GET('/q', {}, { sendQuery: true, queryParameters: { parameters: [{ name: 'id', value: '={{ $json.id }}' }, { name: 'tags', value: '={{ $json.tags }}' }] } }), handler: echo });

	// --- headers ---------------------------------------------------------------------------------
	const headerSets = [
		['lowercase names', [{ name: 'x-trace', value: 't-1' }]],
		['mixed-case names', [{ name: 'X-Trace-Id', value: 't-1' }, { name: 'X-Other', value: 'o' }]],
		['an Accept of its own', [{ name: 'Accept', value: 'text/csv' }]],
		['a Content-Type of its own', [{ name: 'Content-Type', value: 'application/vnd.custom+json' }]],
		['a User-Agent of its own', [{ name: 'User-Agent', value: 'my-agent/1.0' }]],
		['the same name twice', [{ name: 'X-Dup', value: 'a' }, { name: 'X-Dup', value: 'b' }]],
		['an empty name', [{ name: '', value: 'ignored' }, { name: 'X-Kept', value: 'k' }]],
	] as const;
	for (const [label, parameters] of headerSets) {
		for (const lowercaseHeaders of [undefined, true, false]) {
			const options = lowercaseHeaders === undefined ? {} : { lowercaseHeaders };
			const withBody = label === 'a Content-Type of its own' ? { method: 'POST', sendBody: true, specifyBody: 'json', jsonBody: '{"a":1}' } : {};
			add({ group: 'headers', name: `fields: ${label}, lowercase ${String(lowercaseHeaders ?? 'default')}`, parameters: { url: `${BASE}/h`, ...withBody, sendHeaders: true, headerParameters: { parameters }, options }, handler: echo });
		}
	}
	for (const lowercaseHeaders of [undefined, false]) {
		add({ group: 'headers', name: `JSON, lowercase ${String(lowercaseHeaders ?? 'default')}`, parameters: { url: `${BASE}/h`, sendHeaders: true, specifyHeaders: 'json', jsonHeaders: '{"X-Json": "j", "X-Num": 5}', options: lowercaseHeaders === undefined ? {} : { lowercaseHeaders } }, handler: echo });
	}
	add({ group: 'headers', name: 'JSON that is not JSON (stop)', parameters: { url: `${BASE}/h`, sendHeaders: true, specifyHeaders: 'json', jsonHeaders: '{"X-Json": ', options: {} }, handler: echo });
	add({ group: 'headers', name: 'JSON that is not JSON (continueErrorOutput)', onError: 'continueErrorOutput', parameters: { url: `${BASE}/h`, sendHeaders: true, specifyHeaders: 'json', jsonHeaders: '{"X-Json": ', options: {} }, handler: echo });
	for (const format of ['json', 'text'] as const) {
		add({ group: 'headers', name: `Accept sent with Response Format ${format}`, parameters: GET('/h', responseOption({ responseFormat: format })), handler: echo });
	}

	// --- bodies ----------------------------------------------------------------------------------
	const jsonFieldSets = [
		['flat fields', [{ name: 'a', value: '1' }, { name: 'b', value: 'two' }]],
		['nested names (a.b, a.c)', [{ name: 'a.b', value: '1' }, { name: 'a.c', value: '2' }]],
		['array index names (list[0], list[1])', [{ name: 'list[0]', value: 'x' }, { name: 'list[1]', value: 'y' }]],
		['the same name twice', [{ name: 'k', value: '1' }, { name: 'k', value: '2' }]],
		['an expression giving an object', [{ name: 'obj', value: '={{ { "x": 1 } }}' }, { name: 'n', value: '={{ 5 }}' }]],
	] as const;
	for (const [label, parameters] of jsonFieldSets) {
		for (const tv of label === 'flat fields' || label === 'nested names (a.b, a.c)' || label === 'the same name twice' ? TYPE_VERSIONS : ([4.2] as const)) {
			add({ group: 'bodies', name: `JSON fields: ${label} (v${tv})`, typeVersion: tv, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, bodyParameters: { parameters }, options: {} }, handler: echo });
		}
	}
	const rawJsonBodies = [
		['an object', '{"a": 1, "b": {"c": [1, 2]}}'],
		['an array', '[1, 2, 3]'],
		['an expression', '={{ { "id": $json.id, "name": $json.name } }}'],
		['a JSON string with an expression inside', '={"id": {{ $json.id }}, "name": "{{ $json.name }}"}'],
		['invalid JSON', '{"a": '],
	] as const;
	for (const [label, jsonBody] of rawJsonBodies) {
		add({ group: 'bodies', name: `JSON raw: ${label}`, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, specifyBody: 'json', jsonBody, options: {} }, handler: echo });
	}
	add({ group: 'bodies', name: 'JSON raw: invalid JSON (continueErrorOutput)', onError: 'continueErrorOutput', parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, specifyBody: 'json', jsonBody: '{"a": ', options: {} }, handler: echo });
	for (const tv of [4.1, 4.2, 4.3] as const) {
		add({ group: 'bodies', name: `form-urlencoded fields (v${tv})`, typeVersion: tv, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'form-urlencoded', bodyParameters: { parameters: [{ name: 'a', value: '1' }, { name: 'b c', value: 'd&e' }, { name: 'a', value: '2' }] }, options: {} }, handler: echo });
	}
	add({ group: 'bodies', name: 'form-urlencoded single field', parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'form-urlencoded', specifyBody: 'string', body: 'a=1&b=two%20words&c=', options: {} }, handler: echo });
	const multipartSets: Array<[string, IDataObject[], INodeExecutionData[]?]> = [
		['fields only', [{ name: 'a', value: '1' }, { name: 'b', value: 'two' }]],
		['a field and a binary', [{ name: 'a', value: '1' }, { parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'upload' }]],
		['a binary without file name', [{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'upload' }], [{ json: { id: 1 }, binary: { upload: { data: b64('no name'), mimeType: 'text/plain' } } }]],
		['a binary without mime type', [{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'upload' }], [{ json: { id: 1 }, binary: { upload: { data: b64('bytes'), mimeType: '', fileName: 'x.bin' } } }]],
		['two binaries', [{ parameterType: 'formBinaryData', name: 'one', inputDataFieldName: 'upload' }, { parameterType: 'formBinaryData', name: 'two', inputDataFieldName: 'second' }], [{ json: { id: 1 }, binary: { ...DEFAULT_ITEMS[0].binary, second: { data: b64(PNG), mimeType: 'image/png', fileName: 'pic.png', fileExtension: 'png' } } }]],
		['a binary field that is missing', [{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'nope' }]],
	];
	for (const [label, parameters, items] of multipartSets) {
		for (const tv of [4.1, 4.2] as const) {
			add({ group: 'bodies', name: `multipart: ${label} (v${tv})`, typeVersion: tv, ...(items ? { items } : {}), parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'multipart-form-data', bodyParameters: { parameters }, options: {} }, handler: echo });
		}
	}
	add({ group: 'bodies', name: 'binary body (n8n Binary File)', parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'binaryData', inputDataFieldName: 'upload', options: {} }, handler: echo });
	add({ group: 'bodies', name: 'binary body without mime type', items: [{ json: {}, binary: { upload: { data: b64(PNG), mimeType: '', fileName: 'p.png' } } }], parameters: { method: 'PUT', url: `${BASE}/b`, sendBody: true, contentType: 'binaryData', inputDataFieldName: 'upload', options: {} }, handler: echo });
	add({ group: 'bodies', name: 'binary body: field missing (continueErrorOutput)', onError: 'continueErrorOutput', parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'binaryData', inputDataFieldName: 'nope', options: {} }, handler: echo });
	for (const [rawContentType, body] of [['text/plain', 'just text'], ['application/xml', '<a>1</a>'], ['application/json', '{"raw":true}']] as const) {
		add({ group: 'bodies', name: `raw ${rawContentType}`, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'raw', rawContentType, body, options: {} }, handler: echo });
	}
	add({ group: 'bodies', name: 'raw body, JSON response (response parsed?)', parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'raw', rawContentType: 'text/plain', body: 'x', options: responseOption({ responseFormat: 'json' }) }, handler: answer({ body: { ok: 1 } }) });

	// --- response kinds x response format ---------------------------------------------------------
	for (const [kind, response] of Object.entries(RESPONSE_KINDS)) {
		const path = kind.includes('pdf') ? '/files/report.pdf' : kind.includes('png') ? '/img/chart.png' : '/r';
		for (const format of RESPONSE_FORMATS) {
			const options = format === 'autodetect' ? {} : responseOption({ responseFormat: format });
			add({ group: 'response kinds', name: `${kind}, format ${format}`, parameters: GET(path, options), handler: answer(response) });
		}
	}

	// --- response options --------------------------------------------------------------------------
	const optionKinds = ['json object', 'json array', 'text/plain', 'html', 'empty body 200 no content-type', 'empty body 200 json content-type', 'png with Content-Disposition', 'invalid json'];
	for (const kind of optionKinds) {
		for (const format of ['autodetect', 'json', 'text', 'file'] as const) {
			add({ group: 'response options', name: `Include Response Headers and Status, ${kind}, format ${format}`, parameters: GET('/r', responseOption({ fullResponse: true, ...(format === 'autodetect' ? {} : { responseFormat: format }) })), handler: answer(RESPONSE_KINDS[kind]) });
		}
		add({ group: 'response options', name: `Put Output in Field "payload", ${kind}, format text`, parameters: GET('/r', responseOption({ responseFormat: 'text', outputPropertyName: 'payload' })), handler: answer(RESPONSE_KINDS[kind]) });
		add({ group: 'response options', name: `Put Output in Field "payload", ${kind}, format file`, parameters: GET('/r', responseOption({ responseFormat: 'file', outputPropertyName: 'payload' })), handler: answer(RESPONSE_KINDS[kind]) });
	}
	for (const status of [404, 500]) {
		for (const [bodyLabel, response] of [['json', { body: { error: 'nope' } }], ['text', { headers: { 'content-type': 'text/plain' }, body: 'nope' }], ['empty', { body: '' }]] as const) {
			for (const fullResponse of [false, true]) {
				add({
					group: 'response options',
					name: `Never Error, ${status} with ${bodyLabel} body${fullResponse ? ', with headers and status' : ''}`,
					parameters: GET('/r', responseOption({ neverError: true, ...(fullResponse ? { fullResponse } : {}) })),
					handler: answer({ status, ...response }),
					...(status >= 500 ? { resilientOnly: { maxAttempts: 1 }, note: 'maxAttempts 1: the node would retry the 500' } : {}),
				});
			}
		}
	}
	add({ group: 'response options', name: 'Never Error, invalid JSON with a json content-type', parameters: GET('/r', responseOption({ neverError: true })), handler: answer(RESPONSE_KINDS['invalid json']) });

	// --- redirects ----------------------------------------------------------------------------------
	const redirectTo = (status: number, location: (ctx: RouteContext) => string, final: CaseResponse = { body: { landed: true } }): CaseHandler => (ctx) =>
		ctx.request.url.startsWith('/start') ? { status, headers: { location: location(ctx) } } : final;
	const landing: CaseHandler = (ctx) => ({ body: { landed: ctx.request.url, method: ctx.request.method, bodyLength: ctx.request.body.length } });
	const redirecting = (status: number, location: (ctx: RouteContext) => string): CaseHandler => (ctx) => (ctx.request.url.startsWith('/start') ? { status, headers: { location: location(ctx) } } : landing(ctx));
	for (const status of [301, 302, 303, 307, 308]) {
		for (const method of ['GET', 'POST']) {
			const body = method === 'POST' ? { sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] } } : {};
			for (const [label, options] of [['default', {}], ['follow', { redirect: { redirect: { followRedirects: true } } }], ['do not follow', { redirect: { redirect: { followRedirects: false } } }]] as const) {
				for (const tv of method === 'POST' && label === 'follow' ? ([4, 4.1] as const) : ([4.2] as const)) {
					add({ group: 'redirects', name: `${status} ${method}, ${label} (v${tv})`, typeVersion: tv, parameters: { method, url: `${BASE}/start`, ...body, options }, handler: redirecting(status, (ctx) => `${ctx.base}/final`), ...(label === 'do not follow' ? { note: 'the 3xx is the final response' } : {}) });
				}
			}
		}
	}
	add({ group: 'redirects', name: 'relative Location', parameters: GET('/start'), handler: redirecting(302, () => 'final?x=1') });
	add({ group: 'redirects', name: 'absolute-path Location', parameters: GET('/start'), handler: redirecting(302, (ctx) => `${new URL(ctx.base).pathname}/final`) });
	add({ group: 'redirects', name: 'cross-origin Location', parameters: GET('/start'), handler: redirecting(302, (ctx) => `${ctx.otherBase}/final`) });
	add({ group: 'redirects', name: 'two hops', parameters: GET('/start'), handler: (ctx) => (ctx.request.url === '/start' ? { status: 302, headers: { location: `${ctx.base}/start2` } } : ctx.request.url === '/start2' ? { status: 301, headers: { location: `${ctx.base}/final` } } : landing(ctx)) });
	add({ group: 'redirects', name: 'Max Redirects 1 exceeded', parameters: GET('/start', { redirect: { redirect: { followRedirects: true, maxRedirects: 1 } } }), handler: (ctx) => (ctx.request.url.startsWith('/start') ? { status: 302, headers: { location: `${ctx.base}/start${ctx.count}` } } : landing(ctx)) });
	add({ group: 'redirects', name: 'Max Redirects 1 exceeded (continueErrorOutput)', onError: 'continueErrorOutput', parameters: GET('/start', { redirect: { redirect: { followRedirects: true, maxRedirects: 1 } } }), handler: (ctx) => (ctx.request.url.startsWith('/start') ? { status: 302, headers: { location: `${ctx.base}/start${ctx.count}` } } : landing(ctx)) });
	add({ group: 'redirects', name: 'to a file: file named after the final URL', parameters: GET('/start/download', responseOption({ responseFormat: 'file' })), handler: redirectTo(302, (ctx) => `${ctx.base}/files/final-name.pdf`, { headers: { 'content-type': 'application/pdf' }, body: PDF }) });
	add({ group: 'redirects', name: 'to a file (autodetect)', parameters: GET('/start/x.pdf'), handler: redirectTo(302, (ctx) => `${ctx.base}/files/final-name.pdf`, { headers: { 'content-type': 'application/pdf' }, body: PDF }) });
	add({ group: 'redirects', name: 'with Include Response Headers and Status', parameters: GET('/start', responseOption({ fullResponse: true })), handler: redirecting(302, (ctx) => `${ctx.base}/final`) });
	add({ group: 'redirects', name: 'do not follow, with Include Response Headers and Status', parameters: GET('/start', { redirect: { redirect: { followRedirects: false } }, ...responseOption({ fullResponse: true }) }), handler: redirecting(302, (ctx) => `${ctx.base}/final`) });

	// --- error paths ----------------------------------------------------------------------------------
	const errorBodies: Array<[string, CaseResponse]> = [
		['JSON body', { body: { error: { code: 'E1', message: 'Something is wrong' } } }],
		['JSON message body', { body: { message: 'Plain message' } }],
		['text body', { headers: { 'content-type': 'text/plain' }, body: 'Bad things happened' }],
		['HTML body', { headers: { 'content-type': 'text/html' }, body: '<html><body>Oops</body></html>' }],
		['empty body', { body: '' }],
	];
	const onErrors: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
	for (const status of [400, 401, 403, 404, 422, 429, 500, 503]) {
		for (const [bodyLabel, response] of errorBodies) {
			for (const onError of onErrors) {
				if ((status === 403 || status === 422 || status === 401) && bodyLabel === 'HTML body') continue;
				const retried = status === 429 || status >= 500;
				add({ group: 'error paths', name: `${status} with ${bodyLabel}, ${onError}`, onError, parameters: GET('/e'), handler: answer({ status, ...response }), ...(retried ? { resilientOnly: { maxAttempts: 1 }, note: `maxAttempts 1: the node retries ${status}` } : {}) });
			}
		}
	}
	for (const onError of onErrors) {
		add({ group: 'error paths', name: `404 with 2 items, ${onError}`, onError, items: [{ json: { n: 1 } }, { json: { n: 2 } }], parameters: { url: `=${BASE}/e/{{ $json.n }}`, options: {} }, handler: (ctx) => (ctx.request.url === '/e/1' ? { status: 404, body: { message: 'no' } } : { body: { ok: true } }) });
		add({ group: 'error paths', name: `connection refused, ${onError}`, onError, parameters: { url: 'http://127.0.0.1:9/refused', options: {} }, handler: echo, resilientOnly: { maxAttempts: 1 }, note: 'maxAttempts 1: the node retries a refused connection' });
		add({ group: 'error paths', name: `URL without http(s), ${onError}`, onError, parameters: { url: 'ftp://example.invalid/x', options: {} }, handler: echo });
		add({ group: 'error paths', name: `URL without http(s), with a key in its query, ${onError}`, onError, parameters: { url: 'ftp://example.invalid/x?api_key=k-url-1', options: {} }, handler: echo });
		add({ group: 'error paths', name: `URL expression giving an empty string, ${onError}`, onError, parameters: { url: '={{ $json.missing ?? "" }}', options: {} }, handler: echo });
		add({ group: 'error paths', name: `URL expression giving a number, ${onError}`, onError, parameters: { url: '={{ 5 }}', options: {} }, handler: echo });
		add({ group: 'error paths', name: `invalid JSON response under autodetect, ${onError}`, onError, parameters: GET('/e'), handler: answer(RESPONSE_KINDS['invalid json']) });
		add({ group: 'error paths', name: `invalid JSON response under format json, ${onError}`, onError, parameters: GET('/e', responseOption({ responseFormat: 'json' })), handler: answer({ headers: { 'content-type': 'text/plain' }, body: 'not json' }) });
	}
	// the item's json travels with an error item only where n8n puts it there: an input item with json
	add({ group: 'error paths', name: '404 with a pairedItem-less first item and 2 inputs, continueRegularOutput', onError: 'continueRegularOutput', items: [{ json: { a: 1 } }, { json: { b: 2 } }], parameters: GET('/e'), handler: answer({ status: 404, body: { m: 1 } }) });

	// --- authentication ------------------------------------------------------------------------------
	const AUTH: Array<[string, string, ICredentialDataDecryptedObject]> = [
		['Basic', 'httpBasicAuth', { user: 'ada', password: 'pw-basic-1' }],
		['Bearer', 'httpBearerAuth', { token: 'tok-bearer-2' }],
		['Header', 'httpHeaderAuth', { name: 'X-Api-Key', value: 'key-header-3' }],
		['Query', 'httpQueryAuth', { name: 'api_key', value: 'key-query-4' }],
		['Custom (headers, qs)', 'httpCustomAuth', { json: JSON.stringify({ headers: { 'X-Custom': 'c-5' }, qs: { token: 'q-5' } }) }],
		['Custom (body)', 'httpCustomAuth', { json: JSON.stringify({ body: { secret: 'b-6' } }) }],
		['Digest', 'httpDigestAuth', { user: 'dg', password: 'pw-digest-7' }],
		['OAuth1', 'oAuth1Api', { consumerKey: 'ck-1', consumerSecret: 'cs-oauth1', signatureMethod: 'HMAC-SHA1', oauthTokenData: { oauth_token: 'tok-1', oauth_token_secret: 'ts-oauth1' } }],
	];
	const digest: CaseHandler = (ctx) => {
		const auth = ctx.request.rawHeaders.find(([n]) => n.toLowerCase() === 'authorization')?.[1] ?? '';
		if (!auth.startsWith('Digest ')) return { status: 401, headers: { 'www-authenticate': 'Digest realm="r", qop="auth", nonce="n0nce", opaque="op"' }, body: '' };
		return landing(ctx);
	};
	for (const [label, type, data] of AUTH) {
		const auth = { authentication: 'genericCredentialType', genericAuthType: type };
		const creds = { [type]: data };
		const base = label === 'Digest' ? digest : landing;
		const post = label.includes('body') ? { method: 'POST', sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] } } : {};
		add({ group: 'authentication', name: `${label}: GET`, credentials: creds, parameters: { url: `${BASE}/a`, ...auth, ...post, options: {} }, handler: base });
		add({ group: 'authentication', name: `${label}: with the node's own query and headers`, credentials: creds, parameters: { url: `${BASE}/a`, ...auth, ...post, sendQuery: true, queryParameters: { parameters: [{ name: 'q', value: '1' }] }, sendHeaders: true, headerParameters: { parameters: [{ name: 'X-Own', value: 'o' }] }, options: {} }, handler: base });
		if (label !== 'Digest') {
			add({ group: 'authentication', name: `${label}: a 401, continueErrorOutput`, onError: 'continueErrorOutput', credentials: creds, parameters: { url: `${BASE}/a`, ...auth, ...post, options: {} }, handler: answer({ status: 401, body: { error: 'expired' } }) });
			for (const tv of TYPE_VERSIONS) {
				add({ group: 'authentication', name: `${label}: cross-origin redirect (v${tv})`, typeVersion: tv, credentials: creds, parameters: { url: `${BASE}/start`, ...auth, ...post, options: {} }, handler: redirecting(302, (ctx) => `${ctx.otherBase}/final`) });
			}
			add({ group: 'authentication', name: `${label}: cross-origin redirect, Send Credentials on Cross-Origin Redirect on (v4.4)`, typeVersion: 4.4, credentials: creds, parameters: { url: `${BASE}/start`, ...auth, ...post, options: { sendCredentialsOnCrossOriginRedirect: true } }, handler: redirecting(302, (ctx) => `${ctx.otherBase}/final`) });
			add({ group: 'authentication', name: `${label}: cross-origin redirect, Send Credentials on Cross-Origin Redirect off (v4.2)`, typeVersion: 4.2, credentials: creds, parameters: { url: `${BASE}/start`, ...auth, ...post, options: { sendCredentialsOnCrossOriginRedirect: false } }, handler: redirecting(302, (ctx) => `${ctx.otherBase}/final`) });
			add({ group: 'authentication', name: `${label}: same-origin redirect`, credentials: creds, parameters: { url: `${BASE}/start`, ...auth, ...post, options: {} }, handler: redirecting(302, (ctx) => `${ctx.base}/final`) });
		}
	}
	add({ group: 'authentication', name: 'OAuth2 client credentials: GET', credentials: { oAuth2Api: { grantType: 'clientCredentials', accessTokenUrl: `${BASE}/token`, clientId: 'cid', clientSecret: 'cs', scope: '', authentication: 'header', authQueryParameters: '' } }, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'oAuth2Api', options: {} }, handler: (ctx) => (ctx.request.url === '/token' ? { body: { access_token: 'at-1', token_type: 'bearer', expires_in: 3600 } } : landing(ctx)) });
	add({ group: 'authentication', name: 'Basic with an allowed-domains list that excludes the host, continueErrorOutput', onError: 'continueErrorOutput', credentials: { httpBasicAuth: { user: 'u', password: 'p', allowedHttpRequestDomains: 'domains', allowedDomains: 'example.com' } }, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpBasicAuth', options: {} }, handler: landing });
	add({ group: 'authentication', name: 'Basic with an allowed-domains list that excludes the host, stop', onError: 'stopWorkflow', credentials: { httpBasicAuth: { user: 'u', password: 'p', allowedHttpRequestDomains: 'domains', allowedDomains: 'example.com' } }, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpBasicAuth', options: {} }, handler: landing });

	// --- pagination ------------------------------------------------------------------------------------
	const pageOf = (ctx: RouteContext) => Number(new URL(ctx.request.url, 'http://x').searchParams.get('page') ?? 1);
	const threePages: CaseHandler = (ctx) => {
		const page = pageOf(ctx);
		return { body: page <= 3 ? [{ page, n: 1 }, { page, n: 2 }] : [] };
	};
	const nextUrl: CaseHandler = (ctx) => {
		const page = pageOf(ctx);
		return { body: { items: [{ page }], next: page < 3 ? `${ctx.base}/list?page=${page + 1}` : null } };
	};
	const byParam = (extra: IDataObject = {}) => ({ pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] }, ...extra } } });
	const byNext = (extra: IDataObject = {}) => ({ pagination: { pagination: { paginationMode: 'responseContainsNextURL', nextURL: '={{ $response.body.next }}', ...extra } } });
	const untilEmpty = { paginationCompleteWhen: 'responseIsEmpty' };
	const paginationCases: Array<[string, IDataObject, CaseHandler, Partial<DiffCase>?]> = [
		['parameter, complete when the response is empty', byParam(untilEmpty), threePages],
		['parameter, default completion (empty response)', byParam(), threePages],
		['parameter, Max Pages 2', byParam({ ...untilEmpty, limitPagesFetched: true, maxRequests: 2 }), threePages],
		['parameter, status code 404 completes', byParam({ paginationCompleteWhen: 'receiveSpecificStatusCodes', statusCodesWhenComplete: '404' }), (ctx) => (pageOf(ctx) <= 2 ? threePages(ctx) : { status: 404, body: { message: 'end' } })],
		['parameter, status codes "404, 410" complete (410)', byParam({ paginationCompleteWhen: 'receiveSpecificStatusCodes', statusCodesWhenComplete: '404, 410' }), (ctx) => (pageOf(ctx) <= 2 ? threePages(ctx) : { status: 410, body: '' })],
		['parameter, complete expression', byParam({ paginationCompleteWhen: 'other', completeExpression: '={{ $response.body.length < 2 }}' }), (ctx) => ({ body: pageOf(ctx) < 3 ? [{ p: pageOf(ctx) }, { p: 0 }] : [{ p: 3 }] })],
		['parameter from $request ($request.qs.page + 1)', { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $request.qs.page + 1 }}' }] }, ...untilEmpty } } }, threePages, { parameters: { url: `${BASE}/list`, sendQuery: true, queryParameters: { parameters: [{ name: 'page', value: '1' }] } } }],
		['parameter in a header', { pagination: { pagination: { parameters: { parameters: [{ type: 'headers', name: 'X-Page', value: '={{ $pageCount + 1 }}' }] }, ...untilEmpty } } }, (ctx) => {
			const page = Number(ctx.request.rawHeaders.find(([n]) => n.toLowerCase() === 'x-page')?.[1] ?? 1);
			return { body: page <= 2 ? [{ page }] : [] };
		}],
		['parameter in a JSON body (POST)', { pagination: { pagination: { parameters: { parameters: [{ type: 'body', name: 'page', value: '={{ $pageCount + 1 }}' }] }, ...untilEmpty } } }, (ctx) => {
			const page = Number((JSON.parse(ctx.request.body.toString() || '{}') as { page?: number }).page ?? 1);
			return { body: page <= 2 ? [{ page }] : [] };
		}, { parameters: { method: 'POST', url: `${BASE}/list`, sendBody: true, bodyParameters: { parameters: [{ name: 'q', value: 'x' }] } } }],
		['next URL, complete expression', byNext({ paginationCompleteWhen: 'other', completeExpression: '={{ !$response.body.next }}' }), nextUrl],
		['next URL, Max Pages 2', byNext({ paginationCompleteWhen: 'other', completeExpression: '={{ !$response.body.next }}', limitPagesFetched: true, maxRequests: 2 }), nextUrl],
		['next URL, status code 404 completes', byNext({ nextURL: '={{ $response.body.next ?? $request.url + "&end=1" }}', paginationCompleteWhen: 'receiveSpecificStatusCodes', statusCodesWhenComplete: '404' }), (ctx) => (ctx.request.url.includes('end=1') ? { status: 404, body: '' } : nextUrl(ctx))],
		['next URL on another origin', byNext({ nextURL: `={{ $response.body.next ? $response.body.next.replace("${BASE}", "${OTHER}") : undefined }}`, paginationCompleteWhen: 'other', completeExpression: '={{ !$response.body.next }}' }), nextUrl],
		['a page that fails (500) mid-way, stop', byParam(untilEmpty), (ctx) => (pageOf(ctx) === 2 ? { status: 500, body: { error: 'boom' } } : threePages(ctx)), { resilientOnly: { maxAttempts: 1 }, note: 'maxAttempts 1: the node retries the 500' }],
		['a page that fails (400) mid-way, continueErrorOutput', byParam(untilEmpty), (ctx) => (pageOf(ctx) === 2 ? { status: 400, body: { error: 'bad page' } } : threePages(ctx)), { onError: 'continueErrorOutput' }],
		['a page that fails (400), complete expression, continueRegularOutput', byParam({ paginationCompleteWhen: 'other', completeExpression: '={{ $response.body.length === 0 }}' }), (ctx) => (pageOf(ctx) === 2 ? { status: 400, body: { error: 'bad page' } } : threePages(ctx)), { onError: 'continueRegularOutput' }],
		['Never Error and a 404 ending, complete expression', byParam({ paginationCompleteWhen: 'other', completeExpression: '={{ $response.statusCode === 404 }}' }), (ctx) => (pageOf(ctx) <= 2 ? threePages(ctx) : { status: 404, body: '' }), { parameters: { url: `${BASE}/list`, options: { ...byParam({ paginationCompleteWhen: 'other', completeExpression: '={{ $response.statusCode === 404 }}' }), response: { response: { neverError: true } } } } }],
		['with Include Response Headers and Status', { ...byParam(untilEmpty), response: { response: { fullResponse: true } } }, threePages],
		['with Response Format text', { ...byParam({ paginationCompleteWhen: 'other', completeExpression: '={{ $pageCount >= 2 }}' }), response: { response: { responseFormat: 'text' } } }, (ctx) => ({ headers: { 'content-type': 'text/plain' }, body: `page ${pageOf(ctx)}` })],
		['with Response Format file', { ...byParam({ paginationCompleteWhen: 'other', completeExpression: '={{ $pageCount >= 2 }}' }), response: { response: { responseFormat: 'file' } } }, (ctx) => ({ headers: { 'content-type': 'application/pdf' }, body: PDF.toString('latin1') + pageOf(ctx) })],
		['objects pages (not arrays), empty object ends', byParam(untilEmpty), (ctx) => ({ body: pageOf(ctx) <= 2 ? { page: pageOf(ctx) } : {} })],
		['invalid: no parameter filled', { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: '', value: '' }] } } } }, threePages],
		['invalid: parameter without value', { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '' }] } } } }, threePages],
		['invalid: Complete Expression not an expression', byParam({ paginationCompleteWhen: 'other', completeExpression: 'true' }), threePages],
		['with 2 items', byParam(untilEmpty), threePages, { items: [{ json: { n: 1 } }, { json: { n: 2 } }] }],
	];
	for (const [label, options, handler, extra = {}] of paginationCases) {
		const { parameters: override, ...rest } = extra;
		const parameters = override ? { ...override, options: (override.options as IDataObject | undefined) ?? options } : { url: `${BASE}/list`, options };
		add({ group: 'pagination', name: label, parameters, handler, ...rest });
	}
	for (const tv of [4, 4.1, 4.3, 4.4] as const) {
		add({ group: 'pagination', name: `parameter, empty response (v${tv})`, typeVersion: tv, parameters: { url: `${BASE}/list`, options: byParam(untilEmpty) }, handler: threePages });
	}
	add({
		group: 'pagination',
		name: '$request in an expression reads a credential header',
		credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'key-pag-9' } },
		parameters: { url: `${BASE}/list`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', options: { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }, { type: 'qs', name: 'seen', value: '={{ String($request.headers["X-Api-Key"]) }}' }] }, ...untilEmpty } } } },
		handler: threePages,
	});

	// --- items: pairing and input data ----------------------------------------------------------------
	for (const [kind, path] of [['json array', '/r'], ['png with Content-Disposition', '/img/chart.png'], ['text/plain', '/r']] as const) {
		add({ group: 'items', name: `3 items, ${kind}`, items: [{ json: { n: 1 } }, { json: { n: 2 }, binary: DEFAULT_ITEMS[0].binary }, { json: { n: 3 } }], parameters: GET(path), handler: answer(RESPONSE_KINDS[kind]) });
	}
	add({ group: 'items', name: 'URL from the item', items: [{ json: { path: 'one' } }, { json: { path: 'two' } }], parameters: { url: `=${BASE}/{{ $json.path }}`, options: {} }, handler: echo });
	add({ group: 'items', name: 'an item with no json fields', items: [{ json: {} }], parameters: GET('/r'), handler: echo });
	add({ group: 'items', name: 'a response with null values', parameters: GET('/r'), handler: answer({ headers: { 'content-type': 'application/json' }, body: '{"a":null,"b":[null]}' }) });

	return all;
}

export const CASES: readonly DiffCase[] = cases();
