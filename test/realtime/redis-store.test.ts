/**
 * The Redis store's tests that time something real, kept apart from the unit tests (whose clock is
 * the callers' `nowMs`): how long a refused connection takes to fail, a real Redis's TTLs, pub/sub
 * delivery, a command timeout against a stalled process or a paused Redis, an outage of a
 * redis-server of the test's own. Their bounds are generous (a loaded 2-core CI machine): each
 * tells a wait that did not happen from one that did, seconds apart, not a latency.
 *
 * Run: `npx jest --selectProjects realtime` (scripts/test-all.sh runs them after the engine tests).
 */
import { trafficForgetAt, type TrafficParams } from '../../nodes/shared/core/traffic/controller';
import { FALLBACK_STORE_DEFAULTS } from '../../nodes/shared/state/fallback-store';
import { RedisStoreError, type RedisConnection } from '../../nodes/shared/state/redis-connection';
import { closeRedisStateStores, REDIS_STORE_DEFAULTS, RedisStateStore } from '../../nodes/shared/state/redis-store';
import { countersFromHash, joinTraffic } from '../../nodes/shared/state/traffic-counters';
import { admit, complete } from '../../nodes/shared/core/traffic/controller';
import {
	call,
	clusterTitle,
	describeCluster,
	describeRedis,
	DOWN,
	fallbackOn,
	firsts,
	HAVE_REDIS_SERVER_BIN,
	OK,
	P,
	REDIS_SERVER_BIN,
	redisTitle,
	request,
	startDedicatedRedis,
	UNREACHABLE,
	useClusterWorkers,
	useRedisWorkers,
} from '../support/redis-fixtures';
import { T0 } from '../unit/state/fc-options';

describe('RedisStateStore without a Redis server', () => {
	afterAll(closeRedisStateStores);

	it('fails fast on an unreachable Redis, and the fallback answers from memory with one warning', async () => {
		const redis = new RedisStateStore(UNREACHABLE, { connectTimeoutMs: 20_000, commandTimeoutMs: 20_000 }); // far above the bounds: a call that waited for them could not pass
		const { store, warns } = fallbackOn(redis);
		const started = Date.now();
		const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => call(store, `k${i % 3}`, T0)));
		expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(store.lastSource()).toBe('memory-fallback');
		expect(warns).toHaveLength(1);
		expect(warns[0]).toMatch(/Redis 127\.0\.0\.1:1: connect ECONNREFUSED/);
		// while ioredis is reconnecting, a call fails at once rather than waiting
		await new Promise((resolve) => setTimeout(resolve, 50));
		const again = Date.now();
		await expect(call(redis, 'k', T0)).rejects.toThrow(RedisStoreError);
		expect(Date.now() - again).toBeLessThan(10_000);
		await redis.close();
	});
});

describeRedis(redisTitle('RedisStateStore against a real Redis server'), () => {
	const redis = useRedisWorkers();
	const { connection, prefix } = redis;

	it('a refusal writes nothing: the state and its time to live stay as they were', async () => {
		const params: TrafficParams = { ...P, window: { ceiling: 1, mode: 'fixed' } };
		await redis.workerA.traffic('refuse', T0, params, (d, l) => admit(d, l, T0, request(), params));
		const key = redis.workerA.keyFor('refuse');
		const value = await redis.admin.get(key);
		await new Promise((resolve) => setTimeout(resolve, 20));
		const ttl = await redis.admin.pttl(key);
		const refused = await redis.workerB.traffic('refuse', T0 + 1, params, (d, l) => admit(d, l, T0 + 1, request(), params));
		expect(refused).toMatchObject({ go: false, reason: 'window', until: T0 + params.leaseMs });
		expect(await redis.admin.get(key)).toBe(value);
		expect(await redis.admin.pttl(key)).toBeLessThanOrEqual(ttl);
	});

	it("a worker's traffic counts reach Redis by themselves about a second later, with nobody reading them", async () => {
		const started = Date.now();
		redis.workerA.count('flushed', 'f.example', { 'req:first': 4 });
		redis.workerA.count('flushed', 'f.example', { 'req:first': 1 });
		const key = `${prefix}metrics:{flushed}`;
		while (Date.now() - started < 10_000 && !(await redis.admin.exists(key))) await new Promise((resolve) => setTimeout(resolve, 50));
		// one send for both, after the second they wait in the process
		expect(Date.now() - started).toBeGreaterThanOrEqual(900);
		expect(await redis.admin.hgetall(key)).toEqual({ 'req:first': '5', label: 'f.example' });
	});

	it('a freed slot at the limit wakes the other worker (pub/sub); its own reports do not echo back', async () => {
		const params: TrafficParams = { ...P, window: { ceiling: 1, mode: 'fixed' } };
		let wokenB = 0;
		let wokenA = 0;
		const stopB = redis.workerB.watch('wake', () => wokenB++);
		const stopA = redis.workerA.watch('wake', () => wokenA++);
		try {
			await new Promise((resolve) => setTimeout(resolve, 100)); // the subscriptions are made
			// a new subscription looks once (news published while it was made is lost): not counted here
			wokenA = 0;
			wokenB = 0;
			const a = await redis.workerA.traffic('wake', T0, params, (d, l) => admit(d, l, T0, request(), params));
			if (!a.go) throw new Error('not admitted');
			await redis.workerA.traffic('wake', T0 + 1, params, (d, l) => complete(d, l, T0 + 1, a.lease, OK, params));
			const deadline = Date.now() + 10_000;
			while (wokenB === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
			expect(wokenB).toBe(1);
			expect(wokenA).toBe(0);
		} finally {
			stopA();
			stopB();
		}
	});

	it("a worker that could not run for longer than the command timeout: Redis's answer, waiting in its socket, is read, not timed out", async () => {
		const busy = new RedisStateStore(connection, { keyPrefix: prefix, commandTimeoutMs: 50 });
		try {
			await call(busy, 'starved', T0); // connected, the script loaded
			const step = busy.traffic('starved', T0 + 1, P, (d, l) => admit(d, l, T0 + 1, request(), P));
			// the script is sent (and its timer started) by now; then the process is held up 400 ms,
			// as a starved or busy worker is, while Redis answers at once
			await new Promise<void>((resolve) =>
				setImmediate(() => {
					const until = Date.now() + 400;
					while (Date.now() < until) {
						// busy: no timer, no socket read
					}
					resolve();
				}),
			);
			await expect(step).resolves.toMatchObject({ go: true });
			expect(busy.stats().timeouts).toBe(0);
		} finally {
			await busy.close();
		}
	});

	it('a script that timed out (Redis paused) still ran there: the lease it added is ended by the next script, none leaks', async () => {
		const slow = new RedisStateStore(connection, { keyPrefix: prefix, commandTimeoutMs: 100 });
		try {
			await call(slow, 'timeout', T0); // connected, the script loaded
			await redis.admin.call('CLIENT', 'PAUSE', '400', 'WRITE');
			const r = request();
			await expect(slow.traffic('timeout', T0 + 1, P, (d, l) => admit(d, l, T0 + 1, r, P))).rejects.toMatchObject({ name: 'RedisStepsError', affected: 1, timedOut: true });
			await new Promise((resolve) => setTimeout(resolve, 500));
			// it ran once the pause ended: its lease is there
			expect(await redis.admin.zcard(`${slow.keyFor('timeout')}:leases`)).toBe(1);
			await call(slow, 'timeout', T0 + 2);
			expect(await redis.admin.zcard(`${slow.keyFor('timeout')}:leases`)).toBe(0);
			expect(slow.stats()).toMatchObject({ timeouts: 1, leasesReleased: 1 });
		} finally {
			await slow.close();
		}
	});

	it('an API\'s key lives until the controller forgets its state, plus the grace', async () => {
		const now = Date.now();
		await call(redis.workerA, 'ttl', now);
		const key = redis.workerA.keyFor('ttl');
		expect(key).toBe(`${prefix}traffic:{ttl}`);
		expect(await redis.admin.type(key)).toBe('string');
		expect(await redis.admin.type(`${key}:counts`)).toBe('hash');
		const raw = (await redis.admin.get(key)) ?? '';
		const data = joinTraffic(JSON.parse(raw.slice(raw.indexOf('\n') + 1)), countersFromHash(await redis.admin.hgetall(`${key}:counts`).then((hash) => Object.entries(hash).flat())))!;
		const expected = trafficForgetAt(data, P) - now + REDIS_STORE_DEFAULTS.ttlGraceMs;
		for (const k of [key, `${key}:counts`]) {
			const ttl = await redis.admin.pttl(k);
			expect(ttl).toBeLessThanOrEqual(expected);
			// a TTL set without the grace (10 s) would fall short by far more than the test's own time
			expect(ttl).toBeGreaterThan(expected - 5_000);
		}
	});

	(HAVE_REDIS_SERVER_BIN ? it : it.skip)(
		HAVE_REDIS_SERVER_BIN ? 'Redis stopped mid-run: answers from memory, warns once, never throws, and is back on Redis after the cooldown' : `Redis stopped mid-run (skipped: no ${REDIS_SERVER_BIN} binary to start a dedicated server)`,
		async () => {
			const server = await startDedicatedRedis();
			const dedicated: RedisConnection = { host: '127.0.0.1', port: server.port, database: 0, tls: false };
			const redis = new RedisStateStore(dedicated);
			const { store, memory, warns, infos } = fallbackOn(redis);
			try {
				let now = T0;
				for (let i = 1; i <= 5; i++) expect(await firsts(store, 'k', now)).toBe(i);
				expect(store.lastSource()).toBe('redis');
				expect(memory.size).toBe(0);

				await server.stop();
				const outageStarted = Date.now();
				// at once and in a row: every request answers (from memory), none throws
				const settled = await Promise.allSettled(Array.from({ length: 300 }, (_, i) => call(store, 'k', now, OK, i % 3 !== 0)));
				expect(settled.filter((r) => r.status === 'rejected')).toEqual([]);
				for (let i = 0; i < 100; i++) await call(store, 'b', now + i, DOWN);
				expect(Date.now() - outageStarted).toBeLessThan(5_000); // 100 calls in a row: a timeout (1 s) each would take 100 s
				expect(store.lastSource()).toBe('memory-fallback');
				expect(warns).toHaveLength(1);
				expect(warns[0]).toMatch(new RegExp(`redis state store failed \\(Redis 127\\.0\\.0\\.1:${server.port}[: ]`));
				// the answers came from the memory store: its budget counted 100 first attempts
				expect(await firsts(memory, 'k', now)).toBe(101);
				expect(await call(store, 'b', now + 200)).toMatchObject({ go: false, reason: 'held' });

				// Redis is back (empty: no persistence); after a cooldown the store uses it again
				await server.start();
				const deadline = Date.now() + 10_000;
				while (store.lastSource() !== 'redis' && Date.now() < deadline) {
					now += FALLBACK_STORE_DEFAULTS.cooldownMs;
					await call(store, 'probe', now);
					if (store.lastSource() !== 'redis') await new Promise((resolve) => setTimeout(resolve, 100));
				}
				expect(store.lastSource()).toBe('redis');
				expect(warns).toHaveLength(1);
				expect(infos).toHaveLength(1);
				expect(await firsts(store, 'k', now)).toBe(1);
				expect(store.lastSource()).toBe('redis');

				// a second outage warns once more
				await server.stop();
				await Promise.all(Array.from({ length: 20 }, () => call(store, 'k', now)));
				expect(warns).toHaveLength(2);
			} finally {
				await redis.close();
				await server.stop();
				server.cleanup();
			}
		},
		30_000,
	);
});

describe('traffic counts while Redis is away', () => {
	it(
		HAVE_REDIS_SERVER_BIN ? 'are kept in the process and sent once Redis answers again, none lost and none twice' : `traffic counts while Redis is away (skipped: no ${REDIS_SERVER_BIN} binary to start a dedicated server)`,
		async () => {
			if (!HAVE_REDIS_SERVER_BIN) return;
			const server = await startDedicatedRedis();
			const store = new RedisStateStore({ host: '127.0.0.1', port: server.port, database: 0, tls: false });
			try {
				store.count('api:away', 'away.example', { 'req:first': 1 });
				expect(await store.counts()).toEqual([{ key: 'api:away', label: 'away.example', counts: { 'req:first': 1 } }]);
				await server.stop();
				store.count('api:away', 'away.example', { 'req:first': 2 });
				await expect(store.counts()).rejects.toThrow();
				store.count('api:away', 'away.example', { 'status:429': 1 });
				// back, empty (no persistence): what it missed arrives whole
				await server.start();
				const deadline = Date.now() + 10_000;
				let read = await store.counts().catch(() => undefined);
				while (read === undefined && Date.now() < deadline) {
					await new Promise((resolve) => setTimeout(resolve, 100));
					read = await store.counts().catch(() => undefined);
				}
				expect(read).toEqual([{ key: 'api:away', label: 'away.example', counts: { 'req:first': 2, 'status:429': 1 } }]);
			} finally {
				await store.close();
				await server.stop();
				server.cleanup();
			}
		},
		30_000,
	);
});

describeCluster(clusterTitle('RedisStateStore against a Redis Cluster'), () => {
	const cluster = useClusterWorkers();

	it('a report that leaves room wakes the other worker (pub/sub through the cluster)', async () => {
		let woken = 0;
		const stop = cluster.workerB.watch('cluster-wake', () => woken++);
		try {
			await new Promise((resolve) => setTimeout(resolve, 200));
			await call(cluster.workerA, 'cluster-wake', T0);
			const deadline = Date.now() + 10_000;
			while (woken === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
			expect(woken).toBeGreaterThan(0);
		} finally {
			stop();
		}
	});
});
