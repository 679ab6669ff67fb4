// Acceptance: the packed tarball, installed the way n8n's community-package installer does it,
// loads in real n8n and its node retries a 503 with its defaults.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { PACKAGE_NAME, executeWorkflow, importWorkflow, nodeResults, prepareUserFolder, startFlakyServer, uniqueKey } from './harness.mjs';

let server;
before(async () => {
	server = await startFlakyServer();
});
after(async () => server?.close());

test('tarball install: resilientHttpRequest GET /fail/2 succeeds after 3 requests', async () => {
	const userFolder = await prepareUserFolder({ tarball: true });
	const installed = path.join(userFolder, '.n8n/nodes/node_modules', PACKAGE_NAME);
	assert.ok(fs.existsSync(path.join(installed, 'package.json')), 'package installed');
	assert.ok(!fs.existsSync(path.join(installed, 'node_modules/n8n-workflow')), 'n8n-workflow comes from n8n, not the package');

	const key = uniqueKey('tarball');
	const id = 'e2eTarballLoads1';
	await importWorkflow(userFolder, {
		id,
		name: 'tarball loads',
		active: false,
		settings: {},
		nodes: [
			{ id: 'trigger', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'resilient',
				name: 'Resilient HTTP Request',
				type: `${PACKAGE_NAME}.resilientHttpRequest`,
				typeVersion: 1,
				position: [220, 0],
				parameters: { method: 'GET', url: `${server.url}/fail/2/${key}` },
			},
		],
		connections: { Start: { main: [[{ node: 'Resilient HTTP Request', type: 'main', index: 0 }]] } },
	});
	const run = await executeWorkflow(userFolder, id);
	console.log(`n8n execute took ${run.durationMs} ms`);
	assert.equal(run.exitCode, 0, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
	assert.equal(run.output?.status, 'success');
	assert.equal(nodeResults(run.output)['Resilient HTTP Request'].items.length, 1);
	assert.deepEqual(server.requests(`/fail/2/${key}`).map((e) => e.status), [503, 503, 200]);
});
