// n8n in queue mode: one main process and two workers on a shared PostgreSQL database and Redis
// (Bull queue), each worker running executions of the same webhook workflow. With Shared State =
// Redis, an API's traffic controller is one for all workers:
//   (i)  a pause is shared: the 429 + Retry-After one worker gets pauses the API for the other
//        worker too: no request reaches the upstream, from either, before the pause ends;
//   (ii) a hold is shared: while the API is down, probes go one at a time across both workers
//        (never two in flight at once), the requests before the hold stay within the window an
//        API starts with, and after recovery every execution succeeds;
//   (iii) every item ends on an output (here: the success output, with its own answer);
//   (iv) an operator sees and steers it from n8n: the Traffic Control node, run by a worker with
//        Shared State = Redis, reads a pause another worker's request caused (Get State) and ends
//        it (End Pause or Hold); the next request is sent at once.
// Each check fails with per-worker state (RH_E2E_QUEUE_STATE=memory runs the same workflow with
// Shared State = memory, the control: the test must then fail; see test/e2e/README.md).
//
// Needs RH_TEST_REDIS_URL (scripts/redis-test-server.sh) and RH_TEST_PG_URL
// (scripts/postgres-test-server.sh); without them the test is reported as skipped (.ci/run
// starts both). The test creates its own database on that server, a Bull prefix of its own and
// a workflow id of its own, and drops its APIs' controllers from Redis first (an upstream port
// of an earlier run would find its state), so re-runs against the same servers do not meet.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import {
	callWebhook,
	getExecution,
	importCredentials,
	importWorkflow,
	nodeResults,
	ownerEnv,
	prepareUserFolder,
	publishOnServer,
	publishWorkflow,
	queueModeEnv,
	REPO,
	requireFromN8n,
	restClient,
	startFlakyServer,
	startN8n,
	startWorker,
	stopN8n,
	storedExecutions,
	waitFor,
	withPg,
	workerExecutions,
	FINISHED_STATUSES,
} from './harness.mjs';

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
const PG_URL = process.env.RH_TEST_PG_URL;
const skip = !REDIS_URL
	? 'RH_TEST_REDIS_URL is not set: start a Redis with scripts/redis-test-server.sh (as .ci/run does)'
	: !PG_URL
		? 'RH_TEST_PG_URL is not set: start a PostgreSQL with scripts/postgres-test-server.sh (as .ci/run does)'
		: false;
/** The control: `memory` gives each worker a controller of its own (the test must then fail). */
const STATE = process.env.RH_E2E_QUEUE_STATE === 'memory' ? 'memory' : 'redis';

// The controller's defaults, from the built package (run.sh builds dist/ when stale)
const requireDist = createRequire(path.join(REPO, 'dist', 'package.json'));
const { INITIAL_WINDOW } = requireDist('./nodes/shared/core/traffic/window.js');
const { HOLD_DEFAULTS } = requireDist('./nodes/shared/core/traffic/hold-state.js');

const WORKERS = 2;
const WORKER_CONCURRENCY = 25;
/** (i) the first request is answered 429 + Retry-After: PAUSE_S; the other calls come during the pause. */
const PAUSE_CALLS = 30;
const PAUSE_S = 4;
/** (ii) calls at once against an API down for OUTAGE_MS from its first request, whose 503s take LATENCY_MS (so that overlaps show). */
const HOLD_CALLS = 40;
// 503s slow enough that two workers' probes on schedules of their own would overlap; the outage,
// from the first request, long enough for two failed probes (1 s after the hold opens, then 2 s
// after the first one's answer) when n8n starts the executions slowly: on 2 loaded cores their
// median start came 1.3-1.9 s after the first request, the fifth failure (the hold) at +2.1 to
// +3.2 s, and the second probe at +6.7 to +8.1 s (docs/decisions.md)
const LATENCY_MS = 800;
const OUTAGE_MS = 10_000;
const CREDENTIAL = { id: 'rhQueueRedis0001', name: 'Queue Redis' };

function branch(slug, y, upstreamUrl) {
	const webhook = `Webhook ${slug}`;
	const http = `Call ${slug}`;
	return {
		nodes: [
			{
				id: `${slug}-0000-4000-8000-000000000001`,
				name: webhook,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, y],
				webhookId: `e2e-queue-${slug}`,
				parameters: { httpMethod: 'POST', path: `PATH-${slug}`, responseMode: 'onReceived', options: {} },
			},
			{
				id: `${slug}-0000-4000-8000-000000000002`,
				name: http,
				type: 'n8n-nodes-resilient-http.resilientHttpRequest',
				typeVersion: 1,
				position: [240, y],
				onError: 'continueErrorOutput',
				...(STATE === 'redis' ? { credentials: { resilientHttpRedis: CREDENTIAL } } : {}),
				// the defaults otherwise: Max Attempts 5, Hold During Outages on, budget on; the story on
				// every item, which the test reads
				parameters: { method: 'GET', url: `=${upstreamUrl}/${slug}/{{ $json.body.key }}`, stateStore: STATE, retryOptions: { retryStory: 'everyItem' }, options: {} },
			},
			{ id: `${slug}-0000-4000-8000-000000000003`, name: `Succeeded ${slug}`, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [480, y - 100], parameters: {} },
			{ id: `${slug}-0000-4000-8000-000000000004`, name: `Failed ${slug}`, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [480, y + 100], parameters: {} },
		],
		connections: {
			[webhook]: { main: [[{ node: http, type: 'main', index: 0 }]] },
			[http]: { main: [[{ node: `Succeeded ${slug}`, type: 'main', index: 0 }], [{ node: `Failed ${slug}`, type: 'main', index: 0 }]] },
		},
	};
}

/** A workflow of independent parts, each { nodes, connections }. */
function workflowOf(id, name, parts) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		nodes: parts.flatMap((p) => p.nodes),
		connections: Object.assign({}, ...parts.map((p) => p.connections)),
	};
}

function workflow(id, pauseUrl, outageUrl, steerUrl) {
	const branches = [branch('pause', 0, pauseUrl), branch('outage', 400, outageUrl), branch('steer', 800, steerUrl)];
	const json = workflowOf(id, 'Queue mode: one traffic controller per API for all workers', branches);
	return JSON.parse(JSON.stringify(json).replaceAll('PATH-', `queue-${id}-`));
}

/**
 * (iv) The operator's workflow: two webhooks answering with what the Traffic Control node returns
 * (every item), Get State and End Pause, for the API named in the call's body.
 */
function operatorWorkflow(id) {
	const pair = (slug, y, parameters) => {
		const webhook = `Webhook ${slug}`;
		const control = `Traffic Control ${slug}`;
		return {
			nodes: [
				{
					id: `op-${slug}-0000-4000-8000-000000000001`,
					name: webhook,
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, y],
					webhookId: `e2e-queue-op-${slug}`,
					parameters: { httpMethod: 'POST', path: `queue-${id}-${slug}`, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
				},
				{
					id: `op-${slug}-0000-4000-8000-000000000002`,
					name: control,
					type: 'n8n-nodes-resilient-http.resilientHttpTrafficControl',
					typeVersion: 1,
					position: [240, y],
					...(STATE === 'redis' ? { credentials: { resilientHttpRedis: CREDENTIAL } } : {}),
					parameters: { stateStore: STATE, api: '={{ $json.body.api }}', ...parameters },
				},
			],
			connections: { [webhook]: { main: [[{ node: control, type: 'main', index: 0 }]] } },
		};
	};
	const pairs = [pair('state', 0, { operation: 'getState' }), pair('resume', 300, { operation: 'resume', end: 'pause' })];
	return workflowOf(id, 'Queue mode: the operator reads and steers the controllers in Redis', pairs);
}

const Redis = requireFromN8n('ioredis');

/**
 * The Redis key of the controller the node keeps for unauthenticated requests to this origin
 * (config/traffic-settings.ts), in braces (a Redis Cluster hash tag); its leases are `<key>:leases`.
 */
const controllerKey = (url) => `rh:traffic:{api:${createHash('sha256').update(`origin:${new URL(url).origin}|none`).digest('hex').slice(0, 32)}}`;

const post = (main, webhook, key) =>
	callWebhook(main, webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) }).then(async (res) => {
		const text = await res.text();
		assert.equal(res.status, 200, text);
	});

test(`queue mode: two workers share each API's traffic controller in Redis (pause, hold, release)${STATE === 'memory' ? ' [control: Shared State = memory, must fail]' : ''}`, { skip, timeout: 240_000 }, async (t) => {
	const timings = {};
	const t0 = Date.now();
	const mark = (name) => (timings[name] = `${((Date.now() - t0) / 1000).toFixed(1)} s`);
	const run = randomBytes(4).toString('hex');
	const database = `rh_e2e_queue_${run}`;
	const bullPrefix = `bull-e2e-${run}`;
	const redisKeyPrefix = `n8n-e2e-${run}`;
	const workflowId = `rhQueue${run}Wf`;
	const redisUrl = new URL(REDIS_URL);
	const redis = new Redis({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379), db: Number(redisUrl.pathname.slice(1) || 0), lazyConnect: true, maxRetriesPerRequest: 1 });
	redis.on('error', () => {}); // a failing command says enough; no unhandled 'error' events
	let pauseApi;
	let outageApi;
	let steerApi;
	let workers = [];
	let main;

	t.after(async () => {
		await stopN8n(); // main and workers, by PID (their process groups: each has a task runner)
		await pauseApi?.close();
		await outageApi?.close();
		await steerApi?.close();
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

	// (i) the API that pauses: its first request ever gets 429 + Retry-After, every other one 200
	pauseApi = await startFlakyServer({
		pause: (_req, res, { entry, json }) => {
			if (pauseApi.log.filter((e) => e.scenario === 'pause').length === 1) json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': String(PAUSE_S) });
			else json(res, (entry.status = 200), { ok: true, key: entry.key });
		},
	});
	// (ii) the API that is down for OUTAGE_MS from the first request that reaches it, until
	// `outageUntil` (the time n8n's queue takes to start an execution is not the node's: 1.3 to
	// 1.6 s after the webhooks on a loaded machine); its 503s come after LATENCY_MS (a request in
	// flight is visible at the upstream), its 200s at once
	let outageUntil = Infinity;
	outageApi = await startFlakyServer({
		outage: (_req, res, { entry, json }) => {
			if (outageUntil === Infinity) outageUntil = Date.now() + OUTAGE_MS;
			if (Date.now() >= outageUntil) {
				json(res, (entry.status = 200), { ok: true, key: entry.key });
				entry.answeredAt = Date.now();
				return;
			}
			entry.status = 503;
			setTimeout(() => {
				json(res, 503, { error: 'Service Unavailable' });
				entry.answeredAt = Date.now();
			}, LATENCY_MS);
		},
	});
	// (iv) the API an operator steers: its first request gets 429 + Retry-After of an hour, then 200
	const STEER_PAUSE_S = 3600;
	steerApi = await startFlakyServer({
		steer: (_req, res, { entry, json }) => {
			if (steerApi.log.length === 1) json(res, (entry.status = 429), { error: 'Too Many Requests' }, { 'retry-after': String(STEER_PAUSE_S) });
			else json(res, (entry.status = 200), { ok: true, key: entry.key });
		},
	});
	await redis.connect();
	await redis.del(...[pauseApi, outageApi, steerApi].flatMap((api) => [controllerKey(api.url), `${controllerKey(api.url)}:leases`]));

	await withPg(PG_URL, (pg) => pg.query(`CREATE DATABASE "${database}"`));
	const env = queueModeEnv({ redisUrl: REDIS_URL, pgUrl: PG_URL, database, bullPrefix, redisKeyPrefix, encryptionKey: randomBytes(24).toString('hex') });
	// One user folder (so one package install) for main and workers, as on a shared volume; every
	// n8n command on it (import, publish, start, worker) uses the queue-mode environment.
	const userFolder = await prepareUserFolder({ tarball: true, env: { ...env, N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' } });
	mark('userFolder');
	await importCredentials(userFolder, [
		{
			...CREDENTIAL,
			type: 'resilientHttpRedis',
			// The Redis of n8n's own queue: rh: keys sit next to Bull's
			data: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379), database: 0, user: '', password: '', ssl: false },
		},
	]);
	const operatorId = `rhQueue${run}Op`;
	await importWorkflow(userFolder, [workflow(workflowId, pauseApi.url, outageApi.url, steerApi.url), operatorWorkflow(operatorId)]);
	await publishWorkflow(userFolder, workflowId);
	mark('imported (3 n8n boots, migrations on PostgreSQL)');

	[main, ...workers] = await Promise.all([
		startN8n(userFolder, { env: ownerEnv() }),
		...Array.from({ length: WORKERS }, () => startWorker(userFolder, { concurrency: WORKER_CONCURRENCY })),
	]);
	mark('main + 2 workers ready');
	const client = await restClient(main);
	// the operator's webhooks: published on the running main (no n8n boot more)
	await publishOnServer(client, [operatorId]);
	const workerOf = (id) => workers.findIndex((w) => workerExecutions(w).some((e) => e.executionId === String(id)));

	/** Waits for `count` finished executions after `afterId`; their stored rows and run data. */
	const finished = async (afterId, count, what) => {
		const rows = await waitFor(
			async () => {
				const list = await storedExecutions(userFolder, workflowId, { afterId });
				return list.length === count && list.every((e) => FINISHED_STATUSES.includes(e.status)) && list;
			},
			{ timeoutMs: 90_000, intervalMs: 500, what: `${count} finished executions (${what})` },
		);
		return await Promise.all(rows.map(async (row) => ({ ...row, worker: workerOf(row.id), results: nodeResults(await getExecution(client, row.id)) })));
	};

	/** (iii) each execution's item left on the success output with its own answer, and its story. */
	const itemsOf = (executions, slug) =>
		executions.map((e) => {
			const ok = e.results[`Succeeded ${slug}`]?.items ?? [];
			const failed = e.results[`Failed ${slug}`]?.items ?? [];
			assert.equal(e.status, 'success', `execution ${e.id}`);
			assert.equal(ok.length + failed.length, 1, `execution ${e.id}: its one item on an output`);
			assert.equal(failed.length, 0, `execution ${e.id} (${slug}): on the error output: ${JSON.stringify(failed[0]?._retry?.summary ?? failed[0])}`);
			return { execution: e, item: ok[0], story: ok[0]._retry };
		});

	// ----------------------------------------------------------------------------------------
	// (i) A pause is shared: one call, its 429; the other calls come while the API is paused
	await post(main, `queue-${workflowId}-pause`, 'p-0');
	const first = await waitFor(() => pauseApi.requests('/pause/').find((e) => e.status === 429), { timeoutMs: 30_000, intervalMs: 20, what: 'the 429' });
	const pauseEnds = first.time + PAUSE_S * 1000;
	// the worker has the 429 and has paused the API in Redis well before this
	await new Promise((resolve) => setTimeout(resolve, 500));
	for (let n = 1; n < PAUSE_CALLS; n++) {
		await post(main, `queue-${workflowId}-pause`, `p-${n}`);
		await new Promise((resolve) => setTimeout(resolve, 40));
	}
	mark('pause: webhooks answered');
	const pauseExecutions = await finished(0, PAUSE_CALLS, 'pause');
	mark('pause: executions finished');
	const pauseItems = itemsOf(pauseExecutions, 'pause');
	const pauseRequests = pauseApi.requests('/pause/');
	const retried = pauseItems.find((p) => p.item.key === 'p-0');
	const firstWorker = retried.execution.worker;
	const byWorker = workers.map((_, w) => pauseItems.filter((p) => p.execution.worker === w));
	const startedInPause = byWorker.map((items) => items.filter((p) => p.execution.startedAt < pauseEnds - 200));
	const pausedFor = byWorker.map((items) => items.map((p) => p.story.history[0].traffic?.waitedFor?.paused ?? 0));
	const early = pauseRequests.filter((e) => e !== first && e.time < pauseEnds);
	t.diagnostic(
		`pause: 429 at +0 ms to worker ${firstWorker + 1} (Retry-After: ${PAUSE_S}); executions per worker ${JSON.stringify(byWorker.map((x) => x.length))}, started during the pause ${JSON.stringify(startedInPause.map((x) => x.length))}; ` +
			`upstream requests ${pauseRequests.length}, the others arrived from +${Math.min(...pauseRequests.filter((e) => e !== first).map((e) => e.time - first.time))} ms; ` +
			`waited "paused" (ms) per worker ${JSON.stringify(pausedFor.map((w) => w.filter((ms) => ms > 0).length + ' items, max ' + Math.max(0, ...w)))}`,
	);
	assert.equal(pauseRequests.length, PAUSE_CALLS + 1, 'one request per call, and the 429 one retried once');
	assert.deepEqual(pauseRequests.filter((e) => e.status === 429), [first], 'one 429 only');
	assert.ok(firstWorker === 0 || firstWorker === 1, 'the worker that got the 429');
	const other = 1 - firstWorker;
	// what makes the check worth anything: both workers had executions waiting to send during the pause
	for (const w of [firstWorker, other]) assert.ok(startedInPause[w].length > 0, `worker ${w + 1} started executions during the pause: ${JSON.stringify(startedInPause.map((x) => x.length))}`);
	assert.deepEqual(
		early.map((e) => `${e.key} at +${e.time - first.time} ms`),
		[],
		`no request reached the upstream before the pause (Retry-After: ${PAUSE_S}) ended, from either worker`,
	);
	assert.ok(pausedFor[other].some((ms) => ms > 0), `the worker that never got the 429 (worker ${other + 1}) held items "paused": ${JSON.stringify(pausedFor[other])}`);
	assert.equal(retried.story.attempts, 2);
	assert.equal(retried.story.history[1].delayReason, 'retry-after');
	for (const p of pauseItems) if (p !== retried) assert.equal(p.story.attempts, 1, `${p.item.key}: sent once, after the pause`);

	// ----------------------------------------------------------------------------------------
	// (ii) A hold is shared: all calls at once, the API down for OUTAGE_MS from the first request
	const lastPauseId = Math.max(...pauseExecutions.map((e) => e.id));
	const postedAt = Date.now();
	await Promise.all(Array.from({ length: HOLD_CALLS }, (_, n) => post(main, `queue-${workflowId}-outage`, `h-${n}`)));
	mark('hold: webhooks answered');
	const holdExecutions = await finished(lastPauseId, HOLD_CALLS, 'hold');
	mark('hold: executions finished');
	const holdItems = itemsOf(holdExecutions, 'outage');
	const requests = outageApi.requests('/outage/');
	// each key is one item: its n-th request is its attempt n, whose story says if it was a probe
	const storyOf = new Map(holdItems.map((h) => [h.item.key, h]));
	const attempts = requests.map((e) => ({ ...e, record: storyOf.get(e.key)?.story.history[e.count - 1], worker: storyOf.get(e.key)?.execution.worker }));
	const probes = attempts.filter((a) => a.record?.traffic?.probe);
	const failedProbes = probes.filter((p) => p.status === 503);
	const beforeHold = attempts.filter((a) => a.status === 503 && !a.record?.traffic?.probe);
	const overlaps = probes.slice(1).filter((p, k) => p.time < probes[k].answeredAt);
	const heldBy = workers.map((_, w) => holdItems.filter((h) => h.execution.worker === w && h.story.history.some((r) => (r.traffic?.waitedFor?.held ?? 0) > 0)).length);
	const holdSpan = (a) => `${a.key}#${a.count} w${a.worker + 1} +${a.time - requests[0].time}..+${a.answeredAt - requests[0].time} ms ${a.status}`;
	t.diagnostic(
		`hold: executions per worker ${JSON.stringify(workers.map((_, w) => holdItems.filter((h) => h.execution.worker === w).length))}; upstream ${requests.length} requests ` +
			`(${requests.filter((e) => e.status === 503).length} x 503: ${beforeHold.length} before the hold, ${failedProbes.length} failed probes); before the hold ${JSON.stringify(beforeHold.map(holdSpan))}; probes ${JSON.stringify(probes.map(holdSpan))}; ` +
			`items held per worker ${JSON.stringify(heldBy)}; "looks down" logged per worker ${JSON.stringify(workers.map((w) => (w.logs().match(/looks down: its requests are held/g) ?? []).length))}; Redis state store given up for memory per worker ${JSON.stringify(workers.map((w) => (w.logs().match(/state store failed/g) ?? []).length))} (a worker on its own memory holds on its own); without the hold up to ${HOLD_CALLS * 5} requests`,
	);
	const waitedFor = {};
	for (const h of holdItems) for (const r of h.story.history) for (const [why, ms] of Object.entries(r.traffic?.waitedFor ?? {})) waitedFor[why] = (waitedFor[why] ?? 0) + ms;
	const started = holdExecutions.map((e) => e.startedAt - requests[0].time).sort((a, b) => a - b);
	t.diagnostic(`hold: the API's first request ${requests[0].time - postedAt} ms after the first webhook call (n8n's queue); executions started from +${started[0]} to +${started[started.length - 1]} ms (median +${started[started.length >> 1]}); the items waited (ms, all attempts) ${JSON.stringify(waitedFor)}`);
	// what makes the check worth anything: the outage outlasted probes, and both workers held items
	assert.ok(failedProbes.length >= 2, `the outage outlasted at least two probes: ${JSON.stringify(probes.map(holdSpan))}`);
	for (const [w, n] of heldBy.entries()) assert.ok(n > 0, `worker ${w + 1} held items while the API was down: ${JSON.stringify(heldBy)}`);
	assert.deepEqual(overlaps.map(holdSpan), [], 'never two probes in flight at once (at the upstream), across both workers');
	// one hold: each opening (the first, then one per failed probe) is logged once, by one worker
	const downLogged = workers.map((w) => (w.logs().match(/looks down: its requests are held/g) ?? []).length);
	assert.equal(downLogged.reduce((a, b) => a + b, 0), failedProbes.length + 1, `the API went down once and back down after each failed probe, logged once for both workers: ${JSON.stringify(downLogged)}`);
	assert.equal(workers.reduce((n, w) => n + (w.logs().match(/answers again: the held requests come back/g) ?? []).length, 0), 1, 'the recovery logged once');
	const storyProbes = holdItems
		.flatMap((h) => h.story.history.filter((r) => r.traffic?.probe).map((r) => ({ from: Date.parse(r.startedAt), to: Date.parse(r.startedAt) + r.durationMs, key: h.item.key })))
		.sort((a, b) => a.from - b.from);
	assert.equal(storyProbes.length, probes.length, 'every probe the stories tell of reached the upstream');
	for (let k = 1; k < storyProbes.length; k++) assert.ok(storyProbes[k].from >= storyProbes[k - 1].to, `probes ${storyProbes[k - 1].key} and ${storyProbes[k].key} overlap in the stories`);
	// before the API counted as down, at most one window of requests was in flight: ONE window for all workers
	assert.ok(beforeHold.length >= HOLD_DEFAULTS.consecutiveFailures, `${beforeHold.length} failures made the API count as down`);
	assert.ok(beforeHold.length <= INITIAL_WINDOW, `${beforeHold.length} failed requests before the hold, at most the ${INITIAL_WINDOW} in flight an API starts with: ${JSON.stringify(beforeHold.map(holdSpan))}`);
	// after the outage: the last probe succeeded, then every item once more; nothing else was sent
	const lastProbe = probes[probes.length - 1];
	assert.equal(lastProbe.status, 200, 'the probe after the outage succeeded');
	assert.ok(lastProbe.time >= outageUntil);
	assert.equal(requests.filter((e) => e.status === 200).length, HOLD_CALLS, 'one success per execution');
	assert.equal(requests.length, HOLD_CALLS + beforeHold.length + failedProbes.length, 'nothing but the failures before the hold, the failed probes and one success per item');
	const duringHold = attempts.filter((a) => a.time >= probes[0].time && a.time <= lastProbe.time && !a.record?.traffic?.probe);
	assert.deepEqual(duringHold.map(holdSpan), [], 'from the first probe to the recovery, only probes reached the upstream');

	// (c) The controllers live in Redis, next to Bull's keys, under the rh: prefix
	for (const [name, api] of [['pause', pauseApi], ['outage', outageApi]]) {
		const key = controllerKey(api.url);
		const raw = await redis.get(key);
		t.diagnostic(`Redis ${key} (${name}): ${raw}; ttl ${await redis.pttl(key)} ms`);
		assert.ok(raw, `the ${name} API's controller is in Redis at ${key}`);
		const state = JSON.parse(raw.slice(raw.indexOf('\n') + 1));
		assert.equal(await redis.zcount(`${key}:leases`, Date.now(), '+inf'), 0, 'every request reported back: no lease left');
		if (name === 'outage') assert.equal(state.hold?.state, 'closed', 'the API is not held any more');
		assert.ok((await redis.pttl(key)) > 0, 'the key expires by itself');
		// the counts that requests only add to (merged by every worker's healthy steps) are a hash beside it
		assert.equal(await redis.type(`${key}:counts`), 'hash');
		assert.ok(Number(await redis.hget(`${key}:counts`, 't')) > 0, 'the last use is counted');
		assert.ok((await redis.pttl(`${key}:counts`)) > 0, 'the counts expire by themselves');
	}
	assert.ok((await redis.keys(`${bullPrefix}:*`)).length > 0, "n8n's queue uses the same Redis");

	// Executions ran on the workers only, each on one; no worker fell back to its own memory
	const all = [...pauseExecutions, ...holdExecutions];
	for (const e of all) assert.ok(e.worker >= 0, `execution ${e.id} ran on a worker`);
	const ran = workers.flatMap((w) => workerExecutions(w).map((e) => e.executionId));
	assert.equal(new Set(ran).size, ran.length, 'no execution ran twice');
	assert.deepEqual([...ran].sort(), all.map((e) => String(e.id)).sort(), 'every execution ran on exactly one worker');
	assert.doesNotMatch(main.logs(), /Worker started execution/);
	for (const w of workers) assert.doesNotMatch(w.logs(), /state store failed|stay in this process's memory/);

	// ----------------------------------------------------------------------------------------
	// (iv) The operator: a worker's request pauses the steer API for an hour; Get State, run by a
	// worker from Redis, shows it; a call during it leaves unsent; End Pause, and the next is sent
	const operator = async (slug, body) => {
		const res = await callWebhook(main, `queue-${operatorId}-${slug}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		const text = await res.text();
		assert.equal(res.status, 200, text);
		return JSON.parse(text);
	};
	const lastHoldId = Math.max(...holdExecutions.map((e) => e.id));
	const steerHost = new URL(steerApi.url).host;
	const steerItem = async (key, afterId) => {
		await post(main, `queue-${workflowId}-steer`, key);
		const [execution] = await finished(afterId, 1, `steer ${key}`);
		return { execution, ok: execution.results['Succeeded steer']?.items ?? [], failed: execution.results['Failed steer']?.items ?? [] };
	};
	const s0 = await steerItem('s-0', lastHoldId);
	assert.equal(s0.failed.length, 1, 'the 429 with an hour to wait: the item went to the error output');
	const pausedAt = steerApi.log[0].time;
	const [state] = await operator('state', { api: steerHost });
	t.diagnostic(`operator: Get State: ${JSON.stringify(state)}`);
	assert.equal(state?.label, steerHost, "Get State found the steer API's controller");
	assert.match(state.paused?.by ?? '', /retry-after/i);
	assert.ok(Math.abs(Date.parse(state.paused.until) - (pausedAt + STEER_PAUSE_S * 1000)) < 3000, `paused until the hour's end: ${state.paused.until}`);
	const s1 = await steerItem('s-1', s0.execution.id);
	assert.equal(s1.failed.length, 1, 'a call during the pause goes to the error output');
	assert.equal(steerApi.log.length, 1, 'unsent');
	const [ended] = await operator('resume', { api: steerApi.url });
	t.diagnostic(`operator: End Pause: ${JSON.stringify(ended)}`);
	assert.ok(Array.isArray(ended?.ended) && ended.ended.length > 0, `End Pause ended something: ${JSON.stringify(ended)}`);
	const [after] = await operator('state', { api: steerHost });
	assert.equal(after.paused, null, 'Get State: not paused any more');
	const s2 = await steerItem('s-2', s1.execution.id);
	assert.equal(s2.ok.length, 1, `the next call succeeded: ${JSON.stringify(s2.failed[0]?._retry?.summary ?? s2.failed[0])}`);
	assert.deepEqual(steerApi.log.map((e) => e.status), [429, 200], 'sent at once after End Pause, once');
	const operatorRuns = await storedExecutions(userFolder, operatorId);
	for (const e of operatorRuns) assert.ok(workerOf(e.id) >= 0, `the operator's execution ${e.id} ran on a worker`);
	mark('checked');
});
