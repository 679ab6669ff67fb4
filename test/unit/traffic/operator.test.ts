/**
 * The operator's view of an API's controller and the pause or hold ended by hand
 * (nodes/shared/core/traffic/operator.ts), on states the controller made, at an injected time.
 */
import { admit, complete, type LeaseView, type Outcome, type TrafficData, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { resumeTraffic, trafficView } from '../../../nodes/shared/core/traffic/operator';

const T0 = 1_800_000_000_000;
const P: TrafficParams = { window: { ceiling: 200, mode: 'adaptive' }, leaseMs: 40_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS }, label: 'api.example.com' };
const iso = (ms: number) => new Date(ms).toISOString();
/** No request in flight (each of run's requests reports before the next goes). */
const NONE: LeaseView = { count: 0, soonest: Infinity };

function run(steps: Array<[number, Outcome]>, data?: TrafficData): TrafficData {
	let state = data;
	steps.forEach(([now, outcome], k) => {
		const admitted = admit(state, NONE, now, { id: `r${k}-${now}`, retry: false, paced: false, route: 'S' }, P);
		if (!admitted.result.go) throw new Error(`request ${k} was refused: ${admitted.result.reason}`);
		state = admitted.data;
		state = complete(state, { count: 1, soonest: admitted.result.lease[1] }, now, admitted.result.lease, { ...outcome, route: 'S' }, P).data;
	});
	return state!;
}

const DOWN: Outcome = { success: false, outageFailure: true, overload: false, throttled: false };
const retryAfter = (ms: number): Outcome => ({ success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms, header: 'retry-after' } });

describe('the operator view', () => {
	it('an API paused by the server: until when and why, its label, its window and budget', () => {
		const data = run([[T0, retryAfter(60_000)]]);
		expect(trafficView('api:x', data, 0, T0 + 1)).toEqual({
			api: 'api:x',
			label: 'api.example.com',
			paused: { until: iso(T0 + 60_000), by: 'retry-after' },
			buckets: [],
			held: null,
			window: { size: 10, inFlight: 0, slowStart: true },
			pace: { learnedPerSecond: null, nextAt: null },
			budget: { firstAttempts: 1, retries: 0, windowMs: 60_000 },
			tokens: null,
			lastRequestAt: iso(T0),
		});
	});

	it('a held API: when its next probe goes; a spent bucket: its reset', () => {
		const held = run(Array.from({ length: 5 }, (): [number, Outcome] => [T0, DOWN]));
		expect(trafficView('k', held, 0, T0 + 1).held).toEqual({ state: 'open', nextProbeAt: iso(T0 + 1000), openings: 1 });
		const spent = run([[T0, { success: false, outageFailure: false, overload: false, throttled: false, quota: { remaining: 0, resetAt: T0 + 3600_000 }, bucket: 'search' }]]);
		expect(trafficView('k', spent, 0, T0 + 1).buckets).toEqual([{ bucket: 'search', remaining: 0, resetAt: iso(T0 + 3600_000), spent: true }]);
		expect(trafficView('k', spent, 0, T0 + 1).paused).toBeNull();
	});
});

describe('ended by hand', () => {
	it('a pause: the next request goes at once; an event says what ended', () => {
		const data = run([[T0, retryAfter(600_000)]]);
		expect(admit(data, NONE, T0 + 1, { id: 'a', retry: false, paced: false }, P).result).toMatchObject({ go: false, reason: 'paused' });
		const { data: resumed, events } = resumeTraffic(data, T0 + 2, { pause: true, hold: false });
		expect(events).toEqual([{ kind: 'resumed', by: 'retry-after', how: 'hand' }]);
		expect(admit(resumed, NONE, T0 + 3, { id: 'b', retry: false, paced: false }, P).result).toMatchObject({ go: true });
	});

	it("a spent bucket's quota is forgotten: its routes go, and the next answer says the count again", () => {
		const data = run([[T0, { success: false, outageFailure: false, overload: false, throttled: false, quota: { remaining: 0, resetAt: T0 + 3600_000 }, bucket: 'search' }]]);
		expect(admit(data, NONE, T0 + 1, { id: 'a', retry: false, paced: false, route: 'S' }, P).result).toMatchObject({ go: false, bucket: 'search' });
		const { data: resumed, events } = resumeTraffic(data, T0 + 2, { pause: true, hold: true });
		expect(events).toEqual([{ kind: 'resumed', by: 'quota', how: 'hand', bucket: 'search' }]);
		expect(admit(resumed, NONE, T0 + 3, { id: 'b', retry: false, paced: false, route: 'S' }, P).result).toMatchObject({ go: true });
	});

	it('a hold: closed, the window restarts in slow start; ending only the pause leaves the hold', () => {
		const data = run(Array.from({ length: 5 }, (): [number, Outcome] => [T0, DOWN]));
		expect(resumeTraffic(data, T0 + 1, { pause: true, hold: false }).data.hold?.state).toBe('open');
		const { data: resumed, events } = resumeTraffic(data, T0 + 1, { pause: false, hold: true });
		expect(events).toEqual([{ kind: 'resumed', by: 'outage hold', how: 'hand' }]);
		expect(admit(resumed, NONE, T0 + 2, { id: 'a', retry: false, paced: false }, P).result).toMatchObject({ go: true, probe: false, window: 1 });
	});

	it('no state: nothing to end, and nothing a store keeps', () => {
		const { data, events } = resumeTraffic(undefined, T0, { pause: true, hold: true });
		expect(events).toEqual([]);
		expect(data.touchedAt).toBe(-Infinity);
	});
});
