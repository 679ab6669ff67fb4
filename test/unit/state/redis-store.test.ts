/**
 * The Redis state store (queue mode) and the fallback to memory.
 *
 * Parts that need no Redis always run: FallbackStateStore on a fake primary, the credential's
 * parsing, lazy loading of ioredis. The tests that time a real Redis or socket (TTLs, pub/sub,
 * timeouts, an outage of a Redis of the test's own) are in test/realtime/redis-store.test.ts.
 *
 * The rest runs against a real Redis server named by RH_TEST_REDIS_URL (redis://127.0.0.1:PORT),
 * e.g. `export "$(bash scripts/redis-test-server.sh start)"`. Without it those tests are reported
 * as skipped, with the reason in their name, never as passed.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { admit, complete, type Outcome, type TrafficData, type TrafficParams, type Lease, type LeaseView } from '../../../nodes/shared/core/traffic/controller';
import { resumeTraffic } from '../../../nodes/shared/core/traffic/operator';
import { FALLBACK_STORE_DEFAULTS, FallbackStateStore, getRedisStateStoreWithFallback } from '../../../nodes/shared/state/fallback-store';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { connectionId, redisConnectionFromCredential, RedisStoreError } from '../../../nodes/shared/state/redis-connection';
import { testRedisCredential } from '../../../nodes/shared/state/redis-credential-test';
import { closeRedisStateStores, getRedisStateStore, REDIS_STORE_DEFAULTS, RedisStateStore } from '../../../nodes/shared/state/redis-store';
import type { StateStore, TrafficStep } from '../../../nodes/shared/core/traffic/store';
import { call, clusterTitle, describeCluster, describeRedis, DOWN, fallbackOn, firsts, OK, P, redisTitle, request, takeDown, UNREACHABLE, useClusterWorkers, useRedisWorkers } from '../../support/redis-fixtures';
import { FC_OPTIONS, T0 } from './fc-options';
import { verdictOf } from '../traffic/verdict';
import { NO_TOKENS } from '../../../nodes/shared/core/traffic/token-estimate';
import { keyParams } from '../../../nodes/shared/core/traffic/key-gate';

/** A primary that answers like a memory store, fails, or never answers, as told. */
class FakePrimary implements StateStore {
	readonly kind = 'redis' as const;
	mode: 'ok' | 'fail' | 'hang' = 'ok';
	calls = 0;
	readonly inner = new MemoryStateStore();

	async traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		this.calls++;
		if (this.mode === 'fail') throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
		if (this.mode === 'hang') await new Promise(() => undefined);
		return this.inner.traffic(key, nowMs, params, step);
	}
}

describe('FallbackStateStore (fake primary, no Redis needed)', () => {
	it('answers from the primary while it works: its kind, no warning', async () => {
		const primary = new FakePrimary();
		const { store, memory, warns } = fallbackOn(primary);
		expect(store.kind).toBe('redis');
		expect(await firsts(store, 'k', T0)).toBe(1);
		expect(await call(store, 'k', T0, OK, true)).toMatchObject({ go: true, budget: { retries: 1 } });
		expect(store.lastSource()).toBe('redis');
		expect(primary.calls).toBe(4);
		expect(memory.size).toBe(0);
		expect(warns).toEqual([]);
		expect(store.degraded).toBe(false);
	});

	it('a failing primary: answers from memory, never throws, warns once per outage, leaves the primary alone during the cooldown', async () => {
		const primary = new FakePrimary();
		const { store, memory, warns, infos } = fallbackOn(primary);
		primary.mode = 'fail';
		// 1,000 requests at once, then 100 in a row, all within the cooldown
		const concurrent = await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => call(store, 'k', T0, OK, i % 2 === 1)));
		expect(concurrent.every((r) => r.status === 'fulfilled')).toBe(true);
		const callsAtOutage = primary.calls;
		for (let i = 0; i < 100; i++) await call(store, 'b', T0 + i * 100, DOWN);
		expect(primary.calls).toBe(callsAtOutage);
		expect(store.lastSource()).toBe('memory-fallback');
		expect(store.degraded).toBe(true);
		expect(warns).toHaveLength(1);
		expect(warns[0]).toMatch(/redis state store failed \(connect ECONNREFUSED 127\.0\.0\.1:6379\) for 1 step of requests to the APIs; using this process's memory .*\(next try in 30 s\)\. Requests are not affected\./);
		expect(infos).toEqual([]);
		// the answers are the memory store's: 500 first attempts, 40 + 50 retries granted
		expect(await call(memory, 'k', T0, OK, true)).toMatchObject({ go: false, reason: 'budget' });
		expect(await call(store, 'b', T0 + 10_000)).toMatchObject({ go: false, reason: 'held' });

		// the cooldown is over: one call tries the primary; still down: no new warning, another cooldown
		const beforeProbe = primary.calls;
		await call(store, 'k', T0 + FALLBACK_STORE_DEFAULTS.cooldownMs);
		expect(primary.calls).toBe(beforeProbe + 1);
		await call(store, 'k', T0 + FALLBACK_STORE_DEFAULTS.cooldownMs + 29_999);
		expect(primary.calls).toBe(beforeProbe + 1);
		expect(warns).toHaveLength(1);

		// back: the next probe answers from the primary, which logs once (info) and stays in use
		primary.mode = 'ok';
		const back = T0 + 2 * FALLBACK_STORE_DEFAULTS.cooldownMs;
		expect(await firsts(store, 'fresh', back)).toBe(1);
		expect(store.lastSource()).toBe('redis');
		expect(store.degraded).toBe(false);
		expect(infos).toHaveLength(1);
		expect(infos[0]).toMatch(/redis state store answers again after 60 s \(\d+ steps answered from memory meanwhile\); .* what this process learned of 2 APIs/);
		// what it learned of the two APIs it used meanwhile is now the primary's too: 'b' is held
		await new Promise((resolve) => setImmediate(resolve));
		expect(primary.inner.size).toBe(3);
		expect(primary.inner.peek('b', back)?.hold?.state).toBe('open');
		// news, not counts: the primary held nothing of 'k', whose 500 first attempts stay this process's
		expect(await firsts(store, 'k', back + 1)).toBe(1);

		// a second outage warns again, once
		primary.mode = 'fail';
		await Promise.all(Array.from({ length: 50 }, () => call(store, 'k', back + 2)));
		expect(warns).toHaveLength(2);
		expect(store.outageCount).toBe(2);
	});

	it('after the cooldown, calls made while the probe is in flight stay on memory: one probe, not a burst', async () => {
		const primary = new FakePrimary();
		const { store } = fallbackOn(primary, { timeoutMs: 50 });
		primary.mode = 'fail';
		await call(store, 'k', T0);
		primary.mode = 'hang';
		const before = primary.calls;
		const admissions = await Promise.all(Array.from({ length: 100 }, () => store.traffic('k', T0 + 30_000, P, (d, l) => admit(d, l, T0 + 30_000, request(true), P))));
		expect(primary.calls).toBe(before + 1);
		expect(admissions.filter((a) => a.go)).toHaveLength(40);
	});

	it('a primary that does not answer in time counts as failed (timeout)', async () => {
		const primary = new FakePrimary();
		primary.mode = 'hang';
		const { store, warns } = fallbackOn(primary, { timeoutMs: 30 });
		// the timeout is a timer of the process (setTimeout): Jest's fake timers are its clock here
		jest.useFakeTimers();
		try {
			let answered: number | undefined;
			const first = firsts(store, 'k', T0).then((n) => (answered = n));
			await jest.advanceTimersByTimeAsync(29);
			expect(answered).toBeUndefined();
			await jest.advanceTimersByTimeAsync(1);
			await first;
			expect(answered).toBe(1);
		} finally {
			jest.useRealTimers();
		}
		expect(store.lastSource()).toBe('memory-fallback');
		expect(warns).toHaveLength(1);
		expect(warns[0]).toMatch(/no answer within 30 ms/);
	});

	it('a logger that throws fails nothing', async () => {
		const primary = new FakePrimary();
		primary.mode = 'fail';
		const store = new FallbackStateStore(primary, new MemoryStateStore(), {
			warn: () => {
				throw new Error('logger broken');
			},
		});
		await expect(firsts(store, 'k', T0)).resolves.toBe(1);
	});

	it('rejects nonsense options', () => {
		const warn = (): void => undefined;
		expect(() => new FallbackStateStore(new FakePrimary(), new MemoryStateStore(), { warn, cooldownMs: -1 })).toThrow(/cooldownMs/);
		expect(() => new FallbackStateStore(new FakePrimary(), new MemoryStateStore(), { warn, timeoutMs: 0 })).toThrow(/timeoutMs/);
	});
});

describe('RedisStateStore without a Redis server', () => {
	afterAll(closeRedisStateStores);

	it('reads the credential with the defaults and field names of n8n\'s Redis credential', () => {
		expect(redisConnectionFromCredential({})).toEqual({ host: 'localhost', port: 6379, database: 0, tls: false });
		expect(redisConnectionFromCredential({ host: ' redis ', port: 6380, database: 2, user: 'app', password: 's3cret', ssl: true, disableTlsVerification: true })).toEqual({
			host: 'redis',
			port: 6380,
			database: 2,
			user: 'app',
			password: 's3cret',
			tls: true,
			disableTlsVerification: true,
		});
		// disableTlsVerification only means something with TLS; an empty user is password-only auth
		expect(redisConnectionFromCredential({ user: '', password: 'p', disableTlsVerification: true })).toEqual({ host: 'localhost', port: 6379, database: 0, tls: false, password: 'p' });
		expect(() => redisConnectionFromCredential({ port: 0 })).toThrow(RedisStoreError);
		expect(() => redisConnectionFromCredential({ port: 70000 })).toThrow(/Port must be a whole number from 1 to 65535/);
		expect(() => redisConnectionFromCredential({ database: -1 })).toThrow(/Database Number/);
	});

	it('rejects a batch size the script cannot take', () => {
		expect(() => new RedisStateStore(UNREACHABLE, { maxBatch: 0 })).toThrow(/maxBatch must be a whole number from 1 to 1000, not 0/);
		expect(() => new RedisStateStore(UNREACHABLE, { maxBatch: 1_001 })).toThrow(/maxBatch/);
		expect(() => new RedisStateStore(UNREACHABLE, { maxBatch: 2.5 })).toThrow(/maxBatch/);
	});

	it('tells connections apart without keeping the password in the id', () => {
		const a = connectionId({ ...UNREACHABLE, password: 'one' });
		expect(a).not.toContain('one');
		expect(a).not.toBe(connectionId({ ...UNREACHABLE, password: 'two' }));
		expect(a).not.toBe(connectionId(UNREACHABLE));
		expect(connectionId({ ...UNREACHABLE, user: 'u' })).not.toBe(connectionId(UNREACHABLE));
	});

	it('loads ioredis only when a Redis store is first used, not when the state modules are loaded', async () => {
		let loads = 0;
		await jest.isolateModulesAsync(async () => {
			jest.doMock('ioredis', () => {
				loads++;
				return jest.requireActual('ioredis');
			});
			const memory = await import('../../../nodes/shared/state/memory-store');
			const fallback = await import('../../../nodes/shared/state/fallback-store');
			const redis = await import('../../../nodes/shared/state/redis-store');
			await call(memory.getMemoryStateStore(), 'k', T0);
			const store = new redis.RedisStateStore(UNREACHABLE);
			new fallback.FallbackStateStore(store, memory.getMemoryStateStore(), { warn: () => undefined });
			expect(loads).toBe(0);
			await expect(call(store, 'k', T0)).rejects.toThrow(/ECONNREFUSED/);
			expect(loads).toBe(1);
			await store.close();
		});
	});

	it('credential test: an unreachable Redis is an error with the reason', async () => {
		const result = await testRedisCredential.call({} as never, { id: '1', name: 'r', type: 'resilientHttpRedis', data: { host: '127.0.0.1', port: 1 } });
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/ECONNREFUSED/) });
	});

	it('one store (one client) per connection and process', () => {
		expect(getRedisStateStore(UNREACHABLE)).toBe(getRedisStateStore({ ...UNREACHABLE }));
		expect(getRedisStateStore(UNREACHABLE)).not.toBe(getRedisStateStore({ ...UNREACHABLE, password: 'x' }));
		const warn = (): void => undefined;
		expect(getRedisStateStoreWithFallback(UNREACHABLE, { warn })).toBe(getRedisStateStoreWithFallback(UNREACHABLE, { warn }));
		expect(getRedisStateStoreWithFallback(UNREACHABLE, { warn }).primary).toBe(getRedisStateStore(UNREACHABLE));
		expect(REDIS_STORE_DEFAULTS.keyPrefix).toBe('rh:');
		expect(new RedisStateStore(UNREACHABLE).keyFor('api:3f2a')).toBe('rh:traffic:{api:3f2a}');
	});
});

// ---------------------------------------------------------------------------------------------
// Against a real Redis server

describeRedis(redisTitle('RedisStateStore against a real Redis server'), () => {
	const redis = useRedisWorkers();
	const { connection, prefix } = redis;

	it('is the redis kind and keeps the APIs of different keys apart', async () => {
		expect(redis.workerA.kind).toBe('redis');
		await call(redis.workerA, 'a', T0);
		expect(await firsts(redis.workerA, 'a', T0)).toBe(2);
		expect(await firsts(redis.workerA, 'b', T0)).toBe(1);
		await takeDown(redis.workerA, 'a', T0);
		expect(await call(redis.workerA, 'a', T0)).toMatchObject({ go: false, reason: 'held', until: T0 + 1000 });
		expect(await call(redis.workerA, 'b', T0)).toMatchObject({ go: true });
	});

	it("lists every API's state for the operator; a hold ended by hand on one worker lets the other's next request go", async () => {
		await takeDown(redis.workerA, 'op-1', T0);
		await call(redis.workerA, 'op-2', T0);
		const listed = await redis.workerB.list(T0);
		expect(listed.map((l) => l.key).sort()).toEqual(expect.arrayContaining(['op-1', 'op-2']));
		expect(listed.find((l) => l.key === 'op-1')?.data.hold?.state).toBe('open');
		expect(await call(redis.workerA, 'op-1', T0 + 1)).toMatchObject({ go: false, reason: 'held' });
		await redis.workerB.traffic('op-1', T0 + 2, P, (d) => ({ data: resumeTraffic(d, T0 + 2, { pause: true, hold: true }).data, result: undefined, changed: true, frees: true }));
		expect(await call(redis.workerA, 'op-1', T0 + 3)).toMatchObject({ go: true, probe: false });
	});

	it("an LLM API's token budget is one for both workers: what A's answer stated holds B's request back until the stated reset; a Token Limit counts both workers' requests", async () => {
		const key = `tokens-${Date.now()}`;
		const ask = async (store: StateStore, now: number, tokens: number, params: TrafficParams = P) =>
			await store.traffic(key, now, params, (d, l) => admit(d, l, now, { ...request(), tokens: { chars: tokens * 4, output: 0 } }, params));
		const first = await ask(redis.workerA, T0, 1000);
		if (!first.go) throw new Error('the first request was refused');
		await redis.workerA.traffic(key, T0 + 10, P, (d, l) => complete(d, l, T0 + 10, first.lease, { ...OK, tokens: { counted: first.tokens ?? NO_TOKENS, statements: [{ kind: 'total', limit: 60_000, remaining: 5000, resetAt: T0 + 20_000, header: 'x-ratelimit-remaining-tokens' }] } }, P));
		expect(await ask(redis.workerB, T0 + 20, 6000)).toMatchObject({ go: false, reason: 'tokens', until: T0 + 20_000 });
		expect(await ask(redis.workerB, T0 + 30, 4000)).toMatchObject({ go: true, tokens: { input: 4000, output: 0 } });
		expect(await ask(redis.workerA, T0 + 40, 2000)).toMatchObject({ go: false, reason: 'tokens' });
		// a user's limit of 10,000 a minute, on another API: 3 of 3,000 from either worker, then a wait
		const limited = { ...P, tokenLimitPerMinute: 10_000 };
		const other = `${key}-limit`;
		const askOther = async (store: StateStore, now: number) => await store.traffic(other, now, limited, (d, l) => admit(d, l, now, { ...request(), tokens: { chars: 12_000, output: 0 } }, limited));
		const goes = [await askOther(redis.workerA, T0), await askOther(redis.workerB, T0 + 1), await askOther(redis.workerA, T0 + 2), await askOther(redis.workerB, T0 + 3)];
		expect(goes.map((a) => a.go)).toEqual([true, true, true, false]);
		expect(goes[3]).toMatchObject({ reason: 'tokens' });
	});

	let differentialSeries = 0;

	/**
	 * Random steps of two workers on three APIs, time moving on, against one pure controller.
	 * `same(actual, expected)` compares a step's results.
	 */
	async function againstOneController(params: TrafficParams, same: (actual: unknown, expected: unknown) => void): Promise<void> {
		type Op = { kind: 'advance'; ms: number } | { kind: 'admit'; key: number; worker: number; retry: boolean; paced: boolean } | { kind: 'complete'; key: number; worker: number; which: number; outcome: number };
		const outcomes: Outcome[] = [OK, DOWN, { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 700, header: 'retry-after' } }, { ...OK, quota: { remaining: 1, resetAt: 0 } }];
		// the quota's reset is an instant: 500 ms after the answer that states it
		const outcomeAt = (n: number, at: number): Outcome => (outcomes[n].quota ? { ...outcomes[n], quota: { remaining: 1, resetAt: at + 500 } } : outcomes[n]);
		const key = fc.integer({ min: 0, max: 2 });
		const worker = fc.integer({ min: 0, max: 1 });
		const op: fc.Arbitrary<Op> = fc.oneof(
			fc.integer({ min: 0, max: 400 }).map((ms): Op => ({ kind: 'advance', ms })),
			fc.record({ kind: fc.constant('admit' as const), key, worker, retry: fc.boolean(), paced: fc.boolean() }),
			fc.record({ kind: fc.constant('complete' as const), key, worker, which: fc.nat({ max: 10 }), outcome: fc.nat({ max: outcomes.length - 1 }) }),
		);
		let run = 0;
		const series = ++differentialSeries;
		await fc.assert(
			fc.asyncProperty(fc.array(op, { maxLength: 120 }), fc.integer({ min: 0, max: 4_000_000_000_000 }), async (ops, start) => {
				run++;
				const workers = [redis.workerA, redis.workerB];
				const states = new Map<number, TrafficData>();
				// the reference's leases per key, as Redis's sorted set holds them
				const leases = new Map<number, Lease[]>();
				const viewOf = (k: number, at: number): LeaseView => {
					const list = (leases.get(k) ?? []).filter(([, end]) => end > at);
					leases.set(k, list);
					return { count: list.length, soonest: Math.min(Infinity, ...list.map(([, end]) => end)) };
				};
				const live = new Map<number, Lease[]>();
				let now = start;
				for (const o of ops) {
					if (o.kind === 'advance') {
						now += o.ms;
						continue;
					}
					const k = `series${series}-run${run}-api${o.key}`;
					const at = now;
					if (o.kind === 'admit') {
						const r = request(o.retry, o.paced);
						const step = admit(states.get(o.key), viewOf(o.key, at), at, r, params);
						if (step.changed) states.set(o.key, step.data);
						same(await workers[o.worker].traffic(k, at, params, (d, l) => admit(d, l, at, r, params)), step.result);
						if (step.result.go) {
							live.set(o.key, [...(live.get(o.key) ?? []), step.result.lease]);
							leases.get(o.key)!.push(step.result.lease);
						}
					} else {
						const list = live.get(o.key) ?? [];
						if (list.length === 0) continue;
						const [lease] = list.splice(o.which % list.length, 1);
						const outcome = outcomeAt(o.outcome, at);
						const step = complete(states.get(o.key), viewOf(o.key, at), at, lease, outcome, params);
						states.set(o.key, step.data);
						leases.set(o.key, (leases.get(o.key) ?? []).filter(([id]) => id !== lease[0]));
						same(await workers[o.worker].traffic(k, at, params, (d, l) => complete(d, l, at, lease, outcome, params)), step.result);
					}
				}
			}),
			{ ...FC_OPTIONS, numRuns: process.env.FC_RUNS ? FC_OPTIONS.numRuns : 60 },
		);
	}

	const SMALL: TrafficParams = { window: { ceiling: 4, mode: 'adaptive' }, leaseMs: 2_000, budget: { ratio: 0.2, minRetriesPerWindow: 2, windowMs: 1_000 }, hold: { consecutiveFailures: 3, failureRatio: 0.5, minimumCalls: 4, windowMs: 1_000, breakMs: 300, maxBreakMs: 2_000 } };

	it('two workers on one Redis give the answers one pure controller gives (time moving on, both workers\' clocks; a pace, so every step needs the exact state)', async () => {
		await againstOneController({ ...SMALL, rateLimitRps: 50 }, (actual, expected) => expect(actual).toEqual(expected));
	});

	it('without a pace healthy steps merge their counts: the same verdicts as one pure controller, counts reported as the worker last saw them', async () => {
		const merges = redis.workerA.stats().merges + redis.workerB.stats().merges;
		await againstOneController(SMALL, (actual, expected) => expect(verdictOf(actual)).toEqual(verdictOf(expected)));
		// (the fixed seed's cases are short: a few steps per API, so most are an API's first or a failure's)
		expect(redis.workerA.stats().merges + redis.workerB.stats().merges - merges).toBeGreaterThan(10);
	});

	describe('O(1) per request: leases one entry at a time, a refusal writes nothing, other workers woken by pub/sub', () => {
		it('a call costs the same bytes with 1 or 1,000 requests in flight, and the leases are a sorted set by expiry', async () => {
			const params: TrafficParams = { ...P, window: { ceiling: 5_000, mode: 'fixed' } };
			const sizeOfOneAdmit = async (inFlight: number) => {
				const key = `flat-${inFlight}`;
				for (let i = 0; i < inFlight; i++) {
					const r = request();
					await redis.workerA.traffic(key, T0, params, (d, l) => admit(d, l, T0, r, params));
				}
				const before = redis.workerA.stats();
				const r = request();
				await redis.workerA.traffic(key, T0, params, (d, l) => admit(d, l, T0, r, params));
				const after = redis.workerA.stats();
				const leases = `${redis.workerA.keyFor(key)}:leases`;
				expect(await redis.admin.zcard(leases)).toBe(inFlight + 1);
				expect(await redis.admin.zcount(leases, T0 + params.leaseMs, T0 + params.leaseMs)).toBe(inFlight + 1);
				// named by the process's prefix (8 characters) and a number, not by the request's id
				const [newest] = await redis.admin.zrange(leases, -1, -1);
				expect(newest).not.toContain(r.id);
				expect(newest.length).toBeLessThanOrEqual(8 + String(inFlight).length);
				return { scripts: after.scripts - before.scripts, bytes: after.bytesSent + after.bytesReceived - before.bytesSent - before.bytesReceived };
			};
			const one = await sizeOfOneAdmit(1);
			const many = await sizeOfOneAdmit(1_000);
			expect(one.scripts).toBe(1);
			expect(many.scripts).toBe(1);
			// the numbers in the state (window starts, budget counts) grow by a few digits, nothing more
			expect(Math.abs(many.bytes - one.bytes)).toBeLessThan(32);
		});

		it('a batch of 30 steps costs a few bytes more than one step: leases added go as one range, those ended as short numbers', async () => {
			const params: TrafficParams = { ...P, window: { ceiling: 5_000, mode: 'fixed' } };
			const key = 'batch-bytes';
			const bytes = () => redis.workerA.stats().bytesSent + redis.workerA.stats().bytesReceived;
			// one step alone; then 31 at once: the first of them goes alone, the 30 asked while its script runs go together in the next
			const burst = async <T>(steps: Array<() => Promise<T>>): Promise<{ results: T[]; single: number; batch: number }> => {
				let start = bytes();
				const alone = await steps[0]();
				const single = bytes() - start;
				start = bytes();
				const scripts = redis.workerA.stats().scripts;
				const results = await Promise.all(steps.slice(1).map((step) => step()));
				expect(redis.workerA.stats().scripts - scripts).toBe(2);
				return { results: [alone, ...results], single, batch: bytes() - start - single };
			};
			await call(redis.workerA, key, T0);
			const requests = Array.from({ length: 32 }, () => request());
			const admitted = await burst(requests.map((r) => () => redis.workerA.traffic(key, T0, params, (d, l) => admit(d, l, T0, r, params))));
			const leases = admitted.results.map((a) => (a.go ? a.lease : undefined)).filter((lease) => lease !== undefined);
			expect(leases).toHaveLength(32);
			expect(await redis.admin.zcard(`${redis.workerA.keyFor(key)}:leases`)).toBe(32);
			const completed = await burst(leases.map((lease) => () => redis.workerA.traffic(key, T0 + 1, params, (d, l) => complete(d, l, T0 + 1, lease, OK, params))));
			expect(await redis.admin.zcard(`${redis.workerA.keyFor(key)}:leases`)).toBe(0);
			// each request's own name (and end) cost 8 to 15 bytes a step more before: 433 bytes for these 30 admissions, 243 for their reports
			expect(admitted.batch - admitted.single).toBeLessThan(64);
			expect(completed.batch - completed.single).toBeLessThan(64 + 30 * 3);
		});

		it('the largest batch allowed (1,000 steps) adds and ends its leases in one script each', async () => {
			const big = new RedisStateStore(connection, { keyPrefix: prefix, maxBatch: 1_000 });
			const params: TrafficParams = { ...P, window: { ceiling: 5_000, mode: 'fixed' } };
			try {
				await call(big, 'big-batch', T0);
				const scripts = big.stats().scripts;
				const admissions = await Promise.all(Array.from({ length: 1_001 }, () => request()).map((r) => big.traffic('big-batch', T0, params, (d, l) => admit(d, l, T0, r, params))));
				expect(big.stats().scripts - scripts).toBe(2);
				expect(await redis.admin.zcard(`${big.keyFor('big-batch')}:leases`)).toBe(1_001);
				await Promise.all(admissions.map((a) => (a.go ? big.traffic('big-batch', T0 + 1, params, (d, l) => complete(d, l, T0 + 1, a.lease, OK, params)) : undefined)));
				expect(big.stats().scripts - scripts).toBe(4);
				expect(await redis.admin.zcard(`${big.keyFor('big-batch')}:leases`)).toBe(0);
			} finally {
				await big.close();
			}
		});

		it('steps queued while a script runs go in one script; a worker that raced costs one more round trip, not a retry per step', async () => {
			const before = redis.workerA.stats();
			await Promise.all(Array.from({ length: 100 }, () => call(redis.workerA, 'batched', T0)));
			const after = redis.workerA.stats();
			expect(after.steps - before.steps).toBe(200);
			expect(after.scripts - before.scripts).toBeLessThan(20);
		});

	});

	describe('two workers share one controller', () => {
		it('first attempts counted by one worker widen the budget of the other; retries of both take from one budget', async () => {
			for (let i = 0; i < 100; i++) await call(redis.workerA, 'shared', T0);
			expect(await firsts(redis.workerB, 'shared', T0 + 1)).toBe(101);
			let granted = 0;
			for (let i = 0; i < 60; i++) if ((await call(i % 2 ? redis.workerA : redis.workerB, 'shared', T0 + 2, OK, true)).go) granted++;
			expect(granted).toBe(50); // floor(0.1 * 101) + 40
			expect(await call(redis.workerA, 'shared', T0 + 3, OK, true)).toMatchObject({ go: false, reason: 'budget' });
		});

		it('an API held by one worker is held on the other; a probe on either releases it', async () => {
			await takeDown(redis.workerA, 'down', T0);
			expect(await call(redis.workerB, 'down', T0 + 500)).toMatchObject({ go: false, reason: 'held', until: T0 + 1000 });
			const r = request();
			const probe = await redis.workerB.traffic('down', T0 + 1000, P, (d, l) => admit(d, l, T0 + 1000, r, P));
			expect(probe).toMatchObject({ go: true, probe: true });
			if (!probe.go) return;
			expect(await call(redis.workerA, 'down', T0 + 1001)).toMatchObject({ go: false, reason: 'held' });
			await redis.workerB.traffic('down', T0 + 1100, P, (d, l) => complete(d, l, T0 + 1100, probe.lease, OK, P));
			expect(await call(redis.workerA, 'down', T0 + 1200)).toMatchObject({ go: true, probe: false });
		});

		it("a Fair Share Key's own limits are one for both workers: Max Items in Flight Per Key 2 and Rate Limit Per Key 5 a second count both workers' requests", async () => {
			const both = keyParams({ maxInFlight: 2, rateLimitRps: 5 }, 60_000);
			const enter = (worker: RedisStateStore, at: number) => worker.traffic('api:key:tenant', at, both, (d, l) => admit(d, l, at, request(), both));
			const first = await enter(redis.workerA, T0);
			expect(first).toMatchObject({ go: true });
			// B's request: the key's pace is A's, 200 ms on
			expect(await enter(redis.workerB, T0 + 10)).toMatchObject({ go: false, reason: 'pace' });
			expect(await enter(redis.workerB, T0 + 400)).toMatchObject({ go: true });
			// two in flight, one on each worker: a third waits for room, whatever the pace says
			expect(await enter(redis.workerA, T0 + 1_000)).toMatchObject({ go: false, reason: 'window' });
			if (!first.go) return;
			await redis.workerA.traffic('api:key:tenant', T0 + 1_100, both, (d, l) => complete(d, l, T0 + 1_100, first.lease, { success: false, outageFailure: false, overload: false, throttled: false }, both));
			expect(await enter(redis.workerB, T0 + 1_200)).toMatchObject({ go: true });
		});

		it('a pause one worker heard of stops the other worker too', async () => {
			await call(redis.workerA, 'paused', T0, { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 5_000, header: 'retry-after' } });
			expect(await call(redis.workerB, 'paused', T0 + 10)).toMatchObject({ go: false, reason: 'paused', until: T0 + 5_000 });
		});
	});

	describe('atomic under concurrent steps from two clients', () => {
		/** Waves of 100 healthy requests, half on each worker, on one API whose state exists: what the stores did. */
		async function healthyWaves(key: string, params: TrafficParams, waves: number) {
			await call(redis.workerA, key, T0, OK, false, params);
			const before = [redis.workerA.stats(), redis.workerB.stats()];
			let inFlight = 0;
			let most = 0;
			const one = async (worker: RedisStateStore, i: number) => {
				const r = request();
				const at = T0 + 1 + i;
				const admission = await worker.traffic(key, at, params, (d, l) => admit(d, l, at, r, params));
				if (!admission.go) return false;
				most = Math.max(most, ++inFlight);
				await new Promise((resolve) => setImmediate(resolve));
				inFlight--;
				await worker.traffic(key, at, params, (d, l) => complete(d, l, at, admission.lease, OK, params));
				return true;
			};
			let sent = 0;
			for (let wave = 0; wave < waves; wave++) sent += (await Promise.all(Array.from({ length: 100 }, (_, i) => one(i % 2 ? redis.workerA : redis.workerB, i)))).filter(Boolean).length;
			const after = [redis.workerA.stats(), redis.workerB.stats()];
			const delta = (field: 'scripts' | 'merges' | 'lostCas') => after[0][field] + after[1][field] - before[0][field] - before[1][field];
			// the shared budget's first attempts, as Redis counts them (not a worker's view)
			const counts = await redis.admin.hgetall(`${redis.workerA.keyFor(key)}:counts`);
			const firstAttempts = Object.entries(counts).reduce((sum, [field, value]) => sum + (/^f\d+$/.test(field) ? Number(value) : 0), 0);
			return { sent, most, firstAttempts, scripts: delta('scripts'), merges: delta('merges'), lost: delta('lostCas') };
		}

		it('healthy requests of two workers at once add their counts: none lost, no race lost', async () => {
			const run = await healthyWaves('merged', { ...P, window: { ceiling: 1_000, mode: 'fixed' } }, 5);
			expect(run.sent).toBe(500);
			expect(run.firstAttempts).toBe(1 + 500);
			// the one race lost: worker B's first script, before it has seen the API's state
			expect(run.lost).toBeLessThanOrEqual(1);
			expect(run.merges).toBe(run.scripts - run.lost);
		});

		it('at the window\'s limit they still merge, and never exceed it: a race lost there is the count that decides', async () => {
			const run = await healthyWaves('merged-limit', { ...P, window: { ceiling: 50, mode: 'adaptive' } }, 5);
			expect(run.most).toBeLessThanOrEqual(50);
			// The window grew through merged successes: slow start adds one per success, so each wave
			// admits at least the window it starts with (11 after the first call, then 22, 44, 50, 50),
			// whatever the timing; more when answers free room within a wave (about 390 on an idle
			// machine, 295 in a loaded CI run, where a fixed 300 failed).
			expect(run.sent).toBeGreaterThanOrEqual(11 + 22 + 44 + 50 + 50);
			expect(run.firstAttempts).toBe(1 + run.sent);
			expect(run.merges / run.scripts).toBeGreaterThan(0.9);
		});

		it('1,000 concurrent retries (500 per worker) on one API grant exactly the floor (40)', async () => {
			const admissions = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? redis.workerA : redis.workerB).traffic('race', T0, P, (d, l) => admit(d, l, T0, request(true), P))));
			const granted = admissions.filter((a) => a.go);
			expect(granted).toHaveLength(40);
			expect(granted.map((a) => (a.go ? a.budget?.retries : 0)).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
		});

		it('1,000 concurrent requests to a new API on two workers: exactly its window (10) in flight', async () => {
			const params: TrafficParams = { ...P, window: { ceiling: 200, mode: 'adaptive' } };
			const admissions = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? redis.workerA : redis.workerB).traffic('window', T0, params, (d, l) => admit(d, l, T0, request(), params))));
			expect(admissions.filter((a) => a.go)).toHaveLength(10);
		});

		it('1,000 concurrent requests on two workers at the probe time: exactly one probe', async () => {
			await takeDown(redis.workerA, 'probe', T0);
			const admissions = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? redis.workerA : redis.workerB).traffic('probe', T0 + 1000, P, (d, l) => admit(d, l, T0 + 1000, request(), P))));
			expect(admissions.filter((a) => a.go)).toEqual([expect.objectContaining({ go: true, probe: true })]);
		});
	});

	describe('keys: rh:traffic:{<key>} (the state, a string) and :leases (a sorted set), one cluster slot, expiring once forgotten', () => {
		it('a state another tool left in the key, or garbage, is taken as none', async () => {
			await redis.admin.set(redis.workerA.keyFor('garbage'), '{"not":"ours"}');
			expect(await firsts(redis.workerA, 'garbage', T0)).toBe(1);
			await redis.admin.set(redis.workerA.keyFor('garbage2'), 'v1\nnot json');
			expect(await firsts(redis.workerB, 'garbage2', T0)).toBe(1);
		});

		it('every key it writes starts with rh:traffic: by default', async () => {
			const store = new RedisStateStore(connection);
			const key = `ttl-default-${process.pid}-${Date.now()}`;
			try {
				await call(store, key, Date.now());
				expect(await redis.admin.exists(`rh:traffic:{${key}}`)).toBe(1);
			} finally {
				await redis.admin.del(`rh:traffic:{${key}}`, `rh:traffic:{${key}}:leases`);
				await store.close();
			}
		});
	});

	it('runs the script with EVAL when Redis has lost it (NOSCRIPT after a restart or SCRIPT FLUSH)', async () => {
		await call(redis.workerA, 'flush', T0);
		await redis.admin.script('FLUSH');
		expect(await firsts(redis.workerA, 'flush', T0)).toBe(2);
		expect(await firsts(redis.workerB, 'flush', T0)).toBe(3);
	});

	it('credential test: PING succeeds', async () => {
		const data = { host: connection.host, port: connection.port, database: connection.database, user: connection.user ?? '', password: connection.password ?? '', ssl: connection.tls };
		expect(await testRedisCredential.call({} as never, { id: '1', name: 'r', type: 'resilientHttpRedis', data })).toEqual({ status: 'OK', message: 'Connection successful' });
	});

	it('the process-wide store with fallback answers from Redis', async () => {
		const warns: string[] = [];
		const store = getRedisStateStoreWithFallback(connection, { warn: (m) => warns.push(m) }, { keyPrefix: prefix });
		expect(await firsts(store, 'process', T0)).toBe(1);
		expect(await firsts(redis.workerB, 'process', T0)).toBe(2);
		expect(store.lastSource()).toBe('redis');
		expect(warns).toEqual([]);
	});

});

describeCluster(clusterTitle('RedisStateStore against a Redis Cluster'), () => {
	const cluster = useClusterWorkers();
	const { connection } = cluster;

	it('one API\'s keys share a slot (the script touches both), for APIs on every node', async () => {
		const node = connection.clusterNodes![0];
		const admin = new Redis({ host: node.host, port: node.port, lazyConnect: true });
		await admin.connect();
		try {
			const slots = new Set<number>();
			for (let i = 0; i < 20; i++) {
				const key = cluster.workerA.keyFor(`api:${i}`);
				const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', key));
				expect(Number(await admin.call('CLUSTER', 'KEYSLOT', `${key}:leases`))).toBe(slot);
				slots.add(slot);
				expect(await call(cluster.workerA, `api:${i}`, T0)).toMatchObject({ go: true });
			}
			expect(slots.size).toBeGreaterThan(1);
		} finally {
			await admin.quit();
		}
	});

	it('two workers share one controller: a pause heard by one stops the other; the window is one', async () => {
		await call(cluster.workerA, 'cluster-paused', T0, { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 5_000, header: 'retry-after' } });
		expect(await call(cluster.workerB, 'cluster-paused', T0 + 10)).toMatchObject({ go: false, reason: 'paused', until: T0 + 5_000 });
		const params: TrafficParams = { ...P, window: { ceiling: 200, mode: 'adaptive' } };
		const admissions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? cluster.workerA : cluster.workerB).traffic('cluster-window', T0, params, (d, l) => admit(d, l, T0, request(), params))));
		expect(admissions.filter((a) => a.go)).toHaveLength(10);
	});

});
