/**
 * A Fair Share Key's own limits (nodes/shared/core/traffic/key-gate.ts: Rate Limit Per Key, Max
 * Items in Flight Per Key) at an API's traffic gate, simulated on virtual time (gate-simulation.ts):
 * each key keeps its own limit besides the API's, and a request the API refuses gives its key's room back.
 */
import { simulateGate, type ServerModel, type SimulationResult } from './gate-simulation';
import type { TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import type { Lane } from '../../../nodes/shared/core/traffic/fair-line';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { busiest } from '../../support/busiest';
import { keyGateOf, passKeyThenApi } from '../../../nodes/shared/core/traffic/key-gate';
import type { GateContext } from '../../../nodes/shared/core/traffic/gate';
import type { StateStore, TrafficStep } from '../../../nodes/shared/core/traffic/store';
import { Waiters } from '../../../nodes/shared/core/traffic/waiters';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { FakeRuntime } from '../fake-runtime';

const params = (extra: Partial<TrafficParams> = {}): TrafficParams => ({ window: { ceiling: 1000, mode: 'adaptive' }, leaseMs: 310_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS }, ...extra });
const healthy: ServerModel = () => ({ latencyMs: 40, status: 200 });

const sendsOf = (run: SimulationResult, items: (item: number) => boolean) => run.requests.filter((r) => items(r.item)).map((r) => r.sentAt);
const endOf = (run: SimulationResult, items: (item: number) => boolean) => Math.max(...run.endedAt.filter((_, item) => items(item)));

describe('Rate Limit Per Key', () => {
	// 200 items of tenant big, then 20 of small-1 and 20 of small-2, all at once; the API takes 20 a second
	const tenantOf = (item: number) => (item < 200 ? 'big' : item < 220 ? 'small-1' : 'small-2');
	const lanes = { laneOf: (item: number): Lane => ({ share: tenantOf(item) }) };
	const of = (tenant: string) => (item: number) => tenantOf(item) === tenant;

	it('5 a second per key beside the API\'s 20: no key sends more than 5 in any second, the API no more than 20, and the small keys end with their own pace', async () => {
		const run = await simulateGate(240, params({ rateLimitRps: 20 }), healthy, { ...lanes, keyLimits: { rateLimitRps: 5 }, sendLog: true });
		expect(run.failed).toBe(0);
		for (const tenant of ['big', 'small-1', 'small-2']) expect(busiest(sendsOf(run, of(tenant)), 1000)).toBeLessThanOrEqual(5);
		expect(busiest(sendsOf(run, () => true), 1000)).toBeLessThanOrEqual(20);
		// 20 items at 5 a second: 4 s, whatever the big key has waiting
		expect(endOf(run, of('small-1'))).toBeLessThan(4_200);
		expect(endOf(run, of('small-2'))).toBeLessThan(4_200);
		// and the big key goes at its own 5 a second: 200 items in 40 s
		expect(endOf(run, of('big'))).toBeLessThan(40_200);
	});

	it('without it, the same run lets the big key take most of the API\'s 20 a second (the control)', async () => {
		const run = await simulateGate(240, params({ rateLimitRps: 20 }), healthy, { ...lanes, sendLog: true });
		expect(run.failed).toBe(0);
		expect(busiest(sendsOf(run, of('big')), 1000)).toBeGreaterThan(5);
	});

	it('30 a minute per key: at most 30 of one key in any minute, spaced 2 s apart', async () => {
		const run = await simulateGate(40, params(), healthy, { laneOf: () => ({ share: 'one' }), keyLimits: { rateLimitRps: 0.5, rateLimitWindowMs: 60_000 }, sendLog: true });
		expect(run.failed).toBe(0);
		const sends = sendsOf(run, () => true);
		expect(busiest(sends, 60_000)).toBeLessThanOrEqual(30);
		expect(busiest(sends, 2_000)).toBe(1);
	});

	it('its items wait in line outside the Total Deadline, as at the API\'s pace: 40 items at 5 a second pass a 2 s deadline', async () => {
		const run = await simulateGate(40, params(), healthy, { laneOf: () => ({ share: 'one' }), keyLimits: { rateLimitRps: 5 }, deadlineMs: 2_000, lineFree: true });
		expect(run.failed).toBe(0);
		expect(run.durationMs).toBeGreaterThan(7_000);
	});
});

describe('Max Items in Flight Per Key', () => {
	const slow: ServerModel = () => ({ latencyMs: 200, status: 200 });
	const shareOf = (item: number) => (item < 20 ? 'a' : 'b');

	it('2 per key: never more than 2 of a key in flight, and each key goes at its own 2', async () => {
		const run = await simulateGate(40, params({ window: { ceiling: 1000, mode: 'fixed' } }), slow, { laneOf: (item) => ({ share: shareOf(item) }), keyLimits: { maxInFlight: 2 } });
		expect(run.failed).toBe(0);
		expect(run.mostInFlight.get('a')).toBe(2);
		expect(run.mostInFlight.get('b')).toBe(2);
		// 20 items, 2 at a time, 200 ms each: 2 s for each key, side by side
		expect(run.durationMs).toBeGreaterThanOrEqual(2_000);
		expect(run.durationMs).toBeLessThan(2_300);
	});

	it('without it, a key has all its items in flight at once (the control)', async () => {
		const run = await simulateGate(40, params({ window: { ceiling: 1000, mode: 'fixed' } }), slow, { laneOf: (item) => ({ share: shareOf(item) }) });
		expect(run.mostInFlight.get('a')).toBe(20);
	});

	it('an item that cannot wait for its key\'s room within its Total Deadline leaves with why, in the key\'s words', async () => {
		const long: ServerModel = () => ({ latencyMs: 5_000, status: 200 });
		const run = await simulateGate(2, params(), long, { laneOf: () => ({ share: 'a' }), keyLimits: { maxInFlight: 1 }, deadlineMs: 2_000, lineFree: true });
		expect(run.failed).toBe(1);
		expect(run.stops[1]).toBe('deadline-exceeded');
		expect(run.whys[1]).toContain('Max Items in Flight Per Key');
	});

	it('a request the API refuses gives its key\'s room back: the next items of the key are not held behind it', async () => {
		// the first request is throttled for 2 minutes, beyond Max Server-Requested Delay (60 s): the API is
		// paused, and every other item of the key leaves at once with why, its room at the key given back
		const server: ServerModel = (item, attempt) => (item === 0 && attempt === 1 ? { latencyMs: 40, status: 429, retryAfterMs: 120_000 } : { latencyMs: 40, status: 200 });
		const run = await simulateGate(10, params(), server, { laneOf: () => ({ share: 'a' }), keyLimits: { maxInFlight: 1 }, arrivesAt: (item) => (item === 0 ? 0 : 100), maxAttempts: 1 });
		for (let item = 1; item < 10; item++) {
			expect(run.stops[item]).toBe('retry-after-too-long');
			expect(run.endedAt[item]).toBeLessThan(1_000);
		}
	});
});

describe('a store that fails at the API', () => {
	it("the key's room is given back: the key's next request is not held behind the failed one", async () => {
		const inner = new MemoryStateStore();
		let failApi = true;
		const store: StateStore = {
			kind: 'memory',
			traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
				if (key === 'api' && failApi) return Promise.reject(new Error('connection lost'));
				return inner.traffic(key, nowMs, params, step);
			},
		};
		const runtime = new FakeRuntime({ seed: 1 });
		const api: GateContext = { store, key: 'api', params: params(), runtime, waiters: new Waiters(), pollMs: 5_000 };
		const key = keyGateOf(api, 'api:key:a', { maxInFlight: 1 });
		const request = (id: string) => ({ id, retry: false, paced: false });
		await expect(passKeyThenApi(api, key, request('r1'), { maxServerDelayMs: 60_000 })).rejects.toThrow('connection lost');
		failApi = false;
		const started = runtime.now();
		const { result } = await passKeyThenApi(api, key, request('r2'), { maxServerDelayMs: 60_000 });
		expect(result.go).toBe(true);
		expect(runtime.now() - started).toBe(0);
	});
});

describe('the store\'s cost of a key\'s limits', () => {
	it('two more steps per request (the key\'s enter and report), flat in the number of items', async () => {
		const base = await simulateGate(100, params(), healthy, { laneOf: (item) => ({ share: `k${item % 5}` }) });
		const keyed100 = await simulateGate(100, params(), healthy, { laneOf: (item) => ({ share: `k${item % 5}` }), keyLimits: { maxInFlight: 50 } });
		const keyed1000 = await simulateGate(1000, params(), healthy, { laneOf: (item) => ({ share: `k${item % 5}` }), keyLimits: { maxInFlight: 50 } });
		expect(keyed100.stepsPerItem - base.stepsPerItem).toBeLessThanOrEqual(2.5);
		expect(Math.abs(keyed1000.stepsPerItem - keyed100.stepsPerItem)).toBeLessThan(1);
	});
});
