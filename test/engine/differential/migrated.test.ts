/**
 * The migrate command's result against the node it replaced, proved the way the differential suite
 * proves v4: each case runs n8n-nodes-base's own HTTP Request (v1 and v2, whose parameters the
 * command translates, and v4 where a default differs), then the node the migrate command made of it
 * (cli/migrate-workflow.ts), against the same local server, and what the server received must be
 * the same: method, URL with its query, headers and body. Header names are compared without their
 * case (HTTP's rule; v1 and v2 send some capitalised). What a successful item holds (json and
 * binary) is compared too, the retry story aside; where it differs on purpose, the case names the note of the migrate
 * report that says so.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { migrateWorkflow, type WorkflowNode } from '../../../cli/migrate-workflow';
import { runCase } from './engine-run';
import { BASE, caseId, diff, pool, referenceNodeOf, type Difference, type Observation } from './harness';
import { startDiffServer, type CaseHandler, type DiffServer } from './server';

interface LegacyCase {
	group: string;
	name: string;
	typeVersion: number;
	/** HTTP Request's parameters as a saved workflow holds them (BASE / OTHER in URLs). */
	parameters: IDataObject;
	handler: CaseHandler;
	items?: INodeExecutionData[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	/** Where the items differ on purpose: the start of the migrate report's note that says how. */
	itemsDiffer?: string;
}

const echo: CaseHandler = ({ request }) => ({ body: { method: request.method, url: request.url, bodyLength: request.body.length } });
const answer =
	(body: unknown, status = 200, headers: Record<string, string> = {}): CaseHandler =>
	() => ({ status, body: body as object, headers });
const ui = (pairs: Record<string, string> | Array<[string, string]>) => ({ parameter: (Array.isArray(pairs) ? pairs : Object.entries(pairs)).map(([name, value]) => ({ name, value })) });
const redirectTo: CaseHandler = ({ request, base }) => (request.url.startsWith('/target') ? { body: { arrived: request.method } } : { status: 302, headers: { location: `${base}/target` } });
const threeItems: INodeExecutionData[] = [1, 2, 3].map((id) => ({ json: { id } }));
const upload = (name: string, text: string, mimeType: string) => ({ [name]: { data: Buffer.from(text).toString('base64'), mimeType, fileName: `${name}.txt`, fileExtension: 'txt' } });

const ERROR_ITEM = "a failed request's error reads as HTTP Request v3 and later give it";
const RAW_OUTPUT = "with Body Content Type RAW/Custom, HTTP Request v1 and v2 output the answer's stream object";

const CASES: LegacyCase[] = [];
for (const typeVersion of [1, 2] as const) {
	const add = (group: string, name: string, parameters: IDataObject, handler: CaseHandler = echo, extra: Partial<LegacyCase> = {}) => CASES.push({ group, name: `v${typeVersion} ${name}`, typeVersion, parameters, handler, ...extra });
	add('defaults', 'GET with only a URL', { url: `${BASE}/orders` });
	add('defaults', 'GET answered with a JSON array', { url: `${BASE}/list` }, answer([{ n: 1 }, { n: 2 }]), { itemsDiffer: 'a JSON array answer now gives one item per element' });
	add('defaults', 'GET answered with a JSON array, Split Into Items', { url: `${BASE}/list`, options: { splitIntoItems: true } }, answer([{ n: 1 }, { n: 2 }]));
	add('methods', 'HEAD', { requestMethod: 'HEAD', url: `${BASE}/m` }, answer(undefined, 200, { 'content-type': 'application/json', 'x-h': '1' }));
	add('methods', 'OPTIONS', { requestMethod: 'OPTIONS', url: `${BASE}/m` });
	add('methods', 'a URL and a value from each item', { requestMethod: 'POST', url: `=${BASE}/items/{{ $json.id }}`, bodyParametersUi: ui({ id: '={{ $json.id }}', label: '=item {{ $json.id }}' }), options: {} }, echo, { items: threeItems });
	for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
		add('methods', `${method} with Body Parameters (JSON)`, { requestMethod: method, url: `${BASE}/m`, bodyParametersUi: ui({ a: '1', b: 'two' }), options: {} });
	}
	add('query', 'Query Parameters, a name given twice', { url: `${BASE}/q`, queryParametersUi: ui([['tag', 'a'], ['tag', 'b'], ['limit', '10']]), options: {} });
	add('query', 'Query Parameters, a name given twice, Use Querystring', { url: `${BASE}/q`, queryParametersUi: ui([['tag', 'a'], ['tag', 'b']]), options: { useQueryString: true } });
	add('query', 'Query Parameters as JSON with an array', { url: `${BASE}/q`, jsonParameters: true, queryParametersJson: '{"tag": ["a", "b"]}', options: {} });
	add('query', 'Query Parameters as JSON with an array, Use Querystring', { url: `${BASE}/q`, jsonParameters: true, queryParametersJson: '{"tag": ["a", "b"]}', options: { useQueryString: true } });
	add('query', 'Query Parameters as JSON', { url: `${BASE}/q`, jsonParameters: true, queryParametersJson: '{"page": 2, "q": "a b"}', options: {} });
	add('headers', 'Headers in the panel, mixed case, one given twice', { url: `${BASE}/h`, headerParametersUi: ui([['X-Api-Version', '1'], ['x-api-version', '2'], ['X-Trace', 't']]), options: {} });
	add('headers', 'an Accept header in the panel (v1 keeps it)', { url: `${BASE}/h`, headerParametersUi: ui([['Accept', 'application/xml']]), options: {} }, answer({ xml: false }));
	add('headers', 'Headers as JSON, names as written', { url: `${BASE}/h`, jsonParameters: true, headerParametersJson: '{"X-Api-Version": "3", "accept": "text/csv"}', options: {} }, answer({ csv: false }));
	add('body', 'POST Body Parameters as JSON text', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '{"order": {"id": 7, "lines": [1, 2]}}', options: {} });
	add('body', 'POST Body Parameters from an expression', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '={{ JSON.stringify({ id: $json.id, name: $json.name }) }}', options: {} });
	add('body', 'POST Body Parameters from an expression giving an object', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '={{ $json }}', options: {} });
	add('body', 'POST Body Parameters named with a dot and a bracket', { requestMethod: 'POST', url: `${BASE}/b`, bodyParametersUi: ui({ 'user.name': 'Ada', 'tags[0]': 'a' }), options: {} });
	add('body', 'POST form-urlencoded from the panel', { requestMethod: 'POST', url: `${BASE}/b`, bodyParametersUi: ui({ a: '1', city: 'Zürich' }), options: { bodyContentType: 'form-urlencoded' } });
	add('body', 'POST form-urlencoded from JSON', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '{"a": 1, "b": "x y"}', options: { bodyContentType: 'form-urlencoded' } });
	add('body', 'POST multipart from the panel', { requestMethod: 'POST', url: `${BASE}/b`, bodyParametersUi: ui({ a: '1', b: 'two' }), options: { bodyContentType: 'multipart-form-data' } });
	add('body', 'PUT raw with a MIME type', { requestMethod: 'PUT', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '<order id="7"/>', options: { bodyContentType: 'raw', bodyContentCustomMimeType: 'application/xml' } }, echo, { itemsDiffer: RAW_OUTPUT });
	add('body', 'POST raw without a MIME type', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: 'plain words', options: { bodyContentType: 'raw' } }, echo, { itemsDiffer: RAW_OUTPUT });
	add('body', 'POST a file as the raw body with a MIME type', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, sendBinaryData: true, binaryPropertyName: 'upload', options: { bodyContentType: 'raw', bodyContentCustomMimeType: 'text/plain' } }, echo, { itemsDiffer: RAW_OUTPUT });
	add('body', 'POST a JSON body with a MIME type', { requestMethod: 'POST', url: `${BASE}/b`, bodyParametersUi: ui({ a: '1' }), options: { bodyContentCustomMimeType: 'application/vnd.api+json' } });
	add('body', 'DELETE a JSON body, form and a MIME type chosen (hidden on DELETE: JSON)', { requestMethod: 'DELETE', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '{"id": 7}', options: { bodyContentType: 'form-urlencoded', bodyContentCustomMimeType: 'application/merge-patch+json' } });
	add('body', 'POST form-urlencoded with a MIME type (the form type wins)', { requestMethod: 'POST', url: `${BASE}/b`, bodyParametersUi: ui({ a: '1' }), options: { bodyContentType: 'form-urlencoded', bodyContentCustomMimeType: 'text/plain' } });
	add('body', 'GET with a saved body (hidden: not sent)', { url: `${BASE}/b`, bodyParametersUi: ui({ a: '1' }), options: {} });
	add('body', 'OPTIONS with a saved JSON body (hidden: not sent)', { requestMethod: 'OPTIONS', url: `${BASE}/b`, jsonParameters: true, bodyParametersJson: '{"a": 1}', options: {} });
	add('body', 'DELETE with Send Binary File saved (hidden, and it hides the JSON body: none sent)', { requestMethod: 'DELETE', url: `${BASE}/b`, jsonParameters: true, sendBinaryData: true, binaryPropertyName: 'upload', bodyParametersJson: '{"id": 7}', options: {} });
	add('body', 'POST files as multipart fields', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, sendBinaryData: true, binaryPropertyName: 'doc:upload,note:other', options: { bodyContentType: 'multipart-form-data' } }, echo, { items: [{ json: { id: 1 }, binary: { ...upload('upload', 'hello upload\n', 'text/plain'), ...upload('other', 'second file', 'text/plain') } }] });
	add('response', 'Response Format String into a field', { url: `${BASE}/s`, responseFormat: 'string', dataPropertyName: 'page' }, answer('<p>hi</p>', 200, { 'content-type': 'text/html' }));
	add('response', 'Response Format File', { url: `${BASE}/f`, responseFormat: 'file', dataPropertyName: 'download' }, answer(Buffer.from('%PDF-1.4'), 200, { 'content-type': 'application/pdf' }));
	add('response', 'Response Format File on a POST without a body', { requestMethod: 'POST', url: `${BASE}/f`, responseFormat: 'file' }, answer(Buffer.from('%PDF-1.4'), 200, { 'content-type': 'application/pdf' }));
	add('response', 'Response Format File on a POST with a JSON body', { requestMethod: 'POST', url: `${BASE}/f`, responseFormat: 'file', bodyParametersUi: ui({ report: 'q3' }), options: {} }, answer(Buffer.from('%PDF-1.4'), 200, { 'content-type': 'application/pdf' }));
	add('response', 'Response Format File with Full Response', { url: `${BASE}/f`, responseFormat: 'file', options: { fullResponse: true } }, answer(Buffer.from('%PDF-1.4'), 200, { 'content-type': 'application/pdf' }));
	add('body', 'POST a file as multipart, one field (named file)', { requestMethod: 'POST', url: `${BASE}/b`, jsonParameters: true, sendBinaryData: true, binaryPropertyName: 'upload', options: { bodyContentType: 'multipart-form-data' } });
	add('response', 'Response Format String with Full Response', { url: `${BASE}/s`, responseFormat: 'string', options: { fullResponse: true } }, answer('plain', 200, { 'content-type': 'text/plain' }));
	add('response', 'Response Format File on a form POST', { requestMethod: 'POST', url: `${BASE}/f`, responseFormat: 'file', bodyParametersUi: ui({ a: '1' }), options: { bodyContentType: 'form-urlencoded' } }, answer(Buffer.from('%PDF-1.4'), 200, { 'content-type': 'application/pdf' }));
	add('response', 'Full Response', { url: `${BASE}/full`, options: { fullResponse: true } }, answer({ ok: true }, 200, { 'x-total': '3' }));
	add('response', 'Ignore Response Code on a 404', { url: `${BASE}/missing`, options: { ignoreResponseCode: true } }, answer({ error: 'not found' }, 404));
	add('errors', 'a 404, Continue (regular output)', { url: `${BASE}/missing` }, answer({ error: 'not found' }, 404), { onError: 'continueRegularOutput', itemsDiffer: ERROR_ITEM });
	add('errors', 'a 422 on a POST, Continue (error output)', { requestMethod: 'POST', url: `${BASE}/orders`, bodyParametersUi: ui({ id: '7' }), options: {} }, answer({ error: 'invalid' }, 422), { onError: 'continueErrorOutput' });
	add('redirects', 'GET follows a redirect', { url: `${BASE}/r` }, redirectTo);
	add('redirects', 'GET with Follow GET/HEAD Redirect off', { url: `${BASE}/r`, options: { followRedirect: false, ignoreResponseCode: true } }, redirectTo);
	add('redirects', 'POST does not follow a redirect', { requestMethod: 'POST', url: `${BASE}/r`, options: { ignoreResponseCode: true } }, redirectTo);
	add('redirects', 'POST with Follow All Redirects', { requestMethod: 'POST', url: `${BASE}/r`, options: { followAllRedirects: true } }, redirectTo);
	add('options', 'Batching, Timeout, Ignore SSL Issues', { url: `${BASE}/o`, allowUnauthorizedCerts: true, options: { batchSize: 1, batchInterval: 5, timeout: 20000 } }, echo, { items: threeItems });
	add('options', 'Batch Size alone (no batching in v1 and v2)', { url: `${BASE}/o`, options: { batchSize: 2 } }, echo, { items: threeItems });
}
const digestFirst: CaseHandler = (ctx) => {
	const auth = ctx.request.rawHeaders.find(([n]) => n.toLowerCase() === 'authorization')?.[1] ?? '';
	return auth.startsWith('Digest ') ? echo(ctx) : { status: 401, headers: { 'www-authenticate': 'Digest realm="r", qop="auth", nonce="n0nce", opaque="op"' }, body: '' };
};
const tokenThenEcho: CaseHandler = (ctx) => (ctx.request.url === '/token' ? { body: { access_token: 'at-1', token_type: 'bearer', expires_in: 3600 } } : echo(ctx));
const digest = { httpDigestAuth: { user: 'dg', password: 'pw-digest' } };
const oAuth1 = { oAuth1Api: { consumerKey: 'ck-1', consumerSecret: 'cs-oauth1', signatureMethod: 'HMAC-SHA1', oauthTokenData: { oauth_token: 'tok-1', oauth_token_secret: 'ts-oauth1' } } };
const oAuth2 = { oAuth2Api: { grantType: 'clientCredentials', accessTokenUrl: `${BASE}/token`, clientId: 'cid', clientSecret: 'cs', scope: '', authentication: 'header', authQueryParameters: '' } };
const basic = { httpBasicAuth: { user: 'ada', password: 's3cret' } };
const header = { httpHeaderAuth: { name: 'X-Api-Key', value: 'k-123' } };
const query = { httpQueryAuth: { name: 'api_key', value: 'k-456' } };
CASES.push(
	{ group: 'auth', name: 'v1 Basic Auth', typeVersion: 1, parameters: { url: `${BASE}/a`, authentication: 'basicAuth' }, handler: echo, credentials: basic },
	{ group: 'auth', name: 'v1 Header Auth', typeVersion: 1, parameters: { url: `${BASE}/a`, authentication: 'headerAuth' }, handler: echo, credentials: header },
	{ group: 'auth', name: 'v1 Query Auth with Query Parameters', typeVersion: 1, parameters: { url: `${BASE}/a`, authentication: 'queryAuth', queryParametersUi: ui({ page: '1' }), options: {} }, handler: echo, credentials: query },
	{ group: 'auth', name: 'v2 generic Basic Auth', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpBasicAuth' }, handler: echo, credentials: basic },
	{ group: 'auth', name: 'v2 generic Header Auth', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' }, handler: echo, credentials: header },
	{ group: 'auth', name: 'v1 Digest Auth', typeVersion: 1, parameters: { url: `${BASE}/a`, authentication: 'digestAuth' }, handler: digestFirst, credentials: digest },
	{ group: 'auth', name: 'v2 generic Digest Auth', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpDigestAuth' }, handler: digestFirst, credentials: digest },
	{ group: 'auth', name: 'v1 OAuth1', typeVersion: 1, parameters: { url: `${BASE}/a`, authentication: 'oAuth1' }, handler: echo, credentials: oAuth1 },
	{ group: 'auth', name: 'v1 OAuth1, POST a JSON body, query', typeVersion: 1, parameters: { requestMethod: 'POST', url: `${BASE}/a`, authentication: 'oAuth1', bodyParametersUi: ui({ a: '1' }), queryParametersUi: ui({ q: 'x' }), options: {} }, handler: echo, credentials: oAuth1 },
	{ group: 'auth', name: 'v2 generic OAuth1, Response Format File', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'oAuth1Api', responseFormat: 'file' }, handler: answer(Buffer.from('%PDF-1.4'), 200, { 'content-type': 'application/pdf' }), credentials: oAuth1 },
	{ group: 'auth', name: 'v1 OAuth2 (client credentials)', typeVersion: 1, parameters: { url: `${BASE}/a`, authentication: 'oAuth2' }, handler: tokenThenEcho, credentials: oAuth2 },
	{ group: 'auth', name: 'v2 generic OAuth2 (client credentials)', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'oAuth2Api' }, handler: tokenThenEcho, credentials: oAuth2 },
	{ group: 'auth', name: 'v2 generic Query Auth', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpQueryAuth' }, handler: echo, credentials: query },
	{ group: 'auth', name: 'v2 predefined GitHub API', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'predefinedCredentialType', nodeCredentialType: 'githubApi' }, handler: echo, credentials: { githubApi: { server: 'https://api.github.com', user: 'ada', accessToken: 'ghp-123' } } },
	// v4: the parameters whose default differs from this node's, left unset (cli/default-differences.ts)
	{ group: 'defaults', name: 'v4.2 raw body, Content Type never set', typeVersion: 4.2, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'raw', body: 'plain words', options: {} }, handler: echo },
	{ group: 'defaults', name: 'v4.2 binary body, Input Data Field Name never set', typeVersion: 4.2, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'binaryData', options: {} }, handler: echo, items: [{ json: { id: 1 }, binary: upload('data', 'in data', 'text/plain') }] },
	{ group: 'defaults', name: 'v4.2 raw body, Content Type text/csv', typeVersion: 4.2, parameters: { method: 'POST', url: `${BASE}/b`, sendBody: true, contentType: 'raw', rawContentType: 'text/csv', body: 'a,b', options: {} }, handler: echo },
	{ group: 'auth', name: 'v2 generic Bearer Auth', typeVersion: 2, parameters: { url: `${BASE}/a`, authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth' }, handler: echo, credentials: { httpBearerAuth: { token: 'tok-789' } } },
);

/** The node a user's workflow holds, and the node the migrate command made of it. */
function legacyNodes(c: LegacyCase, base: string, other: string): { reference: INode; resilient: INode } {
	const reference = referenceNodeOf(c, base, other);
	const result = migrateWorkflow({ nodes: [reference as unknown as WorkflowNode], connections: {} });
	if (result.nodes[0]?.action !== 'migrated') throw new Error(`${caseId(c)} was kept: ${result.nodes[0]?.changes.join('; ')}`);
	return { reference, resilient: result.workflow.nodes[0] as unknown as INode };
}

/** A request as the server got it, header names in lowercase (`name: value`). */
function requestsOf(observation: Observation): unknown[] {
	return (observation.requests as Array<{ headers: Record<string, string> }>).map((r) => ({
		...r,
		headers: Object.fromEntries(Object.entries(r.headers).map(([name, line]) => [name, `${name}${line.slice(name.length)}`])),
	}));
}

/**
 * The successful items: json (the retry story aside) and binary (bytes and metadata). A file's
 * `directory`, the one field that differs, is left out (docs/migration.md says so): after a POST,
 * v1 and v2 take it from the request's path (`c/<case>`), the node from the answer's URL.
 */
const successJson = (observation: Observation) =>
	(observation.outputs[0] ?? []).map((item) => {
		const { json: whole, binary } = item as { json?: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> };
		const { _retry: _story, ...json } = whole ?? {};
		if (binary === undefined) return { json };
		return { json, binary: Object.fromEntries(Object.entries(binary).map(([key, { directory: _directory, ...file }]) => [key, file])) };
	});

describe('migrate: HTTP Request (v1, v2, v4) against the node the migrate command makes of it', () => {
	let server: DiffServer;
	const results = new Map<string, { requests: Difference[]; items: Difference[] }>();
	beforeAll(async () => {
		server = await startDiffServer();
		const pairs = await pool(CASES, 4, async (c, index) => await runCase(c, server, `legacy${index}`, legacyNodes));
		CASES.forEach((c, index) => {
			const { reference, resilient } = pairs[index];
			results.set(caseId(c), { requests: diff(requestsOf(reference), requestsOf(resilient)), items: diff(successJson(reference), successJson(resilient)) });
		});
	}, 120_000);
	afterAll(async () => {
		await server.close();
	});

	it.each(CASES.map(caseId))('%s: the server receives the same requests', (id) => {
		expect(results.get(id)?.requests).toEqual([]);
	});

	it.each(CASES.filter((c) => !c.itemsDiffer).map(caseId))('%s: the same successful items', (id) => {
		expect(results.get(id)?.items).toEqual([]);
	});

	it.each(CASES.filter((c) => c.itemsDiffer).map((c) => [caseId(c), c] as const))('%s: items that differ, and the migrate report says how', (id, c) => {
		expect(results.get(id)?.items.length).toBeGreaterThan(0);
		const report = migrateWorkflow({ nodes: [legacyNodes(c, 'http://a.test', 'http://b.test').reference as unknown as WorkflowNode], connections: {} }).nodes[0];
		expect(report?.notes.some((note) => note.startsWith(c.itemsDiffer ?? '-'))).toBe(true);
	});

	it('covers both versions and every group', () => {
		expect(new Set(CASES.map(caseId)).size).toBe(CASES.length);
		expect(CASES.filter((c) => c.typeVersion === 1).length).toBeGreaterThanOrEqual(30);
		expect(CASES.filter((c) => c.typeVersion === 2).length).toBeGreaterThanOrEqual(30);
	});
});
