import fc from 'fast-check';
import {
	BUDGET_DEFAULTS,
	budgetForgetAt,
	budgetLimit,
	budgetSnapshot,
	recordFirst,
	tryAcquire,
	type BudgetData,
} from '../../../nodes/shared/core/traffic/budget';
import type { BudgetParams } from '../../../nodes/shared/core/traffic/budget';
import { FC_OPTIONS, T0 } from '../state/fc-options';

/**
 * The reference model: the rule written out on the raw log of events, without buckets.
 * The window at time t is the 10 buckets of windowMs / 10 ending with the one that holds t.
 */
function bucketOf(t: number, windowMs: number): number {
	return Math.floor((t * 10) / windowMs);
}

/** floor(percent / 100 * firsts) + min, in integers (no floating point). */
function modelLimit(percent: number, firsts: number, min: number): number {
	const scaled = percent * firsts;
	return (scaled - (scaled % 100)) / 100 + min;
}

interface LoggedEvent {
	t: number;
	kind: 'first' | 'retry';
}

function countIn(log: readonly LoggedEvent[], lastBucket: number, windowMs: number): { firsts: number; retries: number } {
	let firsts = 0;
	let retries = 0;
	for (const e of log) {
		const n = bucketOf(e.t, windowMs);
		if (n > lastBucket - 10 && n <= lastBucket) {
			if (e.kind === 'first') firsts++;
			else retries++;
		}
	}
	return { firsts, retries };
}

type Op = { kind: 'advance'; ms: number } | { kind: 'first'; count: number } | { kind: 'retry'; count: number };

interface Scenario {
	percent: number;
	min: number;
	windowMs: number;
	start: number;
	ops: Op[];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
	.record({
		percent: fc.constantFrom(0, 5, 10, 20, 25, 29, 50, 100, 150),
		min: fc.integer({ min: 0, max: 8 }),
		windowMs: fc.constantFrom(7, 10, 61, 1000, 60_000),
		start: fc.integer({ min: 0, max: 4_000_000_000_000 }),
	})
	.chain((p) =>
		fc.record({
			percent: fc.constant(p.percent),
			min: fc.constant(p.min),
			windowMs: fc.constant(p.windowMs),
			start: fc.constant(p.start),
			ops: fc.array(
				fc.oneof(
					{ weight: 3, arbitrary: fc.integer({ min: 0, max: Math.ceil(p.windowMs / 10) }).map((ms): Op => ({ kind: 'advance', ms })) },
					{ weight: 1, arbitrary: fc.integer({ min: 0, max: 2 * p.windowMs }).map((ms): Op => ({ kind: 'advance', ms })) },
					{ weight: 3, arbitrary: fc.integer({ min: 1, max: 15 }).map((count): Op => ({ kind: 'first', count })) },
					{ weight: 4, arbitrary: fc.integer({ min: 1, max: 6 }).map((count): Op => ({ kind: 'retry', count })) },
				),
				{ maxLength: 120 },
			),
		}),
	);

const paramsOf = (s: Scenario): BudgetParams => ({ ratio: s.percent / 100, minRetriesPerWindow: s.min, windowMs: s.windowMs });

/** Runs a scenario through the core, checking every answer against the model; returns the log. */
function runChecked(s: Scenario): { data: BudgetData | undefined; now: number; log: LoggedEvent[] } {
	const params = paramsOf(s);
	let data: BudgetData | undefined;
	let now = s.start;
	const log: LoggedEvent[] = [];
	for (const op of s.ops) {
		if (op.kind === 'advance') {
			now += op.ms;
			continue;
		}
		for (let i = 0; i < op.count; i++) {
			const before = countIn(log, bucketOf(now, s.windowMs), s.windowMs);
			if (op.kind === 'first') {
				const step = recordFirst(data, now, params);
				data = step.data;
				log.push({ t: now, kind: 'first' });
				expect(step.result).toEqual({
					firstAttempts: before.firsts + 1,
					retries: before.retries,
					available: Math.max(0, modelLimit(s.percent, before.firsts + 1, s.min) - before.retries),
					windowMs: s.windowMs,
				});
			} else {
				const step = tryAcquire(data, now, params);
				data = step.data;
				const allowed = before.retries + 1 <= modelLimit(s.percent, before.firsts, s.min);
				expect(step.result.allowed).toBe(allowed);
				if (allowed) log.push({ t: now, kind: 'retry' });
				const retries = before.retries + (allowed ? 1 : 0);
				expect(step.result.snapshot).toEqual({
					firstAttempts: before.firsts,
					retries,
					available: Math.max(0, modelLimit(s.percent, before.firsts, s.min) - retries),
					windowMs: s.windowMs,
				});
			}
			expect(data.buckets.length).toBeLessThanOrEqual(10);
		}
	}
	return { data, now, log };
}

describe('retry budget: properties', () => {
	it('answers exactly as the rule on the raw event log: retry iff retries + 1 <= floor(ratio * firsts) + min', () => {
		fc.assert(
			fc.property(scenarioArb, (s) => {
				runChecked(s);
			}),
			FC_OPTIONS,
		);
	});

	it('(a) in every window that ends with a granted retry, granted retries <= floor(ratio * first attempts) + min', () => {
		fc.assert(
			fc.property(scenarioArb, (s) => {
				const { log } = runChecked(s);
				const grantBuckets = new Set(log.filter((e) => e.kind === 'retry').map((e) => bucketOf(e.t, s.windowMs)));
				for (const last of grantBuckets) {
					// every event of the window, also those later in its last bucket
					const { firsts, retries } = countIn(log, last, s.windowMs);
					expect(retries).toBeLessThanOrEqual(modelLimit(s.percent, firsts, s.min));
				}
			}),
			FC_OPTIONS,
		);
	});

	it('(b) first attempts are never refused: each one is counted, whatever the budget left', () => {
		fc.assert(
			fc.property(scenarioArb, fc.integer({ min: 1, max: 50 }), (s, firsts) => {
				const params = paramsOf(s);
				const run = runChecked(s);
				const now = run.now;
				let data = run.data;
				// spend every retry first
				for (;;) {
					const step = tryAcquire(data, now, params);
					data = step.data;
					if (!step.result.allowed) break;
				}
				const before = budgetSnapshot(data, now, params);
				for (let i = 1; i <= firsts; i++) {
					const step = recordFirst(data, now, params);
					data = step.data;
					expect(step.result.firstAttempts).toBe(before.firstAttempts + i);
					expect(step.result.retries).toBe(before.retries);
				}
			}),
			FC_OPTIONS,
		);
	});

	it('(c) after no traffic for a whole window the budget is as fresh as for a new key', () => {
		fc.assert(
			fc.property(scenarioArb, fc.integer({ min: 0, max: 10_000_000 }), (s, extra) => {
				const params = paramsOf(s);
				const { data, now } = runChecked(s);
				const later = now + s.windowMs + extra;
				expect(budgetSnapshot(data, later, params)).toEqual({ firstAttempts: 0, retries: 0, available: s.min, windowMs: s.windowMs });
				let d = data;
				let granted = 0;
				for (let i = 0; i < s.min + 3; i++) {
					const step = tryAcquire(d, later, params);
					d = step.data;
					if (step.result.allowed) granted++;
				}
				expect(granted).toBe(s.min);
			}),
			FC_OPTIONS,
		);
	});

	it('forgets exactly at budgetForgetAt: the last count is still there 1 ms before, gone at it', () => {
		fc.assert(
			fc.property(scenarioArb, (s) => {
				const params = paramsOf(s);
				const { data, now } = runChecked(s);
				if (!data || data.buckets.length === 0) return;
				const at = budgetForgetAt(data);
				if (at <= now) {
					expect(budgetSnapshot(data, now, params)).toMatchObject({ firstAttempts: 0, retries: 0 });
					return;
				}
				const before = budgetSnapshot(data, at - 1, params);
				expect(before.firstAttempts + before.retries).toBeGreaterThan(0);
				expect(budgetSnapshot(data, at, params)).toMatchObject({ firstAttempts: 0, retries: 0 });
			}),
			FC_OPTIONS,
		);
	});

	it('the state is plain JSON: a round trip through JSON changes no answer', () => {
		fc.assert(
			fc.property(scenarioArb, fc.integer({ min: 0, max: 100_000 }), (s, later) => {
				const params = paramsOf(s);
				const { data, now } = runChecked(s);
				const copy = JSON.parse(JSON.stringify(data ?? null)) as BudgetData | null;
				expect(tryAcquire(copy ?? undefined, now + later, params)).toEqual(tryAcquire(data, now + later, params));
			}),
			FC_OPTIONS,
		);
	});
});

/**
 * The sizing case of BUDGET_DEFAULTS: a sustained outage, every request fails, each of n items
 * makes 1 first attempt and asks for up to 4 retries, all within one window. An item stops
 * retrying at its first refused retry.
 */
type Order = 'all-firsts-first' | 'item-by-item' | 'round-by-round';

function simulateOutage(n: number, order: Order, params: BudgetParams = BUDGET_DEFAULTS): { requests: number; retries: number } {
	let data: BudgetData | undefined;
	let now = T0;
	let retries = 0;
	const first = () => {
		data = recordFirst(data, now++, params).data;
	};
	const retry = (): boolean => {
		const step = tryAcquire(data, now++, params);
		data = step.data;
		if (step.result.allowed) retries++;
		return step.result.allowed;
	};
	if (order === 'item-by-item') {
		for (let item = 0; item < n; item++) {
			first();
			for (let r = 0; r < 4 && retry(); r++);
		}
	} else if (order === 'all-firsts-first') {
		for (let item = 0; item < n; item++) first();
		for (let item = 0; item < n; item++) for (let r = 0; r < 4 && retry(); r++);
	} else {
		for (let item = 0; item < n; item++) first();
		let active = Array.from({ length: n }, (_, i) => i);
		for (let round = 0; round < 4; round++) active = active.filter(() => retry());
	}
	return { requests: n + retries, retries };
}

describe('retry budget: the outage numbers behind BUDGET_DEFAULTS', () => {
	it('has the documented defaults', () => {
		expect(BUDGET_DEFAULTS).toEqual({ ratio: 0.1, minRetriesPerWindow: 40, windowMs: 60_000 });
	});

	it('(d) 100 items: at most 50 retries, 1.5 times the traffic (5 times without the budget)', () => {
		for (const order of ['all-firsts-first', 'item-by-item', 'round-by-round'] as const) {
			expect(simulateOutage(100, order)).toEqual({ requests: 150, retries: 50 });
		}
	});

	it('(d) 1000 items: 1140 requests, 1.14 times the traffic', () => {
		for (const order of ['all-firsts-first', 'item-by-item', 'round-by-round'] as const) {
			const { requests } = simulateOutage(1000, order);
			expect(requests).toBe(1140);
			expect(requests / 1000).toBeCloseTo(1.14, 10);
		}
	});

	it('(d) the README table: small runs keep their retries, large ones tend to 1 + ratio', () => {
		const table = [1, 10, 40, 100, 400, 1000, 10_000].map((n) => {
			const { requests } = simulateOutage(n, 'item-by-item');
			return [n, requests, Math.round((requests / n) * 100) / 100];
		});
		expect(table).toEqual([
			[1, 5, 5],
			[10, 50, 5],
			[40, 84, 2.1],
			[100, 150, 1.5],
			[400, 480, 1.2],
			[1000, 1140, 1.14],
			[10_000, 11_040, 1.1],
		]);
	});

	it('(d) any interleaving of the items of one execution stays within 1.5x (100 items) and 1.14x (1000 items)', () => {
		const interleaving = (n: number) => fc.array(fc.nat(), { minLength: 5 * n, maxLength: 5 * n });
		for (const [n, maxFactor] of [
			[100, 1.5],
			[1000, 1.14],
		] as const) {
			fc.assert(
				fc.property(interleaving(n), (picks) => {
					let data: BudgetData | undefined;
					let now = T0;
					// per item: -1 not started, 0..4 retries taken, 5 done
					const taken = new Array<number>(n).fill(-1);
					let pending = Array.from({ length: n }, (_, i) => i);
					let requests = 0;
					for (const pick of picks) {
						if (pending.length === 0) break;
						const item = pending[pick % pending.length];
						if (taken[item] === -1) {
							data = recordFirst(data, now++, BUDGET_DEFAULTS).data;
							requests++;
							taken[item] = 0;
						} else {
							const step = tryAcquire(data, now++, BUDGET_DEFAULTS);
							data = step.data;
							if (step.result.allowed) requests++;
							taken[item] = step.result.allowed ? taken[item] + 1 : 5;
						}
						if (taken[item] >= 4) pending = pending.filter((i) => i !== item);
					}
					expect(requests / n).toBeLessThanOrEqual(maxFactor);
				}),
				{ ...FC_OPTIONS, numRuns: Math.max(1, Math.round(FC_OPTIONS.numRuns / (n / 50))) },
			);
		}
	});
});

describe('retry budget: edges', () => {
	const params: BudgetParams = { ratio: 0.1, minRetriesPerWindow: 2, windowMs: 60_000 };

	it('starts with the floor only: a key never seen may retry minRetriesPerWindow times', () => {
		let data: BudgetData | undefined;
		const verdicts = [];
		for (let i = 0; i < 3; i++) {
			const step = tryAcquire(data, T0, params);
			data = step.data;
			verdicts.push(step.result.allowed);
		}
		expect(verdicts).toEqual([true, true, false]);
		expect(tryAcquire(data, T0, params).result.snapshot).toEqual({ firstAttempts: 0, retries: 2, available: 0, windowMs: 60_000 });
	});

	it('lets counts leave the window one bucket (windowMs / 10) at a time', () => {
		let data = recordFirst(undefined, T0, params).data;
		for (let i = 0; i < 9; i++) data = recordFirst(data, T0, params).data;
		data = recordFirst(data, T0 + 6_000, params).data;
		expect(budgetSnapshot(data, T0 + 59_999, params).firstAttempts).toBe(11);
		expect(budgetSnapshot(data, T0 + 60_000, params).firstAttempts).toBe(1);
		expect(budgetSnapshot(data, T0 + 65_999, params).firstAttempts).toBe(1);
		expect(budgetSnapshot(data, T0 + 66_000, params).firstAttempts).toBe(0);
	});

	it('counts a clock that steps back into the newest bucket instead of reviving old ones', () => {
		let data = recordFirst(undefined, T0 + 120_000, params).data;
		data = recordFirst(data, T0, params).data;
		expect(data.buckets).toEqual([[bucketOf(T0 + 120_000, 60_000), 2, 0]]);
		expect(budgetSnapshot(data, T0, params).firstAttempts).toBe(2);
	});

	it('starts afresh when the window parameter changes (the buckets were cut for another one)', () => {
		const data = recordFirst(undefined, T0, params).data;
		expect(budgetSnapshot(data, T0, { ...params, windowMs: 30_000 })).toEqual({ firstAttempts: 0, retries: 0, available: 2, windowMs: 30_000 });
	});

	it('does not change the state it is given', () => {
		const data = Object.freeze({ windowMs: 60_000, buckets: Object.freeze([Object.freeze([bucketOf(T0, 60_000), 5, 1])]) }) as unknown as BudgetData;
		expect(() => {
			recordFirst(data, T0 + 1, params);
			tryAcquire(data, T0 + 100_000, params);
		}).not.toThrow();
		expect(data.buckets).toEqual([[bucketOf(T0, 60_000), 5, 1]]);
	});

	it('treats nonsense parameters as the most careful sane ones', () => {
		expect(budgetLimit(100, { ratio: NaN, minRetriesPerWindow: -5, windowMs: 60_000 })).toBe(0);
		expect(budgetLimit(100, { ratio: -1, minRetriesPerWindow: NaN, windowMs: 60_000 })).toBe(0);
		expect(budgetLimit(100, { ratio: 0.29, minRetriesPerWindow: 0, windowMs: 60_000 })).toBe(29);
		const step = tryAcquire(undefined, T0, { ratio: 0.1, minRetriesPerWindow: 1, windowMs: 0 });
		expect(step.result.allowed).toBe(true);
		expect(step.result.snapshot.windowMs).toBe(1);
		expect(budgetSnapshot(step.data, T0 + 1, { ratio: 0.1, minRetriesPerWindow: 1, windowMs: 0 }).retries).toBe(0);
	});
});
