// End-to-end harness: drives a real n8n (installed by scripts/install-n8n.sh, run with Node 24)
// from tests that run on the machine's Node (20+). Plain ESM, no build step.
//
// Every n8n process it starts is tracked by PID and killed (its whole process group: n8n spawns a
// task runner) when the test process exits, is interrupted, or a test fails. With RH_E2E_PIDFILE
// set (test/e2e/run.sh sets it), each PID is also written there so run.sh can clean up after a
// test process that was killed hard.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The readiness check of `npm start` (CommonJS, shared with scripts/start.sh). */
const webhooksReady = createRequire(import.meta.url)('../../scripts/webhooks-ready.js');

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PACKAGE_NAME = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).name;

// n8n commands run to completion say which exit code n8n chose, as their last line (see the file)
const EXIT_CODE_PRELOAD = path.join(REPO, 'test/e2e/n8n-exit-code.cjs');
const EXIT_CODE_LINE = /\n\[n8n-exit-code\] (\d+)\n$/;
// User folders live outside the repo on purpose: walking up from a package installed below the
// repo would find the repo's node_modules, so a dependency missing from package.json would still
// load here but not on a user's machine. RH_E2E_TMP overrides the location.
export const TMP_BASE = process.env.RH_E2E_TMP || path.join(os.tmpdir(), 'n8n-nodes-resilient-http-e2e');

/** Paths from scripts/n8n-env.sh (the one place that names versions and folders). */
export const env = (() => {
	const out = execFileSync(
		'bash',
		['-c', 'source scripts/n8n-env.sh && printf "%s\\n" "$NODE24_BIN" "$N8N_BIN" "$N8N_HOME" "$N8N_VERSION"'],
		{ cwd: REPO, encoding: 'utf8' },
	);
	const [NODE24_BIN, N8N_BIN, N8N_HOME, N8N_VERSION] = out.trim().split('\n');
	return { NODE24_BIN, N8N_BIN, N8N_HOME, N8N_VERSION };
})();

// ---------------------------------------------------------------------------------------------
// Process tracking and cleanup

const children = new Set();
let handlersInstalled = false;

function killGroup(child, signal) {
	if (child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			process.kill(child.pid, signal);
		} catch {
			/* already gone */
		}
	}
}

function installHandlers() {
	if (handlersInstalled) return;
	handlersInstalled = true;
	process.on('exit', () => {
		for (const child of children) killGroup(child, 'SIGKILL');
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.once(signal, () => {
			for (const child of children) killGroup(child, 'SIGKILL');
			process.exit(128 + (os.constants.signals[signal] ?? 1));
		});
	}
}

function track(child) {
	installHandlers();
	children.add(child);
	if (process.env.RH_E2E_PIDFILE) fs.appendFileSync(process.env.RH_E2E_PIDFILE, `${child.pid}\n`);
	child.once('exit', () => children.delete(child));
	return child;
}

/**
 * Each n8n command's time, one line per command in RH_E2E_TIMING_LOG (run.sh sets it and sums it
 * up per test file): n8n boots are most of the suite's time, so this is where it can be cut.
 */
function logCommandTime(command, ms) {
	if (!process.env.RH_E2E_TIMING_LOG) return;
	const file = path.basename(process.argv[1] ?? 'unknown');
	fs.appendFileSync(process.env.RH_E2E_TIMING_LOG, `${file}\t${command}\t${ms}\n`);
}

// Ports for n8n's listeners come from below Linux's ephemeral range (32768-60999): a port the OS
// handed out for "any free port" and that was closed again can be handed out to the next listen(0)
// or outgoing connection before n8n binds it, seconds later (CI saw two n8n starts exit on that,
// while the differential suite opened forty local servers). Each port is reserved by a file
// created with O_EXCL in one folder shared by every test process, so two test files running side
// by side never pick the same one; a process deletes its reservations when it exits.
const PORT_RANGE = { from: 20_000, to: 32_000 };
const PORT_RESERVATIONS = path.join(os.tmpdir(), 'n8n-nodes-resilient-http-ports');
const reservedPorts = new Set();
let releasesOnExit = false;

function canListen(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

function reservePortFile(port) {
	const file = path.join(PORT_RESERVATIONS, String(port));
	try {
		fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
		return true;
	} catch (e) {
		if (e.code !== 'EEXIST') throw e;
	}
	// a reservation left by a process that is gone (killed before its exit handler ran) is taken over
	const owner = Number(fs.readFileSync(file, 'utf8'));
	if (owner && owner !== process.pid && !isAlive(owner)) {
		fs.writeFileSync(file, `${process.pid}\n`);
		return true;
	}
	return false;
}

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/** A TCP port on 127.0.0.1 that is free, outside the ephemeral range, and reserved for this process. */
export async function freePort() {
	fs.mkdirSync(PORT_RESERVATIONS, { recursive: true });
	if (!releasesOnExit) {
		releasesOnExit = true;
		process.on('exit', () => {
			for (const port of reservedPorts) fs.rmSync(path.join(PORT_RESERVATIONS, String(port)), { force: true });
		});
	}
	for (let attempt = 0; attempt < 200; attempt++) {
		const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
		if (reservedPorts.has(port) || !reservePortFile(port)) continue;
		if (await canListen(port)) {
			reservedPorts.add(port);
			return port;
		}
		fs.rmSync(path.join(PORT_RESERVATIONS, String(port)), { force: true });
	}
	throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to} after 200 tries (reservations in ${PORT_RESERVATIONS})`);
}

/** Environment given to prepareUserFolder({ env }): applies to every n8n command on that folder. */
const folderEnvs = new Map();

/** Environment for an n8n process using userFolder (the folder's env from prepareUserFolder, then extra). */
export async function n8nEnv(userFolder, extra = {}) {
	return {
		...process.env,
		PATH: `${env.NODE24_BIN}:${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		// Every n8n command (execute too) opens a task broker port (default 5679): a fresh port
		// per process lets tests run next to each other and next to `npm start`.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		NODE_ENV: 'production',
		...folderEnvs.get(userFolder),
		...extra,
	};
}

/**
 * Runs `n8n <args>` to completion with the user folder's environment.
 * Resolves { exitCode, signal, crashedOnExit, stdout, stderr, durationMs }; kills the run after timeoutMs.
 * crashedOnExit: 'SIGSEGV' when n8n chose exitCode and then crashed inside exit() (n8n-exit-code.cjs).
 */
export async function runN8n(userFolder, args, { timeoutMs = 120_000, env: extra = {} } = {}) {
	const started = Date.now();
	const child = track(
		spawn(path.join(env.NODE24_BIN, 'node'), ['--require', EXIT_CODE_PRELOAD, env.N8N_BIN, ...args], {
			cwd: userFolder,
			env: await n8nEnv(userFolder, extra),
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		}),
	);
	let stdout = '';
	let stderr = '';
	child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
	child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		stderr += `\n[harness] killed after ${timeoutMs} ms`;
		killGroup(child, 'SIGKILL');
	}, timeoutMs);
	let [exitCode, signal] = await new Promise((resolve) => child.once('close', (c, s) => resolve([c, s])));
	clearTimeout(timer);
	// n8n chose its exit code and then crashed inside exit() (isolated-vm's exit handler, see
	// n8n-exit-code.cjs): its work was done, so the run ends with the code n8n chose, and says so
	let crashedOnExit;
	const chosen = EXIT_CODE_LINE.exec(stderr);
	if (signal === 'SIGSEGV' && !timedOut && chosen) {
		crashedOnExit = signal;
		[exitCode, signal] = [Number(chosen[1]), null];
		stderr += `\n[harness] n8n ${args[0]} crashed (SIGSEGV) inside exit() after it chose exit code ${exitCode}: isolated-vm's exit handler, not n8n's run`;
		console.log(`[harness] n8n ${args[0]} crashed (SIGSEGV) inside exit() after it chose exit code ${exitCode}`);
	}
	// a signal the harness did not send (a crash, the OOM killer, a stray kill): say so where an
	// assertion on the exit code shows stderr's tail (CI once saw exit code null and nothing else)
	if (signal && !timedOut) stderr += `\n[harness] n8n ${args[0]} ended by ${signal} after ${Date.now() - started} ms, not by the harness`;
	// n8n's task runner is a child in the same process group: do not leave it behind.
	killGroup(child, 'SIGKILL');
	logCommandTime(args[0], Date.now() - started);
	return { exitCode, signal, crashedOnExit, stdout, stderr, durationMs: Date.now() - started };
}

// ---------------------------------------------------------------------------------------------
// User folders, import, execute

let packedTarball;
/** Packs the repo once per process (or uses RH_E2E_TARBALL, which run.sh sets). */
export function packTarball() {
	if (process.env.RH_E2E_TARBALL) return process.env.RH_E2E_TARBALL;
	if (packedTarball) return packedTarball;
	const dir = path.join(TMP_BASE, `pack-${process.pid}-${randomBytes(3).toString('hex')}`);
	fs.mkdirSync(dir, { recursive: true });
	const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: REPO, encoding: 'utf8' })
		.trim()
		.split('\n')
		.pop();
	packedTarball = path.join(dir, name);
	return packedTarball;
}

/**
 * A fresh n8n user folder (own SQLite database) with this package installed:
 * tarball: true  -> `npm pack` + install like n8n's community-package installer,
 * tarball: false -> dev copy of package.json + dist/ (scripts/link-package.sh default),
 * link: false    -> no package at all (core nodes only).
 * env: environment for every n8n command run on this folder (import, publish, execute, start,
 * worker), e.g. queueModeEnv(...) for a shared PostgreSQL database and queue mode.
 */
export async function prepareUserFolder({ tarball = false, link = true, env: folderEnv } = {}) {
	fs.mkdirSync(TMP_BASE, { recursive: true });
	const dir = fs.mkdtempSync(path.join(TMP_BASE, 'uf-'));
	if (folderEnv) folderEnvs.set(dir, { ...folderEnv });
	if (link) {
		const args = [path.join(REPO, 'scripts/link-package.sh'), dir];
		if (tarball) args.push(`--tarball=${packTarball()}`);
		execFileSync('bash', args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
	}
	return dir;
}

function writeTemp(userFolder, prefix, data) {
	const file = path.join(userFolder, `${prefix}-${randomBytes(4).toString('hex')}.json`);
	fs.writeFileSync(file, JSON.stringify(data, null, 2));
	return file;
}

function assertOk(what, result) {
	if (result.exitCode !== 0) {
		throw new Error(`${what} failed (exit ${result.exitCode}):\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`);
	}
	return result;
}

/** Imports a workflow (object, array of objects, or path to a JSON file). Give each a fixed `id`. */
export async function importWorkflow(userFolder, workflowJson) {
	const file = typeof workflowJson === 'string' ? path.resolve(workflowJson) : writeTemp(userFolder, 'workflow', workflowJson);
	return assertOk('n8n import:workflow', await runN8n(userFolder, ['import:workflow', `--input=${file}`]));
}

/** Imports credentials: [{ id, name, type, data: { ...plain values } }] (n8n encrypts `data`). */
export async function importCredentials(userFolder, credentials) {
	const file = writeTemp(userFolder, 'credentials', Array.isArray(credentials) ? credentials : [credentials]);
	return assertOk('n8n import:credentials', await runN8n(userFolder, ['import:credentials', `--input=${file}`]));
}

/** Marks a workflow active (needed before `n8n start` for webhook/trigger workflows). */
export async function publishWorkflow(userFolder, id) {
	return assertOk('n8n publish:workflow', await runN8n(userFolder, ['publish:workflow', `--id=${id}`]));
}

/**
 * Publishes workflows on a running n8n as the editor's Publish button does (POST
 * /rest/workflows/:id/activate with the current version): their webhooks are registered at once,
 * without a `publish:workflow` command per workflow (each boots n8n) before the start.
 */
export async function publishOnServer(client, ids) {
	for (const id of ids) {
		const { versionId } = await client.get(`/rest/workflows/${id}`);
		await client.post(`/rest/workflows/${id}/activate`, { versionId });
	}
}

/**
 * The run data n8n prints: a pretty-printed JSON object that starts at the first line beginning
 * with '{' and ends at a line beginning with '}' (log lines may follow it).
 */
export function parseExecuteOutput(stdout) {
	const lines = stdout.split('\n');
	const start = lines.findIndex((l) => l.startsWith('{'));
	if (start < 0) return undefined;
	for (let end = start; end < lines.length; end++) {
		if (!lines[end].startsWith('}') && end !== start) continue;
		try {
			return JSON.parse(lines.slice(start, end + 1).join('\n'));
		} catch {
			/* keep looking */
		}
	}
	return undefined;
}

/**
 * `n8n execute --id=ID --rawOutput` (boots n8n: about 2 s here).
 * Resolves { exitCode, output, stdout, stderr, durationMs }; output is the parsed run data
 * (exit 0: success; exit 1: the workflow failed, output still holds the run data).
 */
export async function executeWorkflow(userFolder, id, { timeoutMs = 120_000, env: extra } = {}) {
	const result = await runN8n(userFolder, ['execute', `--id=${id}`, '--rawOutput'], { timeoutMs, env: extra });
	return { ...result, output: parseExecuteOutput(result.stdout) };
}

/**
 * Per node: { status, error, items: json of main output 0, all: every output } of its last run,
 * runs (how many), and perRun: [{ status, error, all, startTime }] for every run in order (a loop runs a
 * node several times). Takes `n8n execute` output or an execution from getExecution().
 */
export function nodeResults(output) {
	const runData = output?.data?.resultData?.runData ?? {};
	const result = {};
	const outputs = (run) => (run?.data?.main ?? []).map((out) => (out ?? []).map((i) => i.json));
	for (const [name, runs] of Object.entries(runData)) {
		const run = runs[runs.length - 1];
		const all = outputs(run);
		result[name] = {
			status: run?.executionStatus,
			error: run?.error,
			items: all[0] ?? [],
			all,
			// the notes on the node's output panel (addExecutionHints)
			hints: run?.hints ?? [],
			runs: runs.length,
			perRun: runs.map((r) => ({ status: r?.executionStatus, error: r?.error, all: outputs(r), startTime: r?.startTime })),
		};
	}
	return result;
}

// ---------------------------------------------------------------------------------------------
// n8n server

const servers = new Set();
const ACTIVATED = /Editor is now accessible via/;

/** Spawns a long-running n8n command (start, worker) in its own process group, keeping its output. */
async function spawnServer(userFolder, args, envVars, info) {
	const child = track(
		spawn(path.join(env.NODE24_BIN, 'node'), [env.N8N_BIN, ...args], {
			cwd: userFolder,
			env: envVars,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		}),
	);
	let output = '';
	const keep = (c) => {
		output += c;
		if (output.length > 200_000) output = output.slice(-100_000);
	};
	child.stdout.setEncoding('utf8').on('data', keep);
	child.stderr.setEncoding('utf8').on('data', keep);
	const handle = {
		...info,
		pid: child.pid,
		child,
		logs: () => output,
		stop: () => stopN8n(handle),
	};
	servers.add(handle);
	return handle;
}

/** Status of GET url (0 when it cannot connect or times out). */
function httpStatus(url) {
	return new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			resolve(res.statusCode);
		});
		req.on('error', () => resolve(0));
		req.setTimeout(2000, () => req.destroy());
	});
}

/** Polls readiness until ready(status) says so; stops the process and throws when it exits or times out. */
async function awaitReady(handle, what, readinessUrl, readyTimeoutMs, ready) {
	const { child } = handle;
	const started = Date.now();
	const deadline = Date.now() + readyTimeoutMs;
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null) {
			servers.delete(handle);
			// the cause first: CI prints only the start of a long message
			const cause = handle
				.logs()
				.split('\n')
				.filter((line) => /error|in use|EADDRINUSE|exit/i.test(line))
				.slice(-3)
				.join('\n');
			throw new Error(`${what} exited early (${child.exitCode ?? child.signalCode}): ${cause}\n${handle.logs().slice(-4000)}`);
		}
		if (ready(await httpStatus(readinessUrl))) {
			logCommandTime(`${what} (until ready)`, Date.now() - started);
			return handle;
		}
		if (Date.now() > deadline) {
			await stopN8n(handle);
			throw new Error(`${what} did not become ready within ${readyTimeoutMs} ms:\n${handle.logs().slice(-4000)}`);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
}

/**
 * `n8n start` on 127.0.0.1:port (a free one by default); resolves once /healthz/readiness
 * answers 200 and n8n has activated the published workflows (about 5-12 s). Returns
 * { url, port, pid, logs(), stop() }.
 */
export async function startN8n(userFolder, { port, env: extra = {}, readyTimeoutMs = 90_000 } = {}) {
	port ??= await freePort();
	const url = `http://127.0.0.1:${port}`;
	const handle = await spawnServer(
		userFolder,
		['start'],
		// mcp-registry fetches a catalogue from api.n8n.io at start: not needed, noisy offline (as in start.sh)
		await n8nEnv(userFolder, { N8N_PORT: String(port), N8N_SECURE_COOKIE: 'false', N8N_DISABLED_MODULES: 'mcp-registry', ...extra }),
		{ url, port },
	);
	let readySince;
	return await awaitReady(handle, 'n8n start', `${url}/healthz/readiness`, readyTimeoutMs, (status) => {
		// Readiness turns 200 before n8n 2.41.1 activates published workflows (ActiveWorkflowManager
		// .init comes after server.start in `n8n start`): a webhook called at once can still be
		// "not registered" (seen on a busy machine). n8n prints the editor URL after activation.
		if (status === 200 && ACTIVATED.test(handle.logs())) return true;
		return status === 200 && (readySince ??= Date.now()) < Date.now() - 30_000;
	});
}

/**
 * `n8n worker` (queue mode: give the user folder queueModeEnv() or pass it in env) with its health
 * server on 127.0.0.1:healthPort (a free one by default); resolves once its /healthz/readiness
 * answers 200: database and Redis connected, and the worker takes jobs from the queue (n8n 2.41.1
 * marks it ready right after it starts processing). Returns { url, port, pid, logs(), stop() };
 * its logs hold "Worker started execution <id> (job <id>)" for each execution it runs.
 */
export async function startWorker(userFolder, { healthPort, concurrency = 10, env: extra = {}, readyTimeoutMs = 90_000 } = {}) {
	healthPort ??= await freePort();
	const url = `http://127.0.0.1:${healthPort}`;
	const handle = await spawnServer(
		userFolder,
		['worker', `--concurrency=${concurrency}`],
		await n8nEnv(userFolder, {
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			...extra,
		}),
		{ url, port: healthPort },
	);
	return await awaitReady(handle, 'n8n worker', `${url}/healthz/readiness`, readyTimeoutMs, (status) => status === 200);
}

/** Executions a worker's log says it started: [{ executionId, jobId }] in order. */
export function workerExecutions(handle) {
	return [...handle.logs().matchAll(/Worker started execution (\S+) \(job (\S+)\)/g)].map((m) => ({ executionId: m[1], jobId: m[2] }));
}

/**
 * Environment for n8n in queue mode (main and workers alike): executions go through Bull on the
 * Redis at redisUrl (keys under bullPrefix), n8n's other Redis use (cache, pub/sub between main
 * and workers, locks) under redisKeyPrefix, everything else is stored in the PostgreSQL database
 * at pgUrl (the database name from the URL unless `database` is given). Every process must share
 * the encryption key (credentials are decrypted by the worker that runs the execution). Give each
 * test run its own prefixes and database: n8n caches database rows (projects, roles, webhooks) in
 * Redis.
 */
export function queueModeEnv({ redisUrl, pgUrl, database, bullPrefix = 'bull', redisKeyPrefix = 'n8n', encryptionKey }) {
	const redis = new URL(redisUrl);
	const pg = new URL(pgUrl);
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.hostname,
		QUEUE_BULL_REDIS_PORT: redis.port || '6379',
		QUEUE_BULL_REDIS_DB: redis.pathname.replace(/^\//, '') || '0',
		...(redis.password ? { QUEUE_BULL_REDIS_PASSWORD: decodeURIComponent(redis.password) } : {}),
		QUEUE_BULL_PREFIX: bullPrefix,
		N8N_REDIS_KEY_PREFIX: redisKeyPrefix,
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.hostname,
		DB_POSTGRESDB_PORT: pg.port || '5432',
		DB_POSTGRESDB_DATABASE: database ?? decodeURIComponent(pg.pathname.replace(/^\//, '')),
		DB_POSTGRESDB_USER: decodeURIComponent(pg.username),
		DB_POSTGRESDB_PASSWORD: decodeURIComponent(pg.password),
		...(encryptionKey ? { N8N_ENCRYPTION_KEY: encryptionKey } : {}),
	};
}

/** Stops one server (SIGTERM, SIGKILL after graceMs) or, without a handle, every server started. */
export async function stopN8n(handle, { graceMs = 10_000 } = {}) {
	const targets = handle ? [handle] : [...servers];
	await Promise.all(
		targets.map(async (h) => {
			servers.delete(h);
			const { child } = h;
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			killGroup(child, 'SIGTERM');
			const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
			await exited;
			clearTimeout(timer);
			killGroup(child, 'SIGKILL'); // task runner, if still there
		}),
	);
}

// ---------------------------------------------------------------------------------------------
// Flaky HTTP server

export { startFlakyServer } from '../support/flaky-upstream.js';

/** A fresh key for flaky-server paths. */
export const uniqueKey = (prefix = 'k') => `${prefix}-${randomBytes(4).toString('hex')}`;

/**
 * fetch() of a production webhook of a server from startN8n, sent once n8n has registered it (as
 * `npm start` waits before its banner: scripts/webhooks-ready.js). Resolves the Response.
 */
export async function callWebhook(server, webhookPath, init = {}, { timeoutMs = 30_000 } = {}) {
	const hook = { path: webhookPath, methods: [String(init.method ?? 'GET').toUpperCase()] };
	const deadline = Date.now() + timeoutMs;
	while (!(await webhooksReady.isRegistered(server.url, hook).catch(() => false))) {
		if (Date.now() > deadline) throw new Error(`the webhook /webhook/${webhookPath} is not registered after ${timeoutMs} ms`);
		await new Promise((r) => setTimeout(r, 250));
	}
	return await fetch(`${server.url}/webhook/${webhookPath}`, init);
}

// ---------------------------------------------------------------------------------------------
// Example workflows

/**
 * An example from workflows/ with its Config node's `baseUrl` pointed at baseUrl (the one place
 * each example names its API). Throws when the example has no Config node or no baseUrl.
 */
export function loadExample(file, baseUrl) {
	const workflow = JSON.parse(fs.readFileSync(path.join(REPO, 'workflows', file), 'utf8'));
	const config = workflow.nodes.find((n) => n.name === 'Config');
	const base = config?.parameters?.assignments?.assignments?.find((a) => a.name === 'baseUrl');
	// an example whose API is reached through a credential's Base URL (11: the OpenAI node's) has none
	if (!base && config && workflow.nodes.some((n) => n.credentials !== undefined)) return workflow;
	if (!base) throw new Error(`${file}: no Config node with a baseUrl assignment`);
	base.value = baseUrl;
	return workflow;
}

/**
 * The workflow with its manual trigger replaced by a Webhook node (GET /webhook/<path>, answers
 * at once), so that a running `n8n start` can execute it. Publish it before starting n8n.
 */
export function withWebhookTrigger(workflow, { id, path: webhookPath, name = workflow.name }) {
	const copy = structuredClone(workflow);
	const trigger = copy.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (!trigger) throw new Error(`${workflow.id}: no manual trigger to replace`);
	const oldName = trigger.name;
	Object.assign(trigger, {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: `e2e-${webhookPath}`,
		parameters: { httpMethod: 'GET', path: webhookPath, responseMode: 'onReceived', options: {} },
	});
	copy.connections = Object.fromEntries(Object.entries(copy.connections).map(([from, c]) => [from === oldName ? 'Webhook' : from, c]));
	return { ...copy, id, name, active: false };
}

// ---------------------------------------------------------------------------------------------
// The owner, n8n's REST API and stored executions

/**
 * The owner that scripts/start.sh sets up (N8N_INSTANCE_OWNER_MANAGED_BY_ENV): pass ownerEnv()
 * to startN8n to be able to log in through restClient().
 */
export const OWNER = {
	email: 'admin@example.com',
	password: 'ResilientHttp-local1',
	// bcrypt of the password (n8n takes a hash, never the password itself); as in scripts/start.sh
	passwordHash: '$2a$10$gCkXwqu7ffIrG6UVIfyeT.byPkAxlKdlJwaCdX404DWjOfGwOSFAu',
};

export function ownerEnv() {
	return {
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'E2E',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: OWNER.passwordHash,
	};
}

/**
 * Logs in to a server from startN8n (started with ownerEnv()) as the owner. Returns
 * { get(path), post(path, body), delete(path) } resolving the JSON `data` of n8n's REST answers (throws
 * on a status other than 2xx), text(path) for answers without that envelope and bytes(path) for
 * binary ones.
 */
export async function restClient(server, { email = OWNER.email, password = OWNER.password } = {}) {
	const browserId = `e2e-${randomBytes(4).toString('hex')}`;
	const login = await fetch(`${server.url}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': browserId },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	if (!login.ok) throw new Error(`n8n login failed: ${login.status} ${await login.text()}`);
	const cookie = login.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.join('; ');
	const call = async (method, p, body) => {
		const res = await fetch(`${server.url}${p}`, {
			method,
			headers: { cookie, 'browser-id': browserId, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
			body: body !== undefined ? JSON.stringify(body) : undefined,
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 1000)}`);
		return JSON.parse(text).data;
	};
	/** GET of a path that does not answer in n8n's { data } envelope (e.g. /types/nodes.json): its text. */
	const text = async (p) => {
		const res = await fetch(`${server.url}${p}`, { headers: { cookie, 'browser-id': browserId } });
		if (!res.ok) throw new Error(`GET ${p}: ${res.status}`);
		return await res.text();
	};
	/** GET of a path that answers bytes (e.g. /rest/binary-data?id=...&action=download): a Buffer. */
	const bytes = async (p) => {
		const res = await fetch(`${server.url}${p}`, { headers: { cookie, 'browser-id': browserId } });
		if (!res.ok) throw new Error(`GET ${p}: ${res.status}`);
		return Buffer.from(await res.arrayBuffer());
	};
	return { get: (p) => call('GET', p), post: (p, body) => call('POST', p, body ?? {}), patch: (p, body) => call('PATCH', p, body), delete: (p) => call('DELETE', p), text, bytes };
}

/** require() from n8n's install: its own copies of flatted, pg, ioredis, ... */
export const requireFromN8n = createRequire(path.join(env.N8N_HOME, 'node_modules/n8n/package.json'));
/** n8n stores and serves run data with `flatted` (circular-safe JSON): its own copy parses it. */
export const parseFlatted = (text) => requireFromN8n('flatted').parse(text);

/**
 * Executions of a workflow, newest first: [{ id, status, mode, waitTill, startedAt, stoppedAt, ... }].
 * n8n answers one page: 20 by default, `limit` up to 100.
 */
export async function listExecutions(client, workflowId, { limit } = {}) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	return (await client.get(`/rest/executions?filter=${filter}${limit ? `&limit=${limit}` : ''}`)).results;
}

/** One execution with its run data parsed: { id, status, finished, waitTill, data: { resultData, ... } }. */
export async function getExecution(client, id) {
	const execution = await client.get(`/rest/executions/${id}`);
	return { ...execution, data: typeof execution.data === 'string' ? parseFlatted(execution.data) : execution.data };
}

/** Polls check() every intervalMs until it returns a truthy value (resolved), or throws after timeoutMs. */
export async function waitFor(check, { timeoutMs, intervalMs = 500, what = 'condition' }) {
	const deadline = Date.now() + timeoutMs;
	let last;
	for (;;) {
		try {
			const value = await check();
			if (value) return value;
		} catch (error) {
			last = error;
		}
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}

/** Statuses of an execution that has ended (n8n's ExecutionStatus). */
export const FINISHED_STATUSES = ['success', 'error', 'crashed', 'canceled'];

/**
 * *Execute workflow* on a running n8n (a restClient), as the editor's button does, from the trigger
 * node named `trigger`: resolves the finished execution with its run data (nodeResults() reads it).
 * Many workflows run on one server cost one boot of n8n, where each `n8n execute` boots it anew.
 */
export async function executeOnServer(client, workflowId, { trigger = 'Start', timeoutMs = 120_000 } = {}) {
	const { executionId } = await client.post(`/rest/workflows/${workflowId}/run`, { triggerToStartFrom: { name: trigger } });
	if (!executionId) throw new Error(`${workflowId}: n8n started no execution`);
	return await waitFor(
		async () => {
			const execution = await getExecution(client, executionId);
			return FINISHED_STATUSES.includes(execution.status) ? execution : undefined;
		},
		{ timeoutMs, intervalMs: 100, what: `execution ${executionId} of ${workflowId}` },
	);
}

/** Why an execution did not succeed, for an assertion's message: its status and its error. */
export const executionFailure = (execution) => `${execution.status}: ${JSON.stringify(execution.data?.resultData?.error ?? null).slice(0, 3000)}`;

/**
 * The executions of a workflow as stored in the user folder's database (SQLite in the folder, or
 * the PostgreSQL of its queueModeEnv): [{ id, status, startedAt, stoppedAt }] (epoch ms, null
 * while unset), oldest first; `afterId`: only those with a greater id. Reads every row at once,
 * where the REST API pages 100 at a time by start time.
 */
/**
 * Runs fn with a client of a PostgreSQL (n8n's own `pg`), closed after: `connection` is a URL or
 * pg's client settings.
 */
export async function withPg(connection, fn) {
	const { Client } = requireFromN8n('pg');
	const client = new Client(typeof connection === 'string' ? { connectionString: connection } : connection);
	await client.connect();
	try {
		return await fn(client);
	} finally {
		await client.end();
	}
}

export async function storedExecutions(userFolder, workflowId, { afterId = 0 } = {}) {
	const folderEnv = folderEnvs.get(userFolder) ?? {};
	const epoch = (value) => (value === null || value === undefined ? null : value instanceof Date ? value.getTime() : Date.parse(/[zZ+]/.test(value) ? value : `${value.replace(' ', 'T')}Z`));
	const rowOf = (r) => ({ id: Number(r.id), status: r.status, startedAt: epoch(r.startedAt), stoppedAt: epoch(r.stoppedAt) });
	if (folderEnv.DB_TYPE === 'postgresdb') {
		const connection = {
			host: folderEnv.DB_POSTGRESDB_HOST,
			port: Number(folderEnv.DB_POSTGRESDB_PORT),
			database: folderEnv.DB_POSTGRESDB_DATABASE,
			user: folderEnv.DB_POSTGRESDB_USER,
			password: folderEnv.DB_POSTGRESDB_PASSWORD,
		};
		const { rows } = await withPg(connection, (client) =>
			client.query('SELECT id, status, "startedAt", "stoppedAt" FROM execution_entity WHERE "workflowId" = $1 AND id > $2 ORDER BY id', [workflowId, afterId]),
		);
		return rows.map(rowOf);
	}
	// n8n's sqlite3 is a native module built for n8n's Node (24): it is read from a Node 24 child,
	// not loaded into this process, which may run another Node (the bench and tests run on the
	// machine's)
	const file = path.join(userFolder, '.n8n', 'database.sqlite');
	const rows = JSON.parse(
		await new Promise((resolve, reject) =>
			execFile(
				path.join(env.NODE24_BIN, 'node'),
				['-e', READ_EXECUTIONS_SCRIPT, path.join(env.N8N_HOME, 'node_modules/n8n/package.json'), file, String(workflowId), String(afterId)],
				{ maxBuffer: 64 * 1024 * 1024 },
				(error, stdout, stderr) => (error ? reject(new Error(`reading ${file}: ${stderr || error.message}`)) : resolve(stdout)),
			),
		),
	);
	return rows.map(rowOf);
}

/** Prints a workflow's execution rows as JSON, read with n8n's own sqlite3 (run by Node 24). */
const READ_EXECUTIONS_SCRIPT = `
const [n8nPackage, file, workflowId, afterId] = process.argv.slice(1);
const sqlite3 = require('node:module').createRequire(n8nPackage)('sqlite3');
const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => {
	if (error) throw error;
	db.configure('busyTimeout', 5000); // n8n writes to it meanwhile (WAL: readers do not block it)
	db.all('SELECT id, status, startedAt, stoppedAt FROM execution_entity WHERE workflowId = ? AND id > ? ORDER BY id', [workflowId, Number(afterId)], (error, rows) => {
		if (error) throw error;
		process.stdout.write(JSON.stringify(rows));
		db.close();
	});
});
`;
