// `npm start` as a new user runs it: an empty user folder, the README's command, the editor in a
// real browser. The examples run with one click against the demo API that npm start brings up,
// the webhook one-liner of docs/examples.md works, authentication is chosen in the node's panel (every kind
// the node supports, switching between them), and stopping npm start (SIGTERM to npm, or Ctrl-C
// to its process group) stops everything it started.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closePopups, executeInEditor, launchBrowser, openNode, openWorkflow, pickOption, requireBrowser, saveAndWaitForNode, signIn } from './browser.mjs';
import { REPO, TMP_BASE, freePort, getExecution, listExecutions, nodeResults, restClient, startFlakyServer, waitFor } from './harness.mjs';

/** The page that gives the webhook one-liner for example 06. */
const EXAMPLES_PAGE = fs.readFileSync(path.join(REPO, 'docs/examples.md'), 'utf8');

/** The processes whose environment names this user folder: what npm start left running. */
function processesOf(userFolder) {
	const found = [];
	for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
		try {
			const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
			if (environ.includes(`RH_USER_FOLDER=${userFolder}`) || environ.includes(`N8N_USER_FOLDER=${userFolder}`)) {
				found.push(`${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120)}`);
			}
		} catch {
			/* gone, or not ours to read */
		}
	}
	return found;
}

const listening = (port) =>
	new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => (socket.destroy(), resolve(true)));
		socket.once('error', () => resolve(false));
	});

/** `npm start` with its own ports and user folder; resolves once it printed its ready banner. */
async function npmStart(userFolder, ports) {
	const env = {
		...process.env,
		RH_USER_FOLDER: userFolder,
		N8N_PORT: String(ports.n8n),
		N8N_RUNNERS_BROKER_PORT: String(ports.broker),
		RH_DEMO_PORT: String(ports.demo),
		// run.sh built dist/ for this run; a build here would race other test files
		RH_SKIP_BUILD: '1',
	};
	for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
	const started = Date.now();
	// detached: its own process group, as a terminal's foreground job is (Ctrl-C goes to the group)
	const child = spawn('npm', ['start'], { cwd: REPO, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	child.stdout.setEncoding('utf8').on('data', (c) => (output += c));
	child.stderr.setEncoding('utf8').on('data', (c) => (output += c));
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	const handle = { child, exited, output: () => output, url: `http://127.0.0.1:${ports.n8n}`, readyMs: 0 };
	await waitFor(
		async () => {
			if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output.slice(-4000)}`);
			return /with n8n-nodes-resilient-http is ready/.test(output);
		},
		{ timeoutMs: 10 * 60_000, intervalMs: 250, what: 'npm start to print that n8n is ready' },
	).catch((error) => {
		process.kill(-child.pid, 'SIGKILL');
		throw new Error(`${error.message}\n${output.slice(-4000)}`);
	});
	handle.readyMs = Date.now() - started;
	return handle;
}

async function expectAllStopped(handle, userFolder, ports) {
	const { code, signal } = await Promise.race([handle.exited, new Promise((_, reject) => setTimeout(() => reject(new Error('npm start did not exit within 40 s')), 40_000))]);
	console.log(`npm start exited (${code ?? signal})`);
	await waitFor(async () => processesOf(userFolder).length === 0, { timeoutMs: 30_000, what: 'every process npm start started to exit' }).catch((error) => {
		throw new Error(`${error.message}: ${processesOf(userFolder).join('; ')}`);
	});
	for (const [name, port] of Object.entries(ports)) assert.equal(await listening(port), false, `${name} port ${port} still listens`);
}

const userFolder = path.join(TMP_BASE, `npm-start-${process.pid}`);
let ports;
let server;
let client;
let auth;
let browser;

describe('npm start on an empty user folder', () => {
	before(async () => {
		fs.rmSync(userFolder, { recursive: true, force: true });
		ports = { n8n: await freePort(), broker: await freePort(), demo: await freePort() };
		// the API the authentication test calls: an echo and an OAuth2 token endpoint
		auth = await startFlakyServer({
			token: (_req, res, { json, entry }) => json(res, (entry.status = 200), { access_token: 'oauth-access-token-5f1c', token_type: 'bearer', expires_in: 3600 }),
		});
		server = await npmStart(userFolder, ports);
		console.log(`npm start on an empty user folder: ready in ${server.readyMs} ms`);
		client = await restClient(server);
	});
	after(async () => {
		await browser?.close();
		await auth?.close();
		// a test that failed half-way: start.sh's guards stop n8n and the demo API when it is killed
		if (server && server.child.exitCode === null) process.kill(-server.child.pid, 'SIGKILL');
		await waitFor(async () => processesOf(userFolder).length === 0, { timeoutMs: 30_000, what: 'npm start to be gone' });
	});

	test('the examples are imported, the webhook example is published, the demo API answers', async () => {
		const workflows = await client.get('/rest/workflows');
		const ids = workflows.map((w) => w.id).sort();
		const files = fs.readdirSync(path.join(REPO, 'workflows')).filter((f) => f.endsWith('.json'));
		assert.deepEqual(ids, files.map((f) => JSON.parse(fs.readFileSync(path.join(REPO, 'workflows', f), 'utf8')).id).sort());
		assert.equal(workflows.find((w) => w.id === 'rhEx6WebhookSend').active, true, 'example 06 is published');
		const index = await (await fetch(`http://127.0.0.1:${ports.demo}/`)).json();
		assert.ok(index.routes['/fail/:n/:key'], JSON.stringify(index));
		// the imported examples point at the demo API's port, whatever RH_DEMO_PORT says
		const example = await client.get('/rest/workflows/rhEx1RetryOnFail');
		assert.match(JSON.stringify(example.nodes), new RegExp(`http://127.0.0.1:${ports.demo}`));
	});

	test('examples 01, 03 and 08 run with one click in the editor, again and again', async (t) => {
		if (!requireBrowser(t)) return;
		browser = await launchBrowser();
		const { page } = browser;
		await signIn(page, server.url);

		await openWorkflow(page, server.url, 'rhEx1RetryOnFail');
		for (const run of [1, 2]) {
			const execution = await executeInEditor(page, client, 'rhEx1RetryOnFail');
			assert.equal(execution.status, 'success', `run ${run}`);
			const [item] = nodeResults(execution)['New: Resilient HTTP Request'].items;
			assert.deepEqual(item._retry.history.map((h) => h.status), [503, 503, 200], `run ${run}: the demo API fails twice on every run`);
			assert.equal(item._retry.stoppedBecause, 'success');
		}

		await openWorkflow(page, server.url, 'rhEx3IdempotPost');
		const execution = await executeInEditor(page, client, 'rhEx3IdempotPost');
		assert.equal(execution.status, 'success');
		const [charged] = nodeResults(execution).Charged.items;
		assert.equal(charged._retry.idempotencyKey, 'order-1001');
		assert.equal(charged._retry.attempts, 2, 'the dropped first attempt was retried with the same key');
		assert.equal(charged.processedCount, 1, 'charged once');

		// 08: the demo API's listing fails the same way on every run; the loop resumes at page 3 each time
		await openWorkflow(page, server.url, 'rhEx8Pagination');
		for (const run of [1, 2]) {
			const pages = await executeInEditor(page, client, 'rhEx8Pagination');
			assert.equal(pages.status, 'success', `run ${run}`);
			const results = nodeResults(pages);
			assert.deepEqual(results.Invoices.items.map((i) => i.id), ['inv-1', 'inv-2', 'inv-3', 'inv-4', 'inv-5', 'inv-6'], `run ${run}: every invoice once`);
			assert.equal(results['All invoices'].runs, 2, `run ${run}: one pass back through Backoff Delay`);
		}
		assert.deepEqual(browser.errors, [], 'no uncaught error in the editor');
	});

	test("the webhook one-liner of docs/examples.md reaches example 06", async () => {
		const command = /curl -X POST http:\/\/127\.0\.0\.1:5678\/webhook\/forward-events[^\n]*(?:\\\n[^\n]*)*/.exec(EXAMPLES_PAGE)?.[0];
		assert.ok(command, 'docs/examples.md gives the curl command for example 06');
		const before = (await listExecutions(client, 'rhEx6WebhookSend')).length;
		const answer = execFileSync('bash', ['-c', command.replace('127.0.0.1:5678', `127.0.0.1:${ports.n8n}`)], { encoding: 'utf8' });
		assert.match(answer, /Workflow was started/);
		const execution = await waitFor(
			async () => {
				const list = await listExecutions(client, 'rhEx6WebhookSend');
				return list.length > before && list[0].status === 'success' ? await getExecution(client, list[0].id) : undefined;
			},
			{ timeoutMs: 60_000, what: 'the webhook execution' },
		);
		const [delivered] = nodeResults(execution).Delivered.items;
		assert.deepEqual(delivered._retry.history.map((h) => h.status), [503, 200], 'the demo receiver fails once, then takes it');
		assert.match(server.output(), /\[demo-api\] .* POST \/events\/ok-1 -> 200/);
	});

	test('authentication is chosen in the node panel: None and every kind, switching between them', async (t) => {
		if (!requireBrowser(t)) return;
		browser ??= await launchBrowser();
		const { page } = browser;
		if (!page.url().startsWith(server.url)) await signIn(page, server.url);

		// secret: what of the credential reaches the API; a request carries its own kind's and no other's
		const basic = Buffer.from('e2e-user:e2e-pass').toString('base64');
		const kinds = [
			{ type: 'httpBasicAuth', name: 'E2E Basic', data: { user: 'e2e-user', password: 'e2e-pass' }, secret: basic, check: (e) => e.headers.authorization === `Basic ${basic}` },
			{ type: 'httpBearerAuth', name: 'E2E Bearer', data: { token: 'e2e-bearer-token' }, secret: 'e2e-bearer-token', check: (e) => e.headers.authorization === 'Bearer e2e-bearer-token' },
			{ type: 'httpHeaderAuth', name: 'E2E Header', data: { name: 'X-Api-Key', value: 'e2e-header-key' }, secret: 'e2e-header-key', check: (e) => e.headers['x-api-key'] === 'e2e-header-key' },
			{ type: 'httpQueryAuth', name: 'E2E Query', data: { name: 'api_key', value: 'e2e-query-key' }, secret: 'e2e-query-key', check: (e) => new URL(e.url, 'http://x').searchParams.get('api_key') === 'e2e-query-key' },
			{
				type: 'resilientHttpOAuth2Api',
				name: 'E2E OAuth2',
				data: { grantType: 'clientCredentials', accessTokenUrl: `${auth.url}/token`, clientId: 'e2e-client', clientSecret: 'e2e-secret', scope: '', authentication: 'header', authQueryParameters: '' },
				secret: 'oauth-access-token-5f1c',
				check: (e) => e.headers.authorization === 'Bearer oauth-access-token-5f1c',
			},
		];
		for (const kind of kinds) kind.id = (await client.post('/rest/credentials', { name: kind.name, type: kind.type, data: kind.data })).id;
		const workflow = await client.post('/rest/workflows', {
			name: 'E2E authentication',
			nodes: [
				{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: 'n2', name: 'Call API', type: 'n8n-nodes-resilient-http.resilientHttpRequest', typeVersion: 1, position: [300, 0], parameters: { url: `${auth.url}/echo`, maxAttempts: 1 } },
			],
			connections: { Start: { main: [[{ node: 'Call API', type: 'main', index: 0 }]] } },
			settings: {},
		});

		await openWorkflow(page, server.url, workflow.id);
		await openNode(page, 'Call API');
		const ndv = page.locator('[data-test-id="ndv"]');
		const executeStep = async () => {
			const seen = auth.requests('/echo').length;
			await ndv.locator('[data-test-id="node-execute-button"]').first().click();
			await waitFor(async () => auth.requests('/echo').length > seen, { timeoutMs: 30_000, what: 'the request of "Execute step"' });
			return auth.requests('/echo').at(-1);
		};

		// None: no credential section, nothing sent
		assert.equal(await ndv.locator('[data-test-id="node-credentials-select"]').count(), 0);
		const plain = await executeStep();
		assert.equal(plain.headers.authorization, undefined);

		// Authentication is in the panel; choosing a credential of a kind selects that kind
		await pickOption(page, ndv.locator('[data-test-id="parameter-input-authentication"]'), 'Generic Credential Type');
		const picker = ndv.locator('[data-test-id="node-credentials-select"]').first();
		await picker.waitFor({ timeout: 15_000 });
		for (const kind of [...kinds, kinds[1], kinds[0]]) {
			await pickOption(page, picker, kind.name);
			await closePopups(page);
			const request = await executeStep();
			const seen = JSON.stringify({ url: request.url, headers: request.headers });
			assert.ok(kind.check(request), `${kind.type}: the API got ${seen}`);
			for (const other of kinds.filter((k) => k !== kind)) assert.ok(!seen.includes(other.secret), `${kind.type} also sent ${other.type}: ${seen}`);
		}

		// saved with HTTP Request's parameter names and values
		const saved = await saveAndWaitForNode(page, client, workflow.id, 'Call API', (node) => node.parameters.genericAuthType === 'httpBasicAuth' && node.credentials?.httpBasicAuth, 'the workflow to be saved with the last kind chosen');
		assert.equal(saved.parameters.authentication, 'genericCredentialType');
		assert.equal(saved.credentials.httpBasicAuth.id, kinds[0].id);
		assert.deepEqual(browser.errors, [], 'no uncaught error in the editor');
	});

	test('a workflow written with the parameters of the previous version still runs (Bearer by JSON)', async (t) => {
		if (!requireBrowser(t)) return;
		const { page } = browser;
		const bearer = (await client.get('/rest/credentials')).find((c) => c.name === 'E2E Bearer');
		const workflow = await client.post('/rest/workflows', {
			name: 'E2E bearer by JSON',
			nodes: [
				{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'n2',
					name: 'Call API',
					type: 'n8n-nodes-resilient-http.resilientHttpRequest',
					typeVersion: 1,
					position: [300, 0],
					parameters: { url: `${auth.url}/echo`, authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth', maxAttempts: 1 },
					credentials: { httpBearerAuth: { id: bearer.id, name: bearer.name } },
				},
			],
			connections: { Start: { main: [[{ node: 'Call API', type: 'main', index: 0 }]] } },
			settings: {},
		});
		await openWorkflow(page, server.url, workflow.id);
		const execution = await executeInEditor(page, client, workflow.id);
		assert.equal(execution.status, 'success');
		assert.equal(auth.requests('/echo').at(-1).headers.authorization, 'Bearer e2e-bearer-token');
	});

	test('SIGTERM to npm start stops n8n, its task runner and the demo API', async () => {
		process.kill(server.child.pid, 'SIGTERM');
		await expectAllStopped(server, userFolder, ports);
	});

	test('a second npm start on the same folder is ready sooner, and Ctrl-C stops it', async () => {
		const again = await npmStart(userFolder, ports);
		console.log(`npm start again (n8n cached, examples imported): ready in ${again.readyMs} ms`);
		assert.match(again.output(), /already imported/);
		// ready means ready: the published example's webhook takes a call the moment the banner shows
		// (n8n prints its editor URL before it registers published webhooks: scripts/webhooks-ready.js)
		const call = await fetch(`${again.url}/webhook/forward-events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'ok-2', type: 'invoice.paid' }) });
		const answer = await call.text();
		assert.equal(call.status, 200, `the webhook right after the banner: ${answer}`);
		assert.match(answer, /Workflow was started/);
		process.kill(-again.child.pid, 'SIGINT'); // what a terminal sends to its foreground job
		await expectAllStopped(again, userFolder, ports);
	});
});
