// The README's "Install in your own n8n" lines, run as written: in a copy of the repo's tracked
// files, with an empty HOME (only npm's download cache kept), then a real n8n whose user folder
// is that HOME loads the package from ~/.n8n/nodes and runs it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { PACKAGE_NAME, REPO, TMP_BASE, executeWorkflow, importWorkflow, startFlakyServer } from './harness.mjs';

const MARKER = '<!-- install-from-tarball';

/** The bash block right after the README's marker. */
function readmeInstallBlock() {
	const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
	const at = readme.indexOf(MARKER);
	assert.ok(at >= 0, `README.md has no ${MARKER} marker`);
	const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(at));
	assert.ok(block, 'a bash block follows the marker');
	return block[1];
}

let upstream;
const root = path.join(TMP_BASE, `install-readme-${process.pid}`);
const home = path.join(root, 'home');
const clone = path.join(root, 'clone');

before(async () => {
	upstream = await startFlakyServer();
	fs.rmSync(root, { recursive: true, force: true });
	fs.mkdirSync(home, { recursive: true });
	// what a clone holds: the tracked files, as they are in the working tree
	const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean);
	for (const file of files) {
		if (!fs.existsSync(path.join(REPO, file))) continue; // deleted, not yet committed
		fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
		fs.copyFileSync(path.join(REPO, file), path.join(clone, file));
	}
});
after(async () => {
	await upstream?.close();
});

test("the README's install lines install the tarball into ~/.n8n/nodes, and n8n runs the node from there", async () => {
	const env = { ...process.env, HOME: home, npm_config_cache: process.env.npm_config_cache || path.join(os.homedir(), '.npm') };
	// npm test hands its own settings down as npm_config_*; a user's shell has none of them
	for (const name of Object.keys(env)) if (name.startsWith('npm_') && name !== 'npm_config_cache') delete env[name];
	const started = Date.now();
	execFileSync('bash', ['-euo', 'pipefail', '-c', readmeInstallBlock()], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
	console.log(`README install lines: ${Date.now() - started} ms`);

	const installed = path.join(home, '.n8n/nodes/node_modules', PACKAGE_NAME);
	assert.ok(fs.existsSync(path.join(installed, 'package.json')), `installed at ${installed}`);
	assert.equal(fs.existsSync(path.join(installed, 'node_modules/n8n-workflow')), false, 'n8n-workflow comes from n8n, not a second copy');
	assert.equal(fs.existsSync(path.join(home, '.n8n/nodes/node_modules/n8n-workflow')), false, 'no peer dependency installed beside it');

	// n8n's user folder defaults to HOME: the same folder the README installed into
	const workflow = {
		id: 'rhInstallReadme1',
		name: 'installed from the tarball',
		nodes: [
			{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'n2', name: 'Call', type: `${PACKAGE_NAME}.resilientHttpRequest`, typeVersion: 1, position: [300, 0], parameters: { url: `${upstream.url}/fail/1/installed`, retryOptions: { baseDelay: 10, maxDelay: 20, retryStory: 'everyItem' } } },
		],
		connections: { Start: { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
		settings: {},
	};
	await importWorkflow(home, workflow);
	const result = await executeWorkflow(home, workflow.id);
	assert.equal(result.exitCode, 0, result.stdout.slice(-3000) + result.stderr.slice(-3000));
	const [item] = result.output.data.resultData.runData.Call[0].data.main[0].map((i) => i.json);
	assert.deepEqual(item._retry.history.map((h) => h.status), [503, 200]);
});
