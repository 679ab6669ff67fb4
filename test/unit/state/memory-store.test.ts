import fc from 'fast-check';
import { allowCall, BREAKER_DEFAULTS, recordOutcome, type BreakerData } from '../../../nodes/shared/state/breaker';
import { BUDGET_DEFAULTS, recordFirst, tryAcquire, type BudgetData } from '../../../nodes/shared/state/budget';
import { getMemoryStateStore, MEMORY_STORE_DEFAULTS, MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import type { BreakerParams, BudgetParams, StateStore } from '../../../nodes/shared/state/types';
import { FC_OPTIONS, T0 } from './fc-options';

async function openBreaker(store: StateStore, key: string, now: number, params: BreakerParams = BREAKER_DEFAULTS): Promise<void> {
	for (let i = 0; i < params.consecutiveFailures; i++) {
		await store.breakerAllows(key, now, params);
		await store.breakerRecord(key, now, false, params);
	}
}

describe('MemoryStateStore', () => {
	it('is the memory kind, with one instance per process', () => {
		expect(new MemoryStateStore().kind).toBe('memory');
		expect(getMemoryStateStore()).toBe(getMemoryStateStore());
		expect(getMemoryStateStore()).toBeInstanceOf(MemoryStateStore);
		expect(MEMORY_STORE_DEFAULTS.maxKeys).toBe(10_000);
	});

	it('keeps budgets and breakers of different keys apart', async () => {
		const store = new MemoryStateStore();
		await store.recordFirstAttempt('a', T0, BUDGET_DEFAULTS);
		await store.recordFirstAttempt('a', T0, BUDGET_DEFAULTS);
		expect(await store.recordFirstAttempt('b', T0, BUDGET_DEFAULTS)).toMatchObject({ firstAttempts: 1 });
		await openBreaker(store, 'a', T0);
		expect(await store.breakerAllows('a', T0, BREAKER_DEFAULTS)).toMatchObject({ allowed: false });
		expect(await store.breakerAllows('b', T0, BREAKER_DEFAULTS)).toMatchObject({ allowed: true, probe: false });
		// a budget key and a breaker key of the same name are different states
		expect(await store.tryAcquireRetry('a', T0, BUDGET_DEFAULTS)).toMatchObject({ allowed: true, snapshot: { firstAttempts: 2 } });
	});

	it('rejects a nonsense size', () => {
		expect(() => new MemoryStateStore({ maxKeys: 0 })).toThrow(/maxKeys/);
		expect(() => new MemoryStateStore({ maxKeys: 1.5 })).toThrow(/maxKeys/);
		expect(() => new MemoryStateStore({ sweepIntervalMs: NaN })).toThrow(/sweepIntervalMs/);
	});

	describe('(g) bounded: least recently used', () => {
		it('holds at most 10,000 keys by default while 20,000 keys pass through', async () => {
			const store = new MemoryStateStore();
			let largest = 0;
			for (let i = 0; i < 20_000; i++) {
				await store.recordFirstAttempt(`host-${i}`, T0, BUDGET_DEFAULTS);
				largest = Math.max(largest, store.size);
			}
			expect(largest).toBe(10_000);
			expect(store.size).toBe(10_000);
			// the newest 10,000 are remembered (touching them evicts nothing: they are all in)
			for (let i = 10_000; i < 20_000; i++) expect((await store.recordFirstAttempt(`host-${i}`, T0, BUDGET_DEFAULTS)).firstAttempts).toBe(2);
			// the oldest were evicted: they start afresh
			for (let i = 0; i < 100; i++) expect((await store.recordFirstAttempt(`host-${i}`, T0, BUDGET_DEFAULTS)).firstAttempts).toBe(1);
			expect(store.size).toBe(10_000);
		});

		it('evicts the least recently used key, not the oldest one', async () => {
			const store = new MemoryStateStore({ maxKeys: 3 });
			for (const key of ['a', 'b', 'c']) await store.recordFirstAttempt(key, T0, BUDGET_DEFAULTS);
			await store.tryAcquireRetry('a', T0, BUDGET_DEFAULTS);
			await store.recordFirstAttempt('d', T0, BUDGET_DEFAULTS);
			expect(store.size).toBe(3);
			expect((await store.recordFirstAttempt('a', T0, BUDGET_DEFAULTS)).firstAttempts).toBe(2);
			expect((await store.recordFirstAttempt('c', T0, BUDGET_DEFAULTS)).firstAttempts).toBe(2);
			expect((await store.recordFirstAttempt('d', T0, BUDGET_DEFAULTS)).firstAttempts).toBe(2);
			// b was the least recently used
			expect((await store.recordFirstAttempt('b', T0, BUDGET_DEFAULTS)).firstAttempts).toBe(1);
		});

		it('counts budgets and breakers together against the bound', async () => {
			const store = new MemoryStateStore({ maxKeys: 100 });
			for (let i = 0; i < 300; i++) {
				await store.recordFirstAttempt(`k${i}`, T0, BUDGET_DEFAULTS);
				await openBreaker(store, `k${i}`, T0);
				expect(store.size).toBeLessThanOrEqual(100);
			}
		});
	});

	describe('(g) bounded: idle keys are dropped', () => {
		it('drops budgets a window after their last count', async () => {
			const store = new MemoryStateStore();
			// one key every 60 ms over a minute
			for (let i = 0; i < 1000; i++) await store.recordFirstAttempt(`host-${i}`, T0 + i * 60, BUDGET_DEFAULTS);
			expect(store.size).toBe(1000);
			// a minute on, the 100 keys of the first bucket (6 s) are idle, the others not yet
			await store.recordFirstAttempt('other', T0 + 60_000, BUDGET_DEFAULTS);
			expect(store.size).toBe(901);
			// a minute after the last key's bucket
			await store.recordFirstAttempt('other', T0 + 114_000, BUDGET_DEFAULTS);
			expect(store.size).toBe(1);
		});

		it('keeps no key for a healthy host: a closed breaker that saw no outcome holds nothing', async () => {
			const store = new MemoryStateStore();
			for (let i = 0; i < 100; i++) await store.breakerAllows(`host-${i}`, T0, BREAKER_DEFAULTS);
			expect(store.size).toBe(0);
		});

		it('keeps an open breaker through its break and maxBreakMs more, then drops it', async () => {
			const store = new MemoryStateStore();
			await openBreaker(store, 'down', T0);
			expect(await store.breakerAllows('down', T0 + 29_999, BREAKER_DEFAULTS)).toMatchObject({ allowed: false });
			await store.recordFirstAttempt('other', T0 + 329_999, BUDGET_DEFAULTS);
			expect(store.size).toBe(2);
			await store.recordFirstAttempt('other', T0 + 330_000, BUDGET_DEFAULTS);
			expect(store.size).toBe(1);
		});

		it('a full pass also drops idle keys behind a longer-lived one (at most once per sweep interval)', async () => {
			const store = new MemoryStateStore({ sweepIntervalMs: 120_000 });
			await openBreaker(store, 'down', T0);
			for (let i = 0; i < 50; i++) await store.recordFirstAttempt(`host-${i}`, T0, BUDGET_DEFAULTS);
			// the open breaker at the least recently used end is not idle: the cheap pass stops there
			await store.recordFirstAttempt('x', T0 + 61_000, BUDGET_DEFAULTS);
			expect(store.size).toBe(52);
			// but an idle key answers as fresh anyway
			expect(await store.tryAcquireRetry('host-1', T0 + 61_000, BUDGET_DEFAULTS)).toMatchObject({ snapshot: { firstAttempts: 0, retries: 1 } });
			// the full pass, 120 s after the first: only the open breaker and 'x' are left
			await store.recordFirstAttempt('x', T0 + 120_000, BUDGET_DEFAULTS);
			expect(store.size).toBe(2);
		});
	});

	describe('(g) atomic under concurrent calls', () => {
		it('Promise.all of 1,000 retries on one key grants exactly the floor (40)', async () => {
			const store = new MemoryStateStore();
			const verdicts = await Promise.all(Array.from({ length: 1000 }, () => store.tryAcquireRetry('api.example.com', T0, BUDGET_DEFAULTS)));
			expect(verdicts.filter((v) => v.allowed)).toHaveLength(40);
			expect(verdicts[999].snapshot).toEqual({ firstAttempts: 0, retries: 40, available: 0, windowMs: 60_000 });
		});

		it('Promise.all of 1,000 retries after 200 first attempts grants exactly 20 + 40', async () => {
			const store = new MemoryStateStore();
			await Promise.all(Array.from({ length: 200 }, () => store.recordFirstAttempt('api.example.com', T0, BUDGET_DEFAULTS)));
			const verdicts = await Promise.all(Array.from({ length: 1000 }, () => store.tryAcquireRetry('api.example.com', T0 + 1, BUDGET_DEFAULTS)));
			expect(verdicts.filter((v) => v.allowed)).toHaveLength(60);
		});

		it('interleaved concurrent first attempts and retries give what the same calls in order give', async () => {
			await fc.assert(
				fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 1000 }), async (isRetry) => {
					const store = new MemoryStateStore();
					const results = await Promise.all(
						isRetry.map((retry) => (retry ? store.tryAcquireRetry('k', T0, BUDGET_DEFAULTS).then((v) => v.allowed) : store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS).then(() => 'first'))),
					);
					let data: BudgetData | undefined;
					const expected = isRetry.map((retry) => {
						const step = retry ? tryAcquire(data, T0, BUDGET_DEFAULTS) : recordFirst(data, T0, BUDGET_DEFAULTS);
						data = step.data;
						return retry ? (step.result as { allowed: boolean }).allowed : 'first';
					});
					expect(results).toEqual(expected);
				}),
				{ ...FC_OPTIONS, numRuns: 50 },
			);
		});

		it('Promise.all of 1,000 callers after a break lets exactly one probe through', async () => {
			const store = new MemoryStateStore();
			await openBreaker(store, 'down', T0);
			const verdicts = await Promise.all(Array.from({ length: 1000 }, () => store.breakerAllows('down', T0 + 30_000, BREAKER_DEFAULTS)));
			expect(verdicts.filter((v) => v.allowed)).toEqual([{ allowed: true, probe: true, snapshot: expect.objectContaining({ state: 'half-open' }) }]);
		});
	});

	it('answers exactly as the pure core with unbounded memory: dropping idle keys loses nothing', async () => {
		type Op =
			| { kind: 'advance'; ms: number }
			| { kind: 'first' | 'retry' | 'allow'; key: number }
			| { kind: 'record'; key: number; success: boolean };
		const budget: BudgetParams = { ratio: 0.2, minRetriesPerWindow: 2, windowMs: 1_000 };
		const breaker: BreakerParams = { consecutiveFailures: 3, failureRatio: 0.5, minimumCalls: 4, windowMs: 1_000, breakMs: 500, maxBreakMs: 2_000 };
		const key = fc.integer({ min: 0, max: 5 });
		const op: fc.Arbitrary<Op> = fc.oneof(
			fc.integer({ min: 0, max: 300 }).map((ms): Op => ({ kind: 'advance', ms })),
			fc.integer({ min: 0, max: 5_000 }).map((ms): Op => ({ kind: 'advance', ms })),
			fc.record({ kind: fc.constantFrom('first' as const, 'retry' as const, 'allow' as const), key }),
			fc.record({ kind: fc.constant('record' as const), key, success: fc.boolean() }),
		);
		await fc.assert(
			fc.asyncProperty(fc.array(op, { maxLength: 200 }), fc.constantFrom(0, 700, 60_000), async (ops, sweepIntervalMs) => {
				const store = new MemoryStateStore({ sweepIntervalMs });
				const budgets = new Map<number, BudgetData>();
				const breakers = new Map<number, BreakerData>();
				let now = T0;
				for (const o of ops) {
					if (o.kind === 'advance') {
						now += o.ms;
					} else if (o.kind === 'first') {
						const step = recordFirst(budgets.get(o.key), now, budget);
						budgets.set(o.key, step.data);
						expect(await store.recordFirstAttempt(String(o.key), now, budget)).toEqual(step.result);
					} else if (o.kind === 'retry') {
						const step = tryAcquire(budgets.get(o.key), now, budget);
						budgets.set(o.key, step.data);
						expect(await store.tryAcquireRetry(String(o.key), now, budget)).toEqual(step.result);
					} else if (o.kind === 'allow') {
						const step = allowCall(breakers.get(o.key), now, breaker);
						breakers.set(o.key, step.data);
						expect(await store.breakerAllows(String(o.key), now, breaker)).toEqual(step.result);
					} else if (o.kind === 'record') {
						const step = recordOutcome(breakers.get(o.key), now, o.success, breaker);
						breakers.set(o.key, step.data);
						expect(await store.breakerRecord(String(o.key), now, o.success, breaker)).toEqual(step.result);
					}
					expect(store.size).toBeLessThanOrEqual(12);
				}
			}),
			FC_OPTIONS,
		);
	});
});
