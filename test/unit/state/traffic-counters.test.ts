/**
 * An API's traffic state split into the rest and the counts that requests only add to
 * (nodes/shared/state/traffic-counters.ts): the split loses nothing, a healthy request's change is
 * a merge, what two workers add at once adds up, and anything else needs the exact state.
 */
import fc from 'fast-check';
import { admit, complete, type Lease, type LeaseView, type Outcome, type TrafficData, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { canonicalJson, counterChanges, countersFromHash, joinTraffic, splitTraffic, type CounterOp, type Counters } from '../../../nodes/shared/state/traffic-counters';
import { FC_OPTIONS, T0 } from './fc-options';

const P: TrafficParams = { window: { ceiling: 40, mode: 'adaptive' }, leaseMs: 5_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS } };
const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };
const DOWN: Outcome = { success: false, outageFailure: true, overload: true, throttled: false };
const NONE: LeaseView = { count: 0, soonest: Infinity };

/** The state after a healthy request at `at` (admitted and answered). */
function healthy(data: TrafficData | undefined, at: number, id: string, params = P): TrafficData {
	const a = admit(data, NONE, at, { id, retry: false, paced: false }, params);
	if (!a.result.go) throw new Error('refused');
	return complete(a.data, { count: 1, soonest: a.result.lease[1] }, at, a.result.lease, OK, params).data;
}

/** Applies a merge's or an exact write's changes to counts, as the Redis script does. */
function applyOps(counters: Counters, ops: readonly CounterOp[]): Counters {
	const next = new Map(counters);
	for (const op of ops) {
		if (op[0] === 'd') next.delete(op[1]);
		else if (op[0] === 'a') next.set(op[1], (next.get(op[1]) ?? 0) + op[2]);
		else if (op[0] === 'x') next.set(op[1], Math.max(next.get(op[1]) ?? 0, op[2]));
		else next.set(op[1], op[2]);
	}
	return next;
}

describe('traffic counters: the state split for a shared store', () => {
	it('splits and joins any state the controller makes without losing anything', () => {
		const outcomes: Outcome[] = [OK, DOWN, { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 700, header: 'retry-after' } }, { ...OK, quota: { remaining: 3, resetAt: T0 + 2_000 } }];
		const op = fc.record({ admit: fc.boolean(), retry: fc.boolean(), outcome: fc.nat({ max: outcomes.length - 1 }), dt: fc.nat({ max: 3_000 }) });
		fc.assert(
			fc.property(fc.array(op, { maxLength: 150 }), fc.boolean(), (ops, rate) => {
				const params: TrafficParams = { ...P, ...(rate ? { rateLimitRps: 20 } : {}) };
				let data: TrafficData | undefined;
				const live: Lease[] = [];
				let now = T0;
				let n = 0;
				for (const o of ops) {
					now += o.dt;
					const view: LeaseView = { count: live.length, soonest: Infinity };
					const step = o.admit || live.length === 0 ? admit(data, view, now, { id: `r${n++}`, retry: o.retry, paced: false }, params) : complete(data, view, now, live.shift()!, outcomes[o.outcome], params);
					if (step.changed) data = step.data;
					const result = step.result as { go?: boolean; lease?: Lease };
					if (result.go && result.lease) live.push(result.lease);
					if (!data) continue;
					const { base, counters } = splitTraffic(data);
					// as JSON, which is all a store keeps
					expect(joinTraffic(JSON.parse(base), countersFromHash([...counters].flat()))).toEqual(JSON.parse(JSON.stringify(data)));
				}
			}),
			FC_OPTIONS,
		);
	});

	it('a healthy request only adds to counts; what two workers add at once adds up', () => {
		const start = healthy(undefined, T0, 'first');
		const before = splitTraffic(start);
		const a = splitTraffic(healthy(start, T0 + 10, 'a'));
		const b = splitTraffic(healthy(start, T0 + 20, 'b'));
		expect(a.base).toBe(before.base);
		const mergeA = counterChanges(before.counters, a.counters).merge;
		const mergeB = counterChanges(before.counters, b.counters).merge;
		expect(mergeA).toBeDefined();
		expect(mergeB).toBeDefined();
		// both orders, one result: three first attempts and three successes
		const ab = applyOps(applyOps(before.counters, mergeA!), mergeB!);
		const ba = applyOps(applyOps(before.counters, mergeB!), mergeA!);
		expect(ab).toEqual(ba);
		const joined = joinTraffic(JSON.parse(before.base), ab)!;
		expect(joined.budget!.buckets.reduce((sum, [, firsts]) => sum + firsts, 0)).toBe(3);
		expect(joined.rate.successes.reduce((sum, [, count]) => sum + count, 0)).toBe(3);
		expect(joined.touchedAt).toBe(T0 + 20);
		// while one worker's exact write sets what it saw
		expect(applyOps(before.counters, counterChanges(before.counters, a.counters).exact)).toEqual(a.counters);
	});

	it('a count that goes down or a number that vanishes is no merge; a bucket that left its window is', () => {
		const counters = (entries: Array<[string, number]>): Counters => new Map(entries);
		expect(counterChanges(counters([['ws', 20]]), counters([['ws', 10]])).merge).toBeUndefined();
		expect(counterChanges(counters([['ws', 20], ['wt', 3]]), counters([['ws', 20]])).merge).toBeUndefined();
		expect(counterChanges(counters([['t', 5]]), counters([['t', 3]])).merge).toEqual([['x', 't', 3]]);
		expect(counterChanges(counters([['f7', 2], ['f8', 1]]), counters([['f8', 2], ['f9', 1]])).merge).toEqual([
			['a', 'f8', 1],
			['a', 'f9', 1],
			['d', 'f7'],
		]);
		expect(counterChanges(counters([['f7', 2]]), counters([['f7', 2]]))).toEqual({ merge: [], exact: [] });
	});

	it('a window halved is a change of the rest too: the exact state decides it', () => {
		let data = healthy(undefined, T0, 'first');
		for (let i = 0; i < 20; i++) data = healthy(data, T0 + i, `h${i}`);
		const a = admit(data, NONE, T0 + 100, { id: 'over', retry: false, paced: false }, P);
		if (!a.result.go) throw new Error('refused');
		const halved = complete(a.data, { count: 1, soonest: Infinity }, T0 + 101, a.result.lease, { ...DOWN, outageFailure: false }, P);
		expect(halved.merges).toBeUndefined();
		expect(splitTraffic(halved.data).base).not.toBe(splitTraffic(data).base);
	});

	it('writes the rest canonically: the same state is the same string, whatever order its keys were made in', () => {
		expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: undefined, w: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"w":3,"y":2}]},"b":1}');
		const data = healthy(undefined, T0, 'first');
		const reordered = Object.fromEntries(Object.entries(data).reverse()) as unknown as TrafficData;
		expect(splitTraffic(reordered).base).toBe(splitTraffic(data).base);
	});

	it('reads a state written before the split (its counts in the JSON) as it was: an upgrade keeps what was learned', () => {
		let data = healthy(undefined, T0, 'first');
		for (let i = 0; i < 12; i++) data = healthy(data, T0 + i, `h${i}`);
		expect(data.window.size).toBeGreaterThan(10);
		const old = JSON.parse(JSON.stringify(data)) as TrafficData;
		expect(joinTraffic(old, new Map())).toEqual(old);
		// once the hash holds a count, the hash's is the count
		expect(joinTraffic(old, new Map([['ws', 3]]))!.window.size).toBe(3);
	});

	it('reads only counts of its own from a hash, and nothing that is no state of ours', () => {
		expect([...countersFromHash(['ws', '12', '_', '7', 'f42', '3', 'junk', '1', 's9', 'NaN'])]).toEqual([
			['ws', 12],
			['f42', 3],
		]);
		expect(joinTraffic({ not: 'ours' }, new Map())).toBeUndefined();
		expect(joinTraffic('text', new Map())).toBeUndefined();
	});

	it('keeps the hash fields and the JSON part a state was written with (no migration)', () => {
		const window = { size: 6, slowStart: false, toward: 2, roundStartsAt: 3, starts: 9 };
		const data = {
			window,
			rate: { nextAt: 5, successes: [[7, 4]] },
			pausedUntil: 0,
			touchedAt: 1_234,
			budget: { windowMs: 60_000, buckets: [[7, 3, 1], [8, 2, 0]] },
			hold: { state: 'closed', consecutiveFailures: 1, openings: 0, buckets: [[8, 5, 1]] },
		} as unknown as TrafficData;
		const { base, counters } = splitTraffic(data);
		expect([...counters]).toEqual([
			['t', 1_234], ['ws', 6], ['wt', 2], ['wn', 9], ['s7', 4],
			['f7', 3], ['r7', 1], ['f8', 2], ['r8', 0], ['c8', 5], ['x8', 1],
		]);
		expect(base).toBe('{"budget":{"windowMs":60000},"hold":{"consecutiveFailures":1,"openings":0,"state":"closed"},"pausedUntil":0,"rate":{"nextAt":5},"window":{"roundStartsAt":3,"slowStart":false}}');
		expect(joinTraffic(JSON.parse(base), counters)).toEqual(data);
		// a state written before the counts had a hash keeps them in its JSON
		expect(joinTraffic(JSON.parse(JSON.stringify(data)), new Map())).toEqual(data);
		expect(joinTraffic({ window: { slowStart: true, roundStartsAt: 0 }, rate: { nextAt: 0 }, pausedUntil: 0 }, new Map())).toEqual({ window: { size: 1, toward: 0, starts: 0, slowStart: true, roundStartsAt: 0 }, rate: { nextAt: 0, successes: [] }, pausedUntil: 0, touchedAt: 0 });
	});
});
