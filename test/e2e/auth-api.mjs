// A local API that checks credentials the way real services do, for the drop-in and migration
// tests: a predefined API key (Stripe's Bearer secret key), OAuth2 (a token endpoint issuing
// access and refresh tokens, resources that refuse expired tokens), Digest Auth (RFC 7616
// challenge), a Header Auth key, and an echo. The test can expire every issued token, and make
// each route answer 503 to its next first request (a flaky API).
import { createHash } from 'node:crypto';
import { startFlakyServer } from './harness.mjs';

export const AUTH_SECRETS = {
	stripeKey: 'sk_test_e2e_4b1f9c07d2',
	oauthClientSecret: 'e2e-oauth-cs-71d3a9',
	msClientSecret: 'e2e-ms-cs-0c58e2',
	msStoredAccess: 'e2e-ms-at-stored-5a2e',
	msStoredRefresh: 'e2e-ms-rt-stored-9e14',
	digestUser: 'e2e-digest-user',
	digestPassword: 'e2e-digest-pw-33f0a1',
	headerKey: 'e2e-header-key-6d0b27',
};

const md5 = (s) => createHash('md5').update(s).digest('hex');

/** The credentials the API accepts, as n8n stores them (plain data; n8n encrypts it on import). */
export function authCredentials(apiUrl) {
	return [
		{ id: 'e2eStripe', name: 'E2E Stripe', type: 'stripeApi', data: { secretKey: AUTH_SECRETS.stripeKey } },
		{
			id: 'e2eOAuth2',
			name: 'E2E OAuth2 (client credentials)',
			type: 'oAuth2Api',
			data: { grantType: 'clientCredentials', accessTokenUrl: `${apiUrl}/token/app`, clientId: 'e2e-app', clientSecret: AUTH_SECRETS.oauthClientSecret, scope: '', authentication: 'header', authQueryParameters: '' },
		},
		{
			id: 'e2eMicrosoft',
			name: 'E2E Microsoft',
			type: 'microsoftOAuth2Api',
			data: {
				grantType: 'authorizationCode',
				authUrl: `${apiUrl}/authorize`,
				accessTokenUrl: `${apiUrl}/token/ms`,
				clientId: 'e2e-ms',
				clientSecret: AUTH_SECRETS.msClientSecret,
				scope: 'openid offline_access',
				authentication: 'body',
				authQueryParameters: '',
				oauthTokenData: { access_token: AUTH_SECRETS.msStoredAccess, refresh_token: AUTH_SECRETS.msStoredRefresh, token_type: 'Bearer', expires_in: 3600 },
			},
		},
		{ id: 'e2eDigest', name: 'E2E Digest', type: 'httpDigestAuth', data: { user: AUTH_SECRETS.digestUser, password: AUTH_SECRETS.digestPassword } },
		{ id: 'e2eHeader', name: 'E2E Header', type: 'httpHeaderAuth', data: { name: 'X-Api-Key', value: AUTH_SECRETS.headerKey } },
	];
}

export async function startAuthApi() {
	const valid = new Set([AUTH_SECRETS.msStoredAccess]);
	const issued = [];
	let flaky = false;
	const failedOnce = new Set();
	const unauthorized = (res, entry, json, why) => json(res, (entry.status = 401), { error: 'invalid_token', why });
	/** In flaky mode a route answers 503 to its first request, then works. */
	const flakyFirst = (res, entry, json, route) => {
		if (!flaky || failedOnce.has(route)) return false;
		failedOnce.add(route);
		json(res, (entry.status = 503), { error: 'Service Unavailable' });
		return true;
	};
	const bearer = (req) => /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];

	const api = await startFlakyServer({
		// POST /token/:client: client credentials or refresh token grants
		token: (req, res, { parts, body, json, entry }) => {
			const form = new URLSearchParams(body);
			const client = parts[1];
			const grant = form.get('grant_type');
			const token = `e2e-at-${client}-${issued.length + 1}`;
			issued.push({ client, grant, token, refreshToken: form.get('refresh_token') });
			valid.add(token);
			json(res, (entry.status = 200), { access_token: token, refresh_token: `e2e-rt-${client}-${issued.length}`, token_type: 'bearer', expires_in: 3600 });
		},
		stripe: (req, res, { json, entry }) => {
			if (flakyFirst(res, entry, json, 'stripe')) return;
			if (req.headers.authorization !== `Bearer ${AUTH_SECRETS.stripeKey}`) return unauthorized(res, entry, json, 'stripe key');
			json(res, (entry.status = 200), { object: 'list', data: [{ id: 'ch_1', amount: 500 }] });
		},
		// GET /graph/:what: any valid OAuth2 token
		graph: (req, res, { parts, json, entry }) => {
			if (flakyFirst(res, entry, json, `graph/${parts[1]}`)) return;
			if (!valid.has(bearer(req))) return unauthorized(res, entry, json, 'expired or unknown token');
			json(res, (entry.status = 200), { resource: parts[1] });
		},
		digest: (req, res, { json, entry }) => {
			const header = String(req.headers.authorization ?? '');
			if (!header.startsWith('Digest ')) {
				entry.status = 401;
				res.writeHead(401, { 'www-authenticate': `Digest realm="e2e", qop="auth", nonce="nonce-${entry.count}", opaque="op"`, 'content-type': 'application/json' });
				res.end('{"error":"challenge"}');
				return;
			}
			if (flakyFirst(res, entry, json, 'digest')) return;
			const f = Object.fromEntries([...header.matchAll(/(\w+)="?([^",]*)"?/g)].map(([, k, v]) => [k, v]));
			const ha1 = md5(`${AUTH_SECRETS.digestUser}:e2e:${AUTH_SECRETS.digestPassword}`);
			const expected = md5(`${ha1}:${f.nonce}:${f.nc}:${f.cnonce}:${f.qop}:${md5(`${req.method}:${f.uri}`)}`);
			if (f.username !== AUTH_SECRETS.digestUser || f.response !== expected) return unauthorized(res, entry, json, 'digest answer');
			json(res, (entry.status = 200), { digest: 'ok' });
		},
		// a Header Auth key; answers with the request's body, query and custom headers (none secret)
		keyed: (req, res, { json, entry, body, query }) => {
			if (flakyFirst(res, entry, json, 'keyed')) return;
			if (req.headers['x-api-key'] !== AUTH_SECRETS.headerKey) return unauthorized(res, entry, json, 'api key');
			json(res, (entry.status = 200), { keyed: 'ok', body, query, trace: req.headers['x-trace'] ?? null });
		},
		// GET /pages?page=N: three pages of two items, then an empty page (for HTTP Request's pagination);
		// in flaky mode page 2 first answers 429 with Retry-After: 1
		pages: (req, res, { json, entry, query }) => {
			const page = Number(query.page ?? 1);
			if (page === 2 && flaky && !failedOnce.has('pages/2')) {
				failedOnce.add('pages/2');
				entry.status = 429;
				res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
				res.end('{"error":"rate limited"}');
				return;
			}
			json(res, (entry.status = 200), page <= 3 ? [{ page, n: 1 }, { page, n: 2 }] : []);
		},
	});
	return {
		...api,
		issued,
		/** Every token issued so far is refused from now on (n8n must refresh). */
		expireTokens: () => valid.clear(),
		/** From now on, each route answers 503 to its first request. */
		goFlaky: () => {
			flaky = true;
			failedOnce.clear();
		},
		calm: () => {
			flaky = false;
		},
		requestsTo: (prefix) => api.log.filter((e) => e.path.startsWith(prefix)),
	};
}
