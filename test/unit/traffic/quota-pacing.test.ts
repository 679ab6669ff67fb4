/**
 * The controller against a simulated rate-limited API that advertises its quota on every answer,
 * on a virtual clock: 300 requests, a limit of 20 a second, latencies that vary both ways so that
 * answers overtake each other on the way back (as with several workers, or any network). Two
 * common limiters: fixed windows of one epoch second (GitHub-style epoch reset) and a token bucket
 * (reset = seconds until full again). Waiting requests look again soon after any report, as the
 * gate's waiters do. Deterministic: a seeded generator.
 */
import { admit, complete, type Lease, type LeaseView, type TrafficData, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { readQuota } from '../../../nodes/shared/core/traffic/quota-headers';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';

const T0 = 1_800_000_000_300;
const LIMIT = 20;
const REQUESTS = 300;

type Limiter = (nowMs: number) => { accepted: boolean; headers: Record<string, string> };

function epochWindows(): Limiter {
	let second = -1;
	let count = 0;
	return (nowMs) => {
		const s = Math.floor(nowMs / 1000);
		if (s !== second) [second, count] = [s, 0];
		const accepted = count < LIMIT;
		if (accepted) count++;
		return { accepted, headers: { 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': String(LIMIT - count), 'x-ratelimit-reset': String(s + 1) } };
	};
}

function tokenBucket(): Limiter {
	let tokens = LIMIT;
	let last = T0;
	return (nowMs) => {
		tokens = Math.min(LIMIT, tokens + ((nowMs - last) / 1000) * LIMIT);
		last = nowMs;
		const accepted = tokens >= 1;
		if (accepted) tokens -= 1;
		return { accepted, headers: { 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': String(Math.floor(tokens)), 'x-ratelimit-reset': ((LIMIT - tokens) / LIMIT).toFixed(3) } };
	};
}

function run(limiter: Limiter, seed: number) {
	const params: TrafficParams = { window: { ceiling: 1000, mode: 'adaptive' }, leaseMs: 40_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS } };
	let state = seed;
	const random = () => (state = (state * 16807) % 2147483647) / 2147483647;
	type Event = { t: number; kind: 'try' | 'arrive' | 'answer'; item: number; id: string; accepted?: boolean; headers?: Record<string, string> };
	const queue: Event[] = [];
	const push = (event: Event) => {
		const at = queue.findIndex((e) => e.t > event.t);
		queue.splice(at < 0 ? queue.length : at, 0, event);
	};
	let data: TrafficData | undefined;
	// the requests in flight, as a store keeps them beside the state
	const leases = new Map<string, Lease>();
	const view = (now: number): LeaseView => {
		for (const [id, lease] of leases) if (lease[1] <= now) leases.delete(id);
		return { count: leases.size, soonest: Math.min(Infinity, ...[...leases.values()].map(([, end]) => end)) };
	};
	const issued = new Map<string, Lease>();
	let sent = 0;
	let throttled = 0;
	let done = 0;
	let lastAt = T0;
	let n = 0;
	for (let item = 0; item < REQUESTS; item++) push({ t: T0 + random() * 50, kind: 'try', item, id: '' });
	while (queue.length > 0) {
		const event = queue.shift()!;
		if (event.kind === 'try') {
			const id = `r${n++}`;
			const step = admit(data, view(event.t), event.t, { id, retry: false, paced: false }, params);
			if (step.changed) data = step.data;
			const verdict = step.result;
			if (verdict.go) {
				leases.set(id, verdict.lease);
				issued.set(id, verdict.lease);
				sent++;
				push({ t: event.t + 1 + random() * 15, kind: 'arrive', item: event.item, id });
			} else {
				const until = verdict.until ?? Infinity;
				push({ t: verdict.wake === 'change' ? Math.min(until, event.t + 5) : until + 1, kind: 'try', item: event.item, id: '' });
			}
		} else if (event.kind === 'arrive') {
			const answer = limiter(event.t);
			if (!answer.accepted) throttled++;
			push({ ...event, t: event.t + 1 + random() * 15, kind: 'answer', accepted: answer.accepted, headers: { ...answer.headers, ...(answer.accepted ? {} : { 'retry-after': '1' }) } });
		} else {
			const quota = readQuota(event.headers, event.t);
			const ok = event.accepted === true;
			const lease = issued.get(event.id)!;
			const v = view(event.t);
			leases.delete(event.id);
			data = complete(data, v, event.t, lease, { success: ok, outageFailure: false, overload: !ok, throttled: !ok, ...(ok ? {} : { serverWait: { ms: 1000, header: 'retry-after' } }), ...(quota ? { quota } : {}) }, params).data;
			if (ok) {
				done++;
				lastAt = event.t;
			} else {
				push({ t: event.t + 1000, kind: 'try', item: event.item, id: '' });
			}
		}
	}
	return { sent, throttled, done, seconds: (lastAt - T0) / 1000 };
}

describe('traffic controller: an API that advertises its quota, answers overtaking each other', () => {
	it.each([
		['fixed windows of one epoch second', epochWindows],
		['a token bucket (reset: until full again)', tokenBucket],
	])('%s: no 429, every request within 1.1x of items / rate', (_label, limiter) => {
		for (const seed of [7, 2026, 99991]) {
			const result = run(limiter(), seed);
			expect(result).toMatchObject({ done: REQUESTS, throttled: 0, sent: REQUESTS });
			expect(result.seconds).toBeLessThanOrEqual((REQUESTS / LIMIT) * 1.1);
		}
	});
});
