/**
 * Fair shares and urgent items at an API's traffic gate, simulated on virtual time
 * (gate-simulation.ts): one process, one API limited to 20 requests a second by Rate Limit.
 */
import { simulateGate, type ServerModel } from './gate-simulation';
import type { TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import type { Lane } from '../../../nodes/shared/core/traffic/fair-line';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { busiest } from '../../support/busiest';

/** The most requests sent in any one second (a sliding second over the send times). */
const busiestSecond = (sentAt: number[]) => busiest(sentAt, 1000);

const params = (extra: Partial<TrafficParams> = {}): TrafficParams => ({ window: { ceiling: 1000, mode: 'adaptive' }, leaseMs: 310_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS }, rateLimitRps: 20, ...extra });
const healthy: ServerModel = () => ({ latencyMs: 40, status: 200 });

const BIG = 1000;
const SMALL = 20;
/** Items 0..999: tenant big; then 20 of small-1 and 20 of small-2, all arriving at once. */
const tenantOf = (item: number) => (item < BIG ? 'big' : item < BIG + SMALL ? 'small-1' : 'small-2');

describe('three tenants, one sending 1,000 items and two sending 20, at 20 requests a second', () => {
	it('with a Fair Share Key, tenants that come together take turns: each small one finishes in about 3x its time alone (a third of the pace each), not after the big one; the limit holds', async () => {
		const alone = await simulateGate(SMALL, params(), healthy, { laneOf: () => ({ share: 'small-1' }) });
		const run = await simulateGate(BIG + 2 * SMALL, params(), healthy, { laneOf: (item): Lane => ({ share: tenantOf(item) }) });
		expect(run.failed).toBe(0);
		const aloneMs = Math.max(...alone.endedAt);
		for (const tenant of ['small-1', 'small-2']) {
			const ended = Math.max(...run.endedAt.filter((_, item) => tenantOf(item) === tenant));
			// three tenants waiting take turns: a third of 20 a second each, while the small ones wait
			expect(ended / aloneMs).toBeLessThan(3.2);
		}
		expect(busiestSecond(run.requests.map((r) => r.sentAt))).toBeLessThanOrEqual(20);
		// the big tenant's items take what the small ones leave: the whole run is the pace's
		expect(run.durationMs).toBeLessThan(((BIG + 2 * SMALL) / 20) * 1000 + 200);
	});

	it('small tenants that come 3 s into the big one\'s run catch up first: each ends within 2x its time alone, and the big one still ends with the pace', async () => {
		const arrivesAt = (item: number) => (item < BIG ? 0 : 3_000);
		const alone = await simulateGate(SMALL, params(), healthy, { laneOf: () => ({ share: 'small-1' }) });
		const run = await simulateGate(BIG + 2 * SMALL, params(), healthy, { laneOf: (item): Lane => ({ share: tenantOf(item) }), arrivesAt });
		expect(run.failed).toBe(0);
		const aloneMs = Math.max(...alone.endedAt);
		for (const tenant of ['small-1', 'small-2']) {
			const ended = Math.max(...run.endedAt.filter((_, item) => tenantOf(item) === tenant));
			// 40 requests ahead of the big tenant's at 20 a second: 2 s, against 1 s alone
			expect((ended - 3_000) / aloneMs).toBeLessThanOrEqual(2.1);
		}
		expect(busiestSecond(run.requests.map((r) => r.sentAt))).toBeLessThanOrEqual(20);
		expect(run.durationMs).toBeLessThan(((BIG + 2 * SMALL) / 20) * 1000 + 200);
	});

	it('a second big tenant that comes 20 s into the first one\'s run goes first for 10 s at most (CATCH_UP_MS), then they take turns', async () => {
		const run = await simulateGate(2 * BIG, params(), healthy, { laneOf: (item): Lane => ({ share: item < BIG ? 'first' : 'second' }), arrivesAt: (item) => (item < BIG ? 0 : 20_000) });
		expect(run.failed).toBe(0);
		const firstSent = run.requests.filter((r) => r.item < BIG).map((r) => r.sentAt);
		const between = (from: number, to: number) => firstSent.filter((t) => t >= from && t < to).length;
		// caught up: the first tenant sends nothing for the 10 s after the second one comes (its 200 turns of the last 10 s)
		expect(between(20_100, 29_900)).toBe(0);
		// then every other turn: 10 a second each
		expect(between(31_000, 41_000)).toBeGreaterThanOrEqual(95);
		expect(between(31_000, 41_000)).toBeLessThanOrEqual(105);
	});

	it('without one, the small tenants wait behind the big one (the case the key is for)', async () => {
		const run = await simulateGate(BIG + 2 * SMALL, params(), healthy);
		const smallEnded = Math.max(...run.endedAt.filter((_, item) => tenantOf(item) !== 'big'));
		expect(smallEnded).toBeGreaterThan(50_000);
	});

	it('waiting in line costs the store no more than reserving slots: about 3 steps per item', async () => {
		const lined = await simulateGate(600, params(), healthy, { laneOf: (item) => ({ share: item % 3 === 0 ? 'a' : 'b' }) });
		const reserved = await simulateGate(600, params(), healthy);
		expect(lined.stepsPerItem).toBeLessThanOrEqual(reserved.stepsPerItem + 0.05);
	});
});

describe('urgent items during a bulk run at 20 a second', () => {
	it('each urgent item waits at most one interval of the pace (50 ms, and the spread of its look)', async () => {
		const bulk = 400;
		const urgentAt = (item: number) => 2_013 + (item - bulk) * 1_017;
		const run = await simulateGate(bulk + 5, params(), healthy, {
			laneOf: (item) => (item >= bulk ? { urgent: true } : {}),
			arrivesAt: (item) => (item >= bulk ? urgentAt(item) : 0),
		});
		expect(run.failed).toBe(0);
		for (let item = bulk; item < bulk + 5; item++) {
			const sent = run.requests.find((r) => r.item === item)?.sentAt as number;
			expect(sent - urgentAt(item)).toBeLessThanOrEqual(50 + 5);
		}
		expect(busiestSecond(run.requests.map((r) => r.sentAt))).toBeLessThanOrEqual(20);
	});
});
