// A true drop-in, proved in a real n8n 2.41.1: a workflow of n8n's HTTP Request nodes that sign
// with a predefined API key (Stripe), n8n's own OAuth2 API credential (client credentials, local
// token endpoint), a predefined OAuth2 credential (Microsoft, refreshed with its refresh token)
// and Digest Auth keeps working after only each node's type (and typeVersion) is changed; then the
// API turns flaky and expires every token, and the same workflow retries and refreshes. Secrets
// never reach n8n's output or logs. In the editor (headless Chromium): the Credential Type list,
// its pickers, and the generic kinds' single picker; what the several hundred declarations cost
// the editor and n8n's start; and the list of types equals what HTTP Request offers in this n8n.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closePopups, launchBrowser, openNode, openWorkflow, pickOption, requireBrowser, saveAndWaitForNode, signIn } from './browser.mjs';
import { AUTH_SECRETS, authCredentials, startAuthApi } from './auth-api.mjs';
import {
	PACKAGE_NAME,
	REPO,
	executeWorkflow,
	importCredentials,
	importWorkflow,
	nodeResults,
	ownerEnv,
	prepareUserFolder,
	restClient,
	startN8n,
	stopN8n,
	waitFor,
} from './harness.mjs';

const RESILIENT = `${PACKAGE_NAME}.resilientHttpRequest`;

/** The workflow as a user has it: n8n's HTTP Request 4.2 nodes, one per kind of credential. */
function httpRequestWorkflow(apiUrl) {
	const node = (id, name, x, parameters, credentials) => ({ id, name, type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [x, 0], parameters: { options: {}, ...parameters }, credentials });
	return {
		id: 'dropInHttpRequest',
		name: 'Drop-in: HTTP Request',
		nodes: [
			{ id: 't', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			node('s', 'Stripe charges', 200, { url: `${apiUrl}/stripe/v1/charges`, authentication: 'predefinedCredentialType', nodeCredentialType: 'stripeApi' }, { stripeApi: { id: 'e2eStripe', name: 'E2E Stripe' } }),
			node('o', 'OAuth2 app', 400, { url: `${apiUrl}/graph/app`, authentication: 'genericCredentialType', genericAuthType: 'oAuth2Api' }, { oAuth2Api: { id: 'e2eOAuth2', name: 'E2E OAuth2 (client credentials)' } }),
			node('m', 'Microsoft me', 600, { url: `${apiUrl}/graph/me`, authentication: 'predefinedCredentialType', nodeCredentialType: 'microsoftOAuth2Api' }, { microsoftOAuth2Api: { id: 'e2eMicrosoft', name: 'E2E Microsoft' } }),
			node('d', 'Digest data', 800, { url: `${apiUrl}/digest/data`, authentication: 'genericCredentialType', genericAuthType: 'httpDigestAuth' }, { httpDigestAuth: { id: 'e2eDigest', name: 'E2E Digest' } }),
		],
		connections: {
			Start: { main: [[{ node: 'Stripe charges', type: 'main', index: 0 }]] },
			'Stripe charges': { main: [[{ node: 'OAuth2 app', type: 'main', index: 0 }]] },
			'OAuth2 app': { main: [[{ node: 'Microsoft me', type: 'main', index: 0 }]] },
			'Microsoft me': { main: [[{ node: 'Digest data', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The same workflow, each HTTP Request node's type changed and nothing else (n8n needs the node type's own version: 1). */
function withTypeChanged(workflow) {
	const copy = structuredClone(workflow);
	copy.id = 'dropInResilient';
	copy.name = 'Drop-in: Resilient HTTP Request';
	for (const node of copy.nodes) if (node.type === 'n8n-nodes-base.httpRequest') Object.assign(node, { type: RESILIENT, typeVersion: 1 });
	return copy;
}

const secretsIn = (text) => Object.entries(AUTH_SECRETS).filter(([, secret]) => text.includes(secret)).map(([name]) => name);

/** The editor's rule for HTTP Request's "Credential Type" list (n8n 2.41.1, CredentialsSelect), on n8n's own credential types. */
function typesHttpRequestOffers(types) {
	const byName = new Map(types.map((t) => [t.name, t]));
	const qualifies = (type, seen = new Set()) => {
		if (!type || seen.has(type.name)) return false;
		seen.add(type.name);
		if (type.authenticate !== undefined && type.genericAuth !== true) return true;
		if ((type.extends ?? []).some((e) => e === 'oAuth2Api' || e === 'oAuth1Api')) return true;
		return (type.extends ?? []).some((e) => qualifies(byName.get(e), seen));
	};
	return types.filter((t) => !t.hidden && !(t.restrictToSupportedNodes && !(t.supportedNodes ?? []).includes(RESILIENT)) && qualifies(t)).map((t) => t.name).sort();
}

/** The credential types this package defines (HTTP Request offers them too once the package is installed). */
const ownCredentialTypes = () => {
	const require = createRequire(path.join(REPO, 'package.json'));
	const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	return manifest.n8n.credentials.flatMap((file) => Object.values(require(path.join(REPO, file))).map((C) => new C().name));
};

const generatedTypeNames = () =>
	[...fs.readFileSync(path.join(REPO, 'nodes/ResilientHttpRequest/auth/generated/predefined-credentials.ts'), 'utf8').matchAll(/^\t\{"name":"([^"]+)"/gm)].map((m) => m[1]).sort();

let userFolder;
let api;

describe('drop-in for HTTP Request in a real n8n', () => {
	before(async () => {
		api = await startAuthApi();
		userFolder = await prepareUserFolder({ tarball: true });
		await importCredentials(userFolder, authCredentials(api.url));
		const original = httpRequestWorkflow(api.url);
		await importWorkflow(userFolder, [original, withTypeChanged(original)]);
	});
	after(async () => {
		await stopN8n();
		await api?.close();
	});

	test('HTTP Request nodes with a predefined API key, OAuth2 (generic and predefined) and Digest Auth keep working after only their type changed', async () => {
		// n8n's own node first: the setup is right, and n8n refreshes the stored Microsoft token
		const before = await executeWorkflow(userFolder, 'dropInHttpRequest');
		assert.equal(before.exitCode, 0, before.stdout.slice(-3000));
		const core = nodeResults(before.output);

		const started = api.log.length;
		const after = await executeWorkflow(userFolder, 'dropInResilient');
		assert.equal(after.exitCode, 0, after.stdout.slice(-3000));
		const ours = nodeResults(after.output);
		for (const name of ['Stripe charges', 'OAuth2 app', 'Microsoft me', 'Digest data']) {
			// at the default Retry Story (On Failed Items) a success item is exactly HTTP Request's
			assert.deepEqual(ours[name].items[0], core[name].items[0], `${name}: the same output as HTTP Request`);
			assert.deepEqual(ours[name].hints, [], `${name}: no retry, nothing to tell`);
		}
		const seen = api.log.slice(started).map((e) => `${e.path} ${e.status}`);
		// the tokens n8n stored during the first run are still valid: no token request
		assert.deepEqual(seen, ['/stripe/v1/charges 200', '/graph/app 200', '/graph/me 200', '/digest/data 401', '/digest/data 200']);
		assert.deepEqual(secretsIn(after.stdout + after.stderr), [], 'no secret in n8n\'s output or logs');
	});

	test('the API turns flaky and every token expires: each node retries its 503, n8n refreshes each token on the 401, nothing fails', async () => {
		api.expireTokens();
		api.goFlaky();
		const started = api.log.length;
		const issuedBefore = api.issued.length;
		const run = await executeWorkflow(userFolder, 'dropInResilient');
		api.calm();
		assert.equal(run.exitCode, 0, run.stdout.slice(-3000));
		const results = nodeResults(run.output);
		const seen = api.log.slice(started).map((e) => `${e.path} ${e.status}`);
		assert.deepEqual(seen, [
			'/stripe/v1/charges 503',
			'/stripe/v1/charges 200',
			'/graph/app 503',
			'/graph/app 401',
			'/token/app 200',
			'/graph/app 200',
			'/graph/me 503',
			'/graph/me 401',
			'/token/ms 200',
			'/graph/me 200',
			'/digest/data 401',
			'/digest/data 503',
			'/digest/data 401',
			'/digest/data 200',
		]);
		// client credentials fetched again; the Microsoft token refreshed with the refresh token n8n stored
		assert.deepEqual(api.issued.slice(issuedBefore).map((t) => `${t.client} ${t.grant}`), ['app client_credentials', 'ms refresh_token']);
		for (const name of ['Stripe charges', 'OAuth2 app', 'Microsoft me', 'Digest data']) {
			// one retry for the engine (the API's log above: 503 then 200); the refresh happens inside the attempt
			assert.match(results[name].hints.map((h) => h.message).join('\n'), /^1 of 1 item needed retries \(1 retry in all\)/, name);
		}
		assert.deepEqual(secretsIn(run.stdout + run.stderr), []);
	});

	test('in the editor: Credential Type is a searchable list with its own picker; the generic kinds share one picker; the cost of several hundred declarations', async (t) => {
		if (!requireBrowser(t)) return;
		const baseline = await prepareUserFolder({ link: false });
		let startedAt = Date.now();
		const bare = await startN8n(baseline, { env: ownerEnv() });
		const bareStartMs = Date.now() - startedAt;
		const bareNodes = await (await restClient(bare)).text('/types/nodes.json');
		await bare.stop();

		startedAt = Date.now();
		const server = await startN8n(userFolder, { env: ownerEnv() });
		const startMs = Date.now() - startedAt;
		const client = await restClient(server);
		const nodesJson = await client.text('/types/nodes.json');
		const ourNode = JSON.parse(nodesJson).filter((d) => d.name === RESILIENT);
		const ourNodeBytes = Buffer.byteLength(JSON.stringify(ourNode));
		const credentialTypes = JSON.parse(await client.text('/types/credentials.json'));

		// the declarations are the types HTTP Request offers in this n8n, the LangChain package's too
 		const own = ownCredentialTypes();
		assert.deepEqual(generatedTypeNames(), typesHttpRequestOffers(credentialTypes.filter((type) => !own.includes(type.name))), 'generated/predefined-credentials.ts is the list this n8n offers: run node scripts/credential-types.js');

		const workflow = await client.post('/rest/workflows', {
			name: 'E2E drop-in editor',
			nodes: [
				{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: 'n2', name: 'Call API', type: RESILIENT, typeVersion: 1, position: [300, 0], parameters: { url: `${api.url}/stripe/v1/charges`, maxAttempts: 1 } },
				{ id: 'n3', name: 'Core HTTP', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [300, 200], parameters: { url: `${api.url}/stripe/v1/charges`, options: {} } },
				{ id: 'n4', name: 'From cURL', type: RESILIENT, typeVersion: 1, position: [300, 400], parameters: {} },
			],
			connections: { Start: { main: [[{ node: 'Call API', type: 'main', index: 0 }]] } },
			settings: {},
		});

		const browser = await launchBrowser();
		try {
			const { page } = browser;
			await signIn(page, server.url);
			await openWorkflow(page, server.url, workflow.id);
			const timeToPanel = async (name) => {
				const start = Date.now();
				await openNode(page, name);
				await page.locator('[data-test-id="ndv"] [data-test-id="parameter-input-authentication"]').waitFor({ timeout: 30_000 });
				const ms = Date.now() - start;
				await page.keyboard.press('Escape');
				await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => {});
				return ms;
			};
			const coreOpenMs = await timeToPanel('Core HTTP');
			const ourOpenMs = await timeToPanel('Call API');

			// HTTP Request's Import cURL works here too: the command lands in the parameters of the same names
			await openNode(page, 'From cURL');
			await page.locator('[data-test-id="ndv"]').getByRole('button', { name: /Import cURL/i }).first().click();
			const curl = `curl -X PUT '${api.url}/keyed/from-curl?source=curl' -H 'X-Api-Key: ${AUTH_SECRETS.headerKey}' -H 'X-Trace: t-curl' -H 'Content-Type: application/json' -d '{"order":{"id":"o-7"}}'`;
			await page.locator('[data-test-id="import-curl-modal-input"] textarea, textarea[data-test-id="import-curl-modal-input"]').first().fill(curl);
			await page.locator('[data-test-id="import-curl-modal-button"]').first().click();
			await page.locator('[data-test-id="import-curl-modal-input"]').first().waitFor({ state: 'hidden', timeout: 15_000 });
			const seenBeforeCurl = api.requestsTo('/keyed/from-curl').length;
			await page.locator('[data-test-id="ndv"] [data-test-id="node-execute-button"]').first().click();
			await waitFor(async () => api.requestsTo('/keyed/from-curl').length > seenBeforeCurl, { timeoutMs: 30_000, what: 'the imported cURL request' });
			const fromCurl = api.requestsTo('/keyed/from-curl').at(-1);
			assert.deepEqual([fromCurl.method, fromCurl.url, fromCurl.headers['x-trace'], fromCurl.body, fromCurl.status], ['PUT', '/keyed/from-curl?source=curl', 't-curl', { order: { id: 'o-7' } }, 200]);
			await page.keyboard.press('Escape');
			await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => {});

			await openNode(page, 'Call API');
			const ndv = page.locator('[data-test-id="ndv"]');
			// waits until the step's requests include a final answer: a Digest step sends its 401 challenge first,
			// and a poll that lands between the challenge and the answer must not read the challenge as the result
			const executeStep = async (prefix) => {
				const seen = api.requestsTo(prefix).length;
				await ndv.locator('[data-test-id="node-execute-button"]').first().click();
				const sent = () => api.requestsTo(prefix).slice(seen);
				await waitFor(async () => sent().some((r) => r.status !== undefined && r.status !== 401), { timeoutMs: 30_000, what: 'the answer to "Execute step"' }).catch(() => {});
				assert.ok(sent().length > 0, `"Execute step" sent a request to ${prefix}`);
				return sent().at(-1);
			};

			// Predefined: Credential Type is in the panel, searchable; its credential gets a picker
			await pickOption(page, ndv.locator('[data-test-id="parameter-input-authentication"]'), 'Predefined Credential Type');
			const typeInput = ndv.locator('[data-test-id="parameter-input-nodeCredentialType"]');
			await typeInput.waitFor({ timeout: 15_000 });
			assert.equal(await ndv.locator('[data-test-id="parameter-input-genericAuthType"]').count(), 0, 'Generic Auth Type stays hidden (the main auth field)');
			await typeInput.click();
			await page.keyboard.type('Stripe');
			const stripeOption = page.locator('.el-select-dropdown__item:visible, [role="option"]:visible').filter({ hasText: /^Stripe API$/ });
			await stripeOption.first().waitFor({ timeout: 15_000 });
			// "Stripe API" is also in the unfiltered list: the filter may land a moment after it shows
			// (CI once counted 321 options), so the count is awaited, and asserted after 15 s at most
			const optionsShown = () => page.locator('.el-select-dropdown__item:visible, [role="option"]:visible').count();
			let shownWhileSearching = await optionsShown();
			await waitFor(async () => (shownWhileSearching = await optionsShown()) < 10, { timeoutMs: 15_000, what: 'the list filtered by typing' }).catch(() => undefined);
			assert.ok(shownWhileSearching < 10, `typing filters the list (${shownWhileSearching} options shown)`);
			await stripeOption.first().click();
			const picker = ndv.locator('[data-test-id="node-credentials-select"]').first();
			await picker.waitFor({ timeout: 15_000 });
			await pickOption(page, picker, 'E2E Stripe');
			await closePopups(page);
			const stripe = await executeStep('/stripe');
			assert.equal(stripe.headers.authorization, `Bearer ${AUTH_SECRETS.stripeKey}`);
			assert.equal(stripe.status, 200);

			// Generic: one picker lists every generic kind; picking one switches the kind
			await pickOption(page, ndv.locator('[data-test-id="parameter-input-authentication"]'), 'Generic Credential Type');
			assert.equal(await ndv.locator('[data-test-id="parameter-input-nodeCredentialType"]').count(), 0, 'Credential Type is hidden outside Predefined');
			const generic = ndv.locator('[data-test-id="node-credentials-select"]').first();
			await generic.waitFor({ timeout: 15_000 });
			// the Authentication dropdown may still be closing: read the picker's list once it shows credentials
			await closePopups(page);
			let listed = [];
			await waitFor(async () => {
				if (!listed.some((l) => l.includes('E2E'))) await generic.click();
				listed = await page.locator('.el-select-dropdown__item:visible, [role="option"]:visible').allInnerTexts();
				return listed.some((l) => l.includes('E2E'));
			}, { timeoutMs: 15_000, what: 'the generic credential picker to list credentials' }).catch(() => {});
			await page.keyboard.press('Escape');
			for (const name of ['E2E Digest', 'E2E OAuth2 (client credentials)', 'E2E Header']) assert.ok(listed.some((l) => l.includes(name)), `the generic picker lists ${name}: ${listed.join(' | ')}`);
			assert.ok(!listed.some((l) => l.includes('E2E Stripe') || l.includes('E2E Microsoft')), 'predefined credentials are not in the generic picker');
			// the URL of the digest route, then its credential
			const url = ndv.locator('[data-test-id="parameter-input-url"]').first();
			await url.click();
			await page.keyboard.press('Control+a');
			await page.keyboard.type(`${api.url}/digest/data`);
			await pickOption(page, generic, 'E2E Digest');
			await closePopups(page);
			const seenDigest = api.requestsTo('/digest').length;
			const digest = await executeStep('/digest');
			assert.deepEqual(api.requestsTo('/digest').slice(seenDigest).map((r) => r.status), [401, 200], 'Digest answered the challenge from the editor too');
			assert.equal(digest.status, 200);

			const saved = await saveAndWaitForNode(page, client, workflow.id, 'Call API', (node) => node.parameters.genericAuthType === 'httpDigestAuth' && node.credentials?.httpDigestAuth, 'the workflow saved with Digest Auth');
			assert.equal(saved.parameters.authentication, 'genericCredentialType');
			assert.deepEqual(browser.errors, [], 'no uncaught error in the editor');

			console.log(
				[
					'[drop-in] cost of the declarations:',
					`/types/nodes.json ${bareNodes.length} -> ${nodesJson.length} bytes (+${nodesJson.length - bareNodes.length}, this package's two nodes and the HTTP node's tool variant); Resilient HTTP Request's description(s): ${ourNodeBytes} bytes`,
					`n8n start to ready: ${bareStartMs} ms without the package, ${startMs} ms with it`,
					`node panel open to Authentication shown: HTTP Request ${coreOpenMs} ms, Resilient HTTP Request ${ourOpenMs} ms`,
					`predefined credential types declared: ${generatedTypeNames().length}`,
				].join('\n  '),
			);
		} finally {
			await browser.close();
			await server.stop();
		}
	});
});
