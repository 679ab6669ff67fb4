// Docker and queue mode, as far as this machine goes (it has no Docker engine): docs/docker/compose.yaml
// is read, its install service's command is run from the packed tarball into a folder laid out as
// the image's /home/node (the `n8n_data` volume is its .n8n), and real n8n runs there in queue mode,
// a main process and a worker sharing that folder as the compose file's services share the volume,
// with the environment the file gives every n8n service. A webhook execution, which queue mode hands
// to the worker, runs Resilient HTTP Request and retries a 503: the worker loaded the package from
// the shared folder. Checked on the file too: every n8n service mounts the one volume, waits for the
// install, shares the encryption key and sets N8N_UNVERIFIED_PACKAGES_ENABLED (n8n 3.0).
//
// Needs RH_TEST_REDIS_URL and RH_TEST_PG_URL (as queue-mode.e2e.mjs; .ci/run starts both).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import {
	callWebhook,
	env as n8nInstall,
	getExecution,
	importWorkflow,
	nodeResults,
	ownerEnv,
	PACKAGE_NAME,
	packTarball,
	prepareUserFolder,
	publishWorkflow,
	queueModeEnv,
	REPO,
	restClient,
	startFlakyServer,
	startN8n,
	startWorker,
	stopN8n,
	storedExecutions,
	uniqueKey,
	waitFor,
	withPg,
	workerExecutions,
	FINISHED_STATUSES,
} from './harness.mjs';

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
const PG_URL = process.env.RH_TEST_PG_URL;
const skip = !REDIS_URL || !PG_URL ? 'RH_TEST_REDIS_URL and RH_TEST_PG_URL are needed (scripts/redis-test-server.sh, scripts/postgres-test-server.sh; .ci/run starts both)' : false;

const { parse } = createRequire(path.join(REPO, 'package.json'))('yaml');
const compose = parse(fs.readFileSync(path.join(REPO, 'docs/docker/compose.yaml'), 'utf8'), { merge: true });
const IMAGE_HOME = '/home/node';
const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;

const n8nServices = () => Object.entries(compose.services).filter(([, service]) => String(service.image).includes('n8nio/n8n'));
const installService = () => {
	const found = Object.entries(compose.services).filter(([, service]) => /npm install\b/.test([service.command].flat().join(' ')));
	assert.equal(found.length, 1, 'one service installs the package');
	return { name: found[0][0], service: found[0][1] };
};

test('docs/docker/compose.yaml: every n8n process loads the same install of the package', () => {
	const services = n8nServices();
	assert.deepEqual(services.map(([name]) => name).sort(), ['n8n', 'n8n-worker']);
	assert.ok(services.some(([, s]) => s.command === 'worker'), 'a worker service');
	const install = installService();
	const tested = n8nInstall.N8N_VERSION;
	for (const [name, service] of services) {
		assert.equal(service.image, `docker.n8n.io/n8nio/n8n:${tested}`, `${name}: the n8n version the tests run`);
		assert.deepEqual(service.volumes, ['n8n_data:/home/node/.n8n'], `${name}: the one volume, at the image user's ~/.n8n`);
		assert.equal(service.environment.N8N_UNVERIFIED_PACKAGES_ENABLED, 'true', `${name}: n8n 3.0 loads the package`);
		assert.equal(service.environment.EXECUTIONS_MODE, 'queue', name);
		assert.match(service.environment.N8N_ENCRYPTION_KEY, /^\$\{N8N_ENCRYPTION_KEY:\?/, `${name}: one key from .env, required`);
		assert.equal(service.depends_on[install.name]?.condition, 'service_completed_successfully', `${name}: starts after the install`);
	}
	assert.ok(install.service.volumes.includes('n8n_data:/home/node/.n8n'), 'the install writes into the same volume');
	assert.equal(install.service.user, '1000:1000', "the install runs as n8n image's user node, who must own the files");
	const command = [install.service.command].flat().join(' ');
	assert.ok(command.includes(`/packages/${PACKAGE_NAME}-${version}.tgz`), `the tarball npm pack writes for ${version}`);
	assert.ok(command.includes('--omit=peer'), 'n8n-workflow comes from n8n');
});

test('the install service, run in the image layout, gives a main process and a worker that both load the package', { skip, timeout: 240_000 }, async (t) => {
	const run = randomBytes(4).toString('hex');
	const database = `rh_e2e_docker_${run}`;
	const pg = (sql) => withPg(PG_URL, (client) => client.query(sql));
	let api;
	t.after(async () => {
		await stopN8n();
		await api?.close();
		await pg(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch((error) => t.diagnostic(`could not drop ${database}: ${error.message}`));
	});
	api = await startFlakyServer();

	// the volume: an empty user folder that plays /home/node; /packages: the folder of the tarball
	const service = installService().service;
	const fileEnv = Object.entries(n8nServices()[0][1].environment);
	const env = {
		...queueModeEnv({ redisUrl: REDIS_URL, pgUrl: PG_URL, database, bullPrefix: `bull-docker-${run}`, redisKeyPrefix: `n8n-docker-${run}`, encryptionKey: randomBytes(24).toString('hex') }),
		// what the file sets beside the connections (hosts and secrets are this machine's, above)
		...Object.fromEntries(fileEnv.filter(([name]) => !/^(DB_|QUEUE_BULL_REDIS_|N8N_ENCRYPTION_KEY)/.test(name))),
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
	};
	assert.equal(env.N8N_UNVERIFIED_PACKAGES_ENABLED, 'true');
	const home = await prepareUserFolder({ link: false, env });
	const tarball = packTarball();
	assert.equal(path.basename(tarball), `${PACKAGE_NAME}-${version}.tgz`);
	const command = [service.command].flat().at(-1).replaceAll(IMAGE_HOME, home).replaceAll('/packages/', `${path.dirname(tarball)}/`);
	execFileSync('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
	const installed = path.join(home, '.n8n/nodes/node_modules', PACKAGE_NAME);
	assert.ok(fs.existsSync(path.join(installed, 'package.json')), 'installed into the volume nodes folder');
	assert.ok(!fs.existsSync(path.join(installed, 'node_modules/n8n-workflow')), 'n8n-workflow comes from n8n, not the package');

	await pg(`CREATE DATABASE "${database}"`);
	const id = `rhDocker${run}`;
	const hook = `docker-${run}`;
	await importWorkflow(home, {
		id,
		name: 'Docker layout: a webhook through Resilient HTTP Request',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 'a1', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: `docker-${run}`, parameters: { httpMethod: 'POST', path: hook, responseMode: 'onReceived', options: {} } },
			{ id: 'a2', name: 'Resilient HTTP Request', type: `${PACKAGE_NAME}.resilientHttpRequest`, typeVersion: 1, position: [240, 0], parameters: { method: 'GET', url: `=${api.url}/fail/2/{{ $json.body.key }}`, options: {} } },
		],
		connections: { Webhook: { main: [[{ node: 'Resilient HTTP Request', type: 'main', index: 0 }]] } },
	});
	await publishWorkflow(home, id);
	const [main, worker] = await Promise.all([startN8n(home, { env: ownerEnv() }), startWorker(home)]);
	const key = uniqueKey('docker');
	const res = await callWebhook(main, hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
	assert.equal(res.status, 200, await res.text());
	const [row] = await waitFor(
		async () => {
			const rows = await storedExecutions(home, id);
			return rows.length === 1 && FINISHED_STATUSES.includes(rows[0].status) && rows;
		},
		{ timeoutMs: 60_000, what: 'the webhook execution finished' },
	);
	assert.equal(row.status, 'success');
	assert.ok(
		workerExecutions(worker).some((e) => e.executionId === String(row.id)),
		`the worker ran execution ${row.id} (its log: ${worker.logs().slice(-1500)})`,
	);
	const items = nodeResults(await getExecution(await restClient(main), row.id))['Resilient HTTP Request'].items;
	assert.equal(items.length, 1);
	assert.deepEqual(api.requests(`/fail/2/${key}`).map((e) => e.status), [503, 503, 200], 'retried by the node on the worker');
});
