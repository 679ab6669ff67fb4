/**
 * Every credential kind HTTP Request offers, applied by the node the way HTTP Request applies it,
 * each attempt inside the retry engine: what the API received is checked, and so is what happens
 * on a retry (a 503 first) and on a 401 (n8n refreshes a token it fetched, once).
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { ResilientHttpOAuth2Api } from '../../credentials/ResilientHttpOAuth2Api.credentials';
import { normalizePem } from '../../nodes/ResilientHttpRequest/auth/pem';
import type { WorkflowRunResult } from './harness';
import type { LocalHandler, RecordedRequest } from './local-server';
import { useLocalServers } from './servers';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

const generic = (type: string) => ({ authentication: 'genericCredentialType', genericAuthType: type });
const predefined = (type: string) => ({ authentication: 'predefinedCredentialType', nodeCredentialType: type });
const cred = (type: string) => ({ [type]: { id: `id-${type}`, name: type } });
const fast = { retryOptions: { baseDelay: 10, jitter: 'none' } };

async function run(parameters: IDataObject, credentials: Record<string, ICredentialDataDecryptedObject>, extra: { onError?: 'continueErrorOutput'; items?: number } = {}): Promise<WorkflowRunResult> {
	const nodeCredentials = Object.assign({}, ...Object.keys(credentials).map(cred)) as Record<string, { id: string; name: string }>;
	const wf = httpWorkflow({ ...fast, ...parameters }, { credentials: nodeCredentials, ...(extra.onError ? { onError: extra.onError } : {}) });
	const items = Array.from({ length: extra.items ?? 1 }, (_, n) => ({ json: { n } }));
	return await runHttp(wf, items, createVirtualRuntime(), { credentials: credentials as never, credentialTypes: [new ResilientHttpOAuth2Api()] });
}

/** 503 for the first request, then 200 with what the server saw. */
const flakyOnce: LocalHandler = (req, index) => (index === 0 ? { status: 503 } : { status: 200, body: { ok: true, url: req.url } });

describe('predefined credential types (authenticate): applied by n8n on every attempt', () => {
	it('Stripe API: the secret key as a Bearer token, on the retry too', async () => {
		const api = await server(flakyOnce);
		const result = await run({ url: `${api.url}/v1/charges`, ...predefined('stripeApi') }, { stripeApi: { secretKey: 'sk_test_5f0c3a1e' } });
		expect(result.status).toBe('success');
		expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk_test_5f0c3a1e', 'Bearer sk_test_5f0c3a1e']);
		expect(result.jsonOf('OK')[0]._retry).toMatchObject({ attempts: 2, stoppedBecause: 'success' });
	});

	it('Pipedrive API: the token as a query parameter, next to the node\'s own', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const result = await run({ url: `${api.url}/v1/deals`, sendQuery: true, queryParameters: { parameters: [{ name: 'limit', value: '5' }] }, ...predefined('pipedriveApi') }, { pipedriveApi: { apiToken: 'pd-token-93be' } });
		expect(result.status).toBe('success');
		const query = new URL(api.requests[0].url, 'http://x').searchParams;
		expect([query.get('limit'), query.get('api_token')]).toEqual(['5', 'pd-token-93be']);
	});

	it('PostHog API: the key added to a JSON body, which keeps its own fields', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const result = await run(
			{ method: 'POST', url: `${api.url}/capture`, sendBody: true, specifyBody: 'json', jsonBody: '{"event":"signup","properties":{"plan":"pro"}}', ...predefined('postHogApi') },
			{ postHogApi: { url: api.url, apiKey: 'phc_key_71ad' } },
		);
		expect(result.status).toBe('success');
		expect(JSON.parse(api.requests[0].body)).toEqual({ event: 'signup', properties: { plan: 'pro' }, api_key: 'phc_key_71ad' });
		expect(api.requests[0].headers['content-type']).toMatch(/^application\/json/);
	});

	it('PostHog API with a raw text body: fails before any request, naming the parameter', async () => {
		const api = await server(() => ({ status: 200 }));
		const result = await run({ method: 'POST', url: `${api.url}/capture`, sendBody: true, contentType: 'raw', rawContentType: 'text/plain', body: 'hello', ...predefined('postHogApi') }, { postHogApi: { url: api.url, apiKey: 'phc_key_71ad' } });
		expect(api.requests).toHaveLength(0);
		expect(result.error?.message).toBe('Parameter "Body Content Type" cannot be used with this credential, which adds its own fields to the request body: a text/plain body cannot take fields (only a JSON or Form URL Encoded body, or none) (item 0)');
	});

	it('Metabase API: the session token fetched first, fetched again after a 401, the request sent again once', async () => {
		const sessions: string[] = [];
		const api = await server((req) => {
			if (req.url === '/api/session') {
				sessions.push(JSON.parse(req.body).password as string);
				return { status: 200, body: { id: `session-${sessions.length}` } };
			}
			return req.headers['x-metabase-session'] === 'session-2' ? { status: 200, body: { ok: true } } : { status: 401, body: { message: 'expired' } };
		});
		const result = await run({ url: `${api.url}/api/card`, ...predefined('metabaseApi') }, { metabaseApi: { url: api.url, username: 'mb-user', password: 'mb-pass-4e1f', sessionToken: '' } });
		expect(result.status).toBe('success');
		expect(api.requests.map((r) => `${r.url} ${String(r.headers['x-metabase-session'] ?? '')}`)).toEqual(['/api/session ', '/api/card session-1', '/api/session ', '/api/card session-2']);
		// one attempt for the retry engine: n8n's refresh happens inside it
		expect(result.jsonOf('OK')[0]._retry).toMatchObject({ attempts: 1 });
	});
});

describe('OAuth2: n8n fetches the token, and refreshes it on a 401 as HTTP Request does', () => {
	/** Issues at-1, at-2, ...; the resource refuses the tokens in `refused` as expired. */
	function tokenApi(refused: string[]): { handler: LocalHandler; tokens: string[] } {
		const tokens: string[] = [];
		const handler: LocalHandler = (req) => {
			if (req.url === '/token') {
				tokens.push(new URLSearchParams(req.body).get('grant_type') ?? '');
				return { status: 200, body: { access_token: `at-${tokens.length}`, refresh_token: `rt-${tokens.length}`, token_type: 'bearer', expires_in: 3600 } };
			}
			return refused.includes(String(req.headers.authorization)) ? { status: 401, body: { error: 'invalid_token' } } : { status: 200, body: { ok: true, auth: req.headers.authorization } };
		};
		return { handler, tokens };
	}

	it.each(['oAuth2Api', 'resilientHttpOAuth2Api'])('%s (client credentials): token fetched, refused, fetched again, request sent once more', async (type) => {
		const { handler, tokens } = tokenApi(['Bearer at-1']);
		const api = await server(handler);
		const result = await run({ url: `${api.url}/r`, ...generic(type) }, { [type]: { grantType: 'clientCredentials', accessTokenUrl: `${api.url}/token`, clientId: 'cid', clientSecret: 'cs-2b7e', scope: '', authentication: 'header', authQueryParameters: '' } });
		expect(result.status).toBe('success');
		expect(tokens).toEqual(['client_credentials', 'client_credentials']);
		expect(api.requests.filter((r) => r.url === '/r').map((r) => r.headers.authorization)).toEqual(['Bearer at-1', 'Bearer at-2']);
		expect(result.jsonOf('OK')[0]).toMatchObject({ ok: true, auth: 'Bearer at-2' });
	});

	it('Microsoft OAuth2 API (predefined, authorization code): the stored token refused, refreshed with the refresh token', async () => {
		const { handler, tokens } = tokenApi(['Bearer stored-old']);
		const api = await server(handler);
		const result = await run(
			{ url: `${api.url}/me`, ...predefined('microsoftOAuth2Api') },
			{ microsoftOAuth2Api: { grantType: 'authorizationCode', accessTokenUrl: `${api.url}/token`, authUrl: `${api.url}/authorize`, clientId: 'cid', clientSecret: 'cs-9d1a', scope: 'openid', authentication: 'body', authQueryParameters: '', oauthTokenData: { access_token: 'stored-old', refresh_token: 'stored-refresh', token_type: 'Bearer' } } },
		);
		expect(result.status).toBe('success');
		expect(tokens).toEqual(['refresh_token']);
		expect(api.requests.filter((r) => r.url === '/me').map((r) => r.headers.authorization)).toEqual(['Bearer stored-old', 'Bearer at-1']);
	});

	it('a 503 is retried by the node with the token n8n holds; a token endpoint failure is not a transient failure', async () => {
		let resource = 0;
		const api = await server((req) => {
			if (req.url === '/token') return { status: 200, body: { access_token: 'at-ok', token_type: 'bearer', expires_in: 3600 } };
			resource++;
			return resource === 1 ? { status: 503 } : { status: 200, body: { ok: true } };
		});
		const result = await run({ url: `${api.url}/r`, ...generic('oAuth2Api') }, { oAuth2Api: { grantType: 'clientCredentials', accessTokenUrl: `${api.url}/token`, clientId: 'cid', clientSecret: 'cs', scope: '', authentication: 'header', authQueryParameters: '' } });
		expect(result.status).toBe('success');
		expect(api.requests.map((r) => r.url)).toEqual(['/token', '/r', '/r']);
		expect(result.jsonOf('OK')[0]._retry).toMatchObject({ attempts: 2 });
	});
});

/** RFC 5849 signature of a request, to check n8n's OAuth1 signature independently. */
function oauth1Signature(method: string, url: string, params: Record<string, string>, consumerSecret: string, tokenSecret: string): string {
	const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
	const normalized = Object.entries(params)
		.map(([k, v]) => [enc(k), enc(v)])
		.sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
		.map(([k, v]) => `${k}=${v}`)
		.join('&');
	const base = [method.toUpperCase(), enc(url), enc(normalized)].join('&');
	return createHmac('sha1', `${enc(consumerSecret)}&${enc(tokenSecret)}`).update(base).digest('base64');
}

describe('OAuth1 API (generic): signed by n8n, the node\'s headers kept', () => {
	it('signs method, URL, query and form body; Content-Type and the node\'s headers still reach the API', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const result = await run(
			{ method: 'POST', url: `${api.url}/1.1/statuses`, sendQuery: true, queryParameters: { parameters: [{ name: 'trim', value: 'true' }] }, sendHeaders: true, headerParameters: { parameters: [{ name: 'X-Trace', value: 't-1' }] }, sendBody: true, contentType: 'form-urlencoded', bodyParameters: { parameters: [{ name: 'status', value: 'hello world' }] }, ...generic('oAuth1Api') },
			{ oAuth1Api: { consumerKey: 'ck-1', consumerSecret: 'cs-oauth1-6f2', signatureMethod: 'HMAC-SHA1', oauthTokenData: { oauth_token: 'tok-1', oauth_token_secret: 'ts-oauth1-91c' } } },
		);
		expect(result.status).toBe('success');
		const [req] = api.requests;
		// HTTP Request drops the user's headers with OAuth1 (n8n's helper replaces them): deviation oauth1-keeps-the-users-headers
		expect(req.headers['x-trace']).toBe('t-1');
		// HTTP Request's default Accept is replaced too, by the request helper's
		expect(req.headers.accept).toBe('*/*');
		expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
		// qs's encoding, as HTTP Request sends a form: a space is %20
		expect(req.body).toBe('status=hello%20world');
		const header = String(req.headers.authorization);
		expect(header).toMatch(/^OAuth /);
		const oauth = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k, decodeURIComponent(v)]));
		expect(oauth).toMatchObject({ oauth_consumer_key: 'ck-1', oauth_token: 'tok-1', oauth_signature_method: 'HMAC-SHA1' });
		const { oauth_signature: signature, ...signed } = oauth;
		expect(signature).toBe(oauth1Signature('POST', `${api.url}/1.1/statuses`, { ...signed, trim: 'true', status: 'hello world' }, 'cs-oauth1-6f2', 'ts-oauth1-91c'));
	});
});

/** A Digest Auth server (RFC 7616, qop=auth, MD5): 401 with a challenge, then checks the answer. */
function digestServer(user: string, password: string, then: (req: RecordedRequest, answered: number) => ReturnType<LocalHandler>): LocalHandler {
	const md5 = (s: string) => createHash('md5').update(s).digest('hex');
	let answered = 0;
	return (req, index) => {
		const header = String(req.headers.authorization ?? '');
		const nonce = `nonce-${index}`;
		const challenge = { status: 401, headers: { 'www-authenticate': `Digest realm="api", qop="auth", nonce="${nonce}", opaque="op-1"` } };
		if (!header.startsWith('Digest ')) return challenge;
		const f = Object.fromEntries([...header.matchAll(/(\w+)="?([^",]*)"?/g)].map(([, k, v]) => [k, v]));
		const ha1 = md5(`${user}:api:${password}`);
		const ha2 = md5(`${req.method}:${f.uri}`);
		const expected = md5(`${ha1}:${f.nonce}:${f.nc}:${f.cnonce}:${f.qop}:${ha2}`);
		if (f.username !== user || f.response !== expected || f.uri !== req.url) return { status: 401, body: { error: 'bad digest' } };
		return then(req, answered++);
	};
}

describe('Digest Auth: the challenge answered by n8n\'s helper on every attempt', () => {
	it('a 503 after the challenge is retried, with a new challenge', async () => {
		const api = await server(digestServer('dg-user', 'dg-pass-3a9', (_req, answered) => (answered === 0 ? { status: 503 } : { status: 200, body: { ok: true } })));
		const result = await run({ url: `${api.url}/data?x=1`, ...generic('httpDigestAuth') }, { httpDigestAuth: { user: 'dg-user', password: 'dg-pass-3a9' } });
		expect(result.status).toBe('success');
		expect(api.requests.map((r) => (String(r.headers.authorization ?? '').startsWith('Digest ') ? 'digest' : 'none'))).toEqual(['none', 'digest', 'none', 'digest']);
		expect(result.jsonOf('OK')[0]._retry).toMatchObject({ attempts: 2 });
	});

	it('a wrong password is a final 401 on the error output, never retried', async () => {
		const api = await server(digestServer('dg-user', 'right', () => ({ status: 200 })));
		const result = await run({ url: `${api.url}/data`, ...generic('httpDigestAuth') }, { httpDigestAuth: { user: 'dg-user', password: 'wrong-pw-77' } }, { onError: 'continueErrorOutput' });
		expect(api.requests).toHaveLength(2);
		expect(result.jsonOf('HTTP', 1)[0].error).toMatchObject({ status: 401, reason: 'final-status', error: '{"error":"bad digest"}' });
	});
});

describe('Custom Auth and Simplified Custom Auth', () => {
	it('Custom Auth: its headers, query and body fields added to the request', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const json = JSON.stringify({ headers: { 'X-Key': 'ck-header-5a' }, qs: { sig: 'ck-qs-2d' }, body: { token: 'ck-body-8e' } });
		const result = await run({ method: 'POST', url: `${api.url}/r`, sendBody: true, specifyBody: 'json', jsonBody: '{"a":1}', ...generic('httpCustomAuth') }, { httpCustomAuth: { json } });
		expect(result.status).toBe('success');
		const [req] = api.requests;
		expect([req.headers['x-key'], new URL(req.url, 'http://x').searchParams.get('sig'), JSON.parse(req.body)]).toEqual(['ck-header-5a', 'ck-qs-2d', { a: 1, token: 'ck-body-8e' }]);
	});

	it('Custom Auth with JSON that does not parse: fails before any request, the secret not shown', async () => {
		const api = await server(() => ({ status: 200 }));
		const result = await run({ url: `${api.url}/r`, ...generic('httpCustomAuth') }, { httpCustomAuth: { json: '{"headers": {"X-Key": "ck-secret-0b"' } });
		expect(api.requests).toHaveLength(0);
		expect(result.error?.message).toBe("The Custom Auth credential's JSON is not valid JSON (item 0)");
		expect(JSON.stringify(result.run)).not.toContain('ck-secret-0b');
	});

	it('Simplified Custom Auth: the template filled by n8n', async () => {
		const api = await server(() => ({ status: 200, body: { ok: true } }));
		const result = await run({ url: `${api.url}/r`, ...generic('httpTemplatedCustomAuth') }, { httpTemplatedCustomAuth: { template: '{"headers":{"Authorization":"Key {{api_key}}"}}', placeholderValues: '{"api_key":"tpl-key-61c"}', placeholderDefs: '' } });
		expect(result.status).toBe('success');
		expect(api.requests[0].headers.authorization).toBe('Key tpl-key-61c');
	});
});

describe('SSL client certificates (SSL Certificates credential)', () => {
	const tls = (file: string) => readFileSync(path.join(__dirname, '../support/tls', file), 'utf8');

	async function mutualTlsServer(): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
		const seen: string[] = [];
		const srv = createHttpsServer({ key: tls('server.key'), cert: tls('server.pem'), ca: tls('ca.pem'), requestCert: true, rejectUnauthorized: true }, (req, res) => {
			const peer = (req.socket as unknown as { getPeerCertificate(): { subject?: { CN?: string } } }).getPeerCertificate();
			seen.push(peer.subject?.CN ?? '');
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ client: peer.subject?.CN }));
		});
		await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
		return { url: `https://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen, close: async () => await new Promise<void>((resolve) => srv.close(() => resolve())) };
	}

	// a certificate pasted on one line, as credential fields often hold it
	const oneLine = (pem: string) => pem.trim().replace(/\n/g, ' ');

	it('presents the client certificate (key with passphrase, PEM pasted on one line) to a server that requires one', async () => {
		const api = await mutualTlsServer();
		try {
			const result = await run(
				{ url: `${api.url}/secure`, provideSslCertificates: true },
				{ httpSslAuth: { ca: oneLine(tls('ca.pem')), cert: oneLine(tls('client.pem')), key: oneLine(tls('client.key')), passphrase: 'client-key-pass-7d2' } },
			);
			expect(result.status).toBe('success');
			expect(result.jsonOf('OK')[0]).toMatchObject({ client: 'e2e client' });
			expect(api.seen).toEqual(['e2e client']);
		} finally {
			await api.close();
		}
	});

	it('without SSL Certificates the same server refuses the handshake: a final error, not retried', async () => {
		const api = await mutualTlsServer();
		try {
			const result = await run({ url: `${api.url}/secure`, options: { allowUnauthorizedCerts: true } }, {}, { onError: 'continueErrorOutput' });
			expect(api.seen).toEqual([]);
			expect(result.jsonOf('HTTP', 1)).toHaveLength(1);
		} finally {
			await api.close();
		}
	});

	it('PEM rebuilt like n8n: one line, spaces or "\\n", chains and encrypted-key headers', () => {
		const cert = tls('client.pem').trim();
		expect(normalizePem(oneLine(cert))).toBe(cert);
		expect(normalizePem(cert.replace(/\n/g, '\\n'))).toBe(cert);
		const chain = `${cert}\n${tls('ca.pem').trim()}`;
		expect(normalizePem(oneLine(chain))).toBe(chain);
		const legacy = '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\nAAAA\n-----END RSA PRIVATE KEY-----';
		expect(normalizePem(oneLine(legacy))).toBe(legacy);
		expect(normalizePem('plain passphrase')).toBe('plain passphrase');
		expect(normalizePem(cert)).toBe(cert);
	});
});

describe('options HTTP Request has', () => {
	it('Send Credentials on Cross-Origin Redirect: the credential follows the redirect when asked to, and not by default', async () => {
		const other = await server((req) => ({ status: 200, body: { auth: req.headers.authorization ?? null } }));
		const first = await server(() => ({ status: 302, headers: { location: `${other.url}/there` } }));
		const asked = await run({ url: `${first.url}/r`, ...predefined('stripeApi'), options: { sendCredentialsOnCrossOriginRedirect: true } }, { stripeApi: { secretKey: 'sk_redirect_1' } });
		const byDefault = await run({ url: `${first.url}/r`, ...predefined('stripeApi') }, { stripeApi: { secretKey: 'sk_redirect_1' } });
		expect([asked.jsonOf('OK')[0].auth, byDefault.jsonOf('OK')[0].auth]).toEqual(['Bearer sk_redirect_1', null]);
	});

	it('a credential stays on the first origin of a redirect by default (deviations no-credentials-cross-origin-by-default, credential-headers-stay-on-their-origin), follows it when asked; query and body fields are never added again', async () => {
		const other = await server((req) => ({ status: 200, body: { auth: req.headers.authorization ?? null, key: req.headers['x-api-key'] ?? null, url: req.url, type: req.headers['content-type'] ?? null } }));
		const first = await server(() => ({ status: 302, headers: { location: `${other.url}/there` } }));
		const basic = { httpBasicAuth: { user: 'u', password: 'pw-redirect-3' } };
		const header = { httpHeaderAuth: { name: 'X-Api-Key', value: 'key-redirect-4' } };
		const custom = { httpCustomAuth: { json: JSON.stringify({ qs: { token: 'q-redirect-5' }, body: { secret: 'b-redirect-6' } }) } };
		const follow = { options: { sendCredentialsOnCrossOriginRedirect: true } };
		const landed = async (parameters: IDataObject, credentials: Record<string, ICredentialDataDecryptedObject>) => (await run({ url: `${first.url}/r`, ...parameters }, credentials)).jsonOf('OK')[0];
		expect(await landed(generic('httpBasicAuth'), basic)).toMatchObject({ auth: null });
		expect(await landed(generic('httpHeaderAuth'), header)).toMatchObject({ key: null });
		expect(await landed({ ...generic('httpBasicAuth'), ...follow }, basic)).toMatchObject({ auth: `Basic ${Buffer.from('u:pw-redirect-3').toString('base64')}` });
		expect(await landed({ ...generic('httpHeaderAuth'), ...follow }, header)).toMatchObject({ key: 'key-redirect-4' });
		// as HTTP Request: the Location is followed as it is, and a POST turned into a GET carries no body
		expect(await landed({ method: 'POST', sendBody: true, bodyParameters: { parameters: [{ name: 'a', value: '1' }] }, ...generic('httpCustomAuth'), ...follow }, custom)).toMatchObject({ url: '/there', type: null });
		expect(first.requests[first.requests.length - 1].url).toBe('/r?token=q-redirect-5');
	});

	it('Lowercase Headers (default on, as in HTTP Request), and off', async () => {
		const api = await server(() => ({ status: 200, body: {} }));
		const headers = { sendHeaders: true, headerParameters: { parameters: [{ name: 'X-Request-Source', value: 'n8n' }] } };
		await run({ url: `${api.url}/r`, ...headers }, {});
		await run({ url: `${api.url}/r`, ...headers, options: { lowercaseHeaders: false } }, {});
		const sent = api.requests.map((r) => r.rawHeaders.filter((_h, n) => n % 2 === 0).find((h) => h.toLowerCase() === 'x-request-source'));
		expect(sent).toEqual(['x-request-source', 'X-Request-Source']);
	});

	it("Lowercase Headers off: the user's own Accept is sent (HTTP Request overwrites it with its default: deviation users-accept-kept-with-lowercase-headers-off)", async () => {
		const api = await server(() => ({ status: 200, body: {} }));
		await run({ url: `${api.url}/r`, sendHeaders: true, headerParameters: { parameters: [{ name: 'Accept', value: 'text/csv' }] }, options: { lowercaseHeaders: false } }, {});
		expect(api.requests[0].headers.accept).toBe('text/csv');
	});

	it("HTTP Request's Accept header when none is set", async () => {
		const api = await server(() => ({ status: 200, body: {} }));
		await run({ url: `${api.url}/r` }, {});
		await run({ url: `${api.url}/r`, options: { response: { response: { responseFormat: 'json' } } } }, {});
		expect(api.requests.map((r) => r.headers.accept)).toEqual(['application/json,text/html,application/xhtml+xml,application/xml,text/*;q=0.9, image/*;q=0.8, */*;q=0.7', 'application/json,text/*;q=0.99']);
	});

	it('JSON body fields named with dots and indices nest, as in HTTP Request v4', async () => {
		const api = await server(() => ({ status: 200, body: {} }));
		await run({ method: 'POST', url: `${api.url}/r`, sendBody: true, bodyParameters: { parameters: [{ name: 'customer.name', value: 'Ada' }, { name: 'items[0].id', value: 'p1' }, { name: 'plain', value: 'x' }] } }, {});
		expect(JSON.parse(api.requests[0].body)).toEqual({ customer: { name: 'Ada' }, items: [{ id: 'p1' }], plain: 'x' });
	});

	it('WebDAV methods are sent, and retried as the idempotent methods they are', async () => {
		const api = await server(flakyOnce);
		const result = await run({ method: 'PROPFIND', url: `${api.url}/dav/`, options: { webdavMethods: true } }, {});
		expect(result.status).toBe('success');
		expect(api.requests.map((r) => r.method)).toEqual(['PROPFIND', 'PROPFIND']);
	});

	it('Timeout is the helper\'s timeout within the attempt; longer than Attempt Timeout fails before any request', async () => {
		const api = await server(() => ({ status: 200, body: {} }));
		const tooLong = await run({ url: `${api.url}/r`, options: { timeout: 120000 } }, {});
		expect(api.requests).toHaveLength(0);
		expect(tooLong.error?.message).toBe('Parameter "Timeout" (120000 ms) is longer than "Attempt Timeout (Ms)" (30000 ms), which bounds each whole attempt: raise Attempt Timeout to at least 120000, or lower Timeout (item 0)');
		const hang = await server((_req, index) => (index === 0 ? { hang: true } : { status: 200, body: { ok: true } }));
		const result = await run({ url: `${hang.url}/r`, options: { timeout: 200 } }, {});
		expect(result.status).toBe('success');
		expect(hang.requests).toHaveLength(2);
	});
});

describe('what the node cannot carry out: refused before any request', () => {
	it.each([
		['a credential type the node does not offer', { ...predefined('noSuchServiceApi') }, 'Parameter "Credential Type" is "noSuchServiceApi", a credential type this node does not offer: it offers the 321 types HTTP Request offers in n8n 2.41.1. Choose a Generic Credential Type, or keep the HTTP Request node for this request (item 0)'],
	])('%s', async (_label, parameters, message) => {
		const api = await server(() => ({ status: 200 }));
		const result = await run({ url: `${api.url}/r`, ...parameters }, {});
		expect(api.requests).toHaveLength(0);
		expect(result.error?.message).toBe(message);
	});

	it('no credential type chosen: n8n itself refuses to run the node (the parameter is required)', async () => {
		const api = await server(() => ({ status: 200 }));
		await expect(run({ url: `${api.url}/r`, authentication: 'predefinedCredentialType' }, {})).rejects.toThrow(/Parameter "Credential Type" is required/);
		expect(api.requests).toHaveLength(0);
	});

	it('Pagination set to Off is no pagination: the request is sent', async () => {
		const api = await server(() => ({ status: 200, body: {} }));
		const result = await run({ url: `${api.url}/r`, options: { pagination: { pagination: { paginationMode: 'off' } } } }, {});
		expect(result.status).toBe('success');
		expect(api.requests).toHaveLength(1);
	});
});

describe('Allowed HTTP Request Domains, for the new kinds too', () => {
	it.each([
		['Stripe API (predefined)', predefined('stripeApi'), 'stripeApi', { secretKey: 'sk_x' }],
		['Digest Auth', generic('httpDigestAuth'), 'httpDigestAuth', { user: 'u', password: 'p' }],
		['OAuth2 API', generic('oAuth2Api'), 'oAuth2Api', { grantType: 'clientCredentials', accessTokenUrl: 'http://127.0.0.1:1/token', clientId: 'c', clientSecret: 's' }],
		['SSL Certificates', { provideSslCertificates: true }, 'httpSslAuth', { cert: 'x' }],
	])('%s restricted to another domain: nothing is sent', async (_label, parameters, type, data) => {
		const api = await server(() => ({ status: 200 }));
		const result = await run({ url: `${api.url}/r`, ...parameters }, { [type]: { ...data, allowedHttpRequestDomains: 'domains', allowedDomains: 'api.example.com' } });
		expect(api.requests).toHaveLength(0);
		expect(result.error?.message).toMatch(/^Domain not allowed: .*example\.com$/);
	});
});

