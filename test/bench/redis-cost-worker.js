/**
 * One worker process of the Redis cost benchmark (test/bench/redis-cost.mjs): runs its share of a
 * scenario's items through the node's own traffic gate (core/traffic/gate.ts: the controller, the
 * process's waiters, the store with its fallback, as compiled to dist/) against a simulated API,
 * each item a small retry loop (Retry-After obeyed, backoff otherwise, 5 attempts). Prints one JSON
 * line: its items' results, the store's counts, the fallback's outages.
 *
 * argv: JSON { scenario, items, store: 'redis' | 'memory', redisUrl, keyPrefix, key, startAt }
 */
const path = require('node:path');

const DIST = path.join(__dirname, '..', '..', 'dist', 'nodes', 'shared');
const { passGate, reportOutcome } = require(path.join(DIST, 'core', 'traffic', 'gate'));
const { getProcessWaiters } = require(path.join(DIST, 'core', 'traffic', 'waiters'));
const { newLeaseId } = require(path.join(DIST, 'core', 'traffic', 'lease-id'));
const { HOLD_DEFAULTS } = require(path.join(DIST, 'core', 'traffic', 'hold-state'));
const { BUDGET_DEFAULTS } = require(path.join(DIST, 'core', 'traffic', 'budget'));
const { systemRuntime } = require(path.join(DIST, 'core', 'runtime'));
const { MemoryStateStore } = require(path.join(DIST, 'state', 'memory-store'));
const { RedisStateStore } = require(path.join(DIST, 'state', 'redis-store'));
const { FallbackStateStore } = require(path.join(DIST, 'state', 'fallback-store'));

const task = JSON.parse(process.argv[2]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

let sent = 0;

/** The simulated API: what one request gets, by scenario and time since the run's start. */
async function send(scenario, attempt, sinceStart) {
	sent++;
	switch (scenario) {
		case 'healthy':
		case 'pace-20':
			await sleep(20);
			return { ok: true };
		case 'outage-503':
			await sleep(5);
			return sinceStart < 3_000 ? { ok: false, status: 503 } : { ok: true };
		case 'outage-hang':
			// hangs until the request's timeout (1 s) for the first 3 s
			if (sinceStart < 3_000) {
				await sleep(1_000);
				return { ok: false, timeout: true };
			}
			await sleep(20);
			return { ok: true };
		case 'retry-after':
			await sleep(20);
			return attempt === 1 ? { ok: false, status: 429, retryAfterMs: 1_000 } : { ok: true };
	}
	throw new Error(`unknown scenario ${scenario}`);
}

function outcomeOf(answer) {
	if (answer.ok) return { success: true, outageFailure: false, overload: false, throttled: false };
	if (answer.timeout) return { success: false, outageFailure: true, overload: true, throttled: false };
	if (answer.status === 429) return { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: answer.retryAfterMs, header: 'retry-after' } };
	return { success: false, outageFailure: true, overload: true, throttled: false };
}

async function item(gate, scenario, startAt, deadlineAt) {
	let last;
	for (let attempt = 1; attempt <= 5; attempt++) {
		const id = newLeaseId(); // as the node names a request's lease (traffic-gate.ts)
		const paced = last !== undefined && last.status === 429;
		// as the node's traffic gate asks and reports (nodes/ResilientHttpRequest/traffic/traffic-gate.ts):
		// a retry's item failed before, and the report says what the request was
		const failedBefore = attempt > 1;
		const passed = await passGate(gate, { id, retry: failedBefore, paced, failedBefore }, { deadlineAt, maxServerDelayMs: 60_000 });
		if (!passed.go) return { ok: false, stop: passed.stop };
		const answer = await send(scenario, attempt, Date.now() - startAt);
		await reportOutcome(gate, passed.admission.lease, { ...outcomeOf(answer), ...(failedBefore ? { failedBefore } : {}), sent: !failedBefore ? 'first' : paced ? 'paced' : 'retry' });
		if (answer.ok) return { ok: true, attempts: attempt };
		last = answer;
		const backoff = answer.retryAfterMs ?? Math.min(2_000, 200 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
		await sleep(backoff);
	}
	return { ok: false, stop: 'attempts' };
}

async function main() {
	const { scenario, items, store: kind, redisUrl, keyPrefix, key, startAt } = task;
	const warns = [];
	let redis;
	let store;
	if (kind === 'redis') {
		const u = new URL(redisUrl);
		redis = new RedisStateStore({ host: u.hostname, port: Number(u.port), database: 0, tls: false }, { keyPrefix });
		store = new FallbackStateStore(redis, new MemoryStateStore(), { warn: (m) => warns.push(m), info: (m) => warns.push(m) });
	} else {
		store = new MemoryStateStore();
	}
	const params = {
		window: { ceiling: 200, mode: 'adaptive' },
		leaseMs: 40_000,
		budget: { ...BUDGET_DEFAULTS },
		hold: { ...HOLD_DEFAULTS },
		...(scenario === 'pace-20' ? { rateLimitRps: 20 } : {}),
	};
	const gate = { store, key, params, runtime: systemRuntime, waiters: getProcessWaiters(), pollMs: kind === 'redis' ? 2_000 : 5_000 };
	await sleep(startAt - Date.now());
	const started = Date.now();
	const deadlineAt = started + 120_000;
	const results = await Promise.all(Array.from({ length: items }, () => item(gate, scenario, startAt, deadlineAt)));
	const wallMs = Date.now() - started;
	const stats = redis ? redis.stats() : undefined;
	const outages = store instanceof FallbackStateStore ? store.outageCount : 0;
	process.stdout.write(`${JSON.stringify({ wallMs, sent, ok: results.filter((r) => r.ok).length, failed: results.filter((r) => !r.ok).length, stats, outages, warns })}\n`);
	if (redis) await redis.close();
}

main().catch((error) => {
	process.stderr.write(`${error.stack ?? error}\n`);
	process.exit(1);
});
