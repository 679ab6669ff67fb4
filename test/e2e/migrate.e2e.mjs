// The migrate command as docs/migration.md gives it, on a workflow exported from a real n8n 2.41.1 with
// `n8n export:workflow`: HTTP Request nodes using every supported credential kind and feature
// (a predefined API key with Retry On Fail, n8n's OAuth2 API, a predefined OAuth2, Digest, Header
// Auth with query, headers, a nested JSON body, a full response and a Timeout, pagination), an
// HTTP Request v1 node (v1's OAuth2) and a v2 node (JSON/RAW parameters), and one it cannot carry over (a credential type of another community package). The result is imported
// back (`n8n import:workflow`, same id) and run against an API that turns flaky (a 503 on each
// route, a 429 + Retry-After on page 2) and expires every token.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { AUTH_SECRETS, authCredentials, startAuthApi } from './auth-api.mjs';
import { PACKAGE_NAME, executeWorkflow, importCredentials, importWorkflow, nodeResults, packTarball, prepareUserFolder, runN8n } from './harness.mjs';

const run = promisify(execFile);
const RESILIENT = `${PACKAGE_NAME}.resilientHttpRequest`;

function workflowToMigrate(apiUrl) {
	const node = (id, name, x, parameters, credentials, extra = {}) => ({ id, name, type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [x, 0], parameters: { options: {}, ...parameters }, ...(credentials ? { credentials } : {}), ...extra });
	const chain = ['Start', 'Stripe charges', 'OAuth2 app', 'Legacy graph', 'Microsoft me', 'Digest data', 'Create order', 'Legacy order', 'All pages'];
	return {
		id: 'migrateOrders',
		name: 'Orders to migrate',
		nodes: [
			{ id: 't', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			node('s', 'Stripe charges', 200, { url: `${apiUrl}/stripe/v1/charges`, authentication: 'predefinedCredentialType', nodeCredentialType: 'stripeApi' }, { stripeApi: { id: 'e2eStripe', name: 'E2E Stripe' } }, { retryOnFail: true, maxTries: 3, waitBetweenTries: 500 }),
			node('o', 'OAuth2 app', 400, { url: `${apiUrl}/graph/app`, authentication: 'genericCredentialType', genericAuthType: 'oAuth2Api' }, { oAuth2Api: { id: 'e2eOAuth2', name: 'E2E OAuth2 (client credentials)' } }),
			node('m', 'Microsoft me', 600, { url: `${apiUrl}/graph/me`, authentication: 'predefinedCredentialType', nodeCredentialType: 'microsoftOAuth2Api' }, { microsoftOAuth2Api: { id: 'e2eMicrosoft', name: 'E2E Microsoft' } }),
			node('d', 'Digest data', 800, { url: `${apiUrl}/digest/data`, authentication: 'genericCredentialType', genericAuthType: 'httpDigestAuth' }, { httpDigestAuth: { id: 'e2eDigest', name: 'E2E Digest' } }),
			node(
				'k',
				'Create order',
				1000,
				{
					method: 'PUT',
					url: `${apiUrl}/keyed/orders`,
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
					sendQuery: true,
					queryParameters: { parameters: [{ name: 'dryRun', value: 'false' }] },
					sendHeaders: true,
					headerParameters: { parameters: [{ name: 'X-Trace', value: 'trace-42' }] },
					sendBody: true,
					bodyParameters: { parameters: [{ name: 'order.id', value: 'o-1001' }, { name: 'order.total', value: '25' }] },
					options: { timeout: 60000, response: { response: { fullResponse: true } } },
				},
				{ httpHeaderAuth: { id: 'e2eHeader', name: 'E2E Header' } },
			),
			// HTTP Request v1 and v2, as older workflows hold them
			{ ...node('l1', 'Legacy graph', 500, { url: `${apiUrl}/graph/legacy`, authentication: 'oAuth2' }, { oAuth2Api: { id: 'e2eOAuth2', name: 'E2E OAuth2 (client credentials)' } }), typeVersion: 1 },
			{
				...node(
					'l2',
					'Legacy order',
					1100,
					{ requestMethod: 'POST', url: `${apiUrl}/keyed/legacy`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', jsonParameters: true, bodyParametersJson: '{"order": {"id": "o-2002"}}', queryParametersJson: '{"dryRun": "true"}', headerParametersJson: '{"X-Trace": "trace-v2"}' },
					{ httpHeaderAuth: { id: 'e2eHeader', name: 'E2E Header' } },
				),
				typeVersion: 2,
			},
			node('p', 'All pages', 1200, {
				url: `${apiUrl}/pages`,
				options: { pagination: { pagination: { parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] }, paginationCompleteWhen: 'responseIsEmpty' } } },
			}),
			// not connected: it stays an HTTP Request node, and is not run
			node('c', 'Community API', 1200, { url: `${apiUrl}/community`, authentication: 'predefinedCredentialType', nodeCredentialType: 'someCommunityApi' }),
			// an AI agent's tool (not connected to an agent here: ai-agent-tool.e2e.mjs runs ours in one)
			{ ...node('w', 'Weather tool', 1400, { toolDescription: 'Gets the weather', url: `=${apiUrl}/weather/{{ $fromAI('city', 'The city', 'string') }}` }), type: 'n8n-nodes-base.httpRequestTool' },
		],
		connections: Object.fromEntries(chain.slice(0, -1).map((name, n) => [name, { main: [[{ node: chain[n + 1], type: 'main', index: 0 }]] }])),
		settings: { executionOrder: 'v1' },
	};
}

let userFolder;
let api;
let exportDir;

describe('migrate: an exported workflow, rewritten, imported back and run in a real n8n', () => {
	before(async () => {
		api = await startAuthApi();
		userFolder = await prepareUserFolder({ tarball: true });
		await importCredentials(userFolder, authCredentials(api.url));
		await importWorkflow(userFolder, workflowToMigrate(api.url));
		exportDir = path.join(userFolder, 'exported');
		fs.mkdirSync(exportDir);
		const exported = await runN8n(userFolder, ['export:workflow', '--id=migrateOrders', `--output=${path.join(exportDir, 'orders.json')}`, '--pretty']);
		assert.equal(exported.exitCode, 0, exported.stdout + exported.stderr);
	});
	after(async () => {
		await api?.close();
	});

	test('the documented command rewrites the export: every node carried over but the community credential\'s, which it says it kept', async () => {
		// as docs/migration.md says: npx with the package (here its tarball, as it is not on the registry yet)
		const npx = ['--yes', `--package=${packTarball()}`, PACKAGE_NAME, 'migrate', exportDir];
		const { stdout } = await run('npx', npx, { cwd: userFolder, encoding: 'utf8' });
		console.log(stdout);
		assert.match(stdout, /orders\.json -> .*orders\.resilient\.json/);
		assert.match(stdout, /"Stripe charges": migrated\n.*\n\s+- Retry On Fail turned off; its 3 tries became Max Attempts 3, its wait of 500 ms Base Delay 500 ms/);
		assert.match(stdout, /"Create order": migrated\n(.*\n)*?\s+- Attempt Timeout set to the node's Timeout, 60000 ms/);
		assert.match(stdout, /"All pages": migrated\n(.*\n)*?\s+! pagination: each page is retried on its own/);
		assert.match(stdout, /"Legacy graph": migrated\n.*\n\s+- parameters of HTTP Request v1 written as their v3 equivalents/);
		assert.match(stdout, /"Legacy order": migrated\n.*\n\s+- parameters of HTTP Request v2 written as their v3 equivalents/);
		assert.match(stdout, /"Community API": kept as it is\n\s+- the credential type "someCommunityApi" is not one Resilient HTTP Request offers/);
		assert.deepEqual(Object.entries(AUTH_SECRETS).filter(([, s]) => stdout.includes(s)), []);

		const [result] = JSON.parse(fs.readFileSync(path.join(exportDir, 'orders.resilient.json'), 'utf8'));
		const types = Object.fromEntries(result.nodes.map((n) => [n.name, `${n.type} ${n.typeVersion}`]));
		assert.deepEqual(types, {
			Start: 'n8n-nodes-base.manualTrigger 1',
			'Stripe charges': `${RESILIENT} 1`,
			'OAuth2 app': `${RESILIENT} 1`,
			'Legacy graph': `${RESILIENT} 1`,
			'Legacy order': `${RESILIENT} 1`,
			'Microsoft me': `${RESILIENT} 1`,
			'Digest data': `${RESILIENT} 1`,
			'Create order': `${RESILIENT} 1`,
			'All pages': `${RESILIENT} 1`,
			'Community API': 'n8n-nodes-base.httpRequest 4.2',
			'Weather tool': `${RESILIENT}Tool 1`,
		});
		assert.equal(result.nodes.find((n) => n.name === 'Weather tool').parameters.toolDescription, 'Gets the weather');
		const stripe = result.nodes.find((n) => n.name === 'Stripe charges');
		assert.equal(stripe.retryOnFail, undefined);
		assert.deepEqual(stripe.credentials, { stripeApi: { id: 'e2eStripe', name: 'E2E Stripe' } });

		// a second run does not overwrite the result
		await assert.rejects(run('npx', npx, { cwd: userFolder, encoding: 'utf8' }), (error) => error.code === 1 && /not overwriting .*orders\.resilient\.json: move it away, or pass --force/.test(error.stderr));
	});

	test('imported with n8n import:workflow (same id: it replaces the workflow) and run: each node retries the flaky API, n8n refreshes the expired tokens, the pages survive a 429', async () => {
		const imported = await runN8n(userFolder, ['import:workflow', `--input=${path.join(exportDir, 'orders.resilient.json')}`]);
		assert.equal(imported.exitCode, 0, imported.stdout + imported.stderr);
		api.expireTokens();
		api.goFlaky();
		const started = api.log.length;
		const execution = await executeWorkflow(userFolder, 'migrateOrders');
		api.calm();
		assert.equal(execution.exitCode, 0, execution.stdout.slice(-3000));
		const results = nodeResults(execution.output);
		// at the default Retry Story a success item is HTTP Request's: the retry shows on the output panel
		for (const name of ['Stripe charges', 'OAuth2 app', 'Legacy graph', 'Microsoft me', 'Digest data', 'Create order', 'All pages']) {
			assert.equal(results[name].items[0]._retry, undefined, `${name}: a success item without a story, as HTTP Request's`);
			assert.match(results[name].hints.map((h) => h.message).join('\n'), /^1 of 1 item needed retries \(1 retry in all\)/, `${name} retried once on its own, and says so on its output panel`);
		}
		const order = results['Create order'].items[0];
		assert.equal(order.statusCode, 200, 'Include Response Headers and Status carried over');
		assert.deepEqual(order.body, { keyed: 'ok', body: { order: { id: 'o-1001', total: '25' } }, query: { dryRun: 'false' }, trace: 'trace-42' });
		assert.deepEqual(results['Legacy graph'].items, [{ resource: 'legacy' }], "the v1 node's OAuth2 credential, with the token n8n refreshed");
		// the route had failed once already (Create order): no retry, the same request as v2 sent
		assert.deepEqual(results['Legacy order'].items, [{ keyed: 'ok', body: { order: { id: 'o-2002' } }, query: { dryRun: 'true' }, trace: 'trace-v2' }]);
		const pages = results['All pages'].items;
		assert.deepEqual(pages, [1, 1, 2, 2, 3, 3].map((page, n) => ({ page, n: (n % 2) + 1 })), 'every page fetched, page 2 after its 429');
		const pageRequests = api.requestsTo('/pages').slice(-5);
		assert.deepEqual(pageRequests.map((e) => new URL(e.url, 'http://x').searchParams.get('page')), ['1', '2', '2', '3', '4'], 'no page fetched twice but page 2');
		assert.deepEqual(pageRequests.slice(1, 3).map((e) => e.status), [429, 200], 'page 2 waited and was fetched again, on its own');
		assert.ok(pageRequests[2].time - pageRequests[1].time >= 1000, 'Retry-After: 1 obeyed');
		const tokens = api.log.slice(started).filter((e) => e.path.startsWith('/token')).map((e) => e.path);
		assert.deepEqual(tokens, ['/token/app', '/token/ms'], 'both OAuth2 tokens refreshed once');
		assert.deepEqual(Object.entries(AUTH_SECRETS).filter(([, s]) => (execution.stdout + execution.stderr).includes(s)), []);
	});
});
