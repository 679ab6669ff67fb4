/**
 * What a worker learned alone while Redis was away, added to the shared state when it answers
 * again (nodes/shared/core/traffic/adopt.ts): here, a bucket's spent quota and the route mapped to it.
 */
import { adoptLearned } from '../../../nodes/shared/core/traffic/adopt';
import { MAX_ROUTES } from '../../../nodes/shared/core/traffic/buckets';
import { admit, complete, freshTraffic, type LeaseView, type TrafficData, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';

const T0 = 1_800_000_000_000;
const P: TrafficParams = { window: { ceiling: 10, mode: 'adaptive' }, leaseMs: 30_000 };
const NONE: LeaseView = { count: 0, soonest: Infinity };

/** A state in which the answer on route S said the bucket `search` is spent until `resetAt`. */
function spentSearch(resetAt: number): TrafficData {
	const go = admit(undefined, NONE, T0, { id: 'a', retry: false, paced: false, route: 'S' }, P);
	if (!go.result.go) throw new Error('refused');
	const outcome = { success: false, outageFailure: false, overload: false, throttled: false, quota: { remaining: 0, resetAt }, bucket: 'search', route: 'S' };
	return complete(go.data, { count: 1, soonest: go.result.lease[1] }, T0, go.result.lease, outcome, P).data;
}

describe('adoptLearned: buckets', () => {
	it("a bucket spent alone is the shared state's too: the route's next request waits for its reset", () => {
		const local = spentSearch(T0 + 60_000);
		const { data } = adoptLearned(freshTraffic(P, T0), local, T0 + 1, P);
		expect(data.buckets?.routes).toEqual([['S', 'search']]);
		expect(admit(data, NONE, T0 + 2, { id: 'b', retry: false, paced: false, route: 'S' }, P).result).toMatchObject({ go: false, reason: 'paused', bucket: 'search', until: T0 + 60_000 });
	});

	it("the shared state's later reset is kept; the routes stay within the controller's bound", () => {
		const shared = spentSearch(T0 + 120_000);
		shared.buckets!.routes = Array.from({ length: MAX_ROUTES }, (_, k): [string, string] => [`r${k}`, 'core']);
		const { data } = adoptLearned(shared, spentSearch(T0 + 60_000), T0 + 1, P);
		expect(data.buckets?.quotas.search.resetAt).toBe(T0 + 120_000);
		expect(data.buckets?.routes).toHaveLength(MAX_ROUTES);
		expect(data.buckets?.routes[MAX_ROUTES - 1]).toEqual(['S', 'search']);
	});
});
