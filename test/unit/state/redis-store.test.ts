/**
 * The Redis state store (queue mode) and the fallback to memory.
 *
 * Parts that need no Redis always run: FallbackStateStore on a fake primary, the credential's
 * parsing, lazy loading of ioredis, failing fast on an unreachable Redis.
 *
 * The rest runs against a real Redis server named by RH_TEST_REDIS_URL (redis://127.0.0.1:PORT),
 * e.g. `export "$(bash scripts/redis-test-server.sh start)"`. Without it those tests are reported
 * as skipped, with the reason in their name, never as passed. The outage test starts (and kills)
 * a Redis server of its own: it needs the `redis-server` binary (RH_TEST_REDIS_SERVER to name
 * another), and is skipped with the reason otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { allowCall, BREAKER_DEFAULTS, breakerForgetAt, recordOutcome, type BreakerData } from '../../../nodes/shared/state/breaker';
import { BUDGET_DEFAULTS, budgetForgetAt, recordFirst, tryAcquire, type BudgetData } from '../../../nodes/shared/state/budget';
import { FALLBACK_STORE_DEFAULTS, FallbackStateStore, getRedisStateStoreWithFallback } from '../../../nodes/shared/state/fallback-store';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { connectionId, redisConnectionFromCredential, RedisStoreError, type RedisConnection } from '../../../nodes/shared/state/redis-connection';
import { testRedisCredential } from '../../../nodes/shared/state/redis-credential-test';
import { closeRedisStateStores, decodeNumber, encodeNumber, getRedisStateStore, REDIS_STORE_DEFAULTS, RedisStateStore } from '../../../nodes/shared/state/redis-store';
import type { BreakerChange, BreakerParams, BreakerVerdict, BudgetParams, BudgetSnapshot, BudgetVerdict, StateStore } from '../../../nodes/shared/state/types';
import { FC_OPTIONS, T0 } from './fc-options';

const REDIS_URL = process.env.RH_TEST_REDIS_URL;
const NO_REDIS = 'skipped: RH_TEST_REDIS_URL not set, no Redis server (export "$(bash scripts/redis-test-server.sh start)")';
const REDIS_SERVER_BIN = process.env.RH_TEST_REDIS_SERVER ?? 'redis-server';
const HAVE_REDIS_SERVER_BIN = spawnSync(REDIS_SERVER_BIN, ['--version'], { stdio: 'ignore' }).status === 0;

if (!REDIS_URL) console.warn(`Redis store tests against a real Redis are ${NO_REDIS}`);

/** A port nobody listens on: connecting is refused at once. */
const UNREACHABLE: RedisConnection = { host: '127.0.0.1', port: 1, database: 0, tls: false };

function connectionFromUrl(url: string): RedisConnection {
	const u = new URL(url);
	const connection: RedisConnection = {
		host: u.hostname,
		port: u.port ? Number(u.port) : 6379,
		database: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
		tls: u.protocol === 'rediss:',
	};
	if (u.username) connection.user = decodeURIComponent(u.username);
	if (u.password) connection.password = decodeURIComponent(u.password);
	return connection;
}

async function openBreaker(store: StateStore, key: string, now: number, params: BreakerParams = BREAKER_DEFAULTS): Promise<void> {
	for (let i = 0; i < params.consecutiveFailures; i++) {
		await store.breakerAllows(key, now, params);
		await store.breakerRecord(key, now, false, params);
	}
}

/** A primary that answers like a memory store, fails, or never answers, as told. */
class FakePrimary implements StateStore {
	readonly kind = 'redis' as const;
	mode: 'ok' | 'fail' | 'hang' = 'ok';
	calls = 0;
	readonly inner = new MemoryStateStore();

	private async gate(): Promise<void> {
		this.calls++;
		if (this.mode === 'fail') throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
		if (this.mode === 'hang') await new Promise(() => undefined);
	}

	async recordFirstAttempt(key: string, nowMs: number, params: BudgetParams): Promise<BudgetSnapshot> {
		await this.gate();
		return this.inner.recordFirstAttempt(key, nowMs, params);
	}

	async tryAcquireRetry(key: string, nowMs: number, params: BudgetParams): Promise<BudgetVerdict> {
		await this.gate();
		return this.inner.tryAcquireRetry(key, nowMs, params);
	}

	async breakerAllows(key: string, nowMs: number, params: BreakerParams): Promise<BreakerVerdict> {
		await this.gate();
		return this.inner.breakerAllows(key, nowMs, params);
	}

	async breakerRecord(key: string, nowMs: number, success: boolean, params: BreakerParams): Promise<BreakerChange | undefined> {
		await this.gate();
		return this.inner.breakerRecord(key, nowMs, success, params);
	}
}

function fallbackOn(primary: StateStore, options: { cooldownMs?: number; timeoutMs?: number } = {}) {
	const warns: string[] = [];
	const infos: string[] = [];
	const memory = new MemoryStateStore();
	const store = new FallbackStateStore(primary, memory, { warn: (m) => warns.push(m), info: (m) => infos.push(m), ...options });
	return { store, memory, warns, infos };
}

describe('FallbackStateStore (fake primary, no Redis needed)', () => {
	it('answers from the primary while it works: its kind, no warning', async () => {
		const primary = new FakePrimary();
		const { store, memory, warns } = fallbackOn(primary);
		expect(store.kind).toBe('redis');
		expect(await store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 1 });
		expect(await store.tryAcquireRetry('k', T0, BUDGET_DEFAULTS)).toMatchObject({ allowed: true, snapshot: { retries: 1 } });
		expect(await store.breakerAllows('k', T0, BREAKER_DEFAULTS)).toMatchObject({ allowed: true });
		expect(await store.breakerRecord('k', T0, false, BREAKER_DEFAULTS)).toBeUndefined();
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
		// 1,000 calls at once, then 100 in a row, all within the cooldown
		const concurrent = await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => (i % 2 ? store.tryAcquireRetry('k', T0, BUDGET_DEFAULTS) : store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS))));
		expect(concurrent.every((r) => r.status === 'fulfilled')).toBe(true);
		const callsAtOutage = primary.calls;
		for (let i = 0; i < 100; i++) await store.breakerRecord('b', T0 + i * 100, false, BREAKER_DEFAULTS);
		expect(primary.calls).toBe(callsAtOutage);
		expect(store.lastSource()).toBe('memory-fallback');
		expect(store.degraded).toBe(true);
		expect(warns).toHaveLength(1);
		expect(warns[0]).toMatch(/redis state store failed \(connect ECONNREFUSED 127\.0\.0\.1:6379\); using this process's memory .*\(next try in 30 s\)\. Requests are not affected\./);
		expect(infos).toEqual([]);
		// the answers are the memory store's: 500 first attempts, 40 + 50 retries granted
		expect(await memory.tryAcquireRetry('k', T0, BUDGET_DEFAULTS)).toMatchObject({ allowed: false, snapshot: { firstAttempts: 500, retries: 90 } });
		expect(await store.breakerAllows('b', T0 + 10_000, BREAKER_DEFAULTS)).toMatchObject({ allowed: false, snapshot: { state: 'open' } });

		// the cooldown is over: one call tries the primary; still down: no new warning, another cooldown
		const beforeProbe = primary.calls;
		await store.recordFirstAttempt('k', T0 + FALLBACK_STORE_DEFAULTS.cooldownMs, BUDGET_DEFAULTS);
		expect(primary.calls).toBe(beforeProbe + 1);
		await store.recordFirstAttempt('k', T0 + FALLBACK_STORE_DEFAULTS.cooldownMs + 29_999, BUDGET_DEFAULTS);
		expect(primary.calls).toBe(beforeProbe + 1);
		expect(warns).toHaveLength(1);

		// back: the next probe answers from the primary, which logs once (info) and stays in use
		primary.mode = 'ok';
		const back = T0 + 2 * FALLBACK_STORE_DEFAULTS.cooldownMs;
		expect(await store.recordFirstAttempt('fresh', back, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 1 });
		expect(store.lastSource()).toBe('redis');
		expect(store.degraded).toBe(false);
		expect(infos).toHaveLength(1);
		expect(infos[0]).toMatch(/redis state store answers again/);
		await store.recordFirstAttempt('fresh', back + 1, BUDGET_DEFAULTS);
		expect(primary.inner.size).toBe(1);

		// a second outage warns again, once
		primary.mode = 'fail';
		await Promise.all(Array.from({ length: 50 }, () => store.recordFirstAttempt('k', back + 2, BUDGET_DEFAULTS)));
		expect(warns).toHaveLength(2);
		expect(store.outageCount).toBe(2);
	});

	it('after the cooldown, calls made while the probe is in flight stay on memory: one probe, not a burst', async () => {
		const primary = new FakePrimary();
		const { store } = fallbackOn(primary, { timeoutMs: 50 });
		primary.mode = 'fail';
		await store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS);
		primary.mode = 'hang';
		const before = primary.calls;
		const verdicts = await Promise.all(Array.from({ length: 100 }, () => store.tryAcquireRetry('k', T0 + 30_000, BUDGET_DEFAULTS)));
		expect(primary.calls).toBe(before + 1);
		expect(verdicts.filter((v) => v.allowed)).toHaveLength(40);
	});

	it('a primary that does not answer in time counts as failed (timeout)', async () => {
		const primary = new FakePrimary();
		primary.mode = 'hang';
		const { store, warns } = fallbackOn(primary, { timeoutMs: 30 });
		const started = Date.now();
		expect(await store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 1 });
		expect(Date.now() - started).toBeLessThan(1_000);
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
		await expect(store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS)).resolves.toMatchObject({ firstAttempts: 1 });
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

	it('tells connections apart without keeping the password in the id', () => {
		const a = connectionId({ ...UNREACHABLE, password: 'one' });
		expect(a).not.toContain('one');
		expect(a).not.toBe(connectionId({ ...UNREACHABLE, password: 'two' }));
		expect(a).not.toBe(connectionId(UNREACHABLE));
		expect(connectionId({ ...UNREACHABLE, user: 'u' })).not.toBe(connectionId(UNREACHABLE));
	});

	it('encodes numbers for the scripts exactly, NaN and infinities by name', () => {
		for (const n of [0, 1, 0.1, 0.29, 1e-9, 1 / 3, 2 ** 53 + 2, 4e12 + 0.25, 5e-324, Number.MAX_VALUE, -7.5]) {
			expect(decodeNumber(encodeNumber(n))).toBe(n);
		}
		expect(decodeNumber(encodeNumber(NaN))).toBeNaN();
		expect(decodeNumber(encodeNumber(Infinity))).toBe(Infinity);
		expect(decodeNumber(encodeNumber(-Infinity))).toBe(-Infinity);
		// what Lua's %.17g gives back
		expect(decodeNumber('0.10000000000000001')).toBe(0.1);
		expect(decodeNumber('1768478400000')).toBe(T0);
		expect(() => decodeNumber('')).toThrow(RedisStoreError);
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
			await memory.getMemoryStateStore().recordFirstAttempt('k', T0, BUDGET_DEFAULTS);
			const store = new redis.RedisStateStore(UNREACHABLE);
			new fallback.FallbackStateStore(store, memory.getMemoryStateStore(), { warn: () => undefined });
			expect(loads).toBe(0);
			await expect(store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS)).rejects.toThrow(/ECONNREFUSED/);
			expect(loads).toBe(1);
			await store.close();
		});
	});

	it('fails fast on an unreachable Redis, and the fallback answers from memory with one warning', async () => {
		const redis = new RedisStateStore(UNREACHABLE);
		const { store, warns } = fallbackOn(redis);
		const started = Date.now();
		const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => store.recordFirstAttempt(`k${i % 3}`, T0, BUDGET_DEFAULTS)));
		expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
		expect(Date.now() - started).toBeLessThan(1_500);
		expect(store.lastSource()).toBe('memory-fallback');
		expect(warns).toHaveLength(1);
		expect(warns[0]).toMatch(/Redis 127\.0\.0\.1:1: connect ECONNREFUSED/);
		// while ioredis is reconnecting, a call fails at once rather than waiting
		await new Promise((resolve) => setTimeout(resolve, 50));
		const again = Date.now();
		await expect(redis.tryAcquireRetry('k', T0, BUDGET_DEFAULTS)).rejects.toThrow(RedisStoreError);
		expect(Date.now() - again).toBeLessThan(1_100);
		await redis.close();
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
		expect(new RedisStateStore(UNREACHABLE).keyFor('budget', 'api.example.com')).toBe('rh:budget:api.example.com');
	});
});

// ---------------------------------------------------------------------------------------------
// Against a real Redis server

const describeRedis = REDIS_URL ? describe : describe.skip;
const redisTitle = REDIS_URL ? 'RedisStateStore against a real Redis server' : `RedisStateStore against a real Redis server (${NO_REDIS})`;

describeRedis(redisTitle, () => {
	const connection = connectionFromUrl(REDIS_URL ?? 'redis://127.0.0.1:6379');
	/** This run's keys, so that runs sharing a server do not meet. */
	const prefix = `rh:test-${process.pid}-${Date.now().toString(36)}:`;
	let admin: Redis;
	/** Two workers: two stores, two clients, one Redis. */
	let workerA: RedisStateStore;
	let workerB: RedisStateStore;

	beforeAll(async () => {
		admin = new Redis({ host: connection.host, port: connection.port, db: connection.database, username: connection.user, password: connection.password, lazyConnect: true });
		await admin.connect();
		workerA = new RedisStateStore(connection, { keyPrefix: prefix });
		workerB = new RedisStateStore(connection, { keyPrefix: prefix });
	});

	afterAll(async () => {
		let cursor = '0';
		do {
			const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
			if (keys.length > 0) await admin.del(...keys);
			cursor = next;
		} while (cursor !== '0');
		await Promise.all([workerA.close(), workerB.close(), closeRedisStateStores()]);
		await admin.quit();
	});

	it('is the redis kind and keeps budgets and breakers of different keys apart', async () => {
		expect(workerA.kind).toBe('redis');
		await workerA.recordFirstAttempt('a', T0, BUDGET_DEFAULTS);
		await workerA.recordFirstAttempt('a', T0, BUDGET_DEFAULTS);
		expect(await workerA.recordFirstAttempt('b', T0, BUDGET_DEFAULTS)).toEqual({ firstAttempts: 1, retries: 0, available: 40, windowMs: 60_000 });
		await openBreaker(workerA, 'a', T0);
		expect(await workerA.breakerAllows('a', T0, BREAKER_DEFAULTS)).toEqual({ allowed: false, snapshot: { state: 'open', consecutiveFailures: 5, openings: 1, openUntil: T0 + 30_000 } });
		expect(await workerA.breakerAllows('b', T0, BREAKER_DEFAULTS)).toEqual({ allowed: true, probe: false, snapshot: { state: 'closed', consecutiveFailures: 0, openings: 0 } });
		expect(await workerA.tryAcquireRetry('a', T0, BUDGET_DEFAULTS)).toMatchObject({ allowed: true, snapshot: { firstAttempts: 2 } });
	});

	describe('answers exactly as the pure core (the Lua scripts port budget.ts and breaker.ts)', () => {
		type Op = { kind: 'advance'; ms: number } | { kind: 'first' | 'retry' | 'allow' | 'record'; key: number; worker: number; params: number; success: boolean };

		// Awkward values on purpose: 0.29 (floor(0.29 * 100) is 28 in doubles), fractional windows and
		// breaks, a 1 ms window, NaN and infinities (the core's guards), huge ratios.
		const BUDGETS: BudgetParams[] = [
			{ ratio: 0.2, minRetriesPerWindow: 2, windowMs: 1_000 },
			{ ratio: 0.29, minRetriesPerWindow: 0, windowMs: 61 },
			{ ratio: 0.1, minRetriesPerWindow: 2.5, windowMs: 1_000.5 },
			{ ratio: 1.5, minRetriesPerWindow: 1, windowMs: 7 },
			{ ratio: NaN, minRetriesPerWindow: 3, windowMs: NaN },
			{ ratio: Infinity, minRetriesPerWindow: Infinity, windowMs: Infinity },
			{ ratio: -1, minRetriesPerWindow: -2, windowMs: 0.5 },
		];
		const BREAKERS: BreakerParams[] = [
			{ consecutiveFailures: 3, failureRatio: 0.5, minimumCalls: 4, windowMs: 1_000, breakMs: 500, maxBreakMs: 2_000 },
			{ consecutiveFailures: 0, failureRatio: 0.3, minimumCalls: 2, windowMs: 777.7, breakMs: 123.4, maxBreakMs: 1_000 },
			{ consecutiveFailures: 2, failureRatio: 0, minimumCalls: 0, windowMs: 61, breakMs: 100, maxBreakMs: 100_000 },
			{ consecutiveFailures: NaN, failureRatio: Infinity, minimumCalls: NaN, windowMs: Infinity, breakMs: NaN, maxBreakMs: Infinity },
			{ consecutiveFailures: 1, failureRatio: 1 / 3, minimumCalls: 3, windowMs: 1, breakMs: 0.3, maxBreakMs: 7.7 },
		];

		const opArb = (maxKey: number, paramsFixed: boolean): fc.Arbitrary<Op> => {
			const key = fc.integer({ min: 0, max: maxKey });
			const worker = fc.integer({ min: 0, max: 1 });
			const params = paramsFixed ? fc.constant(-1) : fc.nat();
			return fc.oneof(
				fc.integer({ min: 0, max: 300 }).map((ms): Op => ({ kind: 'advance', ms })),
				fc.integer({ min: 0, max: 5_000 }).map((ms): Op => ({ kind: 'advance', ms })),
				fc.integer({ min: 0, max: 1_000 }).map((ms): Op => ({ kind: 'advance', ms: ms + 0.25 })),
				fc.record({ kind: fc.constantFrom('first' as const, 'retry' as const, 'allow' as const, 'record' as const), key, worker, params, success: fc.boolean() }),
			);
		};

		/** Fewer runs than the pure tests (each step is a round trip to Redis), unless FC_RUNS says otherwise. */
		const redisRuns = (n: number): number => (process.env.FC_RUNS ? FC_OPTIONS.numRuns : n);
		let run = 0;
		/** Each property run on keys of its own. */
		const keyOf = (n: number): string => `run${run}-host${n}`;

		it('two workers on one Redis give the answers one pure core gives (fixed parameters, time moving on)', async () => {
			await fc.assert(
				fc.asyncProperty(
					fc.array(opArb(3, true), { maxLength: 150, size: 'large' }),
					fc.nat({ max: BUDGETS.length - 1 }),
					fc.nat({ max: BREAKERS.length - 1 }),
					fc.integer({ min: 0, max: 4_000_000_000_000 }),
					async (ops, b, k, start) => {
						run++;
						const budget = BUDGETS[b];
						const breaker = BREAKERS[k];
						const workers = [workerA, workerB];
						const memory = new MemoryStateStore();
						const budgets = new Map<number, BudgetData>();
						const breakers = new Map<number, BreakerData>();
						let now = start;
						for (const o of ops) {
							if (o.kind === 'advance') {
								now += o.ms;
								continue;
							}
							const store = workers[o.worker];
							const key = keyOf(o.key);
							if (o.kind === 'first') {
								const step = recordFirst(budgets.get(o.key), now, budget);
								budgets.set(o.key, step.data);
								expect(await store.recordFirstAttempt(key, now, budget)).toEqual(step.result);
								expect(await memory.recordFirstAttempt(key, now, budget)).toEqual(step.result);
							} else if (o.kind === 'retry') {
								const step = tryAcquire(budgets.get(o.key), now, budget);
								budgets.set(o.key, step.data);
								expect(await store.tryAcquireRetry(key, now, budget)).toEqual(step.result);
								expect(await memory.tryAcquireRetry(key, now, budget)).toEqual(step.result);
							} else if (o.kind === 'allow') {
								const step = allowCall(breakers.get(o.key), now, breaker);
								breakers.set(o.key, step.data);
								expect(await store.breakerAllows(key, now, breaker)).toEqual(step.result);
								expect(await memory.breakerAllows(key, now, breaker)).toEqual(step.result);
							} else {
								const step = recordOutcome(breakers.get(o.key), now, o.success, breaker);
								breakers.set(o.key, step.data);
								expect(await store.breakerRecord(key, now, o.success, breaker)).toEqual(step.result);
								expect(await memory.breakerRecord(key, now, o.success, breaker)).toEqual(step.result);
							}
						}
					},
				),
				{ ...FC_OPTIONS, numRuns: redisRuns(100) },
			);
		});

		it('gives the memory store\'s answers when the parameters change between calls', async () => {
			await fc.assert(
				fc.asyncProperty(fc.array(opArb(2, false), { maxLength: 150, size: 'large' }), fc.integer({ min: 0, max: 4_000_000_000_000 }), async (ops, start) => {
					run++;
					const workers = [workerA, workerB];
					const memory = new MemoryStateStore();
					let now = start;
					for (const o of ops) {
						if (o.kind === 'advance') {
							now += o.ms;
							continue;
						}
						const store = workers[o.worker];
						const key = keyOf(o.key);
						const budget = BUDGETS[o.params % BUDGETS.length];
						const breaker = BREAKERS[o.params % BREAKERS.length];
						if (o.kind === 'first') expect(await store.recordFirstAttempt(key, now, budget)).toEqual(await memory.recordFirstAttempt(key, now, budget));
						else if (o.kind === 'retry') expect(await store.tryAcquireRetry(key, now, budget)).toEqual(await memory.tryAcquireRetry(key, now, budget));
						else if (o.kind === 'allow') expect(await store.breakerAllows(key, now, breaker)).toEqual(await memory.breakerAllows(key, now, breaker));
						else expect(await store.breakerRecord(key, now, o.success, breaker)).toEqual(await memory.breakerRecord(key, now, o.success, breaker));
					}
				}),
				{ ...FC_OPTIONS, numRuns: redisRuns(60) },
			);
		});

		it('gives the memory store\'s answers when clocks step back (one budget or one breaker; workers\' clocks differ a little)', async () => {
			// One state per run: the memory store's sweep drops *another* key that is forgotten, which a
			// later call with a clock stepped back would still find in Redis (until it expires) - the
			// same state either way for any clock at or after its forget-at.
			const stepFor = (kinds: ('first' | 'retry' | 'allow' | 'record')[]): fc.Arbitrary<Op> =>
				fc.oneof(
					fc.integer({ min: -2_000, max: 2_000 }).map((ms): Op => ({ kind: 'advance', ms })),
					fc.record({ kind: fc.constantFrom(...kinds), key: fc.constant(0), worker: fc.integer({ min: 0, max: 1 }), params: fc.nat(), success: fc.boolean() }),
				);
			const opsArb = fc.oneof(
				fc.array(stepFor(['first', 'retry']), { maxLength: 150, size: 'large' }),
				fc.array(stepFor(['allow', 'record']), { maxLength: 150, size: 'large' }),
			);
			await fc.assert(
				fc.asyncProperty(opsArb, async (ops) => {
					run++;
					const workers = [workerA, workerB];
					const memory = new MemoryStateStore();
					let now = T0;
					for (const o of ops) {
						if (o.kind === 'advance') {
							now += o.ms;
							continue;
						}
						const store = workers[o.worker];
						const key = keyOf(0);
						const budget = BUDGETS[o.params % 4];
						const breaker = BREAKERS[o.params % 3];
						if (o.kind === 'first') expect(await store.recordFirstAttempt(key, now, budget)).toEqual(await memory.recordFirstAttempt(key, now, budget));
						else if (o.kind === 'retry') expect(await store.tryAcquireRetry(key, now, budget)).toEqual(await memory.tryAcquireRetry(key, now, budget));
						else if (o.kind === 'allow') expect(await store.breakerAllows(key, now, breaker)).toEqual(await memory.breakerAllows(key, now, breaker));
						else expect(await store.breakerRecord(key, now, o.success, breaker)).toEqual(await memory.breakerRecord(key, now, o.success, breaker));
					}
				}),
				{ ...FC_OPTIONS, numRuns: redisRuns(60) },
			);
		});
	});

	describe('two workers share one budget and one breaker', () => {
		it('first attempts counted by one worker widen the budget of the other', async () => {
			for (let i = 0; i < 100; i++) await workerA.recordFirstAttempt('shared', T0, BUDGET_DEFAULTS);
			expect(await workerB.recordFirstAttempt('shared', T0 + 1, BUDGET_DEFAULTS)).toEqual({ firstAttempts: 101, retries: 0, available: 50, windowMs: 60_000 });
			// retries from both take from one budget: floor(0.1 * 101) + 40 = 50 in all
			let granted = 0;
			for (let i = 0; i < 60; i++) if ((await (i % 2 ? workerA : workerB).tryAcquireRetry('shared', T0 + 2, BUDGET_DEFAULTS)).allowed) granted++;
			expect(granted).toBe(50);
			expect(await workerA.tryAcquireRetry('shared', T0 + 3, BUDGET_DEFAULTS)).toEqual({ allowed: false, snapshot: { firstAttempts: 101, retries: 50, available: 0, windowMs: 60_000 } });
		});

		it('a breaker opened by one worker refuses calls on the other; a success reported by either closes it', async () => {
			await openBreaker(workerA, 'down', T0);
			expect(await workerB.breakerAllows('down', T0 + 1_000, BREAKER_DEFAULTS)).toMatchObject({ allowed: false, snapshot: { state: 'open', openUntil: T0 + 30_000 } });
			expect(await workerB.breakerAllows('down', T0 + 30_000, BREAKER_DEFAULTS)).toMatchObject({ allowed: true, probe: true });
			expect(await workerA.breakerAllows('down', T0 + 30_001, BREAKER_DEFAULTS)).toMatchObject({ allowed: false, snapshot: { state: 'half-open' } });
			expect(await workerB.breakerRecord('down', T0 + 30_100, true, BREAKER_DEFAULTS)).toEqual({
				from: 'half-open',
				to: 'closed',
				snapshot: { state: 'closed', consecutiveFailures: 0, openings: 0 },
			});
			expect(await workerA.breakerAllows('down', T0 + 30_200, BREAKER_DEFAULTS)).toMatchObject({ allowed: true, probe: false });
		});
	});

	describe('atomic under concurrent calls from two clients', () => {
		it('1,000 concurrent retries (500 per worker) on one key grant exactly the floor (40), each seeing a distinct count', async () => {
			const verdicts = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? workerA : workerB).tryAcquireRetry('race', T0, BUDGET_DEFAULTS)));
			const granted = verdicts.filter((v) => v.allowed);
			expect(granted).toHaveLength(40);
			expect(granted.map((v) => v.snapshot.retries).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
			expect(await workerA.tryAcquireRetry('race', T0, BUDGET_DEFAULTS)).toEqual({ allowed: false, snapshot: { firstAttempts: 0, retries: 40, available: 0, windowMs: 60_000 } });
		});

		it('1,000 concurrent retries after 200 concurrent first attempts (both workers) grant exactly 20 + 40', async () => {
			await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? workerA : workerB).recordFirstAttempt('race2', T0, BUDGET_DEFAULTS)));
			const verdicts = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 3 ? workerA : workerB).tryAcquireRetry('race2', T0 + 1, BUDGET_DEFAULTS)));
			expect(verdicts.filter((v) => v.allowed)).toHaveLength(60);
		});

		it('1,000 concurrent callers on two workers after a break: exactly one probe', async () => {
			await openBreaker(workerA, 'probe', T0);
			const verdicts = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? workerA : workerB).breakerAllows('probe', T0 + 30_000, BREAKER_DEFAULTS)));
			expect(verdicts.filter((v) => v.allowed)).toEqual([{ allowed: true, probe: true, snapshot: expect.objectContaining({ state: 'half-open' }) }]);
		});
	});

	describe('keys: rh:-prefixed hashes that expire once their state is forgotten', () => {
		it('a budget key expires a window after its newest bucket (plus the grace)', async () => {
			const now = Date.now();
			await workerA.recordFirstAttempt('ttl', now, BUDGET_DEFAULTS);
			const key = workerA.keyFor('budget', 'ttl');
			expect(key).toBe(`${prefix}budget:ttl`);
			expect(await admin.type(key)).toBe('hash');
			const forgetAt = budgetForgetAt(recordFirst(undefined, now, BUDGET_DEFAULTS).data);
			const ttl = await admin.pttl(key);
			const expected = forgetAt - now + REDIS_STORE_DEFAULTS.ttlGraceMs;
			expect(ttl).toBeLessThanOrEqual(expected);
			expect(ttl).toBeGreaterThan(expected - 1_000);
			const hash = await admin.hgetall(key);
			expect(hash).toEqual({ w: '60000', b: `${Math.floor((now * 10) / 60_000)},1,0`, f: String(forgetAt) });
		});

		it('an open breaker\'s key lives through its break and its memory; a healthy host leaves no key', async () => {
			const now = Date.now();
			await openBreaker(workerA, 'ttl-down', now);
			const key = workerA.keyFor('breaker', 'ttl-down');
			const data: BreakerData = { state: 'open', consecutiveFailures: 5, openings: 1, openUntil: now + 30_000, windowMs: 60_000, buckets: [] };
			const expected = breakerForgetAt(data, BREAKER_DEFAULTS) - now + REDIS_STORE_DEFAULTS.ttlGraceMs;
			expect(expected).toBe(330_000 + 10_000);
			const ttl = await admin.pttl(key);
			expect(ttl).toBeLessThanOrEqual(expected);
			expect(ttl).toBeGreaterThan(expected - 1_000);
			expect(await admin.hgetall(key)).toMatchObject({ s: 'open', c: '5', o: '1', u: String(now + 30_000), p: '' });
			// asking about a healthy host writes nothing
			for (let i = 0; i < 10; i++) await workerA.breakerAllows(`healthy-${i}`, now, BREAKER_DEFAULTS);
			expect(await admin.exists(...Array.from({ length: 10 }, (_, i) => workerA.keyFor('breaker', `healthy-${i}`)))).toBe(0);
			// a refused retry on a budget that holds nothing leaves no key either
			expect(await workerA.tryAcquireRetry('nothing', now, { ratio: 0, minRetriesPerWindow: 0, windowMs: 1_000 })).toMatchObject({ allowed: false });
			expect(await admin.exists(workerA.keyFor('budget', 'nothing'))).toBe(0);
		});

		it('every key it writes starts with rh: by default', async () => {
			const store = new RedisStateStore(connection);
			const key = `ttl-default-${process.pid}-${Date.now()}`;
			try {
				await store.recordFirstAttempt(key, Date.now(), BUDGET_DEFAULTS);
				expect(await admin.exists(`rh:budget:${key}`)).toBe(1);
			} finally {
				await admin.del(`rh:budget:${key}`);
				await store.close();
			}
		});
	});

	it('runs the script with EVAL when Redis has lost it (NOSCRIPT after a restart or SCRIPT FLUSH)', async () => {
		await workerA.recordFirstAttempt('flush', T0, BUDGET_DEFAULTS);
		await admin.script('FLUSH');
		expect(await workerA.recordFirstAttempt('flush', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 2 });
		expect(await workerB.breakerAllows('flush', T0, BREAKER_DEFAULTS)).toMatchObject({ allowed: true });
		expect(await workerB.recordFirstAttempt('flush', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 3 });
	});

	it('credential test: PING succeeds', async () => {
		const data = { host: connection.host, port: connection.port, database: connection.database, user: connection.user ?? '', password: connection.password ?? '', ssl: connection.tls };
		expect(await testRedisCredential.call({} as never, { id: '1', name: 'r', type: 'resilientHttpRedis', data })).toEqual({ status: 'OK', message: 'Connection successful' });
	});

	it('the process-wide store with fallback answers from Redis', async () => {
		const warns: string[] = [];
		const store = getRedisStateStoreWithFallback(connection, { warn: (m) => warns.push(m) }, { keyPrefix: prefix });
		expect(await store.recordFirstAttempt('process', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 1 });
		expect(await workerB.recordFirstAttempt('process', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 2 });
		expect(store.lastSource()).toBe('redis');
		expect(warns).toEqual([]);
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
				for (let i = 1; i <= 5; i++) expect(await store.recordFirstAttempt('k', now, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: i });
				expect(store.lastSource()).toBe('redis');
				expect(memory.size).toBe(0);

				await server.stop();
				const outageStarted = Date.now();
				// at once and in a row: every call answers (from memory), none throws
				const settled = await Promise.allSettled(Array.from({ length: 300 }, (_, i) => (i % 3 ? store.tryAcquireRetry('k', now, BUDGET_DEFAULTS) : store.recordFirstAttempt('k', now, BUDGET_DEFAULTS))));
				expect(settled.filter((r) => r.status === 'rejected')).toEqual([]);
				for (let i = 0; i < 100; i++) await store.breakerRecord('b', now + i, false, BREAKER_DEFAULTS);
				expect(Date.now() - outageStarted).toBeLessThan(2_500);
				expect(store.lastSource()).toBe('memory-fallback');
				expect(warns).toHaveLength(1);
				expect(warns[0]).toMatch(new RegExp(`redis state store failed \\(Redis 127\\.0\\.0\\.1:${server.port}[: ]`));
				// the answers came from the memory store: 100 first attempts, at most 40 + 10 retries granted
				const counted = await memory.recordFirstAttempt('k', now, BUDGET_DEFAULTS);
				expect(counted.firstAttempts).toBe(101);
				expect(counted.retries).toBeGreaterThan(0);
				expect(counted.retries).toBeLessThanOrEqual(50);
				expect(await store.breakerAllows('b', now + 200, BREAKER_DEFAULTS)).toMatchObject({ allowed: false, snapshot: { state: 'open' } });

				// Redis is back (empty: no persistence); after a cooldown the store uses it again
				await server.start();
				const deadline = Date.now() + 10_000;
				while (store.lastSource() !== 'redis' && Date.now() < deadline) {
					now += FALLBACK_STORE_DEFAULTS.cooldownMs;
					await store.recordFirstAttempt('probe', now, BUDGET_DEFAULTS);
					if (store.lastSource() !== 'redis') await new Promise((resolve) => setTimeout(resolve, 100));
				}
				expect(store.lastSource()).toBe('redis');
				expect(warns).toHaveLength(1);
				expect(infos).toHaveLength(1);
				expect(await store.recordFirstAttempt('k', now, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 1 });
				expect(store.lastSource()).toBe('redis');

				// a second outage warns once more
				await server.stop();
				await Promise.all(Array.from({ length: 20 }, () => store.recordFirstAttempt('k', now, BUDGET_DEFAULTS)));
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

/** A redis-server of the test's own on a free port, to stop and start again on that port. */
async function startDedicatedRedis(): Promise<{ port: number; start(): Promise<void>; stop(): Promise<void>; cleanup(): void }> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-redis-outage-'));
	const port = await new Promise<number>((resolve, reject) => {
		const probe = net.createServer();
		probe.once('error', reject);
		probe.listen(0, '127.0.0.1', () => {
			const address = probe.address();
			probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
		});
	});
	let child: ChildProcess | undefined;
	const start = async (): Promise<void> => {
		child = spawn(REDIS_SERVER_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
		for (let i = 0; i < 100; i++) {
			if (await pong(port)) return;
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		throw new Error(`dedicated redis-server did not start on port ${port}`);
	};
	const stop = async (): Promise<void> => {
		const running = child;
		child = undefined;
		if (!running || running.exitCode !== null || running.signalCode !== null) return;
		const exited = new Promise((resolve) => running.once('exit', resolve));
		running.kill('SIGKILL');
		await exited;
	};
	await start();
	return { port, start, stop, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

function pong(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		const finish = (ok: boolean): void => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(500, () => finish(false));
		socket.once('error', () => finish(false));
		socket.once('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			answer += chunk.toString();
			if (answer.includes('\r\n')) finish(answer.startsWith('+PONG'));
		});
	});
}
