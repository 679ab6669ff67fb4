/**
 * The memory store of the traffic controllers: one per process, keys apart, bounded (LRU and
 * idle keys dropped), atomic under concurrent steps, and answering exactly as the pure controller
 * with unbounded memory.
 */
import fc from 'fast-check';
import { admit, complete, TRAFFIC_MEMORY_MS, type AdmitRequest, type Outcome, type TrafficData, type TrafficParams, type Lease, type LeaseView } from '../../../nodes/shared/core/traffic/controller';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { getMemoryStateStore, MEMORY_STORE_DEFAULTS, MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import type { StateStore } from '../../../nodes/shared/core/traffic/store';
import { FC_OPTIONS, T0 } from './fc-options';

const P: TrafficParams = { window: { ceiling: 1000, mode: 'fixed' }, leaseMs: 30_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS } };
const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };

let ids = 0;
function request(retry = false, paced = false): AdmitRequest {
	return { id: `r${ids++}`, retry, paced };
}

/** A first request to `key`, answered at once: returns the budget's first-attempt count after it. */
async function firstRequest(store: StateStore, key: string, now: number, params = P): Promise<number> {
	const r = request();
	const admission = await store.traffic(key, now, params, (d, l) => admit(d, l, now, r, params));
	if (!admission.go) throw new Error(`not admitted: ${admission.reason}`);
	await store.traffic(key, now, params, (d, l) => complete(d, l, now, admission.lease, OK, params));
	return admission.budget?.firstAttempts ?? 0;
}

describe('MemoryStateStore', () => {
	it('is the memory kind, with one instance per process', () => {
		expect(new MemoryStateStore().kind).toBe('memory');
		expect(getMemoryStateStore()).toBe(getMemoryStateStore());
		expect(getMemoryStateStore()).toBeInstanceOf(MemoryStateStore);
		expect(MEMORY_STORE_DEFAULTS.maxKeys).toBe(10_000);
	});

	it('keeps the APIs of different keys apart', async () => {
		const store = new MemoryStateStore();
		await firstRequest(store, 'a', T0);
		expect(await firstRequest(store, 'a', T0)).toBe(2);
		expect(await firstRequest(store, 'b', T0)).toBe(1);
	});

	it('rejects a nonsense size', () => {
		expect(() => new MemoryStateStore({ maxKeys: 0 })).toThrow(/maxKeys/);
		expect(() => new MemoryStateStore({ maxKeys: 1.5 })).toThrow(/maxKeys/);
		expect(() => new MemoryStateStore({ sweepIntervalMs: NaN })).toThrow(/sweepIntervalMs/);
	});

	describe('bounded: least recently used', () => {
		it('holds at most 10,000 keys by default while 20,000 keys pass through', async () => {
			const store = new MemoryStateStore();
			let largest = 0;
			for (let i = 0; i < 20_000; i++) {
				await firstRequest(store, `api-${i}`, T0);
				largest = Math.max(largest, store.size);
			}
			expect(largest).toBe(10_000);
			// the newest 10,000 are remembered, the oldest were evicted: they start afresh
			for (let i = 19_900; i < 20_000; i++) expect(await firstRequest(store, `api-${i}`, T0)).toBe(2);
			for (let i = 0; i < 100; i++) expect(await firstRequest(store, `api-${i}`, T0)).toBe(1);
			expect(store.size).toBe(10_000);
		});

		it('evicts the least recently used key, not the oldest one', async () => {
			const store = new MemoryStateStore({ maxKeys: 3 });
			for (const key of ['a', 'b', 'c']) await firstRequest(store, key, T0);
			await firstRequest(store, 'a', T0);
			await firstRequest(store, 'd', T0);
			expect(store.size).toBe(3);
			expect(await firstRequest(store, 'a', T0)).toBe(3);
			expect(await firstRequest(store, 'b', T0)).toBe(1); // b was the least recently used
		});
	});

	describe('bounded: idle keys are dropped', () => {
		it('drops an API ten minutes after its last request (its budget counts are gone by then)', async () => {
			const store = new MemoryStateStore();
			for (let i = 0; i < 100; i++) await firstRequest(store, `api-${i}`, T0 + i * 1000);
			expect(store.size).toBe(100);
			await firstRequest(store, 'other', T0 + 49_000 + TRAFFIC_MEMORY_MS + 1);
			expect(store.size).toBe(51);
		});

		it('keeps a paused API through its pause, however long', async () => {
			const store = new MemoryStateStore();
			const r = request();
			const a = await store.traffic('slow', T0, P, (d, l) => admit(d, l, T0, r, P));
			if (!a.go) throw new Error('not admitted');
			await store.traffic('slow', T0, P, (d, l) => complete(d, l, T0, a.lease, { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 3_600_000, header: 'retry-after' } }, P));
			await firstRequest(store, 'other', T0 + TRAFFIC_MEMORY_MS + 1);
			expect(store.size).toBe(2);
			const later = T0 + 3_600_000 - 1;
			expect(await store.traffic('slow', later, P, (d, l) => admit(d, l, later, request(), P))).toMatchObject({ go: false, reason: 'paused' });
		});

		it('a full pass also drops idle keys behind a longer-lived one (at most once per sweep interval)', async () => {
			const store = new MemoryStateStore({ sweepIntervalMs: 2 * TRAFFIC_MEMORY_MS });
			const r = request();
			const a = await store.traffic('paused', T0, P, (d, l) => admit(d, l, T0, r, P));
			if (!a.go) throw new Error('not admitted');
			await store.traffic('paused', T0, P, (d, l) => complete(d, l, T0, a.lease, { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 3 * TRAFFIC_MEMORY_MS, header: 'retry-after' } }, P));
			for (let i = 0; i < 50; i++) await firstRequest(store, `api-${i}`, T0);
			// the paused API at the least recently used end is not idle: the cheap pass stops there
			await firstRequest(store, 'x', T0 + TRAFFIC_MEMORY_MS + 31_000);
			expect(store.size).toBe(52);
			// the full pass, a sweep interval after the first: only the paused API and 'x' are left
			await firstRequest(store, 'x', T0 + 2 * TRAFFIC_MEMORY_MS);
			expect(store.size).toBe(2);
		});
	});

	describe('atomic under concurrent steps', () => {
		it('Promise.all of 1,000 requests to a new API lets exactly its window (10) go', async () => {
			const store = new MemoryStateStore();
			const params: TrafficParams = { ...P, window: { ceiling: 200, mode: 'adaptive' } };
			const admissions = await Promise.all(Array.from({ length: 1000 }, () => store.traffic('api', T0, params, (d, l) => admit(d, l, T0, request(), params))));
			expect(admissions.filter((a) => a.go)).toHaveLength(10);
		});

		it('Promise.all of 1,000 retries grants exactly the budget floor (40); paced retries never count', async () => {
			const store = new MemoryStateStore();
			const admissions = await Promise.all(Array.from({ length: 1000 }, () => store.traffic('api', T0, P, (d, l) => admit(d, l, T0, request(true), P))));
			expect(admissions.filter((a) => a.go)).toHaveLength(40);
			const paced = await Promise.all(Array.from({ length: 100 }, () => store.traffic('api', T0, P, (d, l) => admit(d, l, T0, request(true, true), P))));
			expect(paced.filter((a) => a.go)).toHaveLength(100);
		});
	});

	it('answers exactly as the pure controller with unbounded memory: dropping idle keys loses nothing', async () => {
		type Op = { kind: 'advance'; ms: number } | { kind: 'admit'; key: number; retry: boolean; paced: boolean } | { kind: 'complete'; key: number; which: number; success: boolean };
		const params: TrafficParams = {
			window: { ceiling: 5, mode: 'adaptive' },
			leaseMs: 2_000,
			budget: { ratio: 0.2, minRetriesPerWindow: 2, windowMs: 1_000 },
			hold: { consecutiveFailures: 3, failureRatio: 0.5, minimumCalls: 4, windowMs: 1_000, breakMs: 500, maxBreakMs: 2_000 },
		};
		const key = fc.integer({ min: 0, max: 5 });
		const op: fc.Arbitrary<Op> = fc.oneof(
			fc.integer({ min: 0, max: 300 }).map((ms): Op => ({ kind: 'advance', ms })),
			fc.integer({ min: 0, max: TRAFFIC_MEMORY_MS + 5_000 }).map((ms): Op => ({ kind: 'advance', ms })),
			fc.record({ kind: fc.constant('admit' as const), key, retry: fc.boolean(), paced: fc.boolean() }),
			fc.record({ kind: fc.constant('complete' as const), key, which: fc.nat({ max: 10 }), success: fc.boolean() }),
		);
		await fc.assert(
			fc.asyncProperty(fc.array(op, { maxLength: 150 }), fc.constantFrom(0, 700, 60_000), async (ops, sweepIntervalMs) => {
				const store = new MemoryStateStore({ sweepIntervalMs });
				const states = new Map<number, TrafficData>();
				// the reference's leases per key: [id, end] in order of start
				const leases = new Map<number, Lease[]>();
				const viewOf = (k: number, at: number): LeaseView => {
					const list = (leases.get(k) ?? []).filter(([, end]) => end > at);
					leases.set(k, list);
					return { count: list.length, soonest: list.length > 0 ? list[0][1] : Infinity };
				};
				const live = new Map<number, Lease[]>();
				let now = T0;
				for (const o of ops) {
					if (o.kind === 'advance') {
						now += o.ms;
						continue;
					}
					const k = String(o.key);
					if (o.kind === 'admit') {
						const r = request(o.retry, o.paced);
						const at = now;
						const step = admit(states.get(o.key), viewOf(o.key, at), at, r, params);
						if (step.changed) states.set(o.key, step.data);
						expect(await store.traffic(k, at, params, (d, l) => admit(d, l, at, r, params))).toEqual(step.result);
						if (step.result.go) {
							live.set(o.key, [...(live.get(o.key) ?? []), step.result.lease]);
							leases.get(o.key)!.push(step.result.lease);
						}
					} else {
						const ids = live.get(o.key) ?? [];
						if (ids.length === 0) continue;
						const [lease] = ids.splice(o.which % ids.length, 1);
						const outcome: Outcome = o.success ? OK : { success: false, outageFailure: true, overload: true, throttled: false };
						const at = now;
						const step = complete(states.get(o.key), viewOf(o.key, at), at, lease, outcome, params);
						states.set(o.key, step.data);
						leases.set(o.key, (leases.get(o.key) ?? []).filter(([id]) => id !== lease[0]));
						expect(await store.traffic(k, at, params, (d, l) => complete(d, l, at, lease, outcome, params))).toEqual(step.result);
					}
					expect(store.size).toBeLessThanOrEqual(6);
				}
			}),
			{ ...FC_OPTIONS, numRuns: 100 },
		);
	});
});
