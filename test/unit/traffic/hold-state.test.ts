import fc from 'fast-check';
import {
	allowCall,
	HOLD_DEFAULTS,
	breakDuration,
	holdForgetAt,
	holdSnapshot,
	recordOutcome,
	type HoldData,
} from '../../../nodes/shared/core/traffic/hold-state';
import type { HoldChange, HoldParams, HoldVerdict } from '../../../nodes/shared/core/traffic/hold-state';
import { FC_OPTIONS, T0 } from '../state/fc-options';

/** The state machine's tests run on a refusing breaker's sizes (30 s to 5 min): the mechanics do not depend on them. */
const BREAKER_PARAMS: HoldParams = Object.freeze({ consecutiveFailures: 5, failureRatio: 0.5, minimumCalls: 10, windowMs: 60_000, breakMs: 30_000, maxBreakMs: 300_000, quickPhaseMs: 0 });

/** A breaker driven step by step on an injected clock. */
class Driver {
	data: HoldData | undefined;
	now = T0;
	constructor(readonly params: HoldParams = BREAKER_PARAMS) {}
	advance(ms: number): this {
		this.now += ms;
		return this;
	}
	allow(): HoldVerdict {
		const step = allowCall(this.data, this.now, this.params);
		this.data = step.data;
		return step.result;
	}
	record(success: boolean): HoldChange | undefined {
		const step = recordOutcome(this.data, this.now, success, this.params);
		this.data = step.data;
		return step.result;
	}
	/** A call that is let through and fails (or succeeds). */
	call(success: boolean): HoldChange | undefined {
		expect(this.allow().allowed).toBe(true);
		return this.record(success);
	}
	get state() {
		return holdSnapshot(this.data, this.now, this.params);
	}
}

describe('circuit breaker: defaults', () => {
	/** When the probes of a hold go, each failing at once, until `untilMs` after the hold began. */
	function probeTimes(params: HoldParams, untilMs: number): number[] {
		const b = new Driver({ ...params, consecutiveFailures: 1, failureRatio: 0 });
		b.allow();
		b.record(false);
		const times: number[] = [];
		while (b.now - T0 < untilMs) {
			const openUntil = b.state.openUntil as number;
			b.advance(openUntil - b.now);
			expect(b.allow()).toMatchObject({ allowed: true, probe: true });
			times.push(b.now - T0);
			expect(b.record(false)).toMatchObject({ from: 'half-open', to: 'open' });
		}
		return times;
	}

	it('has the documented defaults', () => {
		// the hold's: 5 in a row or 50% of 10 in a minute, first probe after 1 s, every 2 s for a minute, then doubling to 30 s
		expect(HOLD_DEFAULTS).toEqual({ consecutiveFailures: 5, failureRatio: 0.5, minimumCalls: 10, windowMs: 60_000, breakMs: 1_000, maxBreakMs: 30_000, quickPhaseMs: 60_000 });
		const quick = Array.from({ length: 30 }, (_, k) => 1_000 + 2_000 * k); // 1, 3, 5, ... 59 s
		expect(probeTimes(HOLD_DEFAULTS, 200_000)).toEqual([...quick, 61_000, 65_000, 73_000, 89_000, 119_000, 149_000, 179_000, 209_000]);
	});

	it('without a quick phase: breaks for 30 s, then 60 s, 2 min, 4 min, and at most 5 min', () => {
		const gaps = (times: number[]) => times.map((t, k) => t - (k === 0 ? 0 : times[k - 1]));
		expect(gaps(probeTimes(BREAKER_PARAMS, 1_500_000))).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000, 300_000]);
	});

	it('the break: the first is breakMs, each later one the last doubled, held to 2 x breakMs in the quick phase', () => {
		expect(breakDuration(undefined, 0, HOLD_DEFAULTS)).toBe(1_000);
		expect(breakDuration(1_000, 1_000, HOLD_DEFAULTS)).toBe(2_000);
		expect(breakDuration(2_000, 59_999, HOLD_DEFAULTS)).toBe(2_000);
		expect(breakDuration(2_000, 60_000, HOLD_DEFAULTS)).toBe(4_000);
		expect(breakDuration(16_000, 90_000, HOLD_DEFAULTS)).toBe(30_000);
		// params written before the quick phase existed get the default's
		const { quickPhaseMs: _, ...older } = HOLD_DEFAULTS;
		expect(breakDuration(2_000, 10_000, older)).toBe(2_000);
	});
});

describe('(e) circuit breaker: the state machine on an injected clock', () => {
	it('closed -> open after 5 failures in a row; a success in between starts the count again', () => {
		const b = new Driver();
		for (let i = 0; i < 4; i++) expect(b.call(false)).toBeUndefined();
		b.call(true);
		for (let i = 0; i < 4; i++) expect(b.call(false)).toBeUndefined();
		expect(b.state).toEqual({ state: 'closed', consecutiveFailures: 4, openings: 0 });
		expect(b.call(false)).toEqual({ from: 'closed', to: 'open', snapshot: { state: 'open', openUntil: T0 + 30_000, consecutiveFailures: 5, openings: 1 } });
	});

	it('open: refuses every call until openUntil, then lets exactly one probe through (half-open)', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		expect(b.allow()).toEqual({ allowed: false, snapshot: { state: 'open', openUntil: T0 + 30_000, consecutiveFailures: 5, openings: 1 } });
		b.advance(29_999);
		expect(b.allow().allowed).toBe(false);
		b.advance(1);
		expect(b.allow()).toEqual({ allowed: true, probe: true, snapshot: { state: 'half-open', openUntil: T0 + 60_000, consecutiveFailures: 5, openings: 1 } });
		// while the probe is in flight
		for (let i = 0; i < 10; i++) expect(b.advance(1000).allow().allowed).toBe(false);
	});

	it('half-open: a successful probe closes the breaker and forgets the openings', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		b.advance(30_000).allow();
		expect(b.advance(200).record(true)).toEqual({ from: 'half-open', to: 'closed', snapshot: { state: 'closed', consecutiveFailures: 0, openings: 0 } });
		for (let i = 0; i < 20; i++) expect(b.allow()).toEqual({ allowed: true, probe: false, snapshot: { state: 'closed', consecutiveFailures: 0, openings: 0 } });
		// the old failures do not count against it: 4 new ones do not open it
		for (let i = 0; i < 4; i++) expect(b.call(false)).toBeUndefined();
	});

	it('half-open: a failed probe opens it again with the break doubled, capped at maxBreakMs', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		const breaks: number[] = [];
		for (let k = 0; k < 7; k++) {
			const openUntil = b.state.openUntil as number;
			b.advance(openUntil - b.now);
			expect(b.allow()).toMatchObject({ allowed: true, probe: true });
			const change = b.record(false);
			expect(change).toMatchObject({ from: 'half-open', to: 'open', snapshot: { state: 'open', openings: k + 2 } });
			breaks.push((change?.snapshot.openUntil as number) - b.now);
		}
		expect(breaks).toEqual([60_000, 120_000, 240_000, 300_000, 300_000, 300_000, 300_000]);
		// and a success after all that closes it and resets the break
		b.advance(300_000).allow();
		b.record(true);
		for (let i = 0; i < 5; i++) b.call(false);
		expect(b.state.openUntil).toBe(b.now + 30_000);
	});

	it('half-open: a probe that never reports (its process died) is replaced after breakMs', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		b.advance(30_000);
		expect(b.allow()).toMatchObject({ allowed: true, probe: true });
		expect(b.advance(29_999).allow().allowed).toBe(false);
		expect(b.advance(1).allow()).toMatchObject({ allowed: true, probe: true, snapshot: { state: 'half-open', openUntil: b.now + 30_000 } });
		expect(b.allow().allowed).toBe(false);
	});

	it('opens on the failure ratio: 50% of at least 10 calls in the window, without 5 failures in a row', () => {
		const b = new Driver();
		const changes = [];
		for (let i = 0; i < 10; i++) changes.push(b.advance(1000).call(i % 2 === 0));
		// S F S F S F S F S F: 5 failures of 10 calls, never 2 in a row
		expect(changes.slice(0, 9)).toEqual(new Array(9).fill(undefined));
		expect(changes[9]).toMatchObject({ from: 'closed', to: 'open' });
	});

	it('does not open on the ratio below minimumCalls', () => {
		const b = new Driver({ ...BREAKER_PARAMS, consecutiveFailures: 0 });
		for (let i = 0; i < 9; i++) expect(b.call(false)).toBeUndefined();
		expect(b.call(false)).toMatchObject({ to: 'open' });
	});

	it('judges the ratio over the window only: failures older than windowMs no longer count', () => {
		const b = new Driver({ ...BREAKER_PARAMS, consecutiveFailures: 0 });
		for (let i = 0; i < 9; i++) b.call(false);
		b.advance(60_000);
		// the 9 failures left the window: 9 successes and 1 failure are 10% of 10 calls
		for (let i = 0; i < 9; i++) expect(b.call(true)).toBeUndefined();
		expect(b.call(false)).toBeUndefined();
		expect(b.state.state).toBe('closed');
	});

	it('a whole window without calls ends a streak of failures', () => {
		const b = new Driver();
		for (let i = 0; i < 4; i++) b.call(false);
		b.advance(60_000);
		expect(b.call(false)).toBeUndefined();
		expect(b.state.consecutiveFailures).toBe(1);
	});

	it('while open, a failure that arrives (a call that started before it opened) changes nothing; any success ends it', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		const open = b.data;
		expect(b.record(false)).toBeUndefined();
		expect(b.data).toEqual(open);
		expect(b.record(true)).toMatchObject({ from: 'open', to: 'closed', snapshot: { state: 'closed', openings: 0 } });
	});

	it('a caller that failed already (counted: false) never opens it alone, however long its streak; its success counts', () => {
		const b = new Driver();
		const again = () => {
			expect(b.allow().allowed).toBe(true);
			return recordOutcome(b.data, b.now, false, b.params, { counted: false });
		};
		for (let i = 0; i < 50; i++) {
			const step = again();
			b.data = step.data;
			expect(step.result).toBeUndefined();
		}
		expect(b.state).toMatchObject({ state: 'closed', consecutiveFailures: 50 });
		// its success ends its streak (and counts: 9 calls, under the ratio's 10)
		b.call(true);
		for (let i = 0; i < 3; i++) b.call(false);
		b.call(true);
		for (let i = 0; i < 4; i++) b.call(false);
		expect(b.state).toMatchObject({ state: 'closed', consecutiveFailures: 4 });
	});

	it("every failure counts in the streak, which opens it once it holds two callers' first failures; a retry's failure never reaches the ratio; any success ends the streak", () => {
		const b = new Driver();
		const again = () => {
			expect(b.allow().allowed).toBe(true);
			const step = recordOutcome(b.data, b.now, false, b.params, { counted: false });
			b.data = step.data;
			return step.result;
		};
		// one item failing five times (its first failure, then four retries): no outage
		b.call(false);
		for (let i = 0; i < 4; i++) expect(again()).toBeUndefined();
		expect(b.state).toMatchObject({ state: 'closed', consecutiveFailures: 5 });
		// a second item's first failure with no success since: down, as a breaker counting every call already said
		expect(b.call(false)).toMatchObject({ from: 'closed', to: 'open' });

		// as many failures as a breaker counting every call needs, whatever their order
		for (const order of [
			['first', 'first', 'retry', 'retry', 'retry'],
			['first', 'retry', 'retry', 'retry', 'first'],
			['retry', 'first', 'retry', 'first', 'retry'],
		]) {
			const d = new Driver();
			const results = order.map((kind) => {
				expect(d.allow().allowed).toBe(true);
				const step = recordOutcome(d.data, d.now, false, d.params, kind === 'retry' ? { counted: false } : {});
				d.data = step.data;
				return step.result?.to;
			});
			expect(results).toEqual([undefined, undefined, undefined, undefined, 'open']);
		}

		// a success in between ends the streak and what began it
		const c = new Driver();
		c.call(false);
		c.call(false);
		c.call(true);
		const retry = () => {
			expect(c.allow().allowed).toBe(true);
			const step = recordOutcome(c.data, c.now, false, c.params, { counted: false });
			c.data = step.data;
			return step.result;
		};
		for (let i = 0; i < 6; i++) expect(retry()).toBeUndefined();
		expect(c.state).toMatchObject({ state: 'closed', consecutiveFailures: 6 });
		expect(c.call(false)).toBeUndefined();
		expect(c.call(false)).toMatchObject({ to: 'open' });
	});

	it('a short streak asked for needs as many first failures as it is long: 1 in a row opens on a first failure only', () => {
		const b = new Driver({ ...BREAKER_PARAMS, consecutiveFailures: 1, failureRatio: 0 });
		expect(b.allow().allowed).toBe(true);
		const step = recordOutcome(b.data, b.now, false, b.params, { counted: false });
		b.data = step.data;
		expect(step.result).toBeUndefined();
		expect(b.call(false)).toMatchObject({ to: 'open' });
	});

	it("retries' failures never reach the failure ratio: 3 first failures in 10 calls plus 20 failed retries keep it closed", () => {
		const b = new Driver({ ...BREAKER_PARAMS, consecutiveFailures: 0 });
		for (let i = 0; i < 7; i++) b.call(true);
		for (let i = 0; i < 3; i++) b.call(false);
		for (let i = 0; i < 20; i++) {
			expect(b.allow().allowed).toBe(true);
			const step = recordOutcome(b.data, b.now, false, b.params, { counted: false });
			b.data = step.data;
			expect(step.result).toBeUndefined();
		}
		expect(b.state).toMatchObject({ state: 'closed' });
	});

	it('half-open: only the probe (known by its id) decides; the failure of another call changes nothing, its success closes it', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		b.advance(30_000);
		const probe = allowCall(b.data, b.now, b.params, 'probe-1');
		expect(probe.result).toMatchObject({ allowed: true, probe: true });
		b.data = probe.data;
		const other = recordOutcome(b.data, b.now, false, b.params, { id: 'late-1' });
		expect(other.result).toBeUndefined();
		expect(other.data).toMatchObject({ state: 'half-open', probeId: 'probe-1' });
		const failed = recordOutcome(other.data, b.now + 1, false, b.params, { id: 'probe-1' });
		expect(failed.result).toMatchObject({ from: 'half-open', to: 'open', snapshot: { openings: 2 } });
		const late = recordOutcome(failed.data, b.now + 2, true, b.params, { id: 'late-2' });
		expect(late.result).toMatchObject({ from: 'open', to: 'closed' });
	});

	it('a clock that steps back never ends a break early', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		expect(b.advance(-3_600_000).allow().allowed).toBe(false);
	});

	it('remembers an open breaker for maxBreakMs after its break, then forgets it (a fresh closed breaker)', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		const data = b.data as HoldData;
		expect(holdForgetAt(data, BREAKER_PARAMS)).toBe(T0 + 30_000 + 300_000);
		expect(holdSnapshot(data, T0 + 329_999, BREAKER_PARAMS)).toMatchObject({ state: 'open', openings: 1 });
		expect(holdSnapshot(data, T0 + 330_000, BREAKER_PARAMS)).toEqual({ state: 'closed', consecutiveFailures: 0, openings: 0 });
	});

	it('a closed breaker that saw no call has nothing to remember', () => {
		const step = allowCall(undefined, T0, BREAKER_PARAMS);
		expect(holdForgetAt(step.data, BREAKER_PARAMS)).toBe(-Infinity);
	});

	it('switches each trigger off with 0', () => {
		const b = new Driver({ ...BREAKER_PARAMS, consecutiveFailures: 0, failureRatio: 0 });
		for (let i = 0; i < 1000; i++) expect(b.call(false)).toBeUndefined();
	});

	it('the state is plain JSON: a round trip changes no answer', () => {
		const b = new Driver();
		for (let i = 0; i < 5; i++) b.call(false);
		b.advance(30_000).allow();
		const copy = JSON.parse(JSON.stringify(b.data)) as HoldData;
		expect(copy).toEqual(b.data);
		expect(recordOutcome(copy, b.now, false, BREAKER_PARAMS)).toEqual(recordOutcome(b.data, b.now, false, BREAKER_PARAMS));
	});

	it('does not change the state it is given', () => {
		const b = new Driver();
		for (let i = 0; i < 4; i++) b.call(false);
		const frozen = JSON.parse(JSON.stringify(b.data)) as HoldData;
		const deepFreeze = (o: object): void => {
			Object.freeze(o);
			for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v as object);
		};
		deepFreeze(frozen);
		expect(() => recordOutcome(frozen, b.now, false, BREAKER_PARAMS)).not.toThrow();
		expect(() => allowCall(frozen, b.now + 100_000, BREAKER_PARAMS)).not.toThrow();
	});
});

type Op = { kind: 'advance'; ms: number } | { kind: 'allow' } | { kind: 'report'; pick: number; success: boolean };

const paramsArb: fc.Arbitrary<HoldParams> = fc
	.record({
		consecutiveFailures: fc.integer({ min: 0, max: 6 }),
		failureRatio: fc.constantFrom(0, 0.25, 0.5, 1),
		minimumCalls: fc.integer({ min: 0, max: 12 }),
		windowMs: fc.constantFrom(1_000, 60_000),
		breakMs: fc.constantFrom(0, 100, 30_000),
		maxFactor: fc.constantFrom(0.5, 1, 4, 10),
		quickPhaseMs: fc.constantFrom(0, 1_000, 60_000),
	})
	.map(({ maxFactor, ...p }) => ({ ...p, maxBreakMs: p.breakMs * maxFactor }));

const opsArb = (params: HoldParams): fc.Arbitrary<Op[]> =>
	fc.array(
		fc.oneof(
			{ weight: 2, arbitrary: fc.integer({ min: 0, max: Math.max(10, Math.floor(params.breakMs / 3)) }).map((ms): Op => ({ kind: 'advance', ms })) },
			{ weight: 1, arbitrary: fc.integer({ min: 0, max: Math.ceil(2 * Math.max(params.breakMs, params.maxBreakMs, 10)) }).map((ms): Op => ({ kind: 'advance', ms })) },
			{ weight: 4, arbitrary: fc.constant<Op>({ kind: 'allow' }) },
			{ weight: 4, arbitrary: fc.record({ pick: fc.nat(), success: fc.boolean() }).map((r): Op => ({ kind: 'report', ...r })) },
		),
		{ maxLength: 150 },
	);

describe('(f) circuit breaker: properties', () => {
	it("the streak opens it exactly when it holds N failures in a row (retries' included) and two first failures: never with fewer, never later", () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.constantFrom('ok', 'first', 'retry', 'retry'), { maxLength: 60 }), (n, calls) => {
				const b = new Driver({ ...BREAKER_PARAMS, consecutiveFailures: n, failureRatio: 0 });
				let streak = 0;
				let firsts = 0;
				for (const call of calls) {
					expect(b.allow().allowed).toBe(true);
					const step = recordOutcome(b.data, b.now, call === 'ok', b.params, call === 'retry' ? { counted: false } : {});
					b.data = step.data;
					if (call === 'ok') [streak, firsts] = [0, 0];
					else [streak, firsts] = [streak + 1, firsts + (call === 'first' ? 1 : 0)];
					const due = streak >= n && firsts >= Math.min(2, n);
					expect(step.result?.to === 'open').toBe(due);
					// a success closes it (a call's from before it opened): the reference starts afresh with it
					if (due) {
						expect(b.record(true)).toMatchObject({ from: 'open', to: 'closed' });
						[streak, firsts] = [0, 0];
					}
				}
			}),
			{ ...FC_OPTIONS, numRuns: 300 },
		);
	});

	it('never lets a call through while open before openUntil, and never more than one probe at a time', () => {
		fc.assert(
			fc.property(
				paramsArb.chain((p) => fc.tuple(fc.constant(p), opsArb(p))),
				([params, ops]) => {
					const b = new Driver(params);
					/** Calls let through and not reported yet. */
					const inFlight: number[] = [];
					let openUntil = -Infinity;
					let lastOpenings = 0;
					let lastBreak = 0;
					let heldSince = 0;
					/** The probe let through and not answered by an outcome yet. */
					let probeAt: number | undefined;
					for (const op of ops) {
						if (op.kind === 'advance') {
							b.advance(op.ms);
						} else if (op.kind === 'allow') {
							const verdict = b.allow();
							if (!verdict.allowed) {
								expect(['open', 'half-open']).toContain(verdict.snapshot.state);
								continue;
							}
							expect(b.now).toBeGreaterThanOrEqual(openUntil);
							if (probeAt !== undefined) expect(b.now).toBeGreaterThanOrEqual(probeAt + params.breakMs);
							expect(verdict.snapshot.state).toBe(verdict.probe ? 'half-open' : 'closed');
							if (verdict.probe) probeAt = b.now;
							inFlight.push(b.now);
						} else if (inFlight.length > 0) {
							inFlight.splice(op.pick % inFlight.length, 1);
							const change = b.record(op.success);
							if (!change) continue;
							if (change.from === 'half-open') probeAt = undefined;
							if (change.to === 'open') {
								const openings = change.from === 'closed' ? 1 : lastOpenings + 1;
								expect(change.snapshot.openings).toBe(openings);
								// the reference schedule: breakMs, then doubling to maxBreakMs, held to 2 x breakMs for quickPhaseMs from the first opening
								if (openings === 1) heldSince = b.now;
								const doubled = openings === 1 ? Math.min(params.maxBreakMs, params.breakMs) : Math.min(params.maxBreakMs, lastBreak * 2);
								const expected = openings > 1 && b.now - heldSince < (params.quickPhaseMs ?? 0) ? Math.min(doubled, params.breakMs * 2) : doubled;
								expect(change.snapshot.openUntil).toBe(b.now + expected);
								lastBreak = expected;
								openUntil = change.snapshot.openUntil as number;
								lastOpenings = openings;
							}
							if (change.to === 'closed') {
								expect(change.snapshot.openings).toBe(0);
								// any success ends the hold, open or half-open
								openUntil = -Infinity;
								probeAt = undefined;
							}
						}
					}
				},
			),
			FC_OPTIONS,
		);
	});

	it('with many callers asking at the same instant, exactly one probe goes through once the break ends', () => {
		fc.assert(
			fc.property(fc.integer({ min: 2, max: 200 }), fc.integer({ min: 0, max: 29_999 }), (callers, late) => {
				const b = new Driver();
				for (let i = 0; i < 5; i++) b.call(false);
				b.advance(30_000 + late);
				const verdicts = Array.from({ length: callers }, () => b.allow());
				expect(verdicts.filter((v) => v.allowed)).toHaveLength(1);
				expect(verdicts[0]).toMatchObject({ allowed: true, probe: true });
			}),
			FC_OPTIONS,
		);
	});
});
