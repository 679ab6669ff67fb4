/**
 * The real-n8n part of `npm run bench` (test/bench/run.sh runs it through test/e2e/run.sh, which
 * installs n8n, builds and packs): real n8n 2.41.1 servers executing webhook workflows, n8n's HTTP
 * Request + Retry On Fail beside Resilient HTTP Request in the same run, on real time. Writes
 * .bench/real-n8n.json (the shape of test/bench/real-n8n-results.ts, read by the engine part for
 * BENCHMARKS.md) and .bench/real-n8n-details.json (per row: requests per second, the node's
 * state-change log lines), and prints a summary.
 *
 *   healthy       one n8n in regular mode (SQLite): one execution of BENCH_REAL_HEALTHY_ITEMS
 *                 items (500 and 5,000) against an upstream answering in BENCH_REAL_HEALTHY_LATENCY_MS,
 *                 n8n's HTTP Request and Resilient HTTP Request in turn, first and later executions,
 *                 BENCH_REAL_HEALTHY_RUNS rounds (test/bench/real-n8n-healthy.mjs).
 *   webhookFleet  one n8n in regular mode (SQLite); per row, BENCH_WEBHOOK_EXECUTIONS webhook
 *                 calls (one item each) as fast as n8n takes them, the upstream down for
 *                 BENCH_WEBHOOK_OUTAGE_MS from the first call.
 *   queueMode     n8n start + BENCH_QUEUE_WORKERS workers (PostgreSQL + Redis: RH_TEST_PG_URL,
 *                 RH_TEST_REDIS_URL; skipped without them), Shared State = Redis: the storm
 *                 (BENCH_QUEUE_EXECUTIONS, BENCH_QUEUE_OUTAGE_MS) and the rate limit
 *                 (BENCH_QUEUE_RATE_EXECUTIONS against BENCH_QUEUE_RATE_LIMIT requests/s). Here
 *                 the executions of a row start together, as the engine's fleet does: n8n's main
 *                 takes about 20-30 webhook calls a second on 2 cores, so a 3 s outage from the
 *                 first call would meet only the first few dozen, and 300 executions trickling in
 *                 at that pace would hardly exceed 20 requests/s. Each execution waits at a
 *                 barrier (an HTTP Request to the upstream's /barrier, held until every execution
 *                 of the row is there: it holds a worker slot, hence the workers' concurrency);
 *                 the outage and the figures' times start when the barrier opens. Then the
 *                 recovery row (issue 39): Resilient HTTP Request alone, BENCH_QUEUE_EXECUTIONS
 *                 executions through the barrier, the webhook fleet's outage (BENCH_WEBHOOK_OUTAGE_MS).
 *
 *   pauses        one n8n in regular mode (SQLite): a daily-limit 429 without a stated end whose
 *                 quota comes back, and a 429 with a stated Retry-After, calls coming in over minutes
 *                 (test/bench/real-n8n-pauses.mjs).
 *   tenants       one n8n in regular mode (SQLite): Fair Share Key and Urgent against an API that
 *                 takes 20 requests a second (test/bench/real-n8n-tenants.mjs).
 *   llm           one n8n in regular mode (SQLite): token budgets against local OpenAI-compatible
 *                 APIs of 60,000 tokens a minute, Resilient HTTP Request and HTTP Request + Retry
 *                 On Fail at once, and an insufficient_quota 429 (test/bench/real-n8n-llm.mjs,
 *                 issue 36; about 15 minutes).
 *
 * Rows run one after another on one n8n (one cluster) per scenario: boots cost 5-20 s each. Every
 * row calls its own upstream server, so its own API origin: no two rows share a traffic controller.
 * A scenario that fails is written as { skipped: "failed: ..." } and the script exits 1.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
	env as n8nPaths,
	importCredentials,
	importWorkflow,
	ownerEnv,
	prepareUserFolder,
	publishOnServer,
	publishWorkflow,
	queueModeEnv,
	REPO,
	requireFromN8n,
	restClient,
	startN8n,
	startWorker,
	stopN8n,
	workerExecutions,
} from '../e2e/harness.mjs';
import {
	awaitExecutions,
	benchWorkflow,
	fireWebhooks,
	fleetRow,
	lastExecutionId,
	perSecond,
	rateRow,
	readSettings,
	RETRY_ON_FAIL_DEFAULT,
	RETRY_ON_FAIL_MAX,
	startUpstream,
	trafficLogCounts,
	webhookPath,
} from './real-n8n-lib.mjs';
import { healthyRounds, healthyWorkflow } from './real-n8n-healthy.mjs';
import { PAUSE_ROWS, pausesRows, pausesWorkflows } from './real-n8n-pauses.mjs';
import { TENANT_ROWS, TENANTS, tenantsRows, tenantsWorkflow } from './real-n8n-tenants.mjs';
import { LLM, LLM_QUEUE_ROWS, LLM_ROWS, llmQueueRows, llmRows, llmWorkflow, openAiCredential } from './real-n8n-llm.mjs';

const OUT_DIR = path.join(REPO, '.bench');
const RESULTS_FILE = path.join(OUT_DIR, 'real-n8n.json');
const DETAILS_FILE = path.join(OUT_DIR, 'real-n8n-details.json');

const STORM_ROWS = [
	{ slug: 'rof-default', name: 'HTTP Request + Retry On Fail, default (3 tries, 1000 ms)', kind: 'core', retry: RETRY_ON_FAIL_DEFAULT },
	{ slug: 'rof-max', name: 'HTTP Request + Retry On Fail, max (5 tries, 5000 ms)', kind: 'core', retry: RETRY_ON_FAIL_MAX },
	{ slug: 'resilient', name: 'Resilient HTTP Request, defaults', kind: 'resilient' },
];
const RATE_ROWS = [
	{ slug: 'rof-default', name: 'HTTP Request + Retry On Fail, default (3 tries, 1000 ms)', kind: 'core', retry: RETRY_ON_FAIL_DEFAULT },
	{ slug: 'resilient', name: 'Resilient HTTP Request, defaults', kind: 'resilient' },
	{ slug: 'resilient-quota-headers', name: 'Resilient HTTP Request, defaults; the API sends x-ratelimit-remaining / -reset', kind: 'resilient', quotaHeaders: true },
];

const t0 = Date.now();
const say = (message) => console.log(`[bench real-n8n ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${message}`);
const details = { webhookFleet: [], queueMode: { storm: [], rateLimit: [] } };

/** What an n8n process prints from now on, until stop() (the handle's logs() keeps only the last 100-200 kB). */
function tapLogs(handle) {
	let text = '';
	const keep = (chunk) => (text += chunk);
	handle.child.stdout.on('data', keep);
	handle.child.stderr.on('data', keep);
	return () => {
		handle.child.stdout.off('data', keep);
		handle.child.stderr.off('data', keep);
		return text;
	};
}

/**
 * One row: its upstream emptied and down for outageMs from the first call (from the barrier's
 * opening, when the row has a barrier: then every execution waits there and all send their
 * request together), the calls, the executions awaited, the figures. `servers`: the n8n processes
 * whose logs tell the node's story.
 */
async function runRow({ n8n, servers, client, userFolder, workflowId, upstream, row, executions, outageMs, settings, limitRps }) {
	const afterId = await lastExecutionId(userFolder, workflowId);
	await upstream.take(row.url);
	const taps = servers.map(tapLogs);
	const outage = outageMs ? { url: row.url, durationMs: outageMs } : undefined;
	const barrier = row.barrierUrl ? upstream.barrier(row.barrierUrl, row.slug, { expected: executions, idleMs: settings.barrierIdleMs, outage }) : undefined;
	if (outage && !barrier) await upstream.outage(row.url, outageMs);
	const calls = await fireWebhooks(n8n, webhookPath(workflowId, row), row.slug, executions, settings.webhookConcurrency);
	if (calls.failed.length) say(`  ${row.slug}: ${calls.failed.length} webhook calls failed: ${JSON.stringify(calls.failed.slice(0, 5))}`);
	const opened = barrier ? await barrier : undefined;
	if (opened?.timedOut) say(`  ${row.slug}: the barrier opened with ${opened.arrived} of ${executions} executions (none came for ${settings.barrierIdleMs} ms)`);
	const since = opened?.openedAt ?? calls.firstCallAt;
	const expected = executions - calls.failed.length;
	const { rows, timedOut } = await awaitExecutions(userFolder, workflowId, afterId, expected, { timeoutMs: settings.rowTimeoutMs, client, log: (m) => say(`  ${row.slug}: ${m}`) });
	const log = await upstream.take(row.url);
	if (row.barrierUrl) await upstream.take(row.barrierUrl);
	const figures = limitRps ? rateRow(row, executions, limitRps, calls, rows, log, since) : fleetRow(row, executions, calls, rows, log, since);
	const statuses = {};
	for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
	const trafficLog = trafficLogCounts(taps.map((stop) => stop()).join('\n'));
	const detail = {
		slug: row.slug,
		executionStatuses: statuses,
		timedOut,
		webhookCallsFailed: calls.failed.length,
		...(opened ? { barrier: { ...opened, afterFirstCallMs: opened.openedAt - calls.firstCallAt } } : {}),
		requestsPerSecond: perSecond(log, since),
		...(limitRps ? { status429PerSecond: perSecond(log, since, 429) } : { status503PerSecond: perSecond(log, since, 503) }),
		trafficLog,
	};
	say(
		`  ${row.slug}: ${figures.succeeded}/${executions} succeeded, ${figures.requests} requests` +
			(limitRps ? `, ${figures.status429} x 429, ${figures.durationMs} ms (ideal ${figures.idealMs})` : ` (${figures.amplification}x), retry peak ${figures.retryPeak100ms}/100 ms, done after ${figures.durationMs} ms`) +
			`; calls over ${calls.lastAnswerAt - calls.firstCallAt} ms${opened ? `, barrier opened ${opened.openedAt - calls.firstCallAt} ms after the first call` : ''}` +
			`; executions ${JSON.stringify(statuses)}${timedOut ? ' (TIMED OUT)' : ''}; node log ${JSON.stringify(trafficLog)}`,
	);
	return { figures, detail };
}

/** Rows with a server (origin) of their own each. */
async function withServers(upstream, rows, serverOptions = () => ({})) {
	const out = [];
	for (const [index, row] of rows.entries()) out.push({ ...row, index, url: await upstream.server(serverOptions(row)) });
	return out;
}

// ---------------------------------------------------------------------------------------------

async function healthy(settings, upstream) {
	const workflowId = `rhBenchHealthy${randomBytes(2).toString('hex')}`;
	const userFolder = await prepareUserFolder({ tarball: true, env: { N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' } });
	await importWorkflow(userFolder, healthyWorkflow(workflowId));
	await publishWorkflow(userFolder, workflowId);
	say(`healthy: imported and published; starting n8n (regular mode, SQLite); ${settings.healthyItems.join(' and ')} items, ${settings.healthyRuns} rounds, ${settings.healthyLatencyMs} ms latency`);
	// a loaded machine may take minutes to boot n8n
	const n8n = await startN8n(userFolder, { env: ownerEnv(), readyTimeoutMs: 300_000 });
	try {
		return await healthyRounds({ n8n, userFolder, workflowId, upstream, sizes: settings.healthyItems, runs: settings.healthyRuns, latencyMs: settings.healthyLatencyMs, timeoutMs: Math.max(settings.rowTimeoutMs, 600_000), say });
	} finally {
		await stopN8n(n8n);
	}
}

async function pauses(upstream) {
	const run = randomBytes(2).toString('hex');
	const rows = (await withServers(upstream, PAUSE_ROWS)).map((r) => ({ ...r, index: 0, workflowId: `rhBenchPauses${run}${r.slug}` }));
	const userFolder = await prepareUserFolder({ tarball: true, env: { N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' } });
	await importWorkflow(userFolder, pausesWorkflows(rows));
	say('pauses: imported; starting n8n (regular mode, SQLite)');
	const n8n = await startN8n(userFolder, { env: ownerEnv(), readyTimeoutMs: 300_000 });
	try {
		const client = await restClient(n8n);
		await publishOnServer(client, rows.map((r) => r.workflowId));
		return await pausesRows({ n8n, userFolder, upstream, rows, client, say });
	} finally {
		await stopN8n(n8n);
	}
}

/**
 * One n8n (regular mode, SQLite) with one workflow imported and published: fn({ n8n, userFolder,
 * client }), n8n stopped after. A loaded machine may take minutes to boot it.
 */
async function onOneN8n(scenario, workflow, fn, credentials = []) {
	const userFolder = await prepareUserFolder({ tarball: true, env: { N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' } });
	if (credentials.length > 0) await importCredentials(userFolder, credentials);
	await importWorkflow(userFolder, workflow);
	await publishWorkflow(userFolder, workflow.id);
	say(`${scenario}: imported and published; starting n8n (regular mode, SQLite)`);
	const n8n = await startN8n(userFolder, { env: ownerEnv(), readyTimeoutMs: 300_000 });
	try {
		return await fn({ n8n, userFolder, client: await restClient(n8n) });
	} finally {
		await stopN8n(n8n);
	}
}

async function tenants(upstream) {
	const workflowId = `rhBenchTenants${randomBytes(2).toString('hex')}`;
	const rows = (await withServers(upstream, TENANT_ROWS, () => ({ limitRps: TENANTS.limitRps }))).map((r) => ({ ...r, workflowId }));
	return await onOneN8n('tenants', tenantsWorkflow(workflowId, rows), (n8nRun) => tenantsRows({ ...n8nRun, upstream, rows, say }));
}

/** An LLM API of the bench's (llm-upstream.mjs): its limits, latencies and quota model, its seed from `serverSeed`. */
const llmServerOptions = (settings, serverSeed) => ({ tpm: LLM.tpm, rpm: LLM.rpm, latencyMs: LLM.latencyMs, quotaModel: LLM.quotaModel, headersWhen: settings.llmHeadersWhen, seed: LLM.seed + serverSeed });

async function llm(settings, upstream) {
	const workflowId = `rhBenchLlm${randomBytes(2).toString('hex')}`;
	// each row an API of its own: its own sliding minute, its own controller
	const rows = (await withServers(upstream, LLM_ROWS, (r) => ({ llm: llmServerOptions(settings, r.serverSeed) }))).map((r) => ({ ...r, workflowId }));
	// n8n's OpenAI node finds its row's API through its credential's Base URL
	const credentials = rows.filter((r) => r.kind.startsWith('openai')).map(openAiCredential);
	return await onOneN8n('llm', llmWorkflow(workflowId, rows), (n8nRun) => llmRows({ ...n8nRun, upstream, rows, say, workflowId, itemCount: settings.llmItems }), credentials);
}

/** Issue 36 in queue mode: Resilient HTTP Request and n8n's OpenAI node share one API's token budget across two workers. */
async function llmQueue(settings, upstream) {
	const missing = queueModeMissing();
	if (missing) return missing;
	const run = randomBytes(4).toString('hex');
	const workflowId = `rhBenchLlmQ${run.slice(0, 4)}`;
	const redisCredential = { id: `rhBenchRedis${run.slice(0, 4)}`, name: 'Bench Redis' };
	// one API for both rows: its one sliding minute is the budget they share
	const url = await upstream.server({ llm: llmServerOptions(settings, 6) });
	const rows = LLM_QUEUE_ROWS.map((r, index) => ({ ...r, index, url, workflowId, redisCredential, scope: `${r.scope}-${run}` }));
	const credentials = rows.filter((r) => r.kind.startsWith('openai')).map(openAiCredential);
	return await onQueueCluster(settings, 'llmQueue', { run, redisCredential, credentials, workflow: llmWorkflow(workflowId, rows) }, ({ main, client, userFolder }) =>
		llmQueueRows({ n8n: main, client, userFolder, upstream, rows, say, workflowId, itemCount: settings.llmItems }),
	);
}

async function webhookFleet(settings, upstream) {
	const run = randomBytes(3).toString('hex');
	const workflowId = `rhBenchFleet${run.slice(0, 4)}`;
	const rows = (await withServers(upstream, STORM_ROWS)).map((r) => ({ ...r, route: 'outage' }));
	const userFolder = await prepareUserFolder({ tarball: true, env: { N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' } });
	await importWorkflow(userFolder, benchWorkflow(workflowId, 'Bench: webhook fleet', rows));
	await publishWorkflow(userFolder, workflowId);
	say('webhookFleet: imported and published; starting n8n (regular mode, SQLite)');
	const n8n = await startN8n(userFolder, { env: ownerEnv() });
	try {
		const client = await restClient(n8n);
		say(`webhookFleet: n8n ready; ${settings.webhookExecutions} webhook executions per row, outage ${settings.webhookOutageMs} ms from the first call`);
		const out = [];
		for (const row of rows) {
			const { figures, detail } = await runRow({ n8n, servers: [n8n], client, userFolder, workflowId, upstream, row, executions: settings.webhookExecutions, outageMs: settings.webhookOutageMs, settings });
			out.push(figures);
			details.webhookFleet.push(detail);
		}
		return { executions: settings.webhookExecutions, outageMs: settings.webhookOutageMs, rows: out };
	} finally {
		await stopN8n(n8n);
	}
}

/** Why queue mode cannot run here, or undefined: it needs a Redis and a PostgreSQL. */
function queueModeMissing() {
	if (!process.env.RH_TEST_REDIS_URL) return { skipped: 'RH_TEST_REDIS_URL is not set (a Redis for the queue and the shared state: scripts/redis-test-server.sh)' };
	if (!process.env.RH_TEST_PG_URL) return { skipped: 'RH_TEST_PG_URL is not set (a PostgreSQL for queue mode: scripts/postgres-test-server.sh)' };
	return undefined;
}

/**
 * A queue-mode cluster of this run's own (a PostgreSQL database, n8n's keys under fresh prefixes in
 * the Redis, a main and `settings.workers` workers), with `redisCredential` (the package's Redis
 * credential, for the state store) and `credentials` imported and `workflow` published; `fn` gets
 * { main, workers, servers, client, userFolder }. Everything is stopped and dropped after.
 */
async function onQueueCluster(settings, label, { run, redisCredential, credentials = [], workflow }, fn) {
	const redisUrl = process.env.RH_TEST_REDIS_URL;
	const pgUrl = process.env.RH_TEST_PG_URL;
	const { Client: PgClient } = requireFromN8n('pg');
	const withPg = async (use) => {
		const pg = new PgClient({ connectionString: pgUrl });
		await pg.connect();
		try {
			return await use(pg);
		} finally {
			await pg.end();
		}
	};
	const database = `rh_bench_queue_${run}`;
	const bullPrefix = `bull-bench-${run}`;
	const redisKeyPrefix = `n8n-bench-${run}`;
	await withPg((pg) => pg.query(`CREATE DATABASE "${database}"`));
	const redis = new URL(redisUrl);
	try {
		const envVars = queueModeEnv({ redisUrl, pgUrl, database, bullPrefix, redisKeyPrefix, encryptionKey: randomBytes(24).toString('hex') });
		const userFolder = await prepareUserFolder({ tarball: true, env: { ...envVars, N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' } });
		await importCredentials(userFolder, [
			{
				...redisCredential,
				type: 'resilientHttpRedis',
				data: { host: redis.hostname, port: Number(redis.port || 6379), database: Number(redis.pathname.slice(1) || 0), user: '', password: decodeURIComponent(redis.password), ssl: false },
			},
			...credentials,
		]);
		await importWorkflow(userFolder, workflow);
		await publishWorkflow(userFolder, workflow.id);
		say(`${label}: imported and published; starting main + ${settings.workers} workers (concurrency ${settings.workerConcurrency} each)`);
		const [main, ...workers] = await Promise.all([
			startN8n(userFolder, { env: ownerEnv() }),
			...Array.from({ length: settings.workers }, () => startWorker(userFolder, { concurrency: settings.workerConcurrency })),
		]);
		const client = await restClient(main);
		return await fn({ main, workers, servers: [main, ...workers], client, userFolder });
	} finally {
		await stopN8n();
		await withPg((pg) => pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)).catch((error) => say(`could not drop database ${database}: ${error.message}`));
		await deleteRedisKeys(redisUrl, [`${bullPrefix}*`, `${redisKeyPrefix}*`]).catch((error) => say(`could not delete this run's n8n keys in Redis: ${error.message}`));
	}
}

async function queueMode(settings, upstream) {
	const missing = queueModeMissing();
	if (missing) return missing;
	const run = randomBytes(4).toString('hex');
	const workflowId = `rhBenchQueue${run.slice(0, 4)}`;
	// a credential id of this run: its controllers' keys (origin | credential) are fresh in Redis
	const redisCredential = { id: `rhBenchRedis${run.slice(0, 4)}`, name: 'Bench Redis' };
	// the barrier: a server of its own, so that its requests are no row's
	const barrierUrl = await upstream.server();
	const storm = (await withServers(upstream, STORM_ROWS)).map((r) => ({ ...r, route: 'outage', group: 'storm', barrierUrl }));
	const rate = (await withServers(upstream, RATE_ROWS, (r) => ({ limitRps: settings.rateLimitRps, quotaHeaders: Boolean(r.quotaHeaders) }))).map((r) => ({
		...r,
		index: r.index + storm.length,
		route: 'limited',
		group: 'rate',
		barrierUrl,
	}));
	// issue 39: the webhook fleet's 20 s outage across the workers, Resilient HTTP Request alone
	const recovery = (await withServers(upstream, STORM_ROWS.filter((r) => r.kind === 'resilient'))).map((r) => ({ ...r, index: r.index + storm.length + rate.length, route: 'outage', group: 'recovery', barrierUrl }));
	// webhook paths and node names must differ between the groups of rows in one workflow
	const rows = [
		...storm.map((r) => ({ ...r, slug: `storm-${r.slug}`, reportSlug: r.slug })),
		...rate.map((r) => ({ ...r, slug: `rate-${r.slug}`, reportSlug: r.slug })),
		...recovery.map((r) => ({ ...r, slug: `recovery-${r.slug}`, reportSlug: r.slug })),
	];

	// a port of an earlier run within the controller's memory (10 min) would inherit its state
	await forgetControllers(process.env.RH_TEST_REDIS_URL, rows.map((r) => r.url));
	const workflow = benchWorkflow(workflowId, 'Bench: queue mode', rows, { redisCredential });
	return await onQueueCluster(settings, 'queueMode', { run, redisCredential, workflow }, async ({ main, workers, servers, client, userFolder }) => {
		say(`queueMode: cluster ready; storm: ${settings.queueExecutions} executions per row, outage ${settings.queueOutageMs} ms`);
		const stormRows = [];
		for (const row of rows.filter((r) => r.group === 'storm')) {
			const { figures, detail } = await runRow({ n8n: main, servers, client, userFolder, workflowId, upstream, row, executions: settings.queueExecutions, outageMs: settings.queueOutageMs, settings });
			stormRows.push({ ...figures, slug: row.reportSlug });
			details.queueMode.storm.push({ ...detail, slug: row.reportSlug });
		}
		say(`queueMode: rate limit: ${settings.rateExecutions} executions per row against ${settings.rateLimitRps} requests/s`);
		const rateRows = [];
		for (const row of rows.filter((r) => r.group === 'rate')) {
			const { figures, detail } = await runRow({ n8n: main, servers, client, userFolder, workflowId, upstream, row, executions: settings.rateExecutions, settings, limitRps: settings.rateLimitRps });
			rateRows.push({ ...figures, slug: row.reportSlug });
			details.queueMode.rateLimit.push({ ...detail, slug: row.reportSlug });
		}
		say(`queueMode: recovery: ${settings.queueExecutions} executions, outage ${settings.webhookOutageMs} ms`);
		const recoveryRows = [];
		for (const row of rows.filter((r) => r.group === 'recovery')) {
			const { figures, detail } = await runRow({ n8n: main, servers, client, userFolder, workflowId, upstream, row, executions: settings.queueExecutions, outageMs: settings.webhookOutageMs, settings });
			recoveryRows.push({ ...figures, slug: row.reportSlug });
			details.queueMode.recovery = [...(details.queueMode.recovery ?? []), { ...detail, slug: row.reportSlug }];
		}
		const ran = workers.map((w) => workerExecutions(w).length);
		say(`queueMode: executions per worker ${JSON.stringify(ran)}; the main ran ${(main.logs().match(/Worker started execution/g) ?? []).length}`);
		details.queueMode.executionsPerWorker = ran;
		return {
			workers: settings.workers,
			workerConcurrency: settings.workerConcurrency,
			storm: { executions: settings.queueExecutions, outageMs: settings.queueOutageMs, rows: stormRows },
			rateLimit: { executions: settings.rateExecutions, limitRps: settings.rateLimitRps, rows: rateRows },
			recovery: { executions: settings.queueExecutions, outageMs: settings.webhookOutageMs, rows: recoveryRows },
		};
	});
}

function redisClient(redisUrl) {
	const Redis = requireFromN8n('ioredis');
	const u = new URL(redisUrl);
	const redis = new Redis({ host: u.hostname, port: Number(u.port || 6379), db: Number(u.pathname.slice(1) || 0), password: u.password ? decodeURIComponent(u.password) : undefined, lazyConnect: true, maxRetriesPerRequest: 1 });
	redis.on('error', () => {});
	return redis;
}

/**
 * Drops the traffic controllers of these origins from Redis: the key the node derives for an
 * unauthenticated request (nodes/ResilientHttpRequest/config/traffic-settings.ts), under the store's rh: prefix.
 */
async function forgetControllers(redisUrl, urls) {
	const redis = redisClient(redisUrl);
	try {
		// the store's key is rh:traffic:{<key>} (a Cluster hash tag), beside its :leases and :counts
		const keys = urls.map((url) => `rh:traffic:{api:${createHash('sha256').update(`origin:${new URL(url).origin}|none`).digest('hex').slice(0, 32)}}`);
		await redis.del(...keys.flatMap((key) => [key, `${key}:leases`, `${key}:counts`]));
	} finally {
		redis.disconnect();
	}
}

/** n8n's keys of this run (queue, cache, pub/sub); the node's rh: keys expire by themselves. */
async function deleteRedisKeys(redisUrl, patterns) {
	const redis = redisClient(redisUrl);
	try {
		for (const pattern of patterns) {
			for (let cursor = '0'; ; ) {
				const [next, keys] = await redis.scan(cursor, 'MATCH', `*${pattern}`, 'COUNT', 1000);
				if (keys.length) await redis.del(...keys);
				if ((cursor = next) === '0') break;
			}
		}
	} finally {
		redis.disconnect();
	}
}

// ---------------------------------------------------------------------------------------------

async function main() {
	const settings = readSettings();
	const runId = process.env.BENCH_RUN_ID || `standalone-${new Date().toISOString()}`;
	fs.mkdirSync(OUT_DIR, { recursive: true });
	fs.rmSync(RESULTS_FILE, { force: true }); // a failed run leaves no figures of an earlier one
	const nodeVersion = execFileSync(path.join(n8nPaths.NODE24_BIN, 'node'), ['--version'], { encoding: 'utf8' }).trim();
	say(`run ${runId}: n8n ${n8nPaths.N8N_VERSION} on Node ${nodeVersion}; settings ${JSON.stringify({ ...settings, scenarios: [...settings.scenarios] })}`);
	const upstream = await startUpstream();
	let failed = false;
	const attempt = async (name, selected, fn) => {
		if (!selected) return { skipped: `not selected (BENCH_REAL_N8N_SCENARIOS=${process.env.BENCH_REAL_N8N_SCENARIOS})` };
		const started = Date.now();
		try {
			const result = await fn();
			say(`${name}: ${'skipped' in result ? `skipped: ${result.skipped}` : 'done'} in ${Math.round((Date.now() - started) / 1000)} s`);
			return result;
		} catch (error) {
			failed = true;
			say(`${name} FAILED: ${error.stack ?? error}`);
			return { skipped: `failed: ${String(error.message ?? error).split('\n')[0]}` };
		}
	};
	// written after each scenario too: a scenario that crashes the process keeps the ones before it
	const pending = { skipped: 'failed: the process ended before this scenario finished' };
	const results = { runId, measuredAt: new Date().toISOString(), n8nVersion: n8nPaths.N8N_VERSION, nodeVersion, healthy: pending, webhookFleet: pending, queueMode: pending, pauses: pending, tenants: pending, llm: pending, llmQueue: pending };
	const save = () => fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
	results.healthy = await attempt('healthy', settings.scenarios.has('healthy'), () => healthy(settings, upstream));
	save();
	results.webhookFleet = await attempt('webhookFleet', settings.scenarios.has('webhook'), () => webhookFleet(settings, upstream));
	save();
	results.queueMode = await attempt('queueMode', settings.scenarios.has('queue'), () => queueMode(settings, upstream));
	save();
	results.pauses = await attempt('pauses', settings.scenarios.has('pauses'), () => pauses(upstream));
	save();
	results.tenants = await attempt('tenants', settings.scenarios.has('tenants'), () => tenants(upstream));
	save();
	results.llm = await attempt('llm', settings.scenarios.has('llm'), () => llm(settings, upstream));
	save();
	results.llmQueue = await attempt('llmQueue', settings.scenarios.has('llm-queue'), () => llmQueue(settings, upstream));
	await upstream.close();
	fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
	fs.writeFileSync(DETAILS_FILE, `${JSON.stringify({ runId, settings: { ...settings, scenarios: [...settings.scenarios] }, ...details }, null, 2)}\n`);
	say(`wrote ${path.relative(REPO, RESULTS_FILE)} and ${path.relative(REPO, DETAILS_FILE)} in ${Math.round((Date.now() - t0) / 1000)} s`);
	console.log(summary(results));
	if (failed) process.exitCode = 1;
}

const pct = (a, b) => (b ? `${Math.round((a / b) * 1000) / 10} %` : '-');

function summary(results) {
	const lines = ['', `Real n8n ${results.n8nVersion} (Node ${results.nodeVersion}), run ${results.runId}`];
	const fleet = (title, run) => {
		if ('skipped' in run) return lines.push(`${title}: skipped (${run.skipped})`);
		lines.push(`${title}: ${run.executions} webhook executions per row, outage ${run.outageMs} ms`);
		for (const r of run.rows)
			lines.push(
				`  ${r.slug.padEnd(12)} ${pct(r.succeeded, r.executions).padStart(7)} succeeded  ${String(r.amplification).padStart(6)}x  retry peak ${String(r.retryPeak100ms).padStart(4)}/100 ms  ` +
					`calls over ${r.callsSpreadMs} ms  p50 ${r.completionMs.p50} / p95 ${r.completionMs.p95} / max ${r.completionMs.max} ms`,
			);
	};
	fleet('webhookFleet (regular mode)', results.webhookFleet);
	if ('skipped' in results.queueMode) lines.push(`queueMode: skipped (${results.queueMode.skipped})`);
	else {
		const q = results.queueMode;
		fleet(`queueMode storm (${q.workers} workers, concurrency ${q.workerConcurrency})`, q.storm);
		lines.push(`queueMode rate limit: ${q.rateLimit.executions} executions per row, upstream limit ${q.rateLimit.limitRps} requests/s`);
		for (const r of q.rateLimit.rows)
			lines.push(`  ${r.slug.padEnd(24)} ${pct(r.succeeded, r.executions).padStart(7)} succeeded  ${r.requests} requests, 429s ${pct(r.status429, r.requests)}  ${r.durationMs} ms = ${(r.durationMs / r.idealMs).toFixed(2)}x ideal`);
	}
	return lines.join('\n');
}

await main();
