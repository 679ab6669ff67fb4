/**
 * Request features users rely on in HTTP Request, executed in n8n-core: auth, bodies, responses,
 * redirects, batching, and clear errors for bad parameters.
 */
import type { IDataObject } from 'n8n-workflow';
import { ResilientHttpOAuth2Api } from '../../credentials/ResilientHttpOAuth2Api.credentials';
import type { LocalHandler, LocalHandlerResult } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

const echo: LocalHandler = (req) => ({ status: 200, body: { method: req.method, url: req.url, headers: req.headers, body: req.body } });
const SECRET = 'sk_live_very_secret_value';

describe('authentication', () => {
	it.each([
		['httpHeaderAuth', { name: 'X-Api-Key', value: SECRET }, (h: IDataObject) => h['x-api-key']],
		['httpBearerAuth', { token: SECRET }, (h: IDataObject) => h.authorization],
		['httpBasicAuth', { user: 'me', password: SECRET }, (h: IDataObject) => h.authorization],
	])('%s credentials reach the server and never the output', async (type, data, pick) => {
		const upstream = await server(echo);
		const wf = httpWorkflow({ url: `${upstream.url}/me`, authentication: 'genericCredentialType', genericAuthType: type }, { credentials: { [type]: { id: '1', name: 'cred' } } });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: { [type]: data } });

		expect(run.status).toBe('success');
		const sent = String(pick(upstream.requests[0].headers as IDataObject));
		expect(sent).toContain(type === 'httpBasicAuth' ? Buffer.from(`me:${SECRET}`).toString('base64') : SECRET);
		const story = JSON.stringify(run.jsonOf('HTTP')[0]._retry);
		expect(story).not.toContain(SECRET);
		expect(story).not.toContain(Buffer.from(`me:${SECRET}`).toString('base64'));
	});

	it('OAuth2 (client credentials) fetches a token and sends it, through our credential type that extends oAuth2Api', async () => {
		let tokenRequests = 0;
		const upstream = await server((req) => {
			if (req.url === '/token') {
				tokenRequests++;
				return { status: 200, body: { access_token: 'tok-123', token_type: 'bearer', expires_in: 3600 } };
			}
			return req.headers.authorization === 'Bearer tok-123' ? { status: 200, body: { me: 'ok' } } : { status: 401, body: { message: 'no token' } };
		});
		const wf = httpWorkflow({ url: `${upstream.url}/me`, authentication: 'genericCredentialType', genericAuthType: 'resilientHttpOAuth2Api' }, { credentials: { resilientHttpOAuth2Api: { id: '1', name: 'o' } } });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), {
			credentialTypes: [new ResilientHttpOAuth2Api()],
			credentials: { resilientHttpOAuth2Api: { grantType: 'clientCredentials', accessTokenUrl: `${upstream.url}/token`, clientId: 'id', clientSecret: SECRET, scope: '', authentication: 'header', authQueryParameters: '' } },
		});
		expect(run.status).toBe('success');
		expect(run.jsonOf('HTTP')[0]).toMatchObject({ me: 'ok' });
		expect(tokenRequests).toBe(1);
		expect(JSON.stringify(run.jsonOf('HTTP')[0])).not.toContain('tok-123');
	});

	describe("a credential's Allowed HTTP Request Domains", () => {
		const kinds: Array<[string, IDataObject]> = [
			['httpHeaderAuth', { name: 'X-Api-Key', value: SECRET }],
			['httpBearerAuth', { token: SECRET }],
			['httpBasicAuth', { user: 'me', password: SECRET }],
			['httpQueryAuth', { name: 'api_key', value: SECRET }],
			['resilientHttpOAuth2Api', { grantType: 'clientCredentials', accessTokenUrl: 'TOKEN_URL', clientId: 'id', clientSecret: SECRET, scope: '', authentication: 'header', authQueryParameters: '' }],
		];
		const runWith = async (type: string, data: IDataObject, restriction: IDataObject) => {
			const upstream = await server((req, index) => (req.url === '/token' ? { status: 200, body: { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 } } : echo(req, index)));
			const credential = { ...data, ...(data.accessTokenUrl ? { accessTokenUrl: `${upstream.url}/token` } : {}), ...restriction };
			const wf = httpWorkflow({ url: `${upstream.url}/me`, authentication: 'genericCredentialType', genericAuthType: type }, { credentials: { [type]: { id: '1', name: 'c' } } });
			const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentialTypes: [new ResilientHttpOAuth2Api()], credentials: { [type]: credential } });
			return { run, upstream };
		};

		it.each(kinds)('%s: a host outside the allowed domains gets no request, and the error names the item (in HTTP Request\'s words)', async (type, data) => {
			const { run, upstream } = await runWith(type, data, { allowedHttpRequestDomains: 'domains', allowedDomains: 'api.example.com, *.example.org' });
			expect(run.status).toBe('error');
			expect(run.error?.message).toBe('Domain not allowed: This credential is restricted from accessing 127.0.0.1:' + new URL(upstream.url).port + '. Only the following domains are allowed: api.example.com, *.example.org');
			// HTTP Request's error: n8n's refusal wrapped, the item in its context
			expect((run.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(0);
			// refused before a request exists: none is quoted (deviation credential-refused-before-the-request)
			expect((run.error as { context?: { request?: unknown } } | undefined)?.context?.request).toBeUndefined();
			expect(upstream.requests).toHaveLength(0);
		});

		it.each(kinds)('%s: a host among the allowed domains is called', async (type, data) => {
			const { run, upstream } = await runWith(type, data, { allowedHttpRequestDomains: 'domains', allowedDomains: 'api.example.com, 127.0.0.1' });
			expect(run.status).toBe('success');
			expect(upstream.requests.filter((r) => r.url !== '/token')).toHaveLength(1);
		});

		it.each(kinds)('%s: "None" keeps the credential out of this node', async (type, data) => {
			const { run, upstream } = await runWith(type, data, { allowedHttpRequestDomains: 'none' });
			expect(run.status).toBe('error');
			expect(run.error?.message).toBe('This credential is configured to prevent use within an HTTP Request or GraphQL node');
			expect(upstream.requests).toHaveLength(0);
		});
	});

	it('query auth adds the parameter', async () => {
		const upstream = await server(echo);
		const wf = httpWorkflow({ url: `${upstream.url}/q`, authentication: 'genericCredentialType', genericAuthType: 'httpQueryAuth' }, { credentials: { httpQueryAuth: { id: '1', name: 'q' } } });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: { httpQueryAuth: { name: 'api_key', value: SECRET } } });
		expect(upstream.requests[0].url).toBe(`/q?api_key=${SECRET}`);
		expect(JSON.stringify(run.jsonOf('HTTP')[0]._retry)).not.toContain(SECRET);
	});

	it('does not send credentials to another origin on a redirect, but does on the same origin', async () => {
		const other = await server(echo);
		const first = await server((req) =>
			req.url === '/start' ? { status: 302, headers: { location: '/same' } } : req.url === '/same' ? { status: 307, headers: { location: `${other.url}/elsewhere` } } : { status: 404 },
		);
		const wf = httpWorkflow(
			{ url: `${first.url}/start`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', sendHeaders: true, headerParameters: { parameters: [{ name: 'Cookie', value: 'session=abc' }, { name: 'X-Trace', value: 't1' }] } },
			{ credentials: { httpHeaderAuth: { id: '1', name: 'h' } } },
		);
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: { httpHeaderAuth: { name: 'Authorization', value: `Bearer ${SECRET}` } } });

		expect(run.status).toBe('success');
		expect(first.requests.map((r) => r.url)).toEqual(['/start', '/same']);
		expect(first.requests[1].headers.authorization).toBe(`Bearer ${SECRET}`);
		expect(other.requests).toHaveLength(1);
		expect(other.requests[0].headers.authorization).toBeUndefined();
		expect(other.requests[0].headers.cookie).toBeUndefined();
		expect(other.requests[0].headers['x-trace']).toBe('t1');
	});

	it('with Follow Redirects off, a 3xx fails as in HTTP Request (not retried), and Never Error answers it', async () => {
		const upstream = await server(() => ({ status: 302, headers: { location: '/final' } }));
		const off = { redirect: { redirect: { followRedirects: false } } };
		const failed = await runHttp(httpWorkflow({ url: `${upstream.url}/start`, options: off }, { onError: 'continueErrorOutput' }), [{ json: {} }], createVirtualRuntime());
		expect(upstream.requests.map((r) => r.url)).toEqual(['/start']);
		expect(failed.jsonOf('HTTP', 1)[0].error).toMatchObject({ name: 'AxiosError', message: '302 - ""', status: 302, reason: 'final-status' });
		const answered = await runHttp(httpWorkflow({ url: `${upstream.url}/start`, options: { ...off, response: { response: { neverError: true, fullResponse: true } } } }), [{ json: {} }], createVirtualRuntime());
		expect(answered.jsonOf('HTTP')[0]).toMatchObject({ statusCode: 302, headers: { location: '/final' } });
	});
});

describe('bodies', () => {
	it('sends JSON from fields, form-urlencoded, raw and query parameters', async () => {
		const upstream = await server(echo);
		const runtime = createVirtualRuntime();
		const base = { method: 'PUT', url: `${upstream.url}/b`, sendBody: true };
		await runHttp(httpWorkflow({ ...base, contentType: 'json', specifyBody: 'keypair', bodyParameters: { parameters: [{ name: 'a', value: '={{ $json.x }}' }] }, sendQuery: true, queryParameters: { parameters: [{ name: 'p', value: '1' }, { name: 'p', value: '2' }] }, options: { queryParameterArrays: 'repeat' } }), [{ json: { x: 'hello' } }], runtime);
		await runHttp(httpWorkflow({ ...base, contentType: 'form-urlencoded', bodyParameters: { parameters: [{ name: 'a', value: 'b c' }] } }), [{ json: {} }], runtime);
		await runHttp(httpWorkflow({ ...base, contentType: 'raw', rawContentType: 'text/csv', body: 'a,b\n1,2' }), [{ json: {} }], runtime);

		const [json, form, raw] = upstream.requests;
		expect(JSON.parse(json.body)).toEqual({ a: 'hello' });
		expect(json.headers['content-type']).toBe('application/json');
		expect(json.url).toBe('/b?p=1&p=2');
		// qs's encoding, as HTTP Request sends a form: a space is %20
		expect(form.body).toBe('a=b%20c');
		expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(raw.body).toBe('a,b\n1,2');
		expect(raw.headers['content-type']).toBe('text/csv');
	});

	it('a query or form field named twice sends both values, as HTTP Request 4.3 and 4.4 (4.0-4.2 kept the last: deviation repeated-field-names-before-4.3)', async () => {
		const upstream = await server(echo);
		const twice = { parameters: [{ name: 'tag', value: 'a' }, { name: 'tag', value: 'b' }] };
		await runHttp(httpWorkflow({ method: 'POST', url: `${upstream.url}/t`, sendQuery: true, queryParameters: twice, sendBody: true, contentType: 'form-urlencoded', bodyParameters: twice }), [{ json: {} }], createVirtualRuntime());
		expect(upstream.requests[0].url).toBe('/t?tag%5B0%5D=a&tag%5B1%5D=b');
		expect(upstream.requests[0].body).toBe('tag%5B0%5D=a&tag%5B1%5D=b');
	});

	it('sends multipart form-data with a binary field, the same bytes on every attempt', async () => {
		const upstream = await server((_req, n) => (n === 0 ? { status: 503 } : { status: 200, body: { ok: true } }));
		const file = { data: Buffer.from('file-content-123').toString('base64'), mimeType: 'text/plain', fileName: 'note.txt' };
		const wf = httpWorkflow({
			method: 'PUT',
			url: `${upstream.url}/upload`,
			sendBody: true,
			contentType: 'multipart-form-data',
			bodyParameters: { parameters: [{ parameterType: 'formData', name: 'title', value: 'Hi' }, { parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'doc' }] },
		});
		const run = await runHttp(wf, [{ json: {}, binary: { doc: file } }], createVirtualRuntime());

		expect(run.status).toBe('success');
		expect(upstream.requests).toHaveLength(2);
		for (const req of upstream.requests) {
			expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
			expect(req.body).toContain('name="title"\r\n\r\nHi\r\n');
			expect(req.body).toContain('name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\nfile-content-123\r\n');
		}
		expect(upstream.requests[0].body).toBe(upstream.requests[1].body);
	});

	it('Send Body on a GET sends no body: n8n\'s httpRequest helper drops it (HTTP Request sends it: deviation no-body-on-get)', async () => {
		const upstream = await server(echo);
		await runHttp(httpWorkflow({ url: `${upstream.url}/g`, sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] } }), [{ json: {} }], createVirtualRuntime());
		expect(upstream.requests[0]).toMatchObject({ method: 'GET', body: '' });
		expect(upstream.requests[0].headers['content-length']).toBeUndefined();
	});

	it('sends an n8n binary file as the body', async () => {
		const upstream = await server(echo);
		const file = { data: Buffer.from('%PDF-1.4 fake').toString('base64'), mimeType: 'application/pdf', fileName: 'a.pdf' };
		await runHttp(httpWorkflow({ method: 'PUT', url: `${upstream.url}/f`, sendBody: true, contentType: 'binaryData', inputDataFieldName: 'data' }), [{ json: {}, binary: { data: file } }], createVirtualRuntime());
		expect(upstream.requests[0].body).toBe('%PDF-1.4 fake');
		expect(upstream.requests[0].headers['content-type']).toBe('application/pdf');
	});
});

describe('responses', () => {
	it('splits a JSON array into items, gives no item for an empty array (as HTTP Request), and wraps text', async () => {
		const upstream = await server((req) =>
			req.url === '/list' ? { status: 200, body: [{ a: 1 }, { a: 2 }] } : req.url === '/empty' ? { status: 200, body: [] } : { status: 200, headers: { 'content-type': 'text/plain' }, body: 'plain words' },
		);
		const runtime = createVirtualRuntime();
		const list = await runHttp(httpWorkflow({ url: `${upstream.url}/list` }), [{ json: {} }], runtime);
		const empty = await runHttp(httpWorkflow({ url: `${upstream.url}/empty` }), [{ json: {} }], runtime);
		const text = await runHttp(httpWorkflow({ url: `${upstream.url}/text` }), [{ json: {} }], runtime);

		expect(list.jsonOf('HTTP').map((j) => j.a)).toEqual([1, 2]);
		expect(list.outputOf('HTTP').map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(empty.status).toBe('success');
		expect(empty.jsonOf('HTTP')).toEqual([]);
		expect(text.jsonOf('HTTP')[0].data).toBe('plain words');
	});

	it('returns the full response, a file into a binary field, and never errors when asked', async () => {
		const upstream = await server((req): LocalHandlerResult =>
			req.url === '/file'
				? { status: 200, headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="pic.png"' }, body: Buffer.from([137, 80, 78, 71]) }
				: { status: 404, headers: { 'x-request-id': 'r1' }, body: { message: 'missing' } },
		);
		const runtime = createVirtualRuntime();
		const full = await runHttp(httpWorkflow({ url: `${upstream.url}/nope`, options: { response: { response: { fullResponse: true, neverError: true } } } }), [{ json: {} }], runtime);
		const file = await runHttp(httpWorkflow({ url: `${upstream.url}/file`, options: { response: { response: { responseFormat: 'file', outputPropertyName: 'pic' } } } }), [{ json: {} }], runtime);

		expect(full.status).toBe('success');
		expect(full.jsonOf('HTTP')[0]).toMatchObject({ statusCode: 404, body: { message: 'missing' }, headers: { 'x-request-id': 'r1' } });
		const binary = file.outputOf('HTTP')[0].binary?.pic;
		expect(binary).toMatchObject({ mimeType: 'image/png', fileName: 'pic.png' });
	});
});

describe('scheduling', () => {
	it('spaces batches by the batch interval and limits items in flight', async () => {
		// the server's clock is the runtime's, virtual time alone: the interval is a virtual wait
		// between request starts; the server's 30 ms are real, so that two requests are really in
		// flight at once
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true, noRealTime: true });
		let inFlight = 0;
		let maxInFlight = 0;
		const upstream = await server(async () => {
			inFlight++;
			maxInFlight = Math.max(maxInFlight, inFlight);
			await new Promise((r) => setTimeout(r, 30));
			inFlight--;
			return { status: 200, body: { ok: true } };
		}, runtime.now);
		const wf = httpWorkflow({ url: `${upstream.url}/x`, options: { batching: { batch: { batchSize: 4, batchInterval: 150 } }, maxConcurrency: 2 } });
		const run = await runHttp(wf, Array.from({ length: 8 }, (_, n) => ({ json: { n } })), runtime);

		expect(run.jsonOf('HTTP')).toHaveLength(8);
		// two batches of 4, 150 ms apart on the virtual clock (HTTP takes none of its time)
		const times = upstream.requests.map((r) => r.receivedAt);
		expect(times.map((t) => t - times[0])).toEqual([0, 0, 0, 0, 150, 150, 150, 150]);
		expect(maxInFlight).toBe(2);
	});

	it('stops retrying when the next wait would pass the total deadline', async () => {
		const upstream = await server(() => ({ status: 503 }));
		const runtime = createVirtualRuntime();
		const wf = httpWorkflow({ url: `${upstream.url}/x`, maxAttempts: 10, retryOptions: { baseDelay: 1000, jitter: 'none', totalDeadline: 5000 } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, [{ json: {} }], runtime);

		// waits 1 s, 2 s: the third (4 s) would end after 5 s
		expect(runtime.sleeps).toEqual([1000, 2000]);
		expect(upstream.requests).toHaveLength(3);
		expect(run.jsonOf('HTTP', 1)[0].error).toMatchObject({ reason: 'deadline-exceeded' });
	});
});

describe('parameter errors name the parameter and the item', () => {
	it.each([
		[{ maxAttempts: 0 }, /Parameter "Max Attempts" must be at least 1/],
		[{ retryOnStatusCodes: '429, 5x' }, /Parameter "Retry On Status Codes" is invalid: "5x"/],
		[{ retryOptions: { baseDelay: -5 } }, /Parameter "Base Delay \(Ms\)" must be at least 0/],
		[{ method: 'POST', idempotencyKeyMode: 'expression', idempotencyKey: '={{ $json.missing }}' }, /Parameter "Key" \(the idempotency key\) must be text/],
		// HTTP Request's words for its own checks of the URL, without the query (it may hold a key)
		[{ url: 'ftp://example.com/x?api_key=secret-1' }, /^Invalid URL: ftp:\/\/example\.com\/x\. URL must start with "http" or "https"\.$/],
		[{ url: 'not a url' }, /Invalid URL/],
		[{ url: 'http://exa mple.com/x' }, /Parameter "URL" must be an absolute URL/],
	])('%j', async (parameters, message) => {
		const upstream = await server(echo);
		const run = await runHttp(httpWorkflow({ url: `${upstream.url}/x`, ...parameters }), [{ json: {} }], createVirtualRuntime());
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
		expect(run.error?.message).not.toContain('secret-1');
		// the item is named, also where HTTP Request's own message does not (deviation parameter-errors-name-the-item)
		expect((run.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(0);
		expect(upstream.requests).toHaveLength(0);
	});

	it('with the error output, a bad item goes there and the others still succeed', async () => {
		const upstream = await server(echo);
		const wf = httpWorkflow({ url: `={{ $json.url }}` }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, [{ json: { url: `${upstream.url}/ok` } }, { json: { url: 'nope' } }], createVirtualRuntime());
		expect(run.jsonOf('HTTP', 0)).toHaveLength(1);
		const [bad] = run.jsonOf('HTTP', 1);
		expect(bad).toMatchObject({ url: 'nope', error: expect.stringMatching(/Invalid URL/) });
	});
});

describe('proxy', () => {
	it('sends the request through the proxy, with the proxy credentials, never echoing them', async () => {
		// a forward proxy that answers itself: enough to see what reached it
		const proxy = await server((req) => ({ status: 200, body: { viaProxy: req.url, auth: req.headers['proxy-authorization'] ?? null } }));
		const target = 'http://upstream.invalid:8080/resource';
		const wf = httpWorkflow({ url: target, options: { proxy: `http://me:${SECRET}@127.0.0.1:${proxy.port}` } });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime());

		expect(run.status).toBe('success');
		const [item] = run.jsonOf('HTTP');
		expect(String(item.viaProxy)).toContain('upstream.invalid:8080/resource');
		expect(item.auth).toBe(`Basic ${Buffer.from(`me:${SECRET}`).toString('base64')}`);
		expect(JSON.stringify(item._retry)).not.toContain(SECRET);
	});

	it('a proxy that is not a URL fails without echoing its value', async () => {
		const wf = httpWorkflow({ url: 'http://127.0.0.1:9/x', options: { proxy: `http://me:${SECRET}@[bad` } });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime());
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('Parameter "Proxy" is not a valid URL');
		// (the error also carries n8n's copy of the node and its parameters, as every node error does)
		expect(`${run.error?.message} ${run.error?.description}`).not.toContain(SECRET);
	});
});
