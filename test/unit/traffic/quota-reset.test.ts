/**
 * A quota's reset is the instant the server stated, read once where the header is parsed
 * (quota-headers.ts), and carried as that instant through the outcome, the controller's step, its
 * state and every reader after (the operator's view, a paused request's retryAt). Re-based on a
 * later clock read it drifted by the time between the two reads (1-8 ms in a real n8n). Injected
 * clock: the report comes a few ms after the parse on purpose.
 */
import { passGate, reportOutcome, type GateContext } from '../../../nodes/shared/core/traffic/gate';
import type { TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { readBucket, readEndpointQuota, readQuota } from '../../../nodes/shared/core/traffic/quota-headers';
import { trafficView } from '../../../nodes/shared/core/traffic/operator';
import { Waiters } from '../../../nodes/shared/core/traffic/waiters';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { FakeRuntime } from '../fake-runtime';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0, 250);
/** An epoch second an hour on, as GitHub's x-ratelimit-reset states it. */
const RESET_S = Math.floor(NOW / 1000) + 3600;

describe('readQuota: the reset as an instant', () => {
	it('an epoch reset (seconds or ms) is exactly that instant, whatever the clock that reads it', () => {
		for (const now of [NOW, NOW + 1, NOW + 7, NOW + 999]) {
			expect(readQuota({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET_S) }, now)).toEqual({ remaining: 0, resetAt: RESET_S * 1000, header: 'x-ratelimit-remaining' });
			expect(readQuota({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': String(RESET_S * 1000 + 5) }, now)?.resetAt).toBe(RESET_S * 1000 + 5);
		}
	});

	it('a date reset (RFC 3339, Anthropic) is that instant', () => {
		const date = new Date(RESET_S * 1000).toISOString();
		expect(readQuota({ 'anthropic-ratelimit-requests-remaining': '9', 'anthropic-ratelimit-requests-reset': date }, NOW + 3)?.resetAt).toBe(RESET_S * 1000);
	});

	it('a delta reset (seconds, a duration, the IETF t=) counts from the clock read that parsed it', () => {
		expect(readQuota({ 'ratelimit-remaining': '4', 'ratelimit-reset': '30' }, NOW)?.resetAt).toBe(NOW + 30_000);
		expect(readQuota({ 'x-ratelimit-remaining-requests': '4', 'x-ratelimit-reset-requests': '6m0s' }, NOW)?.resetAt).toBe(NOW + 360_000);
		expect(readQuota({ ratelimit: '"default";r=0;t=12' }, NOW)?.resetAt).toBe(NOW + 12_000);
		expect(readQuota({ ratelimit: 'limit=100, remaining=17, reset=2.5' }, NOW)?.resetAt).toBe(NOW + 2_500);
	});

	it('a reset in the past is now; an absurd one stays a finite, storable time', () => {
		expect(readQuota({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(NOW / 1000) - 60) }, NOW)?.resetAt).toBe(NOW);
		const absurd = readQuota({ ratelimit: `"default";r=0;t=${'9'.repeat(400)}` }, NOW);
		expect(absurd?.resetAt).toBe(Number.MAX_SAFE_INTEGER);
		expect(JSON.parse(JSON.stringify(absurd)).resetAt).toBe(Number.MAX_SAFE_INTEGER);
	});

	it('of several spent quotas, the latest reset binds', () => {
		const quota = readQuota({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET_S), 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '2h' }, NOW);
		expect(quota).toMatchObject({ resetAt: NOW + 7_200_000, header: 'x-ratelimit-remaining-tokens' });
	});
});

describe("readEndpointQuota: an endpoint's own limit (Zendesk)", () => {
	it('zendesk-ratelimit-<endpoint> is that endpoint\'s bucket and quota; the account\'s count is left to readQuota', () => {
		const headers = { 'ratelimit-remaining': '699', 'ratelimit-reset': '41', 'Zendesk-RateLimit-Tickets-Index': 'total=100; remaining=99; resets=41' };
		expect(readEndpointQuota(headers, NOW)).toEqual({ bucket: 'tickets-index', quota: { remaining: 99, resetAt: NOW + 41_000, header: 'zendesk-ratelimit-tickets-index' } });
		expect(readQuota(headers, NOW)).toEqual({ remaining: 699, resetAt: NOW + 41_000, header: 'ratelimit-remaining' });
	});

	it('of several, the one with the fewest left; a value without remaining and resets, or with a negative one, is none', () => {
		expect(readEndpointQuota({ 'zendesk-ratelimit-a': 'total=10; remaining=4; resets=5', 'zendesk-ratelimit-b': 'total=10; resets=9; remaining=0' }, NOW)).toMatchObject({ bucket: 'b', quota: { remaining: 0, resetAt: NOW + 9_000 } });
		expect(readEndpointQuota({ 'zendesk-ratelimit-tickets-index': 'total=100; remaining=0; resets=-1' }, NOW)).toBeUndefined();
		expect(readEndpointQuota({ 'zendesk-ratelimit-tickets-index': 'total=100; remaining=0' }, NOW)).toBeUndefined();
		expect(readEndpointQuota({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' }, NOW)).toBeUndefined();
	});
});

describe('the stated reset through the gate: one instant for every reader', () => {
	const params: TrafficParams = { window: { ceiling: 10, mode: 'adaptive' }, leaseMs: 40_000, label: 'api.github.test' };

	async function spentQuota(reportAfterMs: number, headers: Record<string, string>) {
		const runtime = new FakeRuntime({ startMs: NOW });
		const store = new MemoryStateStore();
		const ctx: GateContext = { store, key: 'api', params, runtime, waiters: new Waiters(), pollMs: 5_000 };
		const gate = await passGate(ctx, { id: 'r1', retry: false, paced: false, route: 'S' }, { maxServerDelayMs: 60_000 });
		if (!gate.go) throw new Error('the first request was refused');
		runtime.advance(120); // the request's round trip
		// parsed when the answer is read...
		const quota = readQuota(headers, runtime.now())!;
		const bucket = readBucket(headers, '/search/issues', (major) => major);
		// ...and reported a few ms later, on another read of the clock
		runtime.advance(reportAfterMs);
		await reportOutcome(ctx, gate.admission.lease, { success: false, outageFailure: false, overload: false, throttled: false, quota, ...(bucket !== undefined ? { bucket, route: 'S' } : {}), sent: 'first' });
		const later = runtime.now() + 3;
		const blocked = await store.traffic('api', later, params, (data) => ({ data: data!, result: data, changed: false }));
		const next = await passGate(ctx, { id: 'r2', retry: false, paced: false, route: 'S' }, { maxServerDelayMs: 60_000, deadlineAt: later + 1 });
		return { view: trafficView('api', blocked!, 0, later), next };
	}

	it.each([0, 1, 8, 250])('an epoch reset reported %i ms after it was parsed: the state, the operator and the retryAt say the instant the server stated', async (lagMs) => {
		const { view, next } = await spentQuota(lagMs, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET_S), 'x-ratelimit-resource': 'search' });
		expect(view.buckets).toEqual([{ bucket: 'search', remaining: 0, resetAt: new Date(RESET_S * 1000).toISOString(), spent: true }]);
		expect(next).toMatchObject({ go: false, stop: 'retry-after-too-long', retryAt: RESET_S * 1000 });
	});

	it("the API's own quota (no bucket named): the same instant in its pause and retryAt", async () => {
		const { view, next } = await spentQuota(8, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET_S) });
		expect(view).toMatchObject({ paused: { until: new Date(RESET_S * 1000).toISOString(), by: 'quota' }, buckets: [] });
		expect(next).toMatchObject({ go: false, retryAt: RESET_S * 1000 });
	});

	it('a delta reset counts from the clock read that parsed it, not from the report', async () => {
		const { view } = await spentQuota(8, { 'ratelimit-remaining': '0', 'ratelimit-reset': '30', 'x-ratelimit-resource': 'search' });
		expect(view.buckets[0].resetAt).toBe(new Date(NOW + 120 + 30_000).toISOString());
	});
});
