/**
 * The migrate command on HTTP Request v1 and v2 nodes: the v3 parameters it writes for each of
 * their settings, and the settings it keeps a node for, with the reason. What the migrated node
 * sends is proved against the real v1 and v2 nodes in test/engine/differential/migrated.test.ts.
 */
import { HTTP_REQUEST_TYPE, RESILIENT_TYPE, migrateWorkflow, type WorkflowNode } from '../../cli/migrate-workflow';

const legacy = (typeVersion: number, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}): WorkflowNode => ({ id: 'old', name: 'Old', type: HTTP_REQUEST_TYPE, typeVersion, position: [0, 0], parameters, ...extra });
const migrate = (node: WorkflowNode) => {
	const result = migrateWorkflow({ nodes: [node], connections: {} });
	return { node: result.workflow.nodes[0], report: result.nodes[0] };
};
const ui = (pairs: Array<[string, string]>) => ({ parameter: pairs.map(([name, value]) => ({ name, value })) });

describe('HTTP Request v1 and v2: migrated', () => {
	it('keeps name, credentials and settings; the report says the parameters were translated', () => {
		const node = legacy(1, { url: 'https://x.test/' }, { credentials: { httpBasicAuth: { id: 'c1', name: 'Basic' } }, notes: 'keep', onError: 'continueErrorOutput' });
		node.parameters = { url: 'https://x.test/', authentication: 'basicAuth' };
		const { node: migrated, report } = migrate(node);
		expect(migrated).toMatchObject({ id: 'old', name: 'Old', type: RESILIENT_TYPE, typeVersion: 1, credentials: { httpBasicAuth: { id: 'c1', name: 'Basic' } }, notes: 'keep', onError: 'continueErrorOutput' });
		expect(report?.action).toBe('migrated');
		expect(report?.changes.slice(0, 2)).toEqual([
			`type ${HTTP_REQUEST_TYPE} v1 -> ${RESILIENT_TYPE} v1`,
			'parameters of HTTP Request v1 written as their v3 equivalents, each value explicit (method, response format, redirects, body, headers, query)',
		]);
	});

	it.each([
		['basicAuth', 'httpBasicAuth'],
		['digestAuth', 'httpDigestAuth'],
		['headerAuth', 'httpHeaderAuth'],
		['queryAuth', 'httpQueryAuth'],
		['oAuth1', 'oAuth1Api'],
		['oAuth2', 'oAuth2Api'],
	])("v1's Authentication %s becomes the generic type %s (the credential it already reads)", (authentication, genericAuthType) => {
		expect(migrate(legacy(1, { url: 'https://x.test/', authentication })).node.parameters).toMatchObject({ authentication: 'genericCredentialType', genericAuthType });
	});

	it("v2's predefined and generic credential types are kept as they are", () => {
		expect(migrate(legacy(2, { url: 'https://x.test/', authentication: 'predefinedCredentialType', nodeCredentialType: 'stripeApi' })).node.parameters).toMatchObject({ authentication: 'predefinedCredentialType', nodeCredentialType: 'stripeApi' });
		expect(migrate(legacy(2, { url: 'https://x.test/', authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth' })).node.parameters).toMatchObject({ authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth' });
	});

	it('panel parameters: a JSON body, lowercased headers with the last of a name, every value of a repeated query name', () => {
		const { node } = migrate(
			legacy(1, {
				requestMethod: 'POST',
				url: 'https://x.test/',
				bodyParametersUi: ui([['a', '1'], ['b', '2'], ['a', '3']]),
				headerParametersUi: ui([['X-Key', 'one'], ['x-key', 'two']]),
				queryParametersUi: ui([['tag', 'a'], ['tag', 'b']]),
				options: { useQueryString: true },
			}),
		);
		expect(node.parameters).toMatchObject({
			method: 'POST',
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: { parameters: [{ name: 'a', value: '3' }, { name: 'b', value: '2' }] },
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'x-key', value: 'two' }] },
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'tag', value: 'a' }, { name: 'tag', value: 'b' }] },
			options: { queryParameterArrays: 'repeat', redirect: { redirect: { followRedirects: false } } },
		});
	});

	it('JSON/RAW parameters: JSON body, headers with their names as written, query; a form body from a JSON object', () => {
		const json = migrate(legacy(2, { requestMethod: 'PUT', url: 'https://x.test/', jsonParameters: true, bodyParametersJson: '{"a":1}', headerParametersJson: '{"X-Key":"k"}', queryParametersJson: '{"q":"x"}' })).node.parameters;
		expect(json).toMatchObject({ sendBody: true, specifyBody: 'json', jsonBody: '{"a":1}', specifyHeaders: 'json', jsonHeaders: '{"X-Key":"k"}', specifyQuery: 'json', jsonQuery: '{"q":"x"}', options: { lowercaseHeaders: false, queryParameterArrays: 'indices' } });
		const form = migrate(legacy(1, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, bodyParametersJson: '{"a":1,"b":"x"}', options: { bodyContentType: 'form-urlencoded' } })).node.parameters;
		expect(form).toMatchObject({ contentType: 'form-urlencoded', specifyBody: 'keypair', bodyParameters: { parameters: [{ name: 'a', value: '1' }, { name: 'b', value: 'x' }] } });
	});

	it('a JSON body whose names have dots or brackets, all values fixed: the JSON text v1 sent', () => {
		const { node } = migrate(legacy(1, { requestMethod: 'POST', url: 'https://x.test/', bodyParametersUi: ui([['user.name', 'Ada'], ['tags[0]', 'a']]) }));
		expect(node.parameters).toMatchObject({ sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody: '{"user.name":"Ada","tags[0]":"a"}' });
	});

	it("a body saved where the panel hides it (GET, OPTIONS) is left out, as n8n never handed it to v1 and v2; a MIME type over a JSON body becomes its Content-Type header", () => {
		expect(migrate(legacy(1, { url: 'https://x.test/', bodyParametersUi: ui([['a', '1']]) })).node.parameters).not.toHaveProperty('sendBody');
		expect(migrate(legacy(2, { requestMethod: 'OPTIONS', url: 'https://x.test/', jsonParameters: true, bodyParametersJson: '{"a":1}' })).node.parameters).not.toHaveProperty('sendBody');
		const typed = migrate(legacy(1, { requestMethod: 'POST', url: 'https://x.test/', bodyParametersUi: ui([['a', '1']]), options: { bodyContentCustomMimeType: 'application/vnd.api+json' } })).node.parameters;
		expect(typed).toMatchObject({ contentType: 'json', sendHeaders: true, headerParameters: { parameters: [{ name: 'content-type', value: 'application/vnd.api+json' }] } });
	});

	it("OAuth1 (v1's, v2's generic, a predefined OAuth1 type): the Accept n8n's OAuth1 helper left, as the only header", () => {
		const accept = (version: number, parameters: Record<string, unknown>) => migrate(legacy(version, { url: 'https://x.test/', ...parameters })).node.parameters?.headerParameters;
		expect(accept(1, { authentication: 'oAuth1' })).toEqual({ parameters: [{ name: 'accept', value: 'application/json' }] });
		expect(accept(2, { authentication: 'genericCredentialType', genericAuthType: 'oAuth1Api', responseFormat: 'file' })).toEqual({ parameters: [{ name: 'accept', value: '*/*' }] });
		expect(accept(2, { authentication: 'predefinedCredentialType', nodeCredentialType: 'trelloOAuth1Api' })).toEqual({ parameters: [{ name: 'accept', value: 'application/json' }] });
		expect(accept(1, { authentication: 'oAuth2' })).toBeUndefined();
	});

	it('a file: raw with its MIME type as the Content-Type header, or multipart fields named key:field', () => {
		const raw = migrate(legacy(1, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, sendBinaryData: true, binaryPropertyName: 'file', options: { bodyContentType: 'raw', bodyContentCustomMimeType: 'image/png' } })).node.parameters;
		expect(raw).toMatchObject({ contentType: 'binaryData', inputDataFieldName: 'file', headerParameters: { parameters: [{ name: 'content-type', value: 'image/png' }] } });
		const multipart = migrate(legacy(1, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, sendBinaryData: true, binaryPropertyName: 'doc:a, img:b', options: { bodyContentType: 'multipart-form-data' } })).node.parameters;
		expect(multipart?.bodyParameters).toEqual({ parameters: [{ parameterType: 'formBinaryData', name: 'doc', inputDataFieldName: 'a' }, { parameterType: 'formBinaryData', name: 'img', inputDataFieldName: 'b' }] });
	});

	it('response and options: String into its field, full response, never error, batching when both are set, proxy, timeout, certificates', () => {
		const { node, report } = migrate(
			legacy(1, { url: 'https://x.test/', responseFormat: 'string', dataPropertyName: 'page', allowUnauthorizedCerts: true, options: { fullResponse: true, ignoreResponseCode: true, batchSize: 0, batchInterval: 200, proxy: 'http://proxy:3128', timeout: 60000, followRedirect: false } }),
		);
		expect(node.parameters?.options).toEqual({
			response: { response: { responseFormat: 'text', outputPropertyName: 'page', fullResponse: true, neverError: true } },
			redirect: { redirect: { followRedirects: false } },
			batching: { batch: { batchSize: 1, batchInterval: 200 } },
			proxy: 'http://proxy:3128',
			timeout: 60000,
			allowUnauthorizedCerts: true,
		});
		expect(report?.changes).toContain('Attempt Timeout set to the node\'s Timeout, 60000 ms (each attempt must be allowed as long as one request was)');
		expect(migrate(legacy(1, { url: 'https://x.test/', options: { batchSize: 10 } })).node.parameters?.options).not.toHaveProperty('batching');
	});

	it("notes what changes: a JSON array's items, the 1-hour wait, credentials on a cross-origin redirect", () => {
		const { report } = migrate(legacy(1, { url: 'https://x.test/', authentication: 'headerAuth' }));
		expect(report?.notes).toEqual(
			expect.arrayContaining([
				'a JSON array answer now gives one item per element (HTTP Request v1 and v2 gave one item holding the array unless Split Into Items was on)',
				'each attempt is bounded by Attempt Timeout (30 s) where HTTP Request waited up to 1 hour for an answer: raise it for slow APIs (LLMs, reports)',
				'credentials no longer follow a redirect to another origin (HTTP Request before v4.4 sent them): set Options > Send Credentials on Cross-Origin Redirect to keep that',
			]),
		);
		expect(migrate(legacy(1, { url: 'https://x.test/', options: { splitIntoItems: true } })).report?.notes.join(' ')).not.toContain('one item per element');
	});
});

describe('HTTP Request v1 and v2: kept, with the reason, where the new node would send something else', () => {
	it.each([
		['v2 generic type v2 does not apply', 2, { url: 'https://x.test/', authentication: 'genericCredentialType', genericAuthType: 'httpCustomAuth' }, 'HTTP Request v2: Authentication "genericCredentialType" with the generic auth type "httpCustomAuth": HTTP Request v2 sends no credential with it, Resilient HTTP Request would'],
		['a file as JSON', 1, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, sendBinaryData: true }, 'HTTP Request v1: Send Binary File with Body Content Type "json": HTTP Request v1 and v2 fail every item with it (they send a file as RAW/Custom or Form-Data Multipart only)'],
		['a raw file without MIME type', 2, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, sendBinaryData: true, options: { bodyContentType: 'raw' } }, "HTTP Request v2: Send Binary File with Body Content Type RAW/Custom and no MIME Type: HTTP Request v1 and v2 send the file typed application/x-www-form-urlencoded (axios's default), which Resilient HTTP Request does not do with a file"],
		['a multipart body from an expression', 1, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, bodyParametersJson: '={{ $json.form }}', options: { bodyContentType: 'multipart-form-data' } }, 'HTTP Request v1: Body Parameters (JSON) sent as multipart-form-data from an expression: Resilient HTTP Request takes form fields one by one'],
		['a JSON body name with a dot, a value from an expression', 1, { requestMethod: 'POST', url: 'https://x.test/', bodyParametersUi: ui([['user.name', '={{ $json.name }}']]) }, 'HTTP Request v1: Body Parameters named "user.name" beside values from expressions: HTTP Request v3 and later nest a name with a dot or bracket, v1 and v2 send it as it is'],
		['a form MIME type over a JSON body', 1, { requestMethod: 'POST', url: 'https://x.test/', bodyParametersUi: ui([['a', '1']]), options: { bodyContentCustomMimeType: 'application/x-www-form-urlencoded' } }, 'HTTP Request v1: MIME Type "application/x-www-form-urlencoded" over a JSON body: HTTP Request v1 and v2 then encode the body as that type, Resilient HTTP Request sends JSON'],
		['a MIME type beside Headers as JSON', 2, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, bodyParametersJson: '{"a":1}', headerParametersJson: '{"x-a":"1"}', options: { bodyContentCustomMimeType: 'application/vnd.api+json' } }, 'HTTP Request v2: Headers as JSON beside the `Content-Type: application/vnd.api+json` HTTP Request v1 and v2 add (a MIME Type, or Response Format File): Resilient HTTP Request reads headers from the JSON or from a list, not both'],
		['an Accept in JSON headers', 2, { url: 'https://x.test/', jsonParameters: true, headerParametersJson: '{"Accept": "text/csv"}' }, 'HTTP Request v2: Headers as JSON with an Accept header not spelled `accept`: HTTP Request v1 and v2 replace its value by their own default, Resilient HTTP Request sends it'],
		['JSON headers with a RAW body', 1, { requestMethod: 'POST', url: 'https://x.test/', jsonParameters: true, bodyParametersJson: 'x', headerParametersJson: '{"x-a":"1"}', options: { bodyContentType: 'raw' } }, 'HTTP Request v1: Headers or Query Parameters as JSON with Body Content Type RAW/Custom: HTTP Request v1 and v2 do not read them as JSON then'],
		['OAuth1 with a header of its own', 1, { url: 'https://x.test/', authentication: 'oAuth1', headerParametersUi: ui([['X-Trace', 't']]) }, "HTTP Request v1: OAuth1 with headers of the node's own (a header, a MIME Type, a file's type): HTTP Request v1 and v2 sent none of them (n8n's OAuth1 helper keeps the Authorization header only), Resilient HTTP Request would"],
		['a method and an option from expressions', 1, { requestMethod: '={{ $json.method }}', url: 'https://x.test/', options: { followRedirect: '={{ $json.follow }}' } }, 'HTTP Request v1: requestMethod, options.followRedirect set by an expression: which request it sent is known only when it runs, so it cannot be written as fixed parameters'],
		['a predefined type the node does not offer', 2, { url: 'https://x.test/', authentication: 'predefinedCredentialType', nodeCredentialType: 'someCommunityApi' }, 'the credential type "someCommunityApi" is not one Resilient HTTP Request offers (it offers the 321 types HTTP Request offers in n8n 2.41.1)'],
	])('%s', (_label, version, parameters, why) => {
		const node = legacy(version, parameters);
		const result = migrateWorkflow({ nodes: [node], connections: {} });
		expect(result.workflow.nodes[0]).toBe(node);
		expect(result.nodes).toEqual([{ node: 'Old', action: 'kept', changes: [why], notes: [] }]);
	});
});
