/**
 * One process's items at an API's traffic gate (nodes/shared/core/traffic/gate.ts), simulated on
 * virtual time (gate-simulation.ts): what the gate costs per item (store steps) as the number of
 * waiting items grows, and how long the items take where the API throttles.
 */
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/core/traffic/budget';
import { simulateGate, type ServerModel } from './gate-simulation';
import { passGate, reportOutcome, type GateContext } from '../../../nodes/shared/core/traffic/gate';
import type { Outcome, TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import type { StateStore, TrafficStep } from '../../../nodes/shared/core/traffic/store';
import { Waiters } from '../../../nodes/shared/core/traffic/waiters';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { FakeRuntime } from '../fake-runtime';
import { serverDelaySpreadMs } from '../../../nodes/shared/core/delay-plan';
import { NO_TOKENS } from '../../../nodes/shared/core/traffic/token-estimate';

/** The controller at the node's defaults (Max Items in Flight 200, adaptive; budget and hold on). */
const defaults = (extra: Partial<TrafficParams> = {}): TrafficParams => ({ window: { ceiling: 200, mode: 'adaptive' }, leaseMs: 310_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS }, ...extra });

const healthy: ServerModel = () => ({ latencyMs: 20, status: 200 });

describe('a pace of 20 per second', () => {
	it.each([100, 300, 600])('%i items: each waiting request reserves its slot, so the store is asked 3 times per item whatever the number waiting', async (items) => {
		// before slots were reserved, every waiter looked again at every slot: 51.5, 151.5 and 301.5 steps per item
		const run = await simulateGate(items, defaults({ rateLimitRps: 20 }), healthy);
		expect(run.failed).toBe(0);
		// the first item goes at once (admit, report); every other one: reserve, admit, report
		expect(run.stepsPerItem).toBe(3 - 1 / items);
		// and the pace holds: 50 ms between requests, the whole run items / rate
		const sent = run.requests.map((r) => r.sentAt).sort((a, b) => a - b);
		for (let k = 1; k < sent.length; k++) expect(sent[k] - sent[k - 1]).toBeGreaterThanOrEqual(50);
		expect(run.durationMs).toBeLessThan((items / 20) * 1000 + 100);
	});
});

describe("Total Deadline and the wait in line before an item's first request", () => {
	const minute = 60_000;
	it('Rate Limit 1 per second, 400 items, 5-minute deadlines: the line does not count, so every item goes, one a second', async () => {
		const run = await simulateGate(400, defaults({ rateLimitRps: 1 }), healthy, { deadlineMs: 5 * minute, lineFree: true });
		expect(run.failed).toBe(0);
		expect(run.requests).toHaveLength(400);
		const sent = run.requests.map((r) => r.sentAt).sort((a, b) => a - b);
		expect(sent[399]).toBeGreaterThanOrEqual(399_000);
		for (let k = 1; k < sent.length; k++) expect(sent[k] - sent[k - 1]).toBeGreaterThanOrEqual(1000);
	});

	it('control: where the line counts (GateLimits without lineFree), the items past the deadline leave unsent, deadline-exceeded', async () => {
		const run = await simulateGate(400, defaults({ rateLimitRps: 1 }), healthy, { deadlineMs: 5 * minute });
		expect(run.requests).toHaveLength(300);
		expect(run.failed).toBe(100);
		expect(new Set(run.stops.filter(Boolean))).toEqual(new Set(['deadline-exceeded']));
	});

	it("a pause still counts: the API asked to wait 50 s, first requests with 30-second deadlines leave at once, the line's exemption or not", async () => {
		const pausing: ServerModel = (item, attempt) => (item === 0 && attempt === 1 ? { latencyMs: 5, status: 429, retryAfterMs: 50_000 } : { latencyMs: 5, status: 200 });
		const run = await simulateGate(20, defaults(), pausing, { deadlineMs: 30_000, lineFree: true, arrivesAt: (item) => (item === 0 ? 0 : 100) });
		expect(run.failed).toBe(19);
		expect(run.stops.filter((stop) => stop === 'retry-after-too-long')).toHaveLength(19);
		expect(Math.max(...run.endedAt.slice(1))).toBe(100);
	});

	it('after its wait in line, the whole deadline is still the retries\': Rate Limit 2 per second, the 60th item waits 30 s, then retries a 503 for 20 s within a 25-second deadline', async () => {
		const failing: ServerModel = (item, attempt, nowMs) => (item === 59 && nowMs < 29_500 + 20_000 && attempt < 100 ? { latencyMs: 5, status: 503 } : { latencyMs: 5, status: 200 });
		const { hold: _noHold, ...params } = defaults({ rateLimitRps: 2 });
		const run = await simulateGate(60, params, failing, { deadlineMs: 25_000, lineFree: true, maxAttempts: 1000 });
		expect(run.failed).toBe(0);
		expect(run.endedAt[59]).toBeGreaterThan(49_000);
	});
});

describe("the token budget's stated reset", () => {
	/** A first request with a token demand, after an answer that said the budget is spent until `resetInMs`. */
	async function afterSpentBudget(resetInMs: number) {
		const runtime = new FakeRuntime({ random: () => 0 });
		runtime.sleep = (ms: number) => new Promise<void>((resolve) => runtime.startTimer(ms, resolve));
		const ctx: GateContext = { store: new MemoryStateStore(), key: 'llm', params: defaults(), runtime, waiters: new Waiters(), pollMs: 5_000 };
		const tokens = { chars: 400, output: 100, model: 'gpt-4o-mini' };
		const first = await passGate(ctx, { id: 'a', retry: false, paced: false, tokens }, { maxServerDelayMs: 60_000 });
		if (!first.go) throw new Error('a refused');
		const statement = { kind: 'total' as const, limit: 60_000, remaining: 0, resetAt: runtime.now() + resetInMs, header: 'x-ratelimit-remaining-tokens' };
		await reportOutcome(ctx, first.admission.lease, { success: true, outageFailure: false, overload: false, throttled: false, tokens: { counted: first.admission.tokens ?? NO_TOKENS, model: 'gpt-4o-mini', statements: [statement] } });
		const started = runtime.now();
		const result = await runtime.runUntilSettled(passGate(ctx, { id: 'b', retry: false, paced: false, tokens }, { maxServerDelayMs: 60_000, deadlineAt: started + 300_000, lineFree: true }));
		return { result, waited: runtime.now() - started, resetAt: statement.resetAt };
	}

	it('within a minute (a per-minute budget): the first request waits in line for it, outside its deadline', async () => {
		const { result, waited } = await afterSpentBudget(45_000);
		expect(result.go).toBe(true);
		expect(waited).toBeGreaterThanOrEqual(45_000);
		if (result.go) expect(result.lineMs).toBe(waited);
	});

	it('a retry waits ahead of the first requests in the line for tokens: it had its turn, and the server refused it', async () => {
		const runtime = new FakeRuntime({ random: () => 0 });
		runtime.sleep = (ms: number) => new Promise<void>((resolve) => runtime.startTimer(ms, resolve));
		const ctx: GateContext = { store: new MemoryStateStore(), key: 'llm', params: defaults(), runtime, waiters: new Waiters(), pollMs: 60_000 };
		const tokens = { chars: 4 * 20_000, output: 0, model: 'm' };
		const first = await passGate(ctx, { id: 'a', retry: false, paced: false, tokens }, { maxServerDelayMs: 60_000 });
		if (!first.go) throw new Error('a refused');
		const resetAt = runtime.now() + 30_000;
		await reportOutcome(ctx, first.admission.lease, { success: true, outageFailure: false, overload: false, throttled: false, tokens: { counted: first.admission.tokens ?? NO_TOKENS, model: 'm', statements: [{ kind: 'total', limit: 60_000, remaining: 0, resetAt, header: 'x-ratelimit-remaining-tokens' }] } });
		const order: string[] = [];
		const ask = (id: string, retry: boolean) => passGate(ctx, { id, retry, paced: false, tokens }, { maxServerDelayMs: 60_000, lineFree: true }).then((r) => order.push(`${id}${r.go ? '' : ' refused'}`));
		const waiting = [ask('first-1', false), ask('first-2', false)];
		runtime.advance(1000);
		waiting.push(ask('retry', true));
		await runtime.runUntilSettled(Promise.all(waiting));
		// 60,000 at the reset: three of 20,000 fit; the retry, last to arrive, goes first
		expect(order).toEqual(['retry', 'first-1', 'first-2']);
	});

	it('hours away (a budget of another kind): the item leaves at once with the reset as retryAt, as a Retry-After beyond Max Server-Requested Delay does', async () => {
		const { result, waited, resetAt } = await afterSpentBudget(2 * 3_600_000);
		expect(waited).toBe(0);
		expect(result).toMatchObject({ go: false, stop: 'retry-after-too-long', retryAt: resetAt });
		if (!result.go) expect(result.why).toMatch(/^The API's token budget has no room for the request until \(.+\), more than Max Server-Requested Delay \(1 min\)$/);
	});
});

describe('Rate Limit 20 per second, sleeps that end late', () => {
	/** The most requests sent within any second. */
	const busiestSecond = (sent: number[]) => Math.max(...sent.map((t) => sent.filter((u) => u >= t && u < t + 1000).length));
	// every 5th sleep ends 40 ms late: a pace slot woken late, with the next on time
	const lateness = (n: number) => (n % 5 === 0 ? 40 : 0);

	it("the process's send log: no second holds more than 20, and the run keeps the pace", async () => {
		const run = await simulateGate(300, defaults({ rateLimitRps: 20 }), healthy, { lateness, sendLog: true });
		const sent = run.requests.map((r) => r.sentAt);
		expect(busiestSecond(sent)).toBe(20);
		expect(run.durationMs).toBeLessThan((300 / 20) * 1000 + 200);
	});

	it('control, without it: late slots bunch with the next into 21 in a second', async () => {
		const run = await simulateGate(300, defaults({ rateLimitRps: 20 }), healthy, { lateness });
		expect(busiestSecond(run.requests.map((r) => r.sentAt))).toBeGreaterThan(20);
	});
});

describe('slow start', () => {
	it.each([500, 1000])('%i items at a window of 10 that doubles per round: each item is refused once at most (as it arrives), so about 3 store steps per item', async (items) => {
		// each admission used to wake as many waiters as it saw room for, as did the others admitted
		// with it: most woken were refused and went to the back of the line (5.3 steps per item at 500, 5.9 at
		// 1,000)
		const run = await simulateGate(items, defaults({ window: { ceiling: 1000, mode: 'adaptive' } }), healthy);
		expect(run.failed).toBe(0);
		expect(run.requests).toHaveLength(items);
		expect(run.stepsPerItem).toBeLessThanOrEqual(3);
		// and the window still doubles per round of answers: 10, 20, 40, ... in flight
		const rounds = Math.ceil(Math.log2(items / 10 + 1));
		expect(run.durationMs).toBeLessThanOrEqual(rounds * 20 + 20);
	});
});

describe('429 + Retry-After', () => {
	const retryAfterMs = 2000;
	/** Every item's first request is throttled with its own Retry-After; its next one succeeds. */
	const perItem: ServerModel = (_item, attempt) => (attempt === 1 ? { latencyMs: 5, status: 429, retryAfterMs } : { latencyMs: 5, status: 200 });

	it("on every item's first request: one pause for the API, then each request's own (two Retry-Afters in all, not one per few items)", async () => {
		const run = await simulateGate(100, defaults(), perItem);
		const allInFlight = await simulateGate(100, defaults({ window: { ceiling: 100, mode: 'fixed' } }), perItem);
		expect(run.failed).toBe(0);
		expect(run.requests).toHaveLength(200);
		// no retry before the Retry-After its own first request was given
		const firstAt = new Map(run.requests.filter((r) => r.attempt === 1).map((r) => [r.item, r.sentAt]));
		for (const r of run.requests.filter((q) => q.attempt === 2)) expect(r.sentAt - (firstAt.get(r.item) ?? Infinity)).toBeGreaterThanOrEqual(retryAfterMs + 5);
		// the first window's throttles pause everyone once; the items sent after it are throttled on
		// their own. Each wait is the Retry-After and the retry loop's spread on top; the new items go
		// after that spread, once the retries the pause held back have gone (before, they took the
		// window at the pause's end, and their 429s paused the API again: 4 pauses, 8,238 ms)
		const spreadMs = serverDelaySpreadMs(retryAfterMs);
		expect(allInFlight.durationMs).toBeLessThan(retryAfterMs + spreadMs + 100);
		expect(run.durationMs).toBeLessThan(2 * (retryAfterMs + spreadMs) + 100);
	});

	it("at a pause's end the retries it held back go first, ahead of new items that waited longer, and the new items after the retries' spread", async () => {
		const runtime = new FakeRuntime({ random: () => 0 });
		const ctx: GateContext = { store: new MemoryStateStore(), key: 'api', params: defaults({ window: { ceiling: 1, mode: 'fixed' } }), runtime, waiters: new Waiters(), pollMs: 5_000 };
		const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };
		const admittedAt: Record<string, number> = {};
		const t0 = runtime.now();
		const item = async (id: string, startAt: number, retry: boolean, answer: Outcome) => {
			await runtime.sleep(t0 + startAt - runtime.now());
			const gate = await passGate(ctx, { id, retry, paced: retry, failedBefore: retry }, { maxServerDelayMs: 60_000 });
			if (!gate.go) throw new Error(`${id} refused: ${gate.why}`);
			admittedAt[id] = runtime.now() - t0;
			await runtime.sleep(10);
			await reportOutcome(ctx, gate.admission.lease, answer);
		};
		runtime.sleep = (ms) => new Promise((resolve) => runtime.startTimer(Math.max(0, ms), resolve));
		const throttle: Outcome = { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: retryAfterMs, header: 'retry-after' }, sent: 'first' };
		await runtime.runUntilSettled(
			Promise.all([
				item('throttled', 0, false, throttle), // pauses the API from 10 to 2010
				item('new-1', 100, false, OK),
				item('new-2', 200, false, OK),
				item('retry', 1500, true, { ...OK, sent: 'paced' }), // back before the pause's end: queued behind the new items
			]),
		);
		expect(admittedAt.retry).toBe(2010);
		expect(Math.min(admittedAt['new-1'], admittedAt['new-2'])).toBe(2010 + serverDelaySpreadMs(retryAfterMs));
	});

	it('a limit shared by all (a token bucket of 20 per second, Retry-After: 1): the API stays paused on every throttle, 429s stay rare', async () => {
		let tokens = 20;
		let at = 0;
		const bucket: ServerModel = (_item, _attempt, now) => {
			tokens = Math.min(20, tokens + ((now - at) * 20) / 1000);
			at = now;
			if (tokens < 1) return { latencyMs: 20, status: 429, retryAfterMs: 1000 };
			tokens -= 1;
			return { latencyMs: 20, status: 200 };
		};
		const run = await simulateGate(300, defaults(), bucket, { maxAttempts: 10 });
		expect(run.failed).toBe(0);
		const throttled = run.requests.filter((r) => r.status === 429).length;
		expect(throttled / run.requests.length).toBeLessThanOrEqual(0.05);
		expect(run.durationMs).toBeLessThan(300 / 20 * 1000 * 1.2);
	});
});

describe('answers read together', () => {
	const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false, sent: 'first' };
	const THROTTLED: Outcome = { success: false, outageFailure: false, overload: true, throttled: true, serverWait: { ms: 1_000, header: 'retry-after' }, sent: 'first' };

	/** Two requests in flight in a window of 2, a third waiting for a slot; the two answers are reported one after the other, as Node reads two sockets in one turn of its loop. */
	async function twoAnswers(first: Outcome, second: Outcome) {
		const runtime = new FakeRuntime({ random: () => 0 });
		const ctx: GateContext = { store: new MemoryStateStore(), key: 'api', params: defaults({ window: { ceiling: 2, mode: 'fixed' } }), runtime, waiters: new Waiters(), pollMs: 5_000 };
		const go = async (id: string) => {
			const gate = await passGate(ctx, { id, retry: false, paced: false }, { maxServerDelayMs: 60_000 });
			if (!gate.go) throw new Error(`${id} refused: ${gate.why}`);
			return gate.admission.lease;
		};
		const [a, b] = [await go('a'), await go('b')];
		let third: Awaited<ReturnType<typeof passGate>> | undefined;
		const waiting = passGate(ctx, { id: 'c', retry: false, paced: false }, { maxServerDelayMs: 60_000 }).then((gate) => (third = gate));
		await flush();
		expect(ctx.waiters.size('api|window')).toBe(1);
		await reportOutcome(ctx, a, first);
		await flush();
		// a's answer freed a slot; the waiter has not taken it before b's answer, read in the same turn, was reported
		const wokenBeforeSecond = third !== undefined || ctx.waiters.size('api|window') === 0;
		await reportOutcome(ctx, b, second);
		runtime.advance(0);
		await flush();
		return { runtime, ctx, third, waiting, wokenBeforeSecond };
	}
	const flush = async () => {
		for (let i = 0; i < 20; i++) await Promise.resolve();
	};

	it('a freed slot is handed on after the answers read with it: a 429 among them pauses the API before the slot\'s next request goes', async () => {
		const { third, wokenBeforeSecond } = await twoAnswers(OK, THROTTLED);
		expect(wokenBeforeSecond).toBe(false);
		// woken after both reports: it finds the API paused and waits for the pause's end, not sent into the 429s
		expect(third).toBeUndefined();
	});

	it('a request that arrives while a freed slot is handed on lines up behind the one that waited for it', async () => {
		const runtime = new FakeRuntime({ random: () => 0 });
		const ctx: GateContext = { store: new MemoryStateStore(), key: 'api', params: defaults({ window: { ceiling: 1, mode: 'fixed' } }), runtime, waiters: new Waiters(), pollMs: 5_000 };
		const order: string[] = [];
		const enter = (id: string) =>
			passGate(ctx, { id, retry: false, paced: false }, { maxServerDelayMs: 60_000 }).then((gate) => {
				if (!gate.go) throw new Error(`${id} refused: ${gate.why}`);
				order.push(id);
				return gate.admission.lease;
			});
		const first = await enter('first');
		const waiter = enter('waiter');
		await flush();
		await reportOutcome(ctx, first, OK);
		// before the timer hands the slot on, a new request arrives
		const newcomer = enter('newcomer');
		await flush();
		expect(order).toEqual(['first']);
		runtime.advance(0);
		await flush();
		expect(order).toEqual(['first', 'waiter']);
		await reportOutcome(ctx, await waiter, OK);
		runtime.advance(0);
		await flush();
		await newcomer;
		expect(order).toEqual(['first', 'waiter', 'newcomer']);
	});

	it('two OK answers: the waiter takes the freed slot on the timer, at the same moment', async () => {
		const { third } = await twoAnswers(OK, OK);
		expect(third).toMatchObject({ go: true, waitedMs: 0 });
	});
});

describe('a store that takes its time (Redis under load)', () => {
	/** The memory store whose every answer comes ROUND_TRIP_MS after the step was asked (virtual time). */
	const ROUND_TRIP_MS = 300;
	class SlowStore implements StateStore {
		readonly kind = 'memory' as const;
		readonly asked: Array<{ at: number; probe: boolean }> = [];
		private readonly inner = new MemoryStateStore();
		constructor(private readonly runtime: FakeRuntime) {}
		async traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
			const result = await this.inner.traffic(key, nowMs, params, step);
			const admission = result as { go?: boolean; probe?: boolean };
			if (admission.go) this.asked.push({ at: nowMs, probe: admission.probe === true });
			await new Promise<void>((resolve) => this.runtime.startTimer(ROUND_TRIP_MS, resolve));
			return result;
		}
	}
	const DOWN: Outcome = { success: false, outageFailure: true, overload: true, throttled: false };

	it("the probe goes at the hold's end, not a round trip after it: a wait counts from the answer's arrival", async () => {
		const runtime = new FakeRuntime({ random: () => 0 });
		const store = new SlowStore(runtime);
		const ctx: GateContext = { store, key: 'api', params: defaults(), runtime, waiters: new Waiters(), pollMs: 2_000 };
		const downAt = async () => {
			for (let k = 0; k < HOLD_DEFAULTS.consecutiveFailures; k++) {
				const gate = await passGate(ctx, { id: `f${k}`, retry: false, paced: false }, { maxServerDelayMs: 60_000 });
				if (!gate.go) throw new Error('refused before the hold');
				await reportOutcome(ctx, gate.admission.lease, DOWN);
			}
			return runtime.now() - ROUND_TRIP_MS; // the last report's time: the hold is open for 1 s from it
		};
		const openedAt = await runtime.runUntilSettled(downAt());
		const held = await runtime.runUntilSettled(passGate(ctx, { id: 'held', retry: false, paced: false }, { maxServerDelayMs: 60_000 }));
		expect(held).toMatchObject({ go: true, probe: true });
		const probe = store.asked[store.asked.length - 1];
		expect(probe.probe).toBe(true);
		// asked at the hold's end (no spread drawn: random 0); counted from the question, it was a round trip later
		expect(probe.at).toBe(openedAt + HOLD_DEFAULTS.breakMs);
	});
});

describe('a woken request that cannot look', () => {
	it('a store that fails its look: it no longer counts as looking, so the room it took is handed out again', async () => {
		const runtime = new FakeRuntime({ random: () => 0 });
		const inner = new MemoryStateStore();
		let failNext = false;
		const store: StateStore = {
			kind: 'memory',
			traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
				if (failNext) {
					failNext = false;
					return Promise.reject(new Error('store down'));
				}
				return inner.traffic(key, nowMs, params, step);
			},
		};
		const ctx: GateContext = { store, key: 'api', params: defaults({ window: { ceiling: 1, mode: 'fixed' } }), runtime, waiters: new Waiters(), pollMs: 5_000 };
		const first = await passGate(ctx, { id: 'a', retry: false, paced: false }, { maxServerDelayMs: 60_000 });
		if (!first.go) throw new Error('a refused');
		const waiting = passGate(ctx, { id: 'b', retry: false, paced: false }, { maxServerDelayMs: 60_000 }).then(
			() => 'went',
			(error: Error) => error.message,
		);
		for (let i = 0; i < 10; i++) await Promise.resolve();
		expect(ctx.waiters.size('api|window')).toBe(1);
		await reportOutcome(ctx, first.admission.lease, { success: true, outageFailure: false, overload: false, throttled: false });
		failNext = true;
		runtime.advance(0);
		expect(await waiting).toBe('store down');
		expect(ctx.waiters.lookingIn('api|window')).toBe(0);
	});
});
