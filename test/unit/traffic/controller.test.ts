/**
 * The traffic controller of one API (nodes/shared/core/traffic/controller.ts) on an injected clock:
 * examples of every wait (pause, quota, hold and probes, slots, pace, budget), of what it learns
 * (window, rate), of leases and forgetting; then fast-check properties over random sequences of
 * requests and outcomes. Fixed seed (FC_SEED picks another).
 */
import fc from 'fast-check';
import { admit, complete, TRAFFIC_MEMORY_MS, type Admission, type AdmitRequest, type Lease, type LeaseView, type Outcome, type Step, type TrafficData, type TrafficEvent, type TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { learnedRps } from '../../../nodes/shared/core/traffic/rate';
import { budgetLimit } from '../../../nodes/shared/core/traffic/budget';
import { holdSnapshot, HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';

import { resumeTraffic } from '../../../nodes/shared/core/traffic/operator';
import { serverDelaySpreadMs } from '../../../nodes/shared/core/delay-plan';
import { verdictOf } from './verdict';
const SEED = Number(process.env.FC_SEED ?? 20261201);
const T0 = 1_800_000_000_000;

const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };
const DOWN: Outcome = { success: false, outageFailure: true, overload: true, throttled: false };
/** A 500: an outage sign that does not halve the window. */
const FAILED: Outcome = { success: false, outageFailure: true, overload: false, throttled: false };
const throttled = (ms?: number, header = 'retry-after'): Outcome => ({ success: false, outageFailure: false, overload: true, throttled: true, ...(ms !== undefined ? { serverWait: { ms, header } } : {}) });

function params(overrides: Partial<TrafficParams> = {}): TrafficParams {
	return { window: { ceiling: 200, mode: 'adaptive' }, leaseMs: 40_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS }, ...overrides };
}

/** One API's controller as a store keeps it: its state between steps, and its leases. */
function deepFreeze<T>(value: T): T {
	if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const inner of Object.values(value)) deepFreeze(inner);
	}
	return value;
}

class Api {
	data: TrafficData | undefined;
	events: TrafficEvent[] = [];
	/** The leases in flight (a store's sorted set); expired ones are dropped as a store drops them. */
	leases: Lease[] = [];
	/** Every lease handed out, by id: a request reports with its own. */
	private readonly issued = new Map<string, Lease>();
	private n = 0;
	/** `frozen`: each state the steps give is deep-frozen, so a step that changes the state it was given throws. */
	constructor(
		readonly p: TrafficParams,
		private readonly frozen = false,
	) {}
	view(now: number): LeaseView {
		this.leases = this.leases.filter(([, end]) => end > now);
		return { count: this.leases.length, soonest: Math.min(Infinity, ...this.leases.map(([, end]) => end)) };
	}
	private apply<T>(step: Step<T>): void {
		if (step.changed) this.data = this.frozen ? deepFreeze(step.data) : step.data;
		if (step.lease && 'add' in step.lease) {
			this.leases.push(step.lease.add);
			this.issued.set(step.lease.add[0], step.lease.add);
		} else if (step.lease) {
			const id = step.lease.end;
			this.leases = this.leases.filter(([leaseId]) => leaseId !== id);
		}
	}
	admit(now: number, request: Partial<AdmitRequest> = {}): Admission & { id: string } {
		const id = request.id ?? `r${this.n++}`;
		const step = admit(this.data, this.view(now), now, { id, retry: false, paced: false, ...request }, this.p);
		this.apply(step);
		return { ...step.result, id };
	}
	complete(now: number, id: string, outcome: Outcome): TrafficEvent[] {
		const lease = this.issued.get(id) ?? ([id, now, this.data?.window.starts ?? 0, 0] as Lease);
		const step = complete(this.data, this.view(now), now, lease, outcome, this.p);
		this.apply(step);
		this.events.push(...step.result);
		return step.result;
	}
	/** Admits and completes at once. */
	call(now: number, outcome: Outcome, request: Partial<AdmitRequest> = {}): Admission & { id: string } {
		const a = this.admit(now, request);
		// as the gate reports it: an item that failed before says so again
		if (a.go) this.complete(now, a.id, request.failedBefore ? { ...outcome, failedBefore: true } : outcome);
		return a;
	}
}

describe('traffic controller: slots in flight', () => {
	it('lets a new API have 10 requests in flight; the 11th waits for room in the window until the soonest lease ends', () => {
		const api = new Api(params());
		const admitted = Array.from({ length: 10 }, (_, k) => api.admit(T0 + k));
		expect(admitted.every((a) => a.go)).toBe(true);
		expect(api.admit(T0 + 10)).toMatchObject({ go: false, reason: 'window', until: T0 + 40_000 });
		api.complete(T0 + 20, admitted[0].id, OK);
		expect(api.admit(T0 + 21)).toMatchObject({ go: true, inFlight: 10, window: 11 });
	});

	it('keeps what it learned for the next execution: the window grows in slow start and stays', () => {
		const api = new Api(params());
		for (let k = 0; k < 30; k++) api.call(T0 + k, OK);
		expect(api.admit(T0 + 100)).toMatchObject({ go: true, window: 40 });
		// an hour later nothing is left: the API starts afresh
		expect(api.admit(T0 + 100 + TRAFFIC_MEMORY_MS + 41_000)).toMatchObject({ go: true, window: 10 });
	});

	it('halves the window once for a burst of 429s and 503s', () => {
		const api = new Api(params());
		for (let k = 0; k < 30; k++) api.call(T0, OK); // window 40
		const burst = Array.from({ length: 20 }, () => api.admit(T0 + 1));
		for (const a of burst) api.complete(T0 + 2, a.id, { ...DOWN, outageFailure: false });
		expect(api.events.filter((e) => e.kind === 'window')).toEqual([{ kind: 'window', decrease: { from: 40, to: 20 } }]);
	});

	it('gives up a lease that never reported (its worker died): the slot frees, a late report still teaches', () => {
		const api = new Api(params({ window: { ceiling: 1, mode: 'fixed' } }));
		const lost = api.admit(T0);
		expect(api.admit(T0 + 1)).toMatchObject({ go: false, reason: 'window', until: T0 + 40_000 });
		const next = api.admit(T0 + 40_000);
		expect(next.go).toBe(true);
		api.complete(T0 + 40_001, lost.id, OK); // unknown lease: ignored for the slot
		expect(api.admit(T0 + 40_002)).toMatchObject({ go: false, reason: 'window' });
	});
});

const DAY = 24 * 3600_000;
/** HubSpot's DAILY 429: a wait of a day whose end the node only infers. */
const guessedDay = (): Outcome => ({ success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: DAY, header: 'body.policyName', inferred: true } });

describe('traffic controller: a pause whose end is a guess is probed', () => {
	it('waits a minute, lets one request probe, and ends the pause when the probe is not throttled', () => {
		const api = new Api(params());
		api.call(T0, guessedDay());
		expect(api.events).toEqual([{ kind: 'paused', until: T0 + DAY, by: 'body.policyName', probedFrom: T0 + 60_000 }]);
		// before the probe is due every request waits for it, not for the day's end
		expect(api.admit(T0 + 30_000)).toMatchObject({ go: false, reason: 'paused', until: T0 + 60_000, wake: 'time' });
		const probe = api.admit(T0 + 60_000);
		expect(probe.go).toBe(true);
		// while the probe is out, the others wait for its answer (or the next probe's time)
		expect(api.admit(T0 + 60_001)).toMatchObject({ go: false, reason: 'paused', until: T0 + 120_000, wake: 'change' });
		expect(api.complete(T0 + 60_100, probe.id, OK)).toEqual([{ kind: 'resumed', by: 'body.policyName', how: 'probe' }]);
		expect(api.admit(T0 + 60_101).go).toBe(true);
	});

	it('doubles the interval after each throttled probe, up to 15 minutes', () => {
		const api = new Api(params());
		api.call(T0, guessedDay());
		let now = T0;
		const gaps: number[] = [];
		let due = T0 + 60_000;
		for (let k = 0; k < 6; k++) {
			expect(api.admit(due - 1)).toMatchObject({ go: false, reason: 'paused', until: due });
			const probe = api.admit(due);
			expect(probe.go).toBe(true);
			gaps.push(due - now);
			now = due;
			api.complete(now, probe.id, guessedDay());
			due = (api.data!.pauseProbeAt as number);
		}
		expect(gaps).toEqual([60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
		// still one pause: the throttled probes open no new one
		expect(api.events.filter((e) => e.kind === 'paused')).toHaveLength(1);
	});

	it('lets no other request by while a probe is out, and sends the next probe when one never answers', () => {
		const api = new Api(params());
		api.call(T0, guessedDay());
		const lost = api.admit(T0 + 60_000);
		expect(lost.go).toBe(true);
		expect(api.admit(T0 + 119_999)).toMatchObject({ go: false, reason: 'paused' });
		expect(api.admit(T0 + 120_000).go).toBe(true);
	});

	it('trusts a stated wait: a Retry-After replaces the guess, and no request goes before it', () => {
		const api = new Api(params());
		api.call(T0, guessedDay());
		const probe = api.admit(T0 + 60_000);
		api.complete(T0 + 60_000, probe.id, throttled(300_000));
		expect(api.admit(T0 + 200_000)).toMatchObject({ go: false, reason: 'paused', until: T0 + 360_000, wake: 'time', pausedBy: 'retry-after' });
		// the retries it paused go at its end; first requests a second later (the spread of the retries' returns)
		expect(api.admit(T0 + 360_000, { retry: true, paced: true }).go).toBe(true);
		expect(api.admit(T0 + 360_000)).toMatchObject({ go: false, reason: 'paused', until: T0 + 361_000, wake: 'time' });
		expect(api.admit(T0 + 361_000).go).toBe(true);
	});

	it('does not probe a stated pause earlier than it says when a guess outlasts it', () => {
		const api = new Api(params());
		const early = api.admit(T0); // in flight before the pause, answered after it began
		api.call(T0, throttled(300_000));
		api.complete(T0 + 1, early.id, guessedDay());
		expect(api.data).toMatchObject({ pausedUntil: T0 + 1 + DAY, pauseProbeAt: T0 + 300_000 });
		expect(api.admit(T0 + 120_000)).toMatchObject({ go: false, reason: 'paused', until: T0 + 300_000 });
		expect(api.admit(T0 + 300_000).go).toBe(true); // the probe, at the stated end
	});

	it('never probes a pause the server stated', () => {
		const api = new Api(params());
		api.call(T0, throttled(DAY, 'x-ratelimit-reset'));
		expect(api.admit(T0 + 15 * 60_000)).toMatchObject({ go: false, reason: 'paused', until: T0 + DAY, wake: 'time' });
	});
});

describe('traffic controller: the API pauses everyone', () => {
	it('a 429 with Retry-After pauses every request until then, with one event for the whole burst', () => {
		const api = new Api(params());
		const burst = Array.from({ length: 5 }, () => api.admit(T0));
		for (const a of burst) api.complete(T0 + 10, a.id, throttled(2000));
		expect(api.events.filter((e) => e.kind === 'paused')).toEqual([{ kind: 'paused', until: T0 + 2010, by: 'retry-after' }]);
		expect(api.admit(T0 + 1000)).toMatchObject({ go: false, reason: 'paused', until: T0 + 2010, pausedBy: 'retry-after' });
		expect(api.admit(T0 + 2010, { retry: true, paced: true }).go).toBe(true);
		expect(api.admit(T0 + 2210).go).toBe(true);
	});

	it('after a stated pause the retries it held back go first: first requests wait out the spread of their returns (a tenth of the wait, at most a second)', () => {
		for (const [waitMs, spreadMs] of [[2000, 200], [1000, 100], [60_000, 1000]]) {
			const api = new Api(params());
			const burst = Array.from({ length: 5 }, () => api.admit(T0));
			for (const a of burst) api.complete(T0 + 10, a.id, { ...throttled(waitMs), sent: 'first' });
			const end = T0 + 10 + waitMs;
			// a retry comes back within the spread its wait was given (delay-plan.ts): it goes at once
			expect(api.admit(end, { retry: true, paced: true, failedBefore: true }).go).toBe(true);
			expect(api.admit(end + spreadMs - 1, { retry: true, paced: true, failedBefore: true }).go).toBe(true);
			// a first request waits for the retries, then goes
			expect(api.admit(end)).toMatchObject({ go: false, reason: 'paused', until: end + spreadMs, wake: 'time', pausedBy: 'retry-after' });
			expect(api.admit(end + spreadMs).go).toBe(true);
			expect(api.data?.retriesFirst).toBeUndefined();
		}
		// the spread is the retry loop's own: the first requests wait exactly as long as its longest
		expect(serverDelaySpreadMs(2000)).toBe(200);
		expect(serverDelaySpreadMs(60_000)).toBe(1000);
	});

	it('a pause resumed by hand lets first requests go at once (no retries first)', () => {
		const api = new Api(params());
		api.call(T0, throttled(2000));
		api.data = resumeTraffic(api.data, T0 + 100, { pause: true, hold: false }).data;
		expect(api.admit(T0 + 100).go).toBe(true);
	});

	it("an API whose Retry-After is each request's own: once paced retries succeed after a pause, a first request's throttle pauses nothing and teaches no pace", () => {
		const api = new Api(params());
		const first = Array.from({ length: 10 }, () => api.admit(T0));
		for (const a of first) api.complete(T0 + 5, a.id, { ...throttled(2000), sent: 'first' });
		expect(api.admit(T0 + 1000)).toMatchObject({ go: false, reason: 'paused', until: T0 + 2005 });
		// after the pause: the paced retries succeed, new items' first requests are throttled
		for (let k = 0; k < 10; k++) api.call(T0 + 2005, { ...OK, sent: 'paced' }, { retry: true, paced: true });
		const fresh = Array.from({ length: 10 }, () => api.admit(T0 + 2205));
		expect(fresh.every((a) => a.go)).toBe(true);
		for (const a of fresh) api.complete(T0 + 2210, a.id, { ...throttled(2000), sent: 'first' });
		expect(api.admit(T0 + 2211).go).toBe(true);
		expect(api.events.filter((e) => e.kind === 'paused' || e.kind === 'rate-learned')).toEqual([{ kind: 'paused', until: T0 + 2005, by: 'retry-after' }]);
	});

	it("a first request that gets through after a pause: the limit is shared, a first request's throttle pauses the API again", () => {
		const api = new Api(params());
		api.call(T0, { ...throttled(1000), sent: 'first' });
		const [retry, fresh, late] = [api.admit(T0 + 1000, { retry: true, paced: true }), api.admit(T0 + 1000), api.admit(T0 + 1000)];
		api.complete(T0 + 1001, retry.id, { ...OK, sent: 'paced' });
		api.complete(T0 + 1001, fresh.id, { ...OK, sent: 'first' });
		api.complete(T0 + 1002, late.id, { ...throttled(1000), sent: 'first' });
		expect(api.admit(T0 + 1003)).toMatchObject({ go: false, reason: 'paused', until: T0 + 2002 });
	});

	it('a paced retry throttled again: the throttles are the API\'s, every one pauses it again', () => {
		const api = new Api(params());
		api.call(T0, { ...throttled(1000), sent: 'first' });
		const [ok, again, fresh] = [api.admit(T0 + 1000, { retry: true, paced: true }), api.admit(T0 + 1000, { retry: true, paced: true }), api.admit(T0 + 1000)];
		api.complete(T0 + 1001, ok.id, { ...OK, sent: 'paced' });
		api.complete(T0 + 1001, again.id, { ...throttled(1000), sent: 'paced' });
		// a longer wait on a first request extends the pause: it is the API's
		api.complete(T0 + 1002, fresh.id, { ...throttled(1500), sent: 'first' });
		expect(api.admit(T0 + 1003)).toMatchObject({ go: false, reason: 'paused', until: T0 + 2502 });
	});

	it('a later, longer wait extends the pause; a shorter one does not shorten it', () => {
		const api = new Api(params());
		api.call(T0, throttled(5000));
		api.call(T0, throttled(1000), { retry: true, paced: true });
		expect(api.admit(T0 + 2000)).toMatchObject({ reason: 'paused', until: T0 + 5000 });
	});

	it('a 503 with Retry-After pauses too; a 429 without a wait does not pause', () => {
		const api = new Api(params());
		api.call(T0, throttled(undefined));
		expect(api.admit(T0 + 1).go).toBe(true);
		api.call(T0 + 2, { success: false, outageFailure: true, overload: true, throttled: true, serverWait: { ms: 3000, header: 'retry-after' } });
		expect(api.admit(T0 + 3)).toMatchObject({ reason: 'paused', until: T0 + 3002 });
	});

	it('a spent quota on any answer, a success too, pauses until its reset; requests in flight count against it', () => {
		const api = new Api(params());
		const inFlight = api.admit(T0);
		api.call(T0, { ...OK, quota: { remaining: 2, resetAt: T0 + 1000 } }); // one more in flight: 1 left
		expect(api.admit(T0 + 1).go).toBe(true); // takes the last one
		expect(api.admit(T0 + 2)).toMatchObject({ go: false, reason: 'paused', until: T0 + 1000, pausedBy: 'quota' });
		api.complete(T0 + 3, inFlight.id, { ...OK, quota: { remaining: 0, resetAt: T0 + 903 } });
		expect(api.admit(T0 + 500)).toMatchObject({ reason: 'paused', until: T0 + 903 });
		const asker = api.admit(T0 + 903);
		expect(asker.go).toBe(true);
		// past the reset the count is unknown: the others wait for the answer of the one that asks
		expect(api.admit(T0 + 904)).toMatchObject({ go: false, reason: 'paused', pausedBy: 'quota', wake: 'change', until: T0 + 903 + 40_000 });
		// a fresh quota after the reset lets requests go again
		api.complete(T0 + 905, asker.id, { ...OK, quota: { remaining: 10, resetAt: T0 + 1905 } });
		expect(api.admit(T0 + 906).go).toBe(true);
	});

	it('answers that overtake each other on the way back do not give back spent requests (the lowest count of a window wins)', () => {
		const api = new Api(params({ window: { ceiling: 100, mode: 'fixed' } }));
		const sent = Array.from({ length: 6 }, (_, k) => api.admit(T0 + k));
		// the server counted sent[1] after sent[0] (16 left), but sent[0]'s answer (19 left) comes back last
		api.complete(T0 + 10, sent[1].id, { ...OK, quota: { remaining: 16, resetAt: T0 + 1000 } }); // 5 still in flight: 11 left
		api.complete(T0 + 11, sent[0].id, { ...OK, quota: { remaining: 19, resetAt: T0 + 1000 } }); // would be 15
		const more = Array.from({ length: 12 }, (_, k) => api.admit(T0 + 12 + k).go);
		expect(more).toEqual([...Array(11).fill(true), false]);
		// a later window's count replaces it
		api.complete(T0 + 1001, sent[2].id, { ...OK, quota: { remaining: 19, resetAt: T0 + 2001 } });
		expect(api.admit(T0 + 1002).go).toBe(true);
	});

	it('past the reset, an answer without a quota ends the counting; an asker that never answers is given up with its lease', () => {
		const api = new Api(params());
		api.call(T0, { ...OK, quota: { remaining: 0, resetAt: T0 + 500 } });
		const lost = api.admit(T0 + 500);
		expect(lost.go).toBe(true);
		expect(api.admit(T0 + 501)).toMatchObject({ go: false, reason: 'paused', wake: 'change' });
		// the lease of the one that asked ends: the next request asks
		const next = api.admit(T0 + 500 + 40_000);
		expect(next.go).toBe(true);
		expect(api.admit(T0 + 500 + 40_001)).toMatchObject({ go: false, reason: 'paused' });
		api.complete(T0 + 500 + 40_002, next.id, OK);
		expect(Array.from({ length: 5 }, (_, k) => api.admit(T0 + 500 + 40_003 + k).go)).toEqual([true, true, true, true, true]);
	});

	it('a 429 with Retry-After pauses without halving the window (the pause answers it); a 429 without one halves it', () => {
		const api = new Api(params());
		for (let k = 0; k < 30; k++) api.call(T0, OK); // window 40
		const a = api.admit(T0 + 1);
		api.complete(T0 + 2, a.id, throttled(1000));
		expect(api.events.filter((e) => e.kind === 'window')).toEqual([]);
		expect(api.admit(T0 + 1102)).toMatchObject({ go: true, window: 40 });
		const b = api.admit(T0 + 1103);
		api.complete(T0 + 1104, b.id, throttled(undefined));
		expect(api.events.filter((e) => e.kind === 'window')).toEqual([{ kind: 'window', decrease: { from: 40, to: 20 } }]);
	});
});

describe('traffic controller: holding during an outage', () => {
	it('after 5 failures in a row holds every request until the probe; one probe at a time; a probe every 2 s for a minute, then backing off', () => {
		const api = new Api(params());
		for (let k = 0; k < 5; k++) api.call(T0, DOWN);
		expect(api.events.find((e) => e.kind === 'held')).toMatchObject({ kind: 'held', nextProbeAt: T0 + 1000 });
		expect(api.admit(T0 + 500)).toMatchObject({ go: false, reason: 'held', until: T0 + 1000 });
		const probe = api.admit(T0 + 1000);
		expect(probe).toMatchObject({ go: true, probe: true });
		// while the probe is out, everyone else is held (until the probe's lease would be given up)
		expect(api.admit(T0 + 1001)).toMatchObject({ go: false, reason: 'held', until: T0 + 41_000 });
		api.complete(T0 + 1100, probe.id, DOWN);
		expect(api.admit(T0 + 1200)).toMatchObject({ reason: 'held', until: T0 + 3100 }); // 2 s, doubling
		const second = api.admit(T0 + 3100);
		api.complete(T0 + 3200, second.id, DOWN);
		expect(api.admit(T0 + 3300)).toMatchObject({ reason: 'held', until: T0 + 5200 }); // 2 s again: the first minute of the hold
		// every 2 s until the hold is a minute old, then 4 s, 8 s...
		let at = T0 + 5200;
		const gaps: number[] = [];
		while (at < T0 + 80_000) {
			const next = api.admit(at);
			expect(next).toMatchObject({ go: true, probe: true });
			api.complete(at + 100, next.id, DOWN);
			const held = api.admit(at + 200) as { until: number };
			gaps.push(held.until - (at + 100));
			at = held.until;
		}
		expect(gaps.filter((gap) => gap === 2000).length).toBe(27); // failed probes at +5.3 s, +7.4 s ... +59.9 s: the hold is younger than a minute
		expect(gaps.slice(27)).toEqual([4000, 8000, 16_000]);
	});

	it('a successful probe releases the held requests in slow start: the probe was one, then two, then four in flight', () => {
		const api = new Api(params());
		for (let k = 0; k < 5; k++) api.call(T0, DOWN);
		const probe = api.admit(T0 + 1000);
		api.complete(T0 + 1010, probe.id, OK);
		expect(api.events.some((e) => e.kind === 'recovered')).toBe(true);
		const wave = [api.admit(T0 + 1011), api.admit(T0 + 1011), api.admit(T0 + 1011)];
		expect(wave.map((a) => a.go)).toEqual([true, true, false]);
		expect(wave[2]).toMatchObject({ reason: 'window' });
		for (const a of wave.slice(0, 2)) api.complete(T0 + 1020, a.id, OK);
		const next = Array.from({ length: 5 }, () => api.admit(T0 + 1021));
		expect(next.map((a) => a.go)).toEqual([true, true, true, true, false]);
	});

	it('a request of before the hold that fails late, while the probe is out, does not reopen the hold beside the probe (queue mode: e2e)', () => {
		const api = new Api(params());
		// six sent before the API looked down; the first one's answer comes last
		const [late, ...failing] = Array.from({ length: 6 }, () => api.admit(T0));
		for (const a of failing) api.complete(T0, a.id, DOWN);
		const probe = api.admit(T0 + 1000);
		expect(probe).toMatchObject({ go: true, probe: true });
		// a worker's report whose time was read before the probe went, applied after it
		expect(api.complete(T0 + 900, late.id, DOWN)).toEqual([]);
		// still one probe out: the next request waits for its answer, not for a break the late failure started
		expect(api.admit(T0 + 2901)).toMatchObject({ go: false, reason: 'held', until: T0 + 41_000 });
		api.complete(T0 + 1800, probe.id, DOWN);
		expect(api.admit(T0 + 1900)).toMatchObject({ reason: 'held', until: T0 + 3800 }); // 2 s from the probe's failure
		expect(api.admit(T0 + 3800)).toMatchObject({ go: true, probe: true });
		// a late success is news that the API answers: it ends the hold as the probe's would
		const other = new Api(params());
		const [before, ...down] = Array.from({ length: 6 }, () => other.admit(T0));
		for (const a of down) other.complete(T0, a.id, DOWN);
		expect(other.admit(T0 + 1000)).toMatchObject({ go: true, probe: true });
		expect(other.complete(T0 + 1100, before.id, OK)).toEqual([expect.objectContaining({ kind: 'recovered' })]);
	});

	it('a probe that hangs is given up when its lease ends, and the next request probes', () => {
		const api = new Api(params());
		for (let k = 0; k < 5; k++) api.call(T0, DOWN);
		expect(api.admit(T0 + 1000)).toMatchObject({ probe: true });
		expect(api.admit(T0 + 40_999)).toMatchObject({ reason: 'held' });
		expect(api.admit(T0 + 41_000)).toMatchObject({ go: true, probe: true });
	});

	it('429s and 4xx are no outage: they never hold the API', () => {
		const api = new Api(params());
		for (let k = 0; k < 20; k++) api.call(T0, throttled(undefined));
		for (let k = 0; k < 20; k++) api.call(T0, { success: false, outageFailure: false, overload: false, throttled: false });
		expect(api.admit(T0 + 1)).toMatchObject({ go: true, probe: false });
	});

	it('without a hold, failures never stop requests', () => {
		const api = new Api(params({ hold: undefined }));
		for (let k = 0; k < 50; k++) api.call(T0, DOWN, { retry: k > 0, paced: true });
		expect(api.admit(T0 + 1).go).toBe(true);
	});
});

describe('traffic controller: a hold is for an API that is down, not for items that fail', () => {
	it('the same items failing again and again while others succeed never hold the API', () => {
		const api = new Api(params());
		// a fifth of the items fail, and each retries up to 4 more times; the rest succeed
		for (let k = 0; k < 100; k++) {
			const now = T0 + k * 100;
			if (k % 5 === 0) {
				api.call(now, DOWN);
				for (let r = 0; r < 4; r++) api.call(now + 10 + r, DOWN, { retry: true, failedBefore: true });
			} else api.call(now, OK);
		}
		expect(api.events.filter((e) => e.kind === 'held')).toEqual([]);
		expect(api.admit(T0 + 10_001)).toMatchObject({ go: true, probe: false });
	});

	it("an API that is down is held after five failures in a row, as when every failure counts, though retries took the slot before a second item's first failure", () => {
		// queue mode's outage: 503s shrink the window to one in flight, item A's retries answer before item B's first request
		const api = new Api(params());
		const retry = { retry: true, failedBefore: true };
		for (const [at, request] of [[0, {}], [900, retry], [1800, retry], [2700, {}]] as const) expect(api.call(T0 + at, DOWN, request).go).toBe(true);
		expect(api.events.filter((e) => e.kind === 'held')).toEqual([]);
		expect(api.call(T0 + 3600, DOWN, retry).go).toBe(true);
		expect(api.events.filter((e) => e.kind === 'held')).toHaveLength(1);
		expect(api.admit(T0 + 3601)).toMatchObject({ go: false, reason: 'held' });
	});

	it('first failures still hold an API that is down: five in a row', () => {
		const api = new Api(params());
		for (let k = 0; k < 5; k++) api.call(T0, { ...DOWN });
		expect(api.admit(T0 + 1)).toMatchObject({ go: false, reason: 'held' });
	});

	it('a request that has not failed yet is the probe: one whose item failed waits up to 2 s for it', () => {
		const api = new Api(params());
		for (let k = 0; k < 5; k++) api.call(T0, DOWN);
		// a new item is held: it will probe
		expect(api.admit(T0 + 100)).toMatchObject({ go: false, reason: 'held', until: T0 + 1000, wake: 'time' });
		// at the probe's time a retry comes first: it waits for the new item
		expect(api.admit(T0 + 1000, { retry: true, failedBefore: true })).toMatchObject({ go: false, reason: 'held', until: T0 + 3000, wake: 'change' });
		expect(api.admit(T0 + 1050)).toMatchObject({ go: true, probe: true });
		expect(api.admit(T0 + 1060, { retry: true, failedBefore: true })).toMatchObject({ go: false, reason: 'held' });
	});

	it('with no new item waiting, a retry probes at once; when the new one never comes, the retry probes after 2 s', () => {
		const a = new Api(params());
		for (let k = 0; k < 5; k++) a.call(T0, DOWN);
		expect(a.admit(T0 + 1000, { retry: true, failedBefore: true })).toMatchObject({ go: true, probe: true });
		const b = new Api(params());
		for (let k = 0; k < 5; k++) b.call(T0, DOWN);
		expect(b.admit(T0 + 100).go).toBe(false);
		expect(b.admit(T0 + 2999, { retry: true, failedBefore: true })).toMatchObject({ go: false, reason: 'held' });
		expect(b.admit(T0 + 3000, { retry: true, failedBefore: true })).toMatchObject({ go: true, probe: true });
	});

	it('any success ends the hold, from the probe or from a request that started before it opened', () => {
		const api = new Api(params());
		const early = api.admit(T0);
		for (let k = 0; k < 5; k++) api.call(T0 + 1, FAILED);
		expect(api.admit(T0 + 2)).toMatchObject({ reason: 'held' });
		expect(api.complete(T0 + 3, early.id, OK)).toEqual([expect.objectContaining({ kind: 'recovered' })]);
		expect(api.admit(T0 + 4)).toMatchObject({ go: true, probe: false });
	});

	it('half-open: a failure that is not the probe does not reopen the hold', () => {
		const api = new Api(params());
		const early = api.admit(T0);
		for (let k = 0; k < 5; k++) api.call(T0 + 1, FAILED);
		const probe = api.admit(T0 + 1001);
		expect(probe).toMatchObject({ go: true, probe: true });
		expect(api.complete(T0 + 1002, early.id, FAILED)).toEqual([]);
		expect(api.complete(T0 + 1003, probe.id, OK)).toEqual([expect.objectContaining({ kind: 'recovered' })]);
	});
});

describe('traffic controller: limits where the server puts them (named buckets)', () => {
	const HOUR = 3600_000;
	// GitHub states its reset as an epoch: one instant for every answer of the hour
	const github = (resource: string, remaining: number, status: 'ok' | 'limited' = 'ok', resetAt = T0 + HOUR): Outcome => ({
		...(status === 'ok' ? OK : { success: false, outageFailure: false, overload: false, throttled: false }),
		quota: { remaining, resetAt },
		bucket: resource,
	});
	const withRoute = (outcome: Outcome, route: string): Outcome => ({ ...outcome, route });

	it("a spent bucket pauses its routes only: the API's other routes, and routes never answered, go on", () => {
		const api = new Api(params());
		const search = api.admit(T0, { route: 'GET /search/issues' });
		expect(api.complete(T0 + 10, search.id, withRoute(github('search', 0, 'limited'), 'GET /search/issues'))).toEqual([{ kind: 'paused', until: T0 + HOUR, by: 'quota', bucket: 'search' }]);
		api.call(T0 + 20, withRoute(github('core', 4999), 'GET /repos/a/b'), { route: 'GET /repos/a/b' });
		expect(api.admit(T0 + 30, { route: 'GET /search/issues' })).toMatchObject({ go: false, reason: 'paused', pausedBy: 'quota', bucket: 'search', until: T0 + HOUR, wake: 'time' });
		expect(api.admit(T0 + 31, { route: 'GET /repos/a/b' })).toMatchObject({ go: true });
		expect(api.admit(T0 + 32, { route: 'GET /repos/c/d' })).toMatchObject({ go: true });
		expect(api.admit(T0 + 33)).toMatchObject({ go: true });
	});

	it('at the reset one request on the bucket asks; its answer refills it (logged once), and the routes go again', () => {
		const api = new Api(params());
		api.call(T0, withRoute(github('search', 0, 'limited'), 'S'), { route: 'S' });
		// the API is in use meanwhile (an API idle past the reset is forgotten, its quota with it)
		for (let m = 5; m < 60; m += 5) api.call(T0 + m * 60_000, withRoute(github('core', 4000), 'R'), { route: 'R' });
		const asker = api.admit(T0 + HOUR, { route: 'S' });
		expect(asker.go).toBe(true);
		expect(api.admit(T0 + HOUR + 1, { route: 'S' })).toMatchObject({ go: false, reason: 'paused', bucket: 'search', wake: 'change' });
		expect(api.complete(T0 + HOUR + 2, asker.id, withRoute(github('search', 29, 'ok', T0 + 2 * HOUR), 'S'))).toEqual([{ kind: 'resumed', by: 'quota', how: 'refilled', bucket: 'search' }]);
		expect(api.admit(T0 + HOUR + 3, { route: 'S' }).go).toBe(true);
	});

	it("counts a bucket's quota down with the requests its routes send", () => {
		const api = new Api(params());
		api.call(T0, withRoute(github('search', 2), 'S'), { route: 'S' });
		expect([api.admit(T0 + 1, { route: 'S' }).go, api.admit(T0 + 2, { route: 'S' }).go]).toEqual([true, true]);
		expect(api.admit(T0 + 3, { route: 'S' })).toMatchObject({ go: false, bucket: 'search' });
		expect(api.admit(T0 + 4, { route: 'R' }).go).toBe(true);
	});

	it("a throttle naming a bucket whose quota is not spent (GitHub's secondary limit) pauses the whole API", () => {
		const api = new Api(params());
		api.call(T0, { ...throttled(60_000, 'retry-after'), quota: { remaining: 4000, resetAt: T0 + HOUR }, bucket: 'core', route: 'R' }, { route: 'R' });
		const other = api.admit(T0 + 1, { route: 'other' });
		expect(other).toMatchObject({ go: false, reason: 'paused', pausedBy: 'retry-after' });
		expect('bucket' in other).toBe(false);
	});

	it("a 429 naming a spent bucket with a longer Retry-After pauses the bucket until then, and does not halve the window", () => {
		const api = new Api(params());
		api.call(T0, { ...throttled(5_000, 'retry-after'), quota: { remaining: 0, resetAt: T0 + 1_000 }, bucket: 'abc', route: 'R' }, { route: 'R' });
		expect(api.admit(T0 + 1, { route: 'R' })).toMatchObject({ go: false, bucket: 'abc', until: T0 + 5_000 });
		expect(api.admit(T0 + 2, { route: 'other' })).toMatchObject({ go: true, window: 10 });
		expect(api.events.filter((e) => e.kind === 'window')).toEqual([]);
	});

	it('remembers at most 64 routes, the most recently learned', () => {
		const api = new Api(params());
		for (let k = 0; k < 70; k++) api.call(T0 + k, withRoute(github('core', 4000), `r${k}`), { route: `r${k}` });
		expect(api.data?.buckets?.routes).toHaveLength(64);
		expect(api.data?.buckets?.routes[0]).toEqual(['r6', 'core']);
	});
});

describe('traffic controller: every pause and its end is an event, once', () => {
	it('a stated pause ends at its time: the first step after it says so', () => {
		const api = new Api(params());
		api.call(T0, throttled(2000));
		expect(api.admit(T0 + 1000).events).toBeUndefined();
		expect(api.admit(T0 + 2000).events).toEqual([{ kind: 'resumed', by: 'retry-after', how: 'time' }]);
		expect(api.admit(T0 + 2001).events).toBeUndefined();
	});

	it("the API's quota spent by an answer, and refilled by the next answer after its reset", () => {
		const api = new Api(params());
		expect(api.call(T0, { ...OK, quota: { remaining: 0, resetAt: T0 + 1000 } }).go).toBe(true);
		expect(api.events).toEqual([{ kind: 'paused', until: T0 + 1000, by: 'quota' }]);
		const asker = api.admit(T0 + 1000);
		expect(api.complete(T0 + 1001, asker.id, { ...OK, quota: { remaining: 10, resetAt: T0 + 2001 } })).toEqual([{ kind: 'resumed', by: 'quota', how: 'refilled' }]);
	});
});

describe('traffic controller: a refusal writes only what must be told once', () => {
	const request: AdmitRequest = { id: 'x', retry: false, paced: false };
	const none: LeaseView = { count: 0, soonest: Infinity };

	it('a wait writes nothing; a wait that saw a pause end writes once, so its event is told once', () => {
		const api = new Api(params({ window: { ceiling: 1, mode: 'fixed' } }));
		api.call(T0, throttled(2000));
		expect(admit(api.data, none, T0 + 1000, request, api.p).changed).toBe(false);
		// one request in flight at the window of 1: the step that sees the pause end refuses, and still writes
		const full: LeaseView = { count: 1, soonest: T0 + 40_000 };
		// (a first request: the retries the pause held back go first until 2200, see "after a stated pause")
		const ended = admit(api.data, full, T0 + 2200, request, api.p);
		expect(ended).toMatchObject({ changed: true, result: { go: false, reason: 'window', events: [{ kind: 'resumed', by: 'retry-after', how: 'time' }] } });
		expect(admit(ended.data, full, T0 + 2201, request, api.p)).toMatchObject({ changed: false, result: { go: false, reason: 'window' } });
		expect(admit(ended.data, full, T0 + 2201, request, api.p).result.events).toBeUndefined();
	});

	it("the hold's fresh waiter is written once per opening: the next fresh request held writes nothing", () => {
		const api = new Api(params());
		for (let k = 0; k < 5; k++) api.call(T0, DOWN);
		const first = admit(api.data, none, T0 + 100, request, api.p);
		expect(first).toMatchObject({ changed: true, result: { go: false, reason: 'held' } });
		expect(admit(first.data, none, T0 + 200, request, api.p)).toMatchObject({ changed: false, result: { go: false, reason: 'held' } });
	});
});

describe('traffic controller: the retry budget waits instead of refusing', () => {
	it('allows 10% of first attempts + 40 retries per minute; the next retry waits until a counted retry leaves the window', () => {
		const api = new Api(params({ hold: undefined }));
		for (let k = 0; k < 100; k++) api.call(T0, OK);
		for (let k = 0; k < 50; k++) expect(api.call(T0 + 1000, DOWN, { retry: true }).go).toBe(true);
		expect(api.admit(T0 + 1000, { retry: true })).toMatchObject({ go: false, reason: 'budget', until: T0 + 60_000 }); // its bucket (6 s) leaves then
		// new first attempts raise the limit: 10 more make room for one more retry
		for (let k = 0; k < 10; k++) api.call(T0 + 2000, OK);
		expect(api.admit(T0 + 2000, { retry: true }).go).toBe(true);
	});

	it('a retry the server paced (Retry-After) spends nothing and counts nothing', () => {
		const api = new Api(params({ hold: undefined, budget: { ratio: 0, minRetriesPerWindow: 0, windowMs: 60_000 } }));
		api.call(T0, OK);
		expect(api.admit(T0, { retry: true })).toMatchObject({ go: false, reason: 'budget' });
		const paced = api.admit(T0, { retry: true, paced: true });
		expect(paced).toMatchObject({ go: true });
		expect(paced.go && paced.budget).toBeFalsy();
	});

	it('a probe never waits for the budget', () => {
		const api = new Api(params({ budget: { ratio: 0, minRetriesPerWindow: 0, windowMs: 60_000 } }));
		for (let k = 0; k < 5; k++) api.call(T0, DOWN);
		expect(api.admit(T0 + 1000, { retry: true })).toMatchObject({ go: true, probe: true });
	});
});

describe('traffic controller: the pace', () => {
	it('counts successes one bucket per 100 ms, a report on a clock that steps back in the newest (as the sliding window does)', () => {
		const api = new Api(params());
		api.call(T0 + 250, OK);
		api.call(T0 + 120, OK); // another worker's clock, or a step queued behind a later one
		api.call(T0 + 260, OK);
		expect(api.data!.rate.successes).toEqual([[(T0 + 200) / 100, 3]]);
	});

	it('a fixed rate of 10 per second spaces requests 100 ms apart: a request the pace holds back reserves the next slot and goes at it', () => {
		const api = new Api(params({ rateLimitRps: 10 }));
		expect(api.admit(T0).go).toBe(true);
		expect(api.admit(T0 + 30, { id: 'a' })).toMatchObject({ go: false, reason: 'pace', until: T0 + 100, paceSlotAt: T0 + 100 });
		// the next one held back gets the slot after it: nobody needs to look again before its own
		expect(api.admit(T0 + 40, { id: 'b' })).toMatchObject({ go: false, reason: 'pace', until: T0 + 200, paceSlotAt: T0 + 200 });
		// a little early (a timer, another worker's clock), it is admitted and sent at its slot, without taking another
		expect(api.admit(T0 + 90, { id: 'a', paceSlotAt: T0 + 100 })).toMatchObject({ go: true, sendAt: T0 + 100 });
		// late (a loaded machine), it still goes on the slot it holds, and the next goes a spacing after it
		expect(api.admit(T0 + 260, { id: 'b', paceSlotAt: T0 + 200 }).go).toBe(true);
		expect(api.admit(T0 + 260)).toMatchObject({ go: false, reason: 'pace', until: T0 + 360 });
	});

	it('waiters woken late together are admitted at once and sent one spacing apart, each keeping its slot: no burst after a stalled event loop, no round trip more', () => {
		const api = new Api(params({ rateLimitRps: 4 }));
		expect(api.admit(T0).go).toBe(true);
		const slots = ['a', 'b', 'c'].map((id, k) => {
			const held = api.admit(T0 + 10 + k, { id });
			return held.go ? undefined : held.paceSlotAt;
		});
		expect(slots).toEqual([T0 + 250, T0 + 500, T0 + 750]);
		// every timer fires at T0 + 800 (the loop was blocked): one goes now, the others 250 ms after the one before
		const a = api.admit(T0 + 800, { id: 'a', paceSlotAt: T0 + 250 });
		expect(a.go && a.sendAt).toBeUndefined();
		expect(api.admit(T0 + 800, { id: 'b', paceSlotAt: T0 + 500 })).toMatchObject({ go: true, sendAt: T0 + 1050 });
		expect(api.admit(T0 + 800, { id: 'c', paceSlotAt: T0 + 750 })).toMatchObject({ go: true, sendAt: T0 + 1300 });
		// the next free slot is a spacing after the last one, late as it was
		expect(api.admit(T0 + 810)).toMatchObject({ go: false, reason: 'pace', until: T0 + 1550, paceSlotAt: T0 + 1550 });
	});

	it('a request on its slot a few ms after a late one before it is admitted at once and sent at the spacing after it: a refusal would cost a round trip', () => {
		const api = new Api(params({ rateLimitRps: 10 }));
		expect(api.admit(T0).go).toBe(true);
		const a = api.admit(T0 + 1, { id: 'a' });
		const b = api.admit(T0 + 2, { id: 'b' });
		expect([a.go ? 0 : a.paceSlotAt, b.go ? 0 : b.paceSlotAt]).toEqual([T0 + 100, T0 + 200]);
		expect(api.admit(T0 + 104, { id: 'a', paceSlotAt: T0 + 100 }).go).toBe(true);
		expect(api.admit(T0 + 200, { id: 'b', paceSlotAt: T0 + 200 })).toMatchObject({ go: true, sendAt: T0 + 204 });
	});

	it('a reserved slot over a second ahead, or at or past the item\'s deadline, is not admitted ahead: the request comes back then, or stops', () => {
		const api = new Api(params({ rateLimitRps: 0.5 }));
		expect(api.admit(T0).go).toBe(true);
		const held = api.admit(T0 + 10, { id: 'a' });
		expect(held).toMatchObject({ go: false, reason: 'pace', paceSlotAt: T0 + 2000 });
		expect(api.admit(T0 + 900, { id: 'a', paceSlotAt: T0 + 2000 })).toMatchObject({ go: false, reason: 'pace', until: T0 + 2000, paceSlotAt: T0 + 2000 });
		expect(api.admit(T0 + 1500, { id: 'a', paceSlotAt: T0 + 2000, deadlineAt: T0 + 2000 })).toMatchObject({ go: false, reason: 'pace', until: T0 + 2000 });
		expect(api.admit(T0 + 1500, { id: 'a', paceSlotAt: T0 + 2000, deadlineAt: T0 + 2001 })).toMatchObject({ go: true, sendAt: T0 + 2000 });
	});

	it('without a pace, a request whose time was read before the last admission is not held back (another worker, a store round trip)', () => {
		const api = new Api(params());
		expect(api.admit(T0 + 50).go).toBe(true);
		expect(api.admit(T0 + 20).go).toBe(true);
		expect(api.admit(T0 + 49)).toMatchObject({ go: true });
		expect(api.data?.rate.nextAt).toBe(0);
		// a fixed pace still holds a late reader back, by the slot it reserves
		const paced = new Api(params({ rateLimitRps: 10 }));
		expect(paced.admit(T0 + 50).go).toBe(true);
		expect(paced.admit(T0 + 20)).toMatchObject({ go: false, reason: 'pace', paceSlotAt: T0 + 150 });
	});

	it('learns no pace from a throttle that carries a quota: the quota says the limit', () => {
		const api = new Api(params({ hold: undefined }));
		for (let k = 0; k < 20; k++) api.call(T0 + k * 40, OK);
		api.call(T0 + 800, { ...throttled(1000), quota: { remaining: 0, resetAt: T0 + 1800 } });
		expect(api.events.filter((e) => e.kind === 'rate-learned')).toEqual([]);
		const asker = api.admit(T0 + 1900);
		api.complete(T0 + 1901, asker.id, { ...OK, quota: { remaining: 19, resetAt: T0 + 2900 } });
		expect([api.admit(T0 + 1902).go, api.admit(T0 + 1902).go]).toEqual([true, true]);
	});

	it('learns W = what the API accepted in the second before a throttle: 90% of it at once, back to W in 10 s (CUBIC), faster beyond', () => {
		const api = new Api(params({ hold: undefined }));
		for (let k = 0; k < 20; k++) api.call(T0 + k * 40, OK);
		api.call(T0 + 800, throttled(1000));
		const learned = api.events.find((e) => e.kind === 'rate-learned');
		expect(learned?.kind === 'rate-learned' && learned.rps).toBeCloseTo(18, 9);
		const cubic = (seconds: number) => 20 * (1 - 0.1 * (1 - seconds / 10) ** 3);
		const spacingAt = (now: number) => {
			expect(api.admit(now).go).toBe(true);
			const next = api.admit(now + 1);
			return next.go ? 0 : (next.until ?? NaN) - now;
		};
		// (first requests: the retries the pause held back go first until 1900)
		expect(spacingAt(T0 + 1900)).toBeCloseTo(1000 / cubic(1.1), 3);
		expect(spacingAt(T0 + 10_800)).toBeCloseTo(1000 / 20, 3);
		expect(spacingAt(T0 + 30_800)).toBeCloseTo(1000 / cubic(30), 3);
		expect(cubic(30) / 20).toBeCloseTo(1.8, 9);
	});

	it('a later 429 of the same burst raises W to what its second saw; the pace is dropped 20 s after the last throttle or held request', () => {
		const api = new Api(params({ hold: undefined, window: { ceiling: 100, mode: 'fixed' } }));
		// 22 sent at once; their answers come back over 300 ms, a 429 among them
		const sent = Array.from({ length: 22 }, () => api.admit(T0));
		for (let k = 0; k < 12; k++) api.complete(T0 + k * 10, sent[k].id, OK);
		api.complete(T0 + 200, sent[12].id, throttled(1000));
		for (let k = 13; k < 21; k++) api.complete(T0 + 210 + k, sent[k].id, OK);
		api.complete(T0 + 300, sent[21].id, throttled(1000));
		const rates = api.events.filter((e) => e.kind === 'rate-learned').map((e) => (e.kind === 'rate-learned' ? e.rps : 0));
		expect(rates.map((r) => Math.round(r * 10) / 10)).toEqual([10.8, 18.1]); // 0.9 x 20, 0.1 s into its curve
		// the pace holds requests back at 5 s: kept 20 s from then, not from the throttle
		expect(api.admit(T0 + 5000).go).toBe(true);
		expect(api.admit(T0 + 5001)).toMatchObject({ go: false, reason: 'pace' });
		// 20 s after the throttle it still paces (it held a request back at 5 s)...
		expect(api.data?.rate.learned && learnedRps(api.data.rate, T0 + 300 + 20_001)).toBeGreaterThan(0);
		// ...and is dropped 20 s after that
		expect(learnedRps(api.data!.rate, T0 + 5001 + 20_000)).toBeUndefined();
		expect([api.admit(T0 + 5001 + 20_000).go, api.admit(T0 + 5001 + 20_000).go]).toEqual([true, true]);
	});

	it('a throttle with fewer than 10 accepted requests in the last second teaches nothing (the pause does the job)', () => {
		const api = new Api(params({ hold: undefined }));
		api.call(T0, throttled(1000));
		for (let k = 0; k < 9; k++) api.call(T0 + 2000 + k * 50, OK);
		api.call(T0 + 2500, throttled(1000));
		expect(api.events.filter((e) => e.kind === 'rate-learned')).toEqual([]);
		// the tenth success in that second makes it a rate worth learning
		for (let k = 0; k < 10; k++) api.call(T0 + 4000 + k * 50, OK);
		api.call(T0 + 4600, throttled(1000));
		expect(api.events.filter((e) => e.kind === 'rate-learned')).toHaveLength(1);
	});
});

// ---- properties ---------------------------------------------------------------------------

type Op = { kind: 'admit'; retry: boolean; paced: boolean; dt: number } | { kind: 'complete'; which: number; outcome: Outcome; dt: number };

// outages are weighted up: a hold needs a few failures in a row to open
const outcome: fc.Arbitrary<Outcome> = fc.oneof(
	fc.constant(OK),
	{ arbitrary: fc.constant(DOWN), weight: 4 },
	fc.nat({ max: 3000 }).map((ms) => throttled(ms)),
	fc.constant(throttled(undefined)),
	fc.record({ remaining: fc.nat({ max: 5 }), resetAt: fc.nat({ max: 20_000 }).map((ms) => T0 + ms) }).map((quota) => ({ ...OK, quota })),
);
const op: fc.Arbitrary<Op> = fc.oneof(
	fc.record({ kind: fc.constant('admit' as const), retry: fc.boolean(), paced: fc.boolean(), dt: fc.nat({ max: 300 }) }),
	fc.record({ kind: fc.constant('complete' as const), which: fc.nat({ max: 30 }), outcome, dt: fc.nat({ max: 700 }) }),
);
const p = fc.record({
	ceiling: fc.integer({ min: 1, max: 30 }),
	rate: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
	budget: fc.boolean(),
	hold: fc.boolean(),
});

function paramsOf(settings: { ceiling: number; rate: number | undefined; budget: boolean; hold: boolean }): TrafficParams {
	return params({
		window: { ceiling: settings.ceiling, mode: 'adaptive' },
		leaseMs: 5000,
		...(settings.rate ? { rateLimitRps: settings.rate } : {}),
		budget: settings.budget ? { ratio: 0.1, minRetriesPerWindow: 1, windowMs: 10_000 } : undefined,
		hold: settings.hold ? { ...HOLD_DEFAULTS, consecutiveFailures: 3 } : undefined,
	});
}

describe('traffic controller: properties', () => {
	const runs = { seed: SEED, numRuns: 300 };

	it('never lets a request go while the API is paused, held (but for one probe), or at its window, or above the retry budget', () => {
		fc.assert(
			fc.property(p, fc.array(op, { maxLength: 300 }), (settings, ops) => {
				const tp = paramsOf(settings);
				const api = new Api(tp);
				const live: string[] = [];
				let now = T0;
				let pausedUntil = 0;
				const counted: Array<{ at: number; retry: boolean }> = [];
				for (const o of ops) {
					now += o.dt;
					if (o.kind === 'complete') {
						if (live.length === 0) continue;
						const [id] = live.splice(o.which % live.length, 1);
						api.complete(now, id, o.outcome);
						if (o.outcome.throttled && o.outcome.serverWait) pausedUntil = Math.max(pausedUntil, now + o.outcome.serverWait.ms);
						continue;
					}
					const before = api.data;
					const hold = tp.hold && before?.hold ? holdSnapshot(before.hold, now, { ...tp.hold, probeTimeoutMs: tp.leaseMs }) : undefined;
					const holdState = hold?.state ?? 'closed';
					const inFlight = api.leases.filter(([, exp]) => exp > now).length;
					const a = api.admit(now, { retry: o.retry, paced: o.paced });
					if (!a.go) continue;
					live.push(a.id);
					if (now < pausedUntil) throw new Error(`admitted at ${now - T0} while paused until ${pausedUntil - T0}`);
					if (holdState !== 'closed' && !a.probe) throw new Error(`admitted a non-probe while the hold is ${holdState}`);
					if (a.probe && hold?.openUntil !== undefined && now < hold.openUntil) throw new Error(`probed at ${now - T0}, before the probe time ${hold.openUntil - T0}`);
					const probes = api.leases.filter(([, exp, , isProbe]) => isProbe === 1 && exp > now).length;
					if (probes > 1) throw new Error(`${probes} probes in flight`);
					if (!a.probe && inFlight >= settings.ceiling) throw new Error(`admitted with ${inFlight} in flight, ceiling ${settings.ceiling}`);
					if (tp.budget && !a.probe && !(o.retry && o.paced)) {
						counted.push({ at: now, retry: o.retry });
						// the budget's window is 9 to 10 s long (buckets): retries of the last 9 s are all in it,
						// and it holds no first attempt older than 10 s
						const retries = counted.filter((c) => c.retry && c.at > now - 9_000).length;
						const firsts = counted.filter((c) => !c.retry && c.at > now - 10_000).length;
						if (retries > budgetLimit(firsts, tp.budget)) throw new Error(`${retries} retries in 9 s for ${firsts} first attempts in 10 s`);
					}
				}
			}),
			runs,
		);
	});

	it('a step never changes the state it is given (the stores keep it, and a Redis batch runs the next step on it)', () => {
		fc.assert(
			fc.property(p, fc.array(op, { maxLength: 200 }), (settings, ops) => {
				const tp = paramsOf(settings);
				const api = new Api(tp, true);
				const live: string[] = [];
				let now = T0;
				for (const o of ops) {
					now += o.dt;
					if (o.kind === 'admit') {
						const a = api.admit(now, { retry: o.retry, paced: o.paced, failedBefore: o.retry });
						if (a.go) live.push(a.id);
					} else if (live.length > 0) {
						api.complete(now, live.splice(o.which % live.length, 1)[0], o.outcome);
					}
				}
			}),
			runs,
		);
	});

	it('a step that says it merges gives the same verdict for every count of requests in flight in its range, and whatever other workers added to the counts', () => {
		/** The counts as other workers may have grown them: more in every bucket, a larger window (up to what the verdict allows). */
		const grown = (data: TrafficData | undefined, more: number, windowAtMost: number | undefined): TrafficData | undefined => {
			if (!data) return data;
			const add = (buckets: Array<[number, number, number]>) => buckets.map(([n, a, b]): [number, number, number] => [n, a + more, b]);
			return {
				...data,
				window: { ...data.window, size: Math.min(data.window.size + more, windowAtMost ?? Infinity), starts: data.window.starts + more },
				rate: { ...data.rate, successes: data.rate.successes.map(([n, c]): [number, number] => [n, c + more]) },
				...(data.budget ? { budget: { ...data.budget, buckets: add(data.budget.buckets) } } : {}),
				...(data.hold ? { hold: { ...data.hold, buckets: add(data.hold.buckets) } } : {}),
			};
		};
		let merging = 0;
		fc.assert(
			fc.property(p, fc.array(op, { maxLength: 200 }), fc.nat({ max: 1000 }), (settings, ops, salt) => {
				const tp = paramsOf(settings);
				let data: TrafficData | undefined;
				let leases: Lease[] = [];
				let now = T0;
				let n = 0;
				const viewAt = (count: number): LeaseView => ({ count, soonest: Math.min(Infinity, ...leases.filter(([, end]) => end > now).map(([, end]) => end)) });
				const check = <T,>(run: (d: TrafficData | undefined, l: LeaseView) => Step<T>) => {
					leases = leases.filter(([, end]) => end > now);
					const step = run(data, viewAt(leases.length));
					if (step.merges) {
						merging++;
						const [min, max] = step.merges.inFlight;
						expect(min).toBeLessThanOrEqual(leases.length);
						expect(max).toBeGreaterThanOrEqual(leases.length);
						const other = Math.min(max, min + ((salt + n) % 7));
						const more = 1 + ((salt + n) % 5);
						expect(verdictOf(run(data, viewAt(other)).result)).toEqual(verdictOf(step.result));
						expect(verdictOf(run(grown(data, more, step.merges.windowAtMost), viewAt(leases.length)).result)).toEqual(verdictOf(step.result));
						const room = step.merges.roomGrows;
						if (room && data) {
							// a window others grew: as much more room, up to the ceiling
							const raised = max + Math.min(room.ceiling, room.size + more) - Math.min(room.ceiling, room.size);
							expect(verdictOf(run(grown(data, more, undefined), viewAt(raised)).result)).toEqual(verdictOf(step.result));
						}
					}
					if (step.changed) data = step.data;
					if (step.lease && 'add' in step.lease) leases.push(step.lease.add);
					else if (step.lease) leases = leases.filter(([id]) => id !== (step.lease as { end: string }).end);
					return step.result;
				};
				const live: Lease[] = [];
				for (const o of ops) {
					now += o.dt;
					n++;
					if (o.kind === 'admit') {
						const request: AdmitRequest = { id: `m${n}`, retry: o.retry, paced: o.paced };
						const a = check((d, l) => admit(d, l, now, request, tp));
						if (a.go) live.push(a.lease);
					} else if (live.length > 0) {
						const [lease] = live.splice(o.which % live.length, 1);
						check((d, l) => complete(d, l, now, lease, o.outcome, tp));
					}
				}
			}),
			runs,
		);
		// the property is about something: many steps merge
		expect(merging).toBeGreaterThan(300);
	});

	it('once a probe succeeded, the requests in flight double per round at most (slow start)', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 2, max: 40 }), (rounds, waiting) => {
				const api = new Api(params());
				for (let k = 0; k < 5; k++) api.call(T0, DOWN);
				const probe = api.admit(T0 + 1000);
				api.complete(T0 + 1001, probe.id, OK);
				let now = T0 + 1002;
				let allowed = 2; // the probe was the first round, of one
				for (let r = 0; r < rounds; r++) {
					const wave: string[] = [];
					for (let k = 0; k < waiting; k++) {
						const a = api.admit(now);
						if (a.go) wave.push(a.id);
					}
					expect(wave.length).toBeLessThanOrEqual(allowed);
					for (const id of wave) api.complete(now, id, OK);
					allowed *= 2;
					now += 10;
				}
			}),
			{ seed: SEED, numRuns: 100 },
		);
	});
});
