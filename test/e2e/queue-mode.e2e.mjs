// n8n in queue mode: one main process and two workers on a shared PostgreSQL database and Redis
// (Bull queue), each worker running executions of the same webhook workflow against an upstream
// that is down. With Shared State = Redis, the retry budget is one for all workers: the upstream's
// total requests stay within first attempts + floor(10% x first attempts) + the per-window floor
// of ONE budget, below what two separate (per-worker) budgets would necessarily let through.
//
// Needs RH_TEST_REDIS_URL (scripts/redis-test-server.sh) and RH_TEST_PG_URL
// (scripts/postgres-test-server.sh); without them the test is reported as skipped (.ci/run
// starts both). The test creates its own database on that server, a Bull prefix of its own and
// a workflow id of its own, so re-runs against the same servers do not see each other's state.
import assert from 'node:assert/strict';
import { randomBytes, createHash } from 'node:crypto';
import { test } from 'node:test';
import {
	callWebhook,
	getExecution,
	importCredentials,
	importWorkflow,
	listExecutions,
	nodeResults,
	ownerEnv,
	prepareUserFolder,
	publishWorkflow,
	queueModeEnv,
	requireFromN8n,
	restClient,
	startFlakyServer,
	startN8n,
	startWorker,
	stopN8n,
	waitFor,
	workerExecutions,
} from './harness.mjs';

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
const PG_URL = process.env.RH_TEST_PG_URL;
const skip = !REDIS_URL
	? 'RH_TEST_REDIS_URL is not set: start a Redis with scripts/redis-test-server.sh (as .ci/run does)'
	: !PG_URL
		? 'RH_TEST_PG_URL is not set: start a PostgreSQL with scripts/postgres-test-server.sh (as .ci/run does)'
		: false;

// The run: CALLS webhook calls, one item each, every request answered 503; each item would make
// MAX_ATTEMPTS attempts without a budget.
const CALLS = 40;
const MAX_ATTEMPTS = 5;
const BUDGET = { ratio: 0.1, minRetries: 10, windowMs: 60_000 };
// One shared budget: retries <= floor(ratio x first attempts) + minRetries over the window.
const sharedLimit = (firstAttempts) => Math.floor(BUDGET.ratio * firstAttempts + 1e-9) + BUDGET.minRetries;

const WORKERS = 2;
const WORKER_CONCURRENCY = 5;

function workflow(id, upstreamUrl) {
	return {
		id,
		name: 'Queue mode: shared retry budget',
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		nodes: [
			{
				id: 'a1d7b0e2-0000-4000-8000-000000000001',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: `e2e-${id}`,
				parameters: { httpMethod: 'POST', path: `queue-${id}`, responseMode: 'onReceived', options: {} },
			},
			{
				id: 'a1d7b0e2-0000-4000-8000-000000000002',
				name: 'Call upstream',
				type: 'n8n-nodes-resilient-http.resilientHttpRequest',
				typeVersion: 1,
				position: [240, 0],
				onError: 'continueErrorOutput',
				credentials: { resilientHttpRedis: { id: 'rhQueueRedis0001', name: 'Queue Redis' } },
				parameters: {
					method: 'GET',
					url: `=${upstreamUrl}/down?call={{ $json.body.call }}`,
					maxAttempts: MAX_ATTEMPTS,
					retryOptions: { baseDelay: 50, maxDelay: 200 },
					stateStore: 'redis',
					sharedLimits: {
						budgetPercent: BUDGET.ratio * 100,
						budgetMinRetries: BUDGET.minRetries,
						budgetWindow: BUDGET.windowMs,
					},
					options: {},
				},
			},
			{ id: 'a1d7b0e2-0000-4000-8000-000000000003', name: 'Succeeded', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [480, -100], parameters: {} },
			{ id: 'a1d7b0e2-0000-4000-8000-000000000004', name: 'Failed', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [480, 100], parameters: {} },
		],
		connections: {
			Webhook: { main: [[{ node: 'Call upstream', type: 'main', index: 0 }]] },
			'Call upstream': {
				main: [[{ node: 'Succeeded', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]],
			},
		},
	};
}

const { Client: PgClient } = requireFromN8n('pg');
const Redis = requireFromN8n('ioredis');

/** Every budget note ({ firstAttempts, retries, available, windowMs }) anywhere in an item's json. */
function budgetSnapshots(value, out = []) {
	if (Array.isArray(value)) for (const v of value) budgetSnapshots(v, out);
	else if (value && typeof value === 'object') {
		if (typeof value.firstAttempts === 'number' && typeof value.retries === 'number') out.push(value);
		for (const v of Object.values(value)) budgetSnapshots(v, out);
	}
	return out;
}

async function withPg(url, fn) {
	const client = new PgClient({ connectionString: url });
	await client.connect();
	try {
		return await fn(client);
	} finally {
		await client.end();
	}
}

test('queue mode: executions spread over two workers share one retry budget in Redis', { skip, timeout: 240_000 }, async (t) => {
	const timings = {};
	const t0 = Date.now();
	const mark = (name) => (timings[name] = `${((Date.now() - t0) / 1000).toFixed(1)} s`);
	const run = randomBytes(4).toString('hex');
	const database = `rh_e2e_queue_${run}`;
	const bullPrefix = `bull-e2e-${run}`;
	const redisKeyPrefix = `n8n-e2e-${run}`;
	const workflowId = `rhQueue${run}Wf`; // 16 characters, unique per run: its budget key is fresh
	const redisUrl = new URL(REDIS_URL);
	const redis = new Redis({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379), db: Number(redisUrl.pathname.slice(1) || 0), lazyConnect: true, maxRetriesPerRequest: 1 });
	redis.on('error', () => {}); // a failing command says enough; no unhandled 'error' events
	let upstream;
	let workers = [];
	let main;

	t.after(async () => {
		await stopN8n(); // main and workers, by PID (their process groups: each has a task runner)
		await upstream?.close();
		await withPg(PG_URL, (pg) => pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)).catch((error) =>
			t.diagnostic(`could not drop database ${database}: ${error.message}`),
		);
		try {
			// n8n's keys of this run (queue, cache, pub/sub state); rh: keys expire by themselves
			for (const pattern of [`*${bullPrefix}*`, `*${redisKeyPrefix}*`]) {
				for (let cursor = '0'; ; ) {
					const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
					if (keys.length) await redis.del(...keys);
					if ((cursor = next) === '0') break;
				}
			}
		} catch {
			/* the Redis is a throwaway one anyway */
		}
		redis.disconnect();
		t.diagnostic(`timings: ${JSON.stringify(timings)}`);
	});

	// A database of its own (the role from postgres-test-server.sh may create databases)
	await withPg(PG_URL, (pg) => pg.query(`CREATE DATABASE "${database}"`));
	upstream = await startFlakyServer();
	const env = queueModeEnv({
		redisUrl: REDIS_URL,
		pgUrl: PG_URL,
		database,
		bullPrefix,
		redisKeyPrefix,
		encryptionKey: randomBytes(24).toString('hex'),
	});
	// One user folder (so one package install) for main and workers, as on a shared volume; every
	// n8n command on it (import, publish, start, worker) uses the queue-mode environment.
	const userFolder = await prepareUserFolder({
		tarball: true,
		env: { ...env, N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' },
	});
	mark('userFolder');
	await importCredentials(userFolder, [
		{
			id: 'rhQueueRedis0001',
			name: 'Queue Redis',
			type: 'resilientHttpRedis',
			// The Redis of n8n's own queue: rh: keys sit next to Bull's
			data: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379), database: 0, user: '', password: '', ssl: false },
		},
	]);
	await importWorkflow(userFolder, workflow(workflowId, upstream.url));
	await publishWorkflow(userFolder, workflowId);
	mark('imported (3 n8n boots, migrations on PostgreSQL)');

	[main, ...workers] = await Promise.all([
		startN8n(userFolder, { env: ownerEnv() }),
		...Array.from({ length: WORKERS }, () => startWorker(userFolder, { concurrency: WORKER_CONCURRENCY })),
	]);
	mark('main + 2 workers ready');

	// All calls at once: main answers each as soon as its execution is enqueued (onReceived)
	const answers = await Promise.all(
		Array.from({ length: CALLS }, (_, call) =>
			callWebhook(main, `queue-${workflowId}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ call }),
			}).then(async (res) => [res.status, await res.text()]),
		),
	);
	mark('webhooks answered');
	for (const [status, text] of answers) assert.equal(status, 200, text);

	const client = await restClient(main);
	const executions = await waitFor(
		async () => {
			const list = await listExecutions(client, workflowId, { limit: 100 });
			return list.length === CALLS && list.every((e) => ['success', 'error', 'crashed'].includes(e.status)) && list;
		},
		{ timeoutMs: 90_000, intervalMs: 500, what: `${CALLS} finished executions` },
	);
	mark('executions finished');

	// (a) Both workers ran executions; the main ran none (it only enqueues in queue mode)
	const byWorker = workers.map((w) => workerExecutions(w).map((e) => e.executionId));
	const ran = byWorker.flat();
	assert.deepEqual([...ran].sort(), executions.map((e) => String(e.id)).sort(), 'every execution ran on exactly one worker');
	assert.equal(new Set(ran).size, CALLS);
	assert.doesNotMatch(main.logs(), /Worker started execution/);
	const enqueued = [...main.logs().matchAll(/Enqueued execution (\S+) \(job/g)].map((m) => m[1]);
	assert.deepEqual([...enqueued].sort(), [...ran].sort(), 'the main enqueued each execution a worker ran');
	for (const [i, ids] of byWorker.entries()) {
		// >= 3 items x 4 retries each: that worker alone would spend a whole per-window floor of its own
		assert.ok(ids.length * (MAX_ATTEMPTS - 1) >= BUDGET.minRetries, `worker ${i + 1} ran ${ids.length} executions: ${JSON.stringify(byWorker.map((x) => x.length))}`);
	}
	for (const e of executions) assert.equal(e.status, 'success', `execution ${e.id}: the error output took the failed item`);

	// (b) The upstream: every call sent its first attempt; retries stayed within ONE budget
	const requests = upstream.requests('/down');
	const firstAttempts = new Set(requests.map((r) => r.url)).size;
	const retries = requests.length - firstAttempts;
	const spanMs = Math.max(...requests.map((r) => r.time)) - Math.min(...requests.map((r) => r.time));
	const shared = sharedLimit(CALLS);
	// Separate budgets (each worker its own memory) would each grant at least min(wanted, floor):
	const separateAtLeast = byWorker.reduce((sum, ids) => sum + Math.min(ids.length * (MAX_ATTEMPTS - 1), BUDGET.minRetries), 0);
	t.diagnostic(
		`executions per worker ${JSON.stringify(byWorker.map((x) => x.length))}; upstream: ${requests.length} requests = ${firstAttempts} first attempts + ${retries} retries ` +
			`in ${spanMs} ms; shared bound ${CALLS + shared}, separate budgets >= ${CALLS + separateAtLeast}, no budget ${CALLS * MAX_ATTEMPTS}`,
	);
	assert.equal(firstAttempts, CALLS, 'one first attempt per call');
	// Every request fell into one budget window (buckets of windowMs/10: at least 0.9 x window back)
	assert.ok(spanMs < BUDGET.windowMs * 0.9, `upstream traffic within one window (${spanMs} ms)`);
	assert.ok(retries > 0, 'retries happened');
	assert.ok(retries >= BUDGET.minRetries, `the floor was spent: ${retries} retries`);
	assert.ok(retries <= shared, `${retries} retries <= one shared budget's ${shared}`);
	assert.ok(shared < separateAtLeast, `the shared bound (${shared}) is below what separate budgets would allow (${separateAtLeast})`);
	assert.ok(requests.length <= CALLS + shared);

	// Run data: every item went to the error output, some because the budget was spent; and the
	// budget each worker saw counted first attempts it never made itself: the other worker's
	const workerOf = new Map(byWorker.flatMap((ids, w) => ids.map((id) => [id, w])));
	const reasons = {};
	const maxFirstSeen = workers.map(() => 0);
	for (const e of executions) {
		const results = nodeResults(await getExecution(client, e.id));
		const failed = results['Failed']?.items ?? [];
		assert.equal(failed.length, 1, `execution ${e.id}: the item on the error output`);
		assert.equal((results['Succeeded']?.items ?? []).length, 0);
		const reason = failed[0].error?.reason ?? failed[0]._retry?.stoppedBecause;
		reasons[reason] = (reasons[reason] ?? 0) + 1;
		const w = workerOf.get(String(e.id));
		for (const snapshot of budgetSnapshots(failed[0])) maxFirstSeen[w] = Math.max(maxFirstSeen[w], snapshot.firstAttempts);
	}
	t.diagnostic(`error output reasons ${JSON.stringify(reasons)}; most first attempts a worker's budget counted: ${JSON.stringify(maxFirstSeen)}`);
	assert.ok(reasons['retry-budget-exhausted'] > 0, 'some items were refused a retry by the budget');
	assert.equal((reasons['retry-budget-exhausted'] ?? 0) + (reasons['attempts-exhausted'] ?? 0), CALLS, JSON.stringify(reasons));
	for (const [w, ids] of byWorker.entries()) {
		assert.ok(maxFirstSeen[w] > ids.length, `worker ${w + 1} ran ${ids.length} executions, its budget counted up to ${maxFirstSeen[w]} first attempts`);
	}

	// (c) The budget lives in Redis, next to Bull's keys, under the rh: prefix
	const budgetKeys = [];
	for (let cursor = '0'; ; ) {
		const [next, keys] = await redis.scan(cursor, 'MATCH', 'rh:budget:*', 'COUNT', 1000);
		budgetKeys.push(...keys);
		if ((cursor = next) === '0') break;
	}
	const hash = createHash('sha256').update(`workflow:${workflowId}`).digest('hex').slice(0, 32);
	const key = budgetKeys.find((k) => k.endsWith(hash));
	assert.ok(key, `a budget key for workflow ${workflowId} among ${JSON.stringify(budgetKeys)}`);
	const state = await redis.hgetall(key);
	// buckets "n,firstAttempts,retries;..." (redis-scripts.ts): Redis counted what the upstream saw
	const totals = (state.b ?? '')
		.split(';')
		.filter(Boolean)
		.map((b) => b.split(',').map(Number))
		.reduce((acc, [, a, r]) => [acc[0] + a, acc[1] + r], [0, 0]);
	t.diagnostic(`Redis ${key}: ${JSON.stringify(state)}; ttl ${await redis.pttl(key)} ms`);
	assert.deepEqual(totals, [firstAttempts, retries], 'the Redis budget counted every first attempt and retry of both workers');
	assert.ok((await redis.pttl(key)) > 0, 'the key expires by itself');
	assert.ok((await redis.keys(`${bullPrefix}:*`)).length > 0, "n8n's queue uses the same Redis");
	assert.ok((await redis.keys(`*${redisKeyPrefix}*`)).length > 0, "and so do n8n's cache and pub/sub");

	// No worker fell back to its own memory
	for (const w of workers) assert.doesNotMatch(w.logs(), /state store failed|stay in this process's memory/);
	mark('checked');
});
