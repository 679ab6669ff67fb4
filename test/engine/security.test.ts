/**
 * No secret leaks: every credential kind, with known unique secret values, against every failure
 * that produces text, with the error output and with the node failing. Every output is searched:
 * the whole serialized run data, the node's error (message, description, stack, causes), and every
 * log line of the node and of n8n's engine. Also: credentials never follow a redirect to another
 * origin, and generated idempotency keys come from a cryptographic source.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { ICredentialType, IDataObject, INode } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';
import { ResilientHttpOAuth2Api } from '../../credentials/ResilientHttpOAuth2Api.credentials';
import { REDACTED } from '../../nodes/shared/core/redact';
import { expectDocSection, markdownTable } from '../support/doc-section';
import type { WorkflowRunResult } from './harness';
import type { LocalHandler, LocalHandlerResult, LocalServer } from './local-server';
import { useLocalServers } from './servers';
import { ensureEngineContainer } from './support/engine-container';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

/** Every log line of the run (the node's `this.logger` and n8n's LoggerProxy), metadata included. */
const logLines: string[] = [];
beforeAll(() => {
	ensureEngineContainer();
	const write = (level: string) => (message: string, metadata?: unknown) => {
		logLines.push(`${level} ${message} ${serialize(metadata)}`);
	};
	const logger = { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug'), scoped: () => logger };
	Container.set(Logger, logger as unknown as Logger);
	LoggerProxy.init(logger as unknown as Logger);
});

/**
 * The workflow's own node definition: n8n puts it into the execution stack and onto node errors
 * (`error.node`). Its parameters are what the user typed (a URL with a key, a Cookie header, a
 * proxy URL) and are stored with the workflow anyway: the workflow, not an output of the node.
 */
function isWorkflowNode(value: object): boolean {
	return 'parameters' in value && 'typeVersion' in value && 'position' in value;
}

/**
 * Everything an object holds, as text: JSON.stringify misses what errors keep in non-enumerable
 * properties (message, stack, cause), so those are walked too.
 */
function serialize(value: unknown, seen = new WeakSet<object>()): string {
	if (value === null || value === undefined) return String(value);
	if (typeof value !== 'object') return String(value);
	if (isWorkflowNode(value)) return `[workflow node ${String((value as { name?: unknown }).name)}]`;
	if (seen.has(value)) return '';
	seen.add(value);
	const parts: string[] = [];
	try {
		parts.push(JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'object' && entry !== null && isWorkflowNode(entry) ? '[workflow node]' : entry)) ?? '');
	} catch {
		// circular: the walk below covers it
	}
	for (const key of Object.getOwnPropertyNames(value)) {
		const entry = (value as Record<string, unknown>)[key];
		parts.push(key, serialize(entry, seen));
	}
	return parts.join('\n');
}

/** A credential kind: how the node is configured, and the secret values that must never leak. */
interface Kind {
	key: string;
	label: string;
	secrets: string[];
	/** The credential is not sent to these servers (Digest waits for a challenge, a client certificate needs TLS): their echoes hold none. */
	notSent?: true;
	/** `base`: the URL prefix of the server playing the upstream; `tokenUrl`: an OAuth2 token endpoint. */
	configure(base: string, tokenUrl: string): { url: string; parameters: IDataObject; nodeCredentials?: INode['credentials']; credentials?: Record<string, IDataObject>; credentialTypes?: ICredentialType[] };
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const generic = (type: string) => ({ authentication: 'genericCredentialType', genericAuthType: type });
const predefined = (type: string) => ({ authentication: 'predefinedCredentialType', nodeCredentialType: type });
const cred = (type: string) => ({ [type]: { id: '1', name: type } });
const OAUTH_TOKEN = 'oauth-at-3c7b19e2';
const METABASE_SESSION = 'mb-session-9f04c2e8';

const KINDS: Kind[] = [
	{
		key: 'basic',
		label: 'Basic Auth user and password (and `user:password` in base64)',
		secrets: ['basic-user-5b81e0', 'basic-pw-7f3a9c21', b64('basic-user-5b81e0:basic-pw-7f3a9c21')],
		configure: (base) => ({ url: `${base}/r`, parameters: generic('httpBasicAuth'), nodeCredentials: cred('httpBasicAuth'), credentials: { httpBasicAuth: { user: 'basic-user-5b81e0', password: 'basic-pw-7f3a9c21' } } }),
	},
	{
		key: 'bearer',
		label: 'Bearer Auth token',
		secrets: ['bearer-tok-91c2d7aa'],
		configure: (base) => ({ url: `${base}/r`, parameters: generic('httpBearerAuth'), nodeCredentials: cred('httpBearerAuth'), credentials: { httpBearerAuth: { token: 'bearer-tok-91c2d7aa' } } }),
	},
	{
		key: 'header',
		label: 'Header Auth value (`X-Api-Key`)',
		secrets: ['hdr-key-4e6b0a3f'],
		configure: (base) => ({ url: `${base}/r`, parameters: generic('httpHeaderAuth'), nodeCredentials: cred('httpHeaderAuth'), credentials: { httpHeaderAuth: { name: 'X-Api-Key', value: 'hdr-key-4e6b0a3f' } } }),
	},
	{
		key: 'query',
		label: 'Query Auth value (`?api_key=`)',
		secrets: ['qry-key-2d9f83b1'],
		configure: (base) => ({ url: `${base}/r`, parameters: generic('httpQueryAuth'), nodeCredentials: cred('httpQueryAuth'), credentials: { httpQueryAuth: { name: 'api_key', value: 'qry-key-2d9f83b1' } } }),
	},
	{
		key: 'oauth2',
		label: 'OAuth2 client secret and access token (Resilient HTTP OAuth2 API, client credentials)',
		secrets: ['oauth-cs-6a0e44d9', OAUTH_TOKEN],
		configure: (base, tokenUrl) => ({
			url: `${base}/r`,
			parameters: generic('resilientHttpOAuth2Api'),
			nodeCredentials: cred('resilientHttpOAuth2Api'),
			credentialTypes: [new ResilientHttpOAuth2Api()],
			credentials: { resilientHttpOAuth2Api: { grantType: 'clientCredentials', accessTokenUrl: tokenUrl, clientId: 'client-id', clientSecret: 'oauth-cs-6a0e44d9', scope: '', authentication: 'header', authQueryParameters: '' } },
		}),
	},
	{
		key: 'digest',
		label: 'Digest Auth user and password',
		secrets: ['digest-user-3f81c0', 'digest-pw-0d5e7a19'],
		notSent: true,
		configure: (base) => ({ url: `${base}/r`, parameters: generic('httpDigestAuth'), nodeCredentials: cred('httpDigestAuth'), credentials: { httpDigestAuth: { user: 'digest-user-3f81c0', password: 'digest-pw-0d5e7a19' } } }),
	},
	{
		key: 'custom',
		label: 'Custom Auth header, query and body values',
		secrets: ['custom-hdr-8c21f4', 'custom-qs-4b7e90', 'custom-body-61d2aa'],
		configure: (base) => ({
			url: `${base}/r`,
			parameters: generic('httpCustomAuth'),
			nodeCredentials: cred('httpCustomAuth'),
			credentials: { httpCustomAuth: { json: JSON.stringify({ headers: { 'X-Custom-Key': 'custom-hdr-8c21f4' }, qs: { sig: 'custom-qs-4b7e90' }, body: { token: 'custom-body-61d2aa' } }) } },
		}),
	},
	{
		key: 'templated',
		label: 'Simplified Custom Auth placeholder value',
		secrets: ['tpl-key-2e90b7c4'],
		configure: (base) => ({
			url: `${base}/r`,
			parameters: generic('httpTemplatedCustomAuth'),
			nodeCredentials: cred('httpTemplatedCustomAuth'),
			credentials: { httpTemplatedCustomAuth: { template: '{"headers":{"Authorization":"Key {{api_key}}"}}', placeholderValues: '{"api_key":"tpl-key-2e90b7c4"}', placeholderDefs: '' } },
		}),
	},
	{
		key: 'oauth2-n8n',
		label: "OAuth2 client secret and access token (n8n's OAuth2 API, client credentials)",
		secrets: ['n8n-oauth-cs-7e1d0b', OAUTH_TOKEN],
		configure: (base, tokenUrl) => ({
			url: `${base}/r`,
			parameters: generic('oAuth2Api'),
			nodeCredentials: cred('oAuth2Api'),
			credentials: { oAuth2Api: { grantType: 'clientCredentials', accessTokenUrl: tokenUrl, clientId: 'client-id', clientSecret: 'n8n-oauth-cs-7e1d0b', scope: '', authentication: 'header', authQueryParameters: '' } },
		}),
	},
	{
		key: 'oauth1',
		label: "OAuth1 consumer secret, token and token secret (n8n's OAuth1 API)",
		secrets: ['oauth1-cs-5c0e8f2a', 'oauth1-tok-93a1d7', 'oauth1-ts-d24b60e9'],
		configure: (base) => ({
			url: `${base}/r`,
			parameters: generic('oAuth1Api'),
			nodeCredentials: cred('oAuth1Api'),
			credentials: { oAuth1Api: { consumerKey: 'consumer-key', consumerSecret: 'oauth1-cs-5c0e8f2a', signatureMethod: 'HMAC-SHA1', oauthTokenData: { oauth_token: 'oauth1-tok-93a1d7', oauth_token_secret: 'oauth1-ts-d24b60e9' } } },
		}),
	},
	{
		key: 'stripe',
		label: 'Predefined API key in a header (Stripe API secret key)',
		secrets: ['sk_test_sec_4a9e0c71'],
		configure: (base) => ({ url: `${base}/r`, parameters: predefined('stripeApi'), nodeCredentials: cred('stripeApi'), credentials: { stripeApi: { secretKey: 'sk_test_sec_4a9e0c71' } } }),
	},
	{
		key: 'pipedrive',
		label: 'Predefined API key in the query (Pipedrive API token)',
		secrets: ['pd-tok-sec-18f3b2'],
		configure: (base) => ({ url: `${base}/r`, parameters: predefined('pipedriveApi'), nodeCredentials: cred('pipedriveApi'), credentials: { pipedriveApi: { apiToken: 'pd-tok-sec-18f3b2' } } }),
	},
	{
		key: 'microsoft',
		label: 'Predefined OAuth2 client secret, access and refresh tokens (Microsoft OAuth2 API; a 401 refreshes the token)',
		secrets: ['ms-cs-0f7d2e91', 'ms-at-old-6b3c58', 'ms-rt-2a8f40d1', OAUTH_TOKEN],
		configure: (base, tokenUrl) => ({
			url: `${base}/r`,
			parameters: predefined('microsoftOAuth2Api'),
			nodeCredentials: cred('microsoftOAuth2Api'),
			credentials: {
				microsoftOAuth2Api: { grantType: 'authorizationCode', accessTokenUrl: tokenUrl, authUrl: tokenUrl, clientId: 'client-id', clientSecret: 'ms-cs-0f7d2e91', scope: 'openid', authentication: 'body', authQueryParameters: '', oauthTokenData: { access_token: 'ms-at-old-6b3c58', refresh_token: 'ms-rt-2a8f40d1', token_type: 'Bearer' } },
			},
		}),
	},
	{
		key: 'metabase',
		label: 'Predefined login fetching a session token: password and session token (Metabase API; a 401 fetches a new one)',
		secrets: ['mb-pw-5e0a7c13', METABASE_SESSION],
		configure: (base, tokenUrl) => ({
			url: `${base}/r`,
			parameters: predefined('metabaseApi'),
			nodeCredentials: cred('metabaseApi'),
			credentials: { metabaseApi: { url: tokenUrl.replace(/\/token$/, ''), username: 'mb-user', password: 'mb-pw-5e0a7c13', sessionToken: '' } },
		}),
	},
	{
		key: 'ssl',
		label: 'SSL Certificates private key and passphrase',
		secrets: ['ssl-key-body-7c2e19a4', 'ssl-pass-3d81f0b6'],
		notSent: true,
		// over plain HTTP the certificate is never presented: this checks the node never writes it anywhere
		configure: (base) => ({ url: `${base}/r`, parameters: { provideSslCertificates: true }, nodeCredentials: cred('httpSslAuth'), credentials: { httpSslAuth: { key: 'ssl-key-body-7c2e19a4', passphrase: 'ssl-pass-3d81f0b6' } } }),
	},
	{
		key: 'proxy',
		label: 'Proxy URL user and password',
		secrets: ['proxy-user-1e7d', 'proxy-pw-8b2c55f0', b64('proxy-user-1e7d:proxy-pw-8b2c55f0')],
		// the server plays the proxy: it receives the request for the (unresolvable) target
		configure: (base) => ({ url: 'http://upstream.invalid/r', parameters: { options: { proxy: base.replace('http://', 'http://proxy-user-1e7d:proxy-pw-8b2c55f0@') } } }),
	},
	{
		key: 'url-key',
		label: 'API key in the URL (`?access_token=`)',
		secrets: ['url-tok-5f1d27c8'],
		configure: (base) => ({ url: `${base}/r?page=1&access_token=url-tok-5f1d27c8`, parameters: {} }),
	},
	{
		key: 'url-userinfo',
		label: 'User and password in the URL (`https://user:password@host`)',
		// the node sends them as `Authorization: Basic <base64>`: a server may quote that value alone
		secrets: ['url-user-9d04b2', 'url-pw-e61f7a3c', b64('url-user-9d04b2:url-pw-e61f7a3c')],
		configure: (base) => ({ url: `${base.replace('http://', 'http://url-user-9d04b2:url-pw-e61f7a3c@')}/r`, parameters: {} }),
	},
	{
		key: 'cookie',
		label: '`Cookie` header',
		secrets: ['cookie-sess-0c4e9d6b'],
		configure: (base) => ({ url: `${base}/r`, parameters: { sendHeaders: true, headerParameters: { parameters: [{ name: 'Cookie', value: 'theme=dark; session=cookie-sess-0c4e9d6b' }] } } }),
	},
	{
		key: 'authorization',
		label: '`Authorization` header set by hand',
		secrets: ['hand-tok-73ab90e1'],
		configure: (base) => ({ url: `${base}/r`, parameters: { sendHeaders: true, headerParameters: { parameters: [{ name: 'Authorization', value: 'Token hand-tok-73ab90e1' }] } } }),
	},
	{
		key: 'x-api-key',
		label: '`X-Api-Key` header set by hand',
		secrets: ['typed-key-0a7c3e91'],
		configure: (base) => ({ url: `${base}/r`, parameters: { sendHeaders: true, headerParameters: { parameters: [{ name: 'X-Api-Key', value: 'typed-key-0a7c3e91' }] } } }),
	},
	{
		key: 'x-auth-token',
		label: '`X-Auth-Token` header set by hand',
		secrets: ['typed-tok-5d2b8f40'],
		configure: (base) => ({ url: `${base}/r`, parameters: { sendHeaders: true, headerParameters: { parameters: [{ name: 'X-Auth-Token', value: 'typed-tok-5d2b8f40' }] } } }),
	},
];

/** The credential-carrying parts of a request, without their names: what a careless server quotes. */
const quoted = (req: { url: string; headers: IDataObject }) => ['authorization', 'proxy-authorization', 'x-api-key', 'x-auth-token', 'cookie'].map((h) => String(req.headers[h] ?? '')).concat(req.url).join(' ');

const pathOf = (url: string) => new URL(url, 'http://relative.invalid').pathname;

/** What the server saw, sent back: a server echoing secrets is the worst case for the error output. */
const echo =
	(status: number): LocalHandler =>
	(req): LocalHandlerResult => ({ status, body: { youSent: { url: req.url, headers: req.headers } } });

interface Scenario {
	label: string;
	/** How many items go in. */
	items?: number;
	/** The upstream's behaviour; `undefined`: nothing listens (connection refused). */
	handler?: (other: LocalServer | undefined) => LocalHandler;
	/** Needs a second server, another origin, for a redirect. */
	otherOrigin?: boolean;
	parameters?: IDataObject;
	/** Turns the URL into a bad parameter. */
	breakUrl?: boolean;
	/** The expected `reason` on the error output (undefined: an error raised outside the retry loop). */
	reason?: string;
	/** The run succeeds (the story of a failed attempt lands on the success output). */
	succeeds?: boolean;
	/** The server's error body echoes what it received: the error output shows it redacted. */
	echoes?: boolean;
}

const SCENARIOS: Scenario[] = [
	{ label: '503 with the request echoed in the body', handler: () => echo(503), reason: 'attempts-exhausted', echoes: true },
	{ label: '401 with the request echoed in the body', handler: () => echo(401), reason: 'final-status', echoes: true },
	{ label: 'connection refused', reason: 'attempts-exhausted' },
	{ label: 'connection reset', handler: () => () => ({ drop: true }), reason: 'attempts-exhausted' },
	{ label: 'attempt timeout', handler: () => () => ({ hang: true }), parameters: { maxAttempts: 1, retryOptions: { attemptTimeout: 60 } }, reason: 'attempts-exhausted' },
	{
		label: 'redirect to another origin that fails',
		otherOrigin: true,
		// a proxy sees absolute URLs: the hop to the other origin reaches it too, and fails there
		handler: (other) => (req) => (pathOf(req.url) === '/r' ? { status: 302, headers: { location: `${other?.url ?? ''}/elsewhere` } } : echo(503)(req, 0)),
		reason: 'attempts-exhausted',
	},
	{ label: 'too many redirects', handler: () => () => ({ status: 302, headers: { location: '/r?again=1' } }), parameters: { options: { redirect: { redirect: { maxRedirects: 2 } } } }, reason: 'not-retryable-error' },
	{ label: 'retry budget exhausted', handler: () => echo(503), parameters: { sharedLimits: { budgetPercent: 0, budgetMinRetries: 0 } }, reason: 'retry-budget-exhausted' },
	// the API is held after one failure; the next probe comes after the second item's deadline
	{ label: 'circuit open', items: 2, handler: () => echo(503), parameters: { maxAttempts: 1, retryOptions: { totalDeadline: 500 }, options: { maxConcurrency: 1 }, sharedLimits: { breakerConsecutiveFailures: 1, breakerBreak: 60_000, breakerMaxBreak: 60_000 } }, reason: 'api-held' },
	{ label: 'response that is not the JSON asked for, echoing the request', handler: () => (req) => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: `not json ${req.url} ${JSON.stringify(req.headers)}` }), parameters: { options: { response: { response: { responseFormat: 'json' } } } } },
	{ label: 'invalid URL (parameter error)', breakUrl: true },
	{ label: 'reset, then success (the story on the success output)', handler: () => (_req, index) => (index === 0 ? { drop: true } : { status: 200, body: { ok: true } }), parameters: { method: 'GET' }, succeeds: true },
	{
		label: '503 whose status text quotes the credential, then success (the story on the success output)',
		handler: () => (req, index) => (index === 0 ? { status: 503, statusText: `rejected ${quoted(req as never)}` } : { status: 200, body: { ok: true } }),
		parameters: { method: 'GET' },
		succeeds: true,
	},
	{ label: '401 whose body quotes the credential without its header name', handler: () => (req) => ({ status: 401, body: { message: `rejected ${quoted(req as never)}` } }), reason: 'final-status' },
];

/** A port nothing listens on: a server started and closed. */
async function closedPortUrl(): Promise<string> {
	const s = await server(() => ({ status: 200 }));
	await s.close();
	return s.url;
}

async function tokenServer(): Promise<LocalServer> {
	// also Metabase's session endpoint: a login that fetches a token
	return await server((req) => (req.url === '/token' ? { status: 200, body: { access_token: OAUTH_TOKEN, token_type: 'bearer', expires_in: 3600 } } : req.url === '/api/session' ? { status: 200, body: { id: METABASE_SESSION } } : { status: 404 }));
}

type KindSetup = ReturnType<Kind['configure']>;

/** The kind's node set up against `base`; OAuth2 gets a token endpoint of its own. */
async function configureKind(kind: Kind, base: string): Promise<KindSetup> {
	const token = ['oauth2', 'oauth2-n8n', 'microsoft', 'metabase'].includes(kind.key) ? await tokenServer() : undefined;
	return kind.configure(base, `${token?.url ?? ''}/token`);
}

/** runHttp's credential options for a setup. */
function credentialOptions(setup: KindSetup) {
	return { ...(setup.credentials ? { credentials: setup.credentials as never } : {}), ...(setup.credentialTypes ? { credentialTypes: setup.credentialTypes } : {}) };
}

/** One item through the node with the credential of kind `key`, sent to `first` (the redirect tests). */
async function runKindOnce(key: string, first: LocalServer): Promise<WorkflowRunResult> {
	const setup = await configureKind(KINDS.find((k) => k.key === key) as Kind, first.url);
	const wf = httpWorkflow({ url: setup.url, ...setup.parameters }, setup.nodeCredentials ? { credentials: setup.nodeCredentials } : {});
	return await runHttp(wf, [{ json: {} }], createVirtualRuntime(), credentialOptions(setup));
}

interface Checked {
	kind: Kind;
	scenario: Scenario;
	onError: 'continueErrorOutput' | 'stop';
	run: WorkflowRunResult;
	texts: string[];
}

async function runCase(kind: Kind, scenario: Scenario, onError: Checked['onError']): Promise<Checked> {
	const other = scenario.otherOrigin ? await server(echo(500)) : undefined;
	const upstream = scenario.handler ? await server(scenario.handler(other)) : undefined;
	const base = upstream?.url ?? (await closedPortUrl());
	const setup = await configureKind(kind, base);
	let url = setup.url;
	if (scenario.breakUrl) url = url.replace(/:(\d+)\//, ':99999/').replace('upstream.invalid/', 'upstream.invalid:99999/');
	const parameters: IDataObject = { url, maxAttempts: 2, ...setup.parameters, ...scenario.parameters };
	if (setup.parameters.options || scenario.parameters?.options) parameters.options = { ...(setup.parameters.options as IDataObject), ...(scenario.parameters?.options as IDataObject) };
	const wf = httpWorkflow(parameters, { ...(onError === 'continueErrorOutput' ? { onError } : {}), ...(setup.nodeCredentials ? { credentials: setup.nodeCredentials } : {}) });
	const items = Array.from({ length: scenario.items ?? 1 }, (_, n) => ({ json: { n } }));
	const logStart = logLines.length;
	const run = await runHttp(wf, items, createVirtualRuntime(), credentialOptions(setup));
	if (other) expect(JSON.stringify(other.requests.map((r) => [r.url, r.headers]))).not.toMatch(new RegExp(kind.secrets.map((s) => s.replace(/[+/=]/g, '\\$&')).join('|')));
	return { kind, scenario, onError, run, texts: [serialize(run.run), serialize(run.error), ...logLines.slice(logStart)] };
}

const checked: Checked[] = [];
/** What the redirect and idempotency tests proved, pushed once their assertions passed. */
const redirectKept: string[] = [];
const notSentBack: string[] = [];
const keyRows: string[][] = [];
const tokenRuns: string[] = [];
const tokenRows: string[][] = [];
const digestRuns: string[] = [];

describe.each(KINDS)('$label', (kind) => {
	it.each(SCENARIOS.flatMap((scenario) => (['continueErrorOutput', 'stop'] as const).map((onError) => ({ scenario, onError, name: `${scenario.label}, ${onError === 'stop' ? 'node fails' : 'error output'}` }))))(
		'$name: no secret in the run data, the error or the logs',
		async ({ scenario, onError }) => {
			const result = await runCase(kind, scenario, onError);
			const { run } = result;
			// the case did fail the way it says (otherwise it proves nothing)
			if (scenario.succeeds) {
				expect(run.status).toBe('success');
				expect(run.jsonOf('OK')[0]._retry).toMatchObject({ attempts: 2, stoppedBecause: 'success' });
			} else if (onError === 'stop') {
				expect(run.status).toBe('error');
				expect(run.error?.message).toBeTruthy();
				// the node's error tells its retry story, as the error output would (with one item: with
				// more, the node stops at the first, which fails for another reason than the last)
				if (scenario.reason && (scenario.items ?? 1) === 1) expect(String(run.error?.description)).toMatch(/Retry story: \d+ attempts? of at most/);
			} else {
				const failed = run.jsonOf('HTTP', 1);
				expect(failed).toHaveLength(scenario.items ?? 1);
				const last = failed[failed.length - 1].error as IDataObject;
				if (scenario.reason) expect(last.reason).toBe(scenario.reason);
				// an error thrown before or after the request: HTTP Request's item, its message alone
				else expect(last).toEqual(expect.any(String));
				// the echo reached the error output (the body, under `error` as in HTTP Request's), with the credential hidden
				if (scenario.echoes && !kind.notSent) expect(JSON.stringify(last.error)).toContain(REDACTED);
			}
			for (const secret of kind.secrets) {
				for (const text of result.texts) expect(text.includes(secret) ? `${secret} found in: ${text.slice(Math.max(0, text.indexOf(secret) - 300), text.indexOf(secret) + 100)}` : 'not found').toBe('not found');
			}
			checked.push(result);
		},
	);
});

/** `locationAsGiven`: a query credential goes with the first request only; a redirect's Location is followed as it is, as in HTTP Request. */
const REDIRECT_KINDS: Array<{ label: string; kind: string; seen: (req: { url: string; headers: IDataObject }) => boolean; locationAsGiven?: true }> = [
	{ label: '`Authorization` (Bearer Auth)', kind: 'bearer', seen: (r) => String(r.headers.authorization ?? '').includes('bearer-tok-91c2d7aa') },
	{ label: 'Basic Auth', kind: 'basic', seen: (r) => String(r.headers.authorization ?? '') === `Basic ${b64('basic-user-5b81e0:basic-pw-7f3a9c21')}` },
	{ label: 'Header Auth (`X-Api-Key`)', kind: 'header', seen: (r) => r.headers['x-api-key'] === 'hdr-key-4e6b0a3f' },
	{ label: 'Query Auth parameter', kind: 'query', seen: (r) => r.url.includes('api_key=qry-key-2d9f83b1'), locationAsGiven: true },
	{ label: 'OAuth2 access token', kind: 'oauth2', seen: (r) => r.headers.authorization === `Bearer ${OAUTH_TOKEN}` },
	{ label: 'User and password in the URL', kind: 'url-userinfo', seen: (r) => r.headers.authorization === `Basic ${b64('url-user-9d04b2:url-pw-e61f7a3c')}` },
	{ label: '`Cookie` header', kind: 'cookie', seen: (r) => String(r.headers.cookie ?? '').includes('cookie-sess-0c4e9d6b') },
	{ label: '`Authorization` header set by hand', kind: 'authorization', seen: (r) => r.headers.authorization === 'Token hand-tok-73ab90e1' },
	{ label: '`X-Api-Key` header set by hand', kind: 'x-api-key', seen: (r) => r.headers['x-api-key'] === 'typed-key-0a7c3e91' },
	{ label: '`X-Auth-Token` header set by hand', kind: 'x-auth-token', seen: (r) => r.headers['x-auth-token'] === 'typed-tok-5d2b8f40' },
];

describe('OAuth2: the token endpoint fails', () => {
	const oauth2 = KINDS.find((k) => k.key === 'oauth2') as Kind;
	const TOKEN_FAILURES: Record<string, LocalHandler> = {
		'401 invalid_client': (req) => ({ status: 401, body: { error: 'invalid_client', youSent: { body: req.body, headers: req.headers } } }),
		'500 as text': (req) => ({ status: 500, headers: { 'content-type': 'text/plain' }, body: `failed for ${req.body} ${JSON.stringify(req.headers)}` }),
	};
	const cases = Object.keys(TOKEN_FAILURES).flatMap((failure) => ['header', 'body'].flatMap((authentication) => (['continueErrorOutput', 'stop'] as const).map((onError) => ({ failure, authentication, onError }))));

	it.each(cases)('$failure echoing the token request, client secret in the $authentication, $onError: not found', async ({ failure, authentication, onError }) => {
		const tokens = await server(TOKEN_FAILURES[failure]);
		const upstream = await server(() => ({ status: 200, body: { ok: true } }));
		const setup = oauth2.configure(upstream.url, `${tokens.url}/token`);
		(setup.credentials as Record<string, IDataObject>).resilientHttpOAuth2Api.authentication = authentication;
		const wf = httpWorkflow({ url: setup.url, ...setup.parameters }, { ...(onError === 'continueErrorOutput' ? { onError } : {}), credentials: setup.nodeCredentials as INode['credentials'] });
		const logStart = logLines.length;
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: setup.credentials as never, credentialTypes: setup.credentialTypes as ICredentialType[] });

		expect(tokens.requests.length).toBeGreaterThan(0);
		expect(upstream.requests).toHaveLength(0);
		expect(run.status).toBe(onError === 'stop' ? 'error' : 'success');
		const texts = [serialize(run.run), serialize(run.error), ...logLines.slice(logStart)];
		for (const secret of ['oauth-cs-6a0e44d9', b64('client-id:oauth-cs-6a0e44d9')]) {
			for (const text of texts) expect(text.includes(secret) ? `${secret} found in: ${text.slice(Math.max(0, text.indexOf(secret) - 300), text.indexOf(secret) + 100)}` : 'not found').toBe('not found');
		}
		tokenRuns.push(`${failure}/${authentication}/${onError}`);
	});

	it('the table row', () => {
		expect(tokenRuns).toHaveLength(cases.length);
		tokenRows.push([
			'OAuth2 client secret (and `client_id:client_secret` in base64) at a failing token endpoint',
			"the token request's error, retry story, error output, node error, logs",
			`${tokenRuns.length} runs: ${Object.keys(TOKEN_FAILURES).join(' and ')} echoing the token request; client secret in the header and in the body; with the error output and with the node failing`,
			'not found in any output',
		]);
	});
});

describe('Digest Auth: the answered challenge', () => {
	it.each(['continueErrorOutput', 'stop'] as const)('a server that challenges, then fails echoing the answer (%s): neither user nor password in any output', async (onError) => {
		const digest = KINDS.find((k) => k.key === 'digest') as Kind;
		const upstream = await server((req) =>
			req.headers.authorization ? echo(503)(req, 0) : { status: 401, headers: { 'www-authenticate': 'Digest realm="api", qop="auth", nonce="n-1", opaque="o-1"' } },
		);
		const setup = digest.configure(upstream.url, '');
		const wf = httpWorkflow({ url: setup.url, maxAttempts: 2, ...setup.parameters }, { ...(onError === 'continueErrorOutput' ? { onError } : {}), credentials: setup.nodeCredentials as INode['credentials'] });
		const logStart = logLines.length;
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: setup.credentials as never });

		// the answer did carry the user (a digest header names it), on both attempts
		expect(upstream.requests.filter((r) => String(r.headers.authorization).includes('username="digest-user-3f81c0"'))).toHaveLength(2);
		if (onError === 'continueErrorOutput') expect(JSON.stringify(run.jsonOf('HTTP', 1)[0].error)).toContain(REDACTED);
		const texts = [serialize(run.run), serialize(run.error), ...logLines.slice(logStart)];
		for (const secret of digest.secrets) {
			for (const text of texts) expect(text.includes(secret) ? `${secret} found in: ${text.slice(Math.max(0, text.indexOf(secret) - 300), text.indexOf(secret) + 100)}` : 'not found').toBe('not found');
		}
		digestRuns.push(onError);
	});
});

describe('credentials on redirects', () => {
	it.each(REDIRECT_KINDS)('$label: sent after a same-origin redirect (a query credential: to the first URL only), never to another origin', async ({ kind: key, seen, locationAsGiven }) => {
		const kind = KINDS.find((k) => k.key === key) as Kind;
		const other = await server((req) => ({ status: 200, body: { at: req.url } }));
		const first = await server((req) => (pathOf(req.url) === '/r' ? { status: 302, headers: { location: '/same' } } : pathOf(req.url) === '/same' ? { status: 307, headers: { location: `${other.url}/elsewhere` } } : { status: 404 }));
		const run = await runKindOnce(key, first);

		expect(run.status).toBe('success');
		expect(run.jsonOf('OK')[0]).toMatchObject({ at: '/elsewhere' });
		const [start, same] = first.requests as unknown as Array<{ url: string; headers: IDataObject }>;
		expect([seen(start), seen(same)]).toEqual([true, !locationAsGiven]);
		expect(other.requests).toHaveLength(1);
		expect(seen(other.requests[0] as unknown as { url: string; headers: IDataObject })).toBe(false);
		for (const secret of kind.secrets) expect(JSON.stringify(other.requests[0])).not.toContain(secret);
		redirectKept.push(key);
	});

});

describe('credentials on a redirect chain that comes back', () => {
	it.each(REDIRECT_KINDS)('$label: not sent again to the first origin once the chain left it', async ({ kind: key, seen }) => {
		let firstUrl = '';
		// B sends the request back to A, on a path of its choosing
		const other = await server(() => ({ status: 307, headers: { location: `${firstUrl}/chosen-by-other` } }));
		const first = await server((req) => (pathOf(req.url) === '/r' ? { status: 302, headers: { location: `${other.url}/bounce` } } : { status: 200, body: { at: pathOf(req.url) } }));
		firstUrl = first.url;
		const run = await runKindOnce(key, first);

		expect(run.status).toBe('success');
		expect(run.jsonOf('OK')[0]).toMatchObject({ at: '/chosen-by-other' });
		const [start, back] = first.requests as unknown as Array<{ url: string; headers: IDataObject }>;
		expect([seen(start), seen(back)]).toEqual([true, false]);
		expect(seen(other.requests[0] as unknown as { url: string; headers: IDataObject })).toBe(false);
		notSentBack.push(key);
	});
});

describe('a credential that would make an invalid header', () => {
	it.each([
		['Header Auth value with CR LF', 'httpHeaderAuth', { name: 'X-Api-Key', value: 'hdr-key-4e6b0a3f\r\nX-Injected: 1' }, "The Header Auth credential's Value contains control characters (a line break, for example), which a header value cannot carry (item 0)"],
		['Header Auth value with a line break', 'httpHeaderAuth', { name: 'X-Api-Key', value: 'hdr-key-4e6b0a3f\n' }, "The Header Auth credential's Value contains control characters (a line break, for example), which a header value cannot carry (item 0)"],
		['Header Auth name with a space', 'httpHeaderAuth', { name: 'X Api Key', value: 'hdr-key-4e6b0a3f' }, 'The Header Auth credential\'s Name is invalid: "X Api Key" is not a valid HTTP header name: no spaces, control characters, non-ASCII letters or separators such as : ( ) , / " are allowed (item 0)'],
		['Bearer Auth token with a line break', 'httpBearerAuth', { token: 'bearer-tok-91c2d7aa\n' }, "The Bearer Auth credential's Bearer Token contains control characters (a line break, for example), which a header value cannot carry (item 0)"],
	])('%s: fails before any request, the credential named, the secret not shown', async (_label, type, data, message) => {
		const upstream = await server(() => ({ status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ url: `${upstream.url}/r`, ...generic(type) }, { credentials: cred(type) });
		const run = await runHttp(wf, [{ json: {} }], createVirtualRuntime(), { credentials: { [type]: data } as never });

		expect(upstream.requests).toHaveLength(0);
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe(message);
		expect(serialize(run.run)).not.toContain('hdr-key-4e6b0a3f');
		expect(serialize(run.run)).not.toContain('bearer-tok-91c2d7aa');
	});
});

describe('generated idempotency keys', () => {
	const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

	it('are RFC 4122 version 4 UUIDs, unique per item, and do not come from the seeded random source', async () => {
		const upstream = await server(() => ({ status: 200, body: { ok: true } }));
		const wf = httpWorkflow({ method: 'POST', url: `${upstream.url}/pay`, idempotencyKeyMode: 'generate' });
		const items = Array.from({ length: 50 }, (_, n) => ({ json: { n } }));
		// the same seed twice: a key derived from the runtime's random source would repeat
		await runHttp(wf, items, createVirtualRuntime(7));
		await runHttp(wf, items, createVirtualRuntime(7));

		const keys = upstream.requests.map((r) => String(r.headers['idempotency-key']));
		expect(keys).toHaveLength(100);
		for (const key of keys) expect(key).toMatch(UUID_V4);
		expect(new Set(keys).size).toBe(100);
		keyRows.push(['Generated idempotency keys', 'a key guessable from the seeded jitter source', `2 runs x ${items.length} POST items with the same seed`, `RFC 4122 v4 UUIDs (\`crypto.randomUUID\`), all ${new Set(keys).size} different`]);
	});
});

it('docs/testing.md: the security table says what these tests proved', () => {
	// a row per credential kind: only cases that ran and passed are in `checked`
	const rows = KINDS.map((kind) => {
		const runs = checked.filter((c) => c.kind === kind).length;
		return [kind.label, 'retry story, error output, node error (message, description, stack, whole run data), logs', `${runs} runs: each failure above, with the error output and with the node failing`, 'not found in any output'];
	});
	expect(checked).toHaveLength(KINDS.length * SCENARIOS.length * 2);
	const redirectRows = REDIRECT_KINDS.map(({ label, kind, locationAsGiven }) => {
		expect([redirectKept.includes(kind), notSentBack.includes(kind)]).toEqual([true, true]);
		const withinA = locationAsGiven ? "sent to A's first URL only (a Location is followed as it is, as in HTTP Request)" : 'sent to A and after the redirect within A';
		return [label, 'a redirect to another origin', 'A: 302 to A, then 307 to B; and A: 302 to B, which sends it back to A', `${withinA}; not sent to B, nor back to A once the chain left it`];
	});
	expect(keyRows).toHaveLength(1);
	expect(digestRuns).toHaveLength(2);
	const digestRows = [['Digest Auth user and password, once the challenge is answered', 'an error body echoing the digest answer, retry story, error output, node error, logs', '2 runs: 401 challenge, then 503 echoing the request, twice; with the error output and with the node failing', 'not found in any output (the password is never sent)']];
	expect(tokenRows).toHaveLength(1);
	// the logs were searched too: the APIs that looked down during the outages were logged
	expect(logLines.some((line) => line.startsWith('warn') && line.includes('looks down'))).toBe(true);
	const failures = SCENARIOS.map((s) => s.label).join('; ');
	expectDocSection(
		'security',
		[
			`Each secret below has a unique value, searched for in every output of the runs, against these failures: ${failures}. The node's own parameters, which n8n attaches to its errors, are the workflow as saved, not an output, and are not searched.`,
			'',
			markdownTable(['Secret', 'Where it could leak', 'Checked in', 'Result'], [...rows, ...tokenRows, ...digestRows, ...redirectRows, ...keyRows]),
		].join('\n'),
	);
});
