/**
 * Pieces of the real-n8n benchmark (real-n8n.bench.mjs): its settings, the upstream child
 * process, the workflows under test (one Webhook -> HTTP branch per row), firing webhook calls,
 * waiting for n8n's executions and the figures of a row (the shape of test/bench/real-n8n-results.ts).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callWebhook, FINISHED_STATUSES, storedExecutions } from '../e2e/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Settings

/** Environment variable, default, most: the sizes of the real-n8n part. */
export const SETTINGS = {
	webhookExecutions: ['BENCH_WEBHOOK_EXECUTIONS', 200, 5000],
	webhookOutageMs: ['BENCH_WEBHOOK_OUTAGE_MS', 20_000, 120_000],
	/** Webhook calls in flight at once: "as fast as n8n takes them", a few at a time. */
	webhookConcurrency: ['BENCH_WEBHOOK_CONCURRENCY', 4, 100],
	queueExecutions: ['BENCH_QUEUE_EXECUTIONS', 200, 5000],
	queueOutageMs: ['BENCH_QUEUE_OUTAGE_MS', 3000, 120_000],
	rateExecutions: ['BENCH_QUEUE_RATE_EXECUTIONS', 300, 5000],
	rateLimitRps: ['BENCH_QUEUE_RATE_LIMIT', 20, 1000],
	workers: ['BENCH_QUEUE_WORKERS', 2, 8],
	/** Each execution holds a slot while it waits at the barrier: workers x this >= executions. */
	workerConcurrency: ['BENCH_QUEUE_WORKER_CONCURRENCY', 200, 1000],
	/** The barrier opens early when no execution reached it for this long (n8n stalled, calls failed). */
	barrierIdleMs: ['BENCH_QUEUE_BARRIER_IDLE_MS', 20_000, 300_000],
	/** The healthy rows: timed rounds per size (after an untimed one), the upstream's latency. */
	healthyRuns: ['BENCH_REAL_HEALTHY_RUNS', 5, 51],
	healthyLatencyMs: ['BENCH_REAL_HEALTHY_LATENCY_MS', 20, 1000],
	/** A row whose executions have not all finished by then is stopped and counted as it stands. */
	rowTimeoutMs: ['BENCH_ROW_TIMEOUT_MS', 150_000, 600_000],
	/** The LLM rows' items (issue 36): 200 take about 13.5 minutes at 60,000 tokens a minute; fewer for a quick try. */
	llmItems: ['BENCH_LLM_ITEMS', 200, 2000],
};

export function readSettings(environment = process.env) {
	const settings = {};
	for (const [name, [variable, fallback, max]] of Object.entries(SETTINGS)) {
		const raw = environment[variable];
		if (raw === undefined || raw.trim() === '') {
			settings[name] = fallback;
			continue;
		}
		const value = Number(raw);
		if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${variable} must be an integer from 1 to ${max}, not "${raw}"`);
		settings[name] = value;
	}
	const scenarios = (environment.BENCH_REAL_N8N_SCENARIOS ?? 'healthy,webhook,queue,pauses,tenants,llm,llm-queue').split(',').map((s) => s.trim()).filter(Boolean);
	const unknown = scenarios.filter((s) => !['healthy', 'webhook', 'queue', 'pauses', 'tenants', 'llm', 'llm-queue'].includes(s));
	if (unknown.length) throw new Error(`BENCH_REAL_N8N_SCENARIOS lists healthy, webhook, queue, pauses, tenants, llm and/or llm-queue, not ${unknown.join(', ')}`);
	settings.scenarios = new Set(scenarios);
	// when the LLM API's 200s state the budget (test/bench/llm-upstream.mjs): as the request found it, or as the answer leaves
	settings.llmHeadersWhen = environment.BENCH_LLM_HEADERS_WHEN ?? 'admission';
	if (!['admission', 'answer'].includes(settings.llmHeadersWhen)) throw new Error(`BENCH_LLM_HEADERS_WHEN is admission or answer, not "${settings.llmHeadersWhen}"`);
	const sizes = (environment.BENCH_REAL_HEALTHY_ITEMS ?? '500,5000').split(',').map((s) => Number(s.trim()));
	if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 50_000)) throw new Error(`BENCH_REAL_HEALTHY_ITEMS must list integers from 1 to 50000, comma-separated, not "${environment.BENCH_REAL_HEALTHY_ITEMS}"`);
	settings.healthyItems = sizes;
	const slots = settings.workers * settings.workerConcurrency;
	const most = Math.max(settings.queueExecutions, settings.rateExecutions);
	if (settings.scenarios.has('queue') && slots < most) {
		throw new Error(`queue mode: ${settings.workers} workers x concurrency ${settings.workerConcurrency} = ${slots} slots, fewer than the ${most} executions that wait at the barrier together (raise BENCH_QUEUE_WORKER_CONCURRENCY)`);
	}
	return settings;
}

// ---------------------------------------------------------------------------------------------
// Statistics (as test/bench/stats.ts computes them for the engine part)

/** Nearest-rank percentile, p in 0..100; NaN for none. */
export function percentile(values, p) {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The most of these times in any window [t, t + windowMs), t anywhere. */
export function peakIn(times, windowMs) {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, last = 0; last < sorted.length; last++) {
		while (sorted[last] - sorted[first] >= windowMs) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

// ---------------------------------------------------------------------------------------------
// The upstream child process (real-n8n-upstream.mjs)

export async function startUpstream() {
	const child = fork(path.join(HERE, 'real-n8n-upstream.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	const pending = new Map();
	let seq = 0;
	let ready;
	const readyPromise = new Promise((resolve, reject) => (ready = { resolve, reject }));
	child.on('message', (message) => {
		if (message.seq === 0) return ready.resolve();
		const waiter = pending.get(message.seq);
		pending.delete(message.seq);
		if (message.error) waiter?.reject(new Error(message.error));
		else waiter?.resolve(message);
	});
	child.once('exit', (code) => {
		const error = new Error(`the benchmark upstream exited (code ${code})`);
		ready.reject(error);
		for (const waiter of pending.values()) waiter.reject(error);
		pending.clear();
	});
	const call = (cmd, args = {}) =>
		new Promise((resolve, reject) => {
			const id = ++seq;
			pending.set(id, { resolve, reject });
			child.send({ ...args, cmd, seq: id });
		});
	await readyPromise;
	return {
		/** A new server: an API origin of its own. */
		server: async (options = {}) => (await call('server', options)).url,
		/** 503 on /outage from now on for durationMs; resolves the epoch ms it ends at. */
		outage: async (url, durationMs) => (await call('outage', { url, durationMs })).until,
		/**
		 * Resolves { openedAt, arrived, timedOut } when `expected` requests wait at the barrier `name`
		 * of server `url` (or none came for idleMs); the outage { url, durationMs } starts then.
		 */
		barrier: async (url, name, { expected, idleMs, outage }) => await call('barrier', { url, name, expected, idleMs, outage }),
		/** A daily limit from now for durationMs (resolves its end), or a stated Retry-After of retryAfterS from the first request. */
		throttle: async (url, options) => (await call('throttle', { url, ...options })).until,
		/** The server's requests since the last take: [{ key, exec, status, time }]. */
		take: async (url) => (await call('take', { url })).entries,
		close: async () => {
			if (child.exitCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.send({ cmd: 'close', seq: ++seq });
			await exited;
		},
	};
}

// ---------------------------------------------------------------------------------------------
// Workflows

export const RETRY_ON_FAIL_DEFAULT = { maxTries: 3, waitBetweenTries: 1000 };
export const RETRY_ON_FAIL_MAX = { maxTries: 5, waitBetweenTries: 5000 };
export const RESILIENT_HTTP = 'n8n-nodes-resilient-http.resilientHttpRequest';

/** The webhook's item key, read from the Webhook node (a Barrier node may stand between). */
const keyOf = (webhookName) => `$('${webhookName}').item.json.body.key`;

/** The request of item `key` in execution $execution.id: the upstream logs both. */
const urlExpression = (base, route, webhookName) => `={{ "${base}/${route}/" + ${keyOf(webhookName)} + "?exec=" + $execution.id }}`;

/**
 * The HTTP node of a row: n8n's HTTP Request 4.2 with Retry On Fail (the node stops the workflow
 * when its tries are spent, as Retry On Fail users have it), or Resilient HTTP Request at its
 * defaults (it stops the workflow on error too), optionally with Shared State = Redis.
 */
export function httpNode(row, url, { redisCredential } = {}) {
	const base = { id: `http-${row.slug}`, name: `HTTP ${row.slug}`, position: [600, row.index * 200] };
	if (row.kind === 'core') {
		return {
			...base,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: { method: 'GET', url, options: {} },
			retryOnFail: true,
			maxTries: row.retry.maxTries,
			waitBetweenTries: row.retry.waitBetweenTries,
		};
	}
	return {
		...base,
		type: RESILIENT_HTTP,
		typeVersion: 1,
		parameters: { url, ...(redisCredential ? { stateStore: 'redis' } : {}) },
		...(redisCredential ? { credentials: { resilientHttpRedis: redisCredential } } : {}),
	};
}

/** A webhook path per row: POST /webhook/<path>, answered as soon as the execution started. */
export const webhookPath = (workflowId, row) => `bench-${workflowId}-${row.slug}`.toLowerCase();

/**
 * n8n's HTTP Request waiting at the upstream's barrier (row.barrierUrl): every execution of the
 * row reaches it, then all send their request together. No retry, a timeout longer than any wait.
 */
function barrierNode(row, webhookName) {
	return {
		id: `barrier-${row.slug}`,
		name: `Barrier ${row.slug}`,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [300, row.index * 200],
		parameters: { method: 'GET', url: `={{ "${row.barrierUrl}/barrier/${row.slug}/" + ${keyOf(webhookName)} }}`, options: { timeout: 300_000 } },
	};
}

/**
 * One workflow with a Webhook -> HTTP branch per row ({ slug, kind, retry?, url (the server),
 * route, barrierUrl? }): one import and one publish (each an n8n boot) for all rows of a scenario.
 * With barrierUrl, a Barrier node stands between the two.
 */
export function benchWorkflow(id, name, rows, options = {}) {
	const nodes = [];
	const connections = {};
	const link = (from, to) => (connections[from.name] = { main: [[{ node: to.name, type: 'main', index: 0 }]] });
	for (const row of rows) {
		const webhook = {
			id: `webhook-${row.slug}`,
			name: `Webhook ${row.slug}`,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, row.index * 200],
			webhookId: `${id}-${row.slug}`,
			parameters: { httpMethod: 'POST', path: webhookPath(id, row), responseMode: 'onReceived', options: {} },
		};
		const http = httpNode(row, urlExpression(row.url, row.route, webhook.name), options);
		nodes.push(webhook, http);
		if (row.barrierUrl) {
			const barrier = barrierNode(row, webhook.name);
			nodes.push(barrier);
			link(webhook, barrier);
			link(barrier, http);
		} else link(webhook, http);
	}
	return { id, name, active: false, settings: { executionOrder: 'v1' }, pinData: {}, nodes, connections };
}

/**
 * A branch's first two nodes at the row's height: its Webhook (POST, answered as soon as the
 * execution started) and a Code node that makes the items from the call's body with `jsCode`.
 */
export function webhookItemsNodes(row, jsCode) {
	const y = row.index * 200;
	const webhook = {
		id: `webhook-${row.slug}`,
		name: `Webhook ${row.slug}`,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, y],
		webhookId: `${row.workflowId}-${row.slug}`,
		parameters: { httpMethod: 'POST', path: webhookPath(row.workflowId, row), responseMode: 'onReceived', options: {} },
	};
	const items = { id: `items-${row.slug}`, name: `Items ${row.slug}`, type: 'n8n-nodes-base.code', typeVersion: 2, position: [250, y], parameters: { jsCode } };
	return [webhook, items];
}

/**
 * One workflow of a branch per row, `rowNodes(row)` giving each branch's { nodes, links: [[from,
 * to, fromOutput?]] }: one import and one publish (each an n8n boot) for all rows of a scenario.
 */
export function branchWorkflow(id, name, rows, rowNodes) {
	const nodes = [];
	const connections = {};
	for (const row of rows) {
		const branch = rowNodes(row);
		nodes.push(...branch.nodes);
		// [from, to, output = 0]: several links may leave one node, from one output or several
		for (const [from, to, output = 0] of branch.links) {
			const main = (connections[from.name] ??= { main: [] }).main;
			while (main.length <= output) main.push([]);
			main[output].push({ node: to.name, type: 'main', index: 0 });
		}
	}
	return { id, name, active: false, settings: { executionOrder: 'v1' }, pinData: {}, nodes, connections };
}

// ---------------------------------------------------------------------------------------------
// Running a row

/** One webhook call with body { key }; a status other than 200, or an error, goes into `failed`. */
export async function callBenchWebhook(server, webhook, key, failed) {
	try {
		const res = await callWebhook(server, webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
		await res.arrayBuffer();
		if (res.status !== 200) failed.push(res.status);
	} catch (error) {
		failed.push(String(error?.message ?? error));
	}
}

/**
 * `count` webhook calls (body { key: <slug>-<n> }), `concurrency` in flight at once: as fast as
 * n8n answers them. Resolves { firstCallAt, lastAnswerAt, failed: [status or error text] }.
 */
export async function fireWebhooks(server, webhook, slug, count, concurrency) {
	let next = 0;
	const failed = [];
	const firstCallAt = Date.now();
	let lastAnswerAt = firstCallAt;
	const caller = async () => {
		while (next < count) {
			await callBenchWebhook(server, webhook, `${slug}-${next++}`, failed);
			lastAnswerAt = Math.max(lastAnswerAt, Date.now());
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, caller));
	return { firstCallAt, lastAnswerAt, failed };
}

/** The highest execution id of the workflow so far (the next row's executions come after it). */
export async function lastExecutionId(userFolder, workflowId) {
	const rows = await storedExecutions(userFolder, workflowId);
	return rows.length ? rows[rows.length - 1].id : 0;
}

/**
 * Waits until `expected` executions after `afterId` have finished (or timeoutMs passed: those
 * still running are stopped through the REST API, and the row is counted as it stands).
 */
export async function awaitExecutions(userFolder, workflowId, afterId, expected, { timeoutMs, client, log = () => {} }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const rows = await storedExecutions(userFolder, workflowId, { afterId });
		const finished = rows.filter((r) => FINISHED_STATUSES.includes(r.status));
		if (finished.length >= expected && finished.length === rows.length) return { rows, timedOut: false };
		if (Date.now() > deadline) {
			const open = rows.filter((r) => !FINISHED_STATUSES.includes(r.status));
			log(`timed out after ${timeoutMs} ms: ${finished.length} of ${expected} executions finished; stopping ${open.length}`);
			for (const r of open) await client.post(`/rest/executions/${r.id}/stop`).catch(() => {});
			return { rows: await storedExecutions(userFolder, workflowId, { afterId }), timedOut: true };
		}
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

/** Executions that ended in success and whose request got a 200 from the upstream. */
function succeededOf(rows, log) {
	const got200 = new Set(log.filter((e) => e.status === 200).map((e) => e.exec));
	return rows.filter((r) => r.status === 'success' && got200.has(String(r.id))).length;
}

/** Arrivals of retries: a key's requests after its first. */
function retryTimes(log) {
	const seen = new Set();
	const times = [];
	for (const e of [...log].sort((a, b) => a.time - b.time)) {
		if (seen.has(e.key)) times.push(e.time);
		seen.add(e.key);
	}
	return times;
}

function endTimes(rows, since) {
	return rows.filter((r) => r.stoppedAt !== null).map((r) => r.stoppedAt - since);
}

/** What every row of test/bench/real-n8n-results.ts starts with. */
function rowHead(row, executions, rows, log) {
	return { slug: row.slug, name: row.name, executions, succeeded: succeededOf(rows, log), requests: log.length };
}

/**
 * A FleetRow of test/bench/real-n8n-results.ts. Times count from `since`: the first call, or the
 * barrier's opening when the row has one (the moment the fleet starts "at once").
 */
export function fleetRow(row, executions, calls, rows, log, since = calls.firstCallAt) {
	const ends = endTimes(rows, since);
	return {
		...rowHead(row, executions, rows, log),
		amplification: Math.round((log.length / executions) * 1000) / 1000,
		retryPeak100ms: peakIn(retryTimes(log), 100),
		callsSpreadMs: calls.lastAnswerAt - calls.firstCallAt,
		durationMs: ends.length ? Math.max(...ends) : 0,
		completionMs: ends.length ? { p50: percentile(ends, 50), p95: percentile(ends, 95), max: Math.max(...ends) } : { p50: 0, p95: 0, max: 0 },
	};
}

/** A RateRow of test/bench/real-n8n-results.ts; times from `since` as for fleetRow. */
export function rateRow(row, executions, limitRps, calls, rows, log, since = calls.firstCallAt) {
	const ends = endTimes(rows, since);
	return {
		...rowHead(row, executions, rows, log),
		status429: log.filter((e) => e.status === 429).length,
		durationMs: ends.length ? Math.max(...ends) : 0,
		idealMs: Math.round((executions / limitRps) * 1000),
	};
}

/** Requests per second over the row (from its first call), for the details file and the summary. */
export function perSecond(log, since, status) {
	const counts = [];
	for (const e of log) {
		if (status !== undefined && e.status !== status) continue;
		const s = Math.max(0, Math.floor((e.time - since) / 1000));
		while (counts.length <= s) counts.push(0);
		counts[s]++;
	}
	return counts;
}

/** How many of the node's state-change log lines (traffic-gate.ts) each n8n process printed. */
export function trafficLogCounts(logs) {
	const count = (re) => (logs.match(re) ?? []).length;
	return {
		paused: count(/asked to wait \(/g),
		down: count(/looks down: its requests are held/g),
		recovered: count(/answers again: the held requests come back/g),
		paced: count(/throttles: its requests are paced at/g),
		storeFailed: count(/state store failed|stay in this process's memory/g),
	};
}
