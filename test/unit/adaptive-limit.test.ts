/**
 * The adaptive window on items in flight (nodes/shared/core/adaptive-limit.ts): examples of slow start,
 * additive increase and one halving per round, then fast-check properties over random event
 * sequences. Fixed seed (FC_SEED picks another).
 */
import fc from 'fast-check';
import { createAdaptiveLimit, INITIAL_WINDOW, isOverloadSignal, type AdaptiveLimit } from '../../nodes/shared/core/adaptive-limit';
import type { AttemptFailure } from '../../nodes/shared/core/classify';

const SEED = Number(process.env.FC_SEED ?? 20261129);

/** One round: as many attempts as the window allows start, then all of them succeed. */
function healthyRound(limit: AdaptiveLimit): void {
	const n = limit.current();
	for (let k = 0; k < n; k++) limit.nextStartSeq();
	for (let k = 0; k < n; k++) limit.onSuccess();
}

describe('adaptive limit: examples', () => {
	it('starts at 10, or at the ceiling when that is lower', () => {
		expect(INITIAL_WINDOW).toBe(10);
		expect(createAdaptiveLimit({ ceiling: 200, mode: 'adaptive' }).current()).toBe(10);
		expect(createAdaptiveLimit({ ceiling: 4, mode: 'adaptive' }).current()).toBe(4);
		expect(createAdaptiveLimit({ ceiling: 200, mode: 'adaptive', initial: 3 }).current()).toBe(3);
	});

	it('doubles per healthy round in slow start, up to the ceiling', () => {
		const limit = createAdaptiveLimit({ ceiling: 100, mode: 'adaptive' });
		const windows = [limit.current()];
		for (let round = 0; round < 5; round++) {
			healthyRound(limit);
			windows.push(limit.current());
		}
		expect(windows).toEqual([10, 20, 40, 80, 100, 100]);
	});

	it('halves on an overload, then grows by about one per round', () => {
		const limit = createAdaptiveLimit({ ceiling: 100, mode: 'adaptive' });
		healthyRound(limit); // 20
		expect(limit.onOverload(limit.nextStartSeq())).toEqual({ from: 20, to: 10 });
		expect(limit.current()).toBe(10);
		healthyRound(limit);
		expect(limit.current()).toBe(11);
		healthyRound(limit);
		expect(limit.current()).toBe(12);
	});

	it('halves once for a burst of overloads from attempts started before the decrease', () => {
		const limit = createAdaptiveLimit({ ceiling: 100, mode: 'adaptive' });
		healthyRound(limit);
		healthyRound(limit); // 40
		const burst = Array.from({ length: 40 }, () => limit.nextStartSeq());
		const decreases = burst.map((seq) => limit.onOverload(seq)).filter((d) => d !== undefined);
		expect(decreases).toEqual([{ from: 40, to: 20 }]);
		expect(limit.current()).toBe(20);
		// an attempt started after the decrease still overloads: that is the next round's signal
		expect(limit.onOverload(limit.nextStartSeq())).toEqual({ from: 20, to: 10 });
	});

	it('never goes below 1', () => {
		const limit = createAdaptiveLimit({ ceiling: 3, mode: 'adaptive' });
		for (let k = 0; k < 5; k++) limit.onOverload(limit.nextStartSeq());
		expect(limit.current()).toBe(1);
		expect(limit.onOverload(limit.nextStartSeq())).toBeUndefined();
	});

	it('fixed mode is always the ceiling', () => {
		const limit = createAdaptiveLimit({ ceiling: 7, mode: 'fixed' });
		expect(limit.current()).toBe(7);
		expect(limit.onOverload(limit.nextStartSeq())).toBeUndefined();
		limit.onSuccess();
		expect(limit.current()).toBe(7);
	});

	it('refuses a ceiling or an initial window that is not a whole number of at least 1', () => {
		expect(() => createAdaptiveLimit({ ceiling: 0, mode: 'adaptive' })).toThrow('ceiling must be a whole number of at least 1, got 0');
		expect(() => createAdaptiveLimit({ ceiling: 2.5, mode: 'fixed' })).toThrow('ceiling must be a whole number');
		expect(() => createAdaptiveLimit({ ceiling: 10, mode: 'adaptive', initial: NaN })).toThrow('initial window must be a whole number');
	});

	it('takes 429, 503 and timeouts as overload, not other failures', () => {
		const status = (s: number): AttemptFailure => ({ kind: 'status', status: s, message: String(s), reachedServer: 'yes', transient: true });
		expect(isOverloadSignal(status(429))).toBe(true);
		expect(isOverloadSignal(status(503))).toBe(true);
		expect(isOverloadSignal({ kind: 'timeout', code: 'ETIMEDOUT', message: 'x', reachedServer: 'maybe', transient: true })).toBe(true);
		for (const s of [400, 404, 408, 500, 502, 504]) expect(isOverloadSignal(status(s))).toBe(false);
		expect(isOverloadSignal({ kind: 'network', code: 'ECONNRESET', message: 'x', reachedServer: 'maybe', transient: true })).toBe(false);
	});
});

// ---- properties ---------------------------------------------------------------------------

type Event = { kind: 'start' } | { kind: 'success' } | { kind: 'overload'; back: number };
const event: fc.Arbitrary<Event> = fc.oneof(
	fc.constant({ kind: 'start' as const }),
	fc.constant({ kind: 'success' as const }),
	fc.nat({ max: 50 }).map((back) => ({ kind: 'overload' as const, back })),
);
const ceiling = fc.integer({ min: 1, max: 500 });

/** Applies events; an overload names an attempt started `back` starts ago (or the first one). */
function apply(limit: AdaptiveLimit, events: Event[], check: () => void): void {
	const seqs: number[] = [];
	for (const e of events) {
		if (e.kind === 'start') seqs.push(limit.nextStartSeq());
		else if (e.kind === 'success') limit.onSuccess();
		else limit.onOverload(seqs.length === 0 ? limit.nextStartSeq() : seqs[Math.max(0, seqs.length - 1 - e.back)]);
		check();
	}
}

describe('adaptive limit: properties', () => {
	const params = { seed: SEED, numRuns: 300 };

	it('is always a whole number from 1 to the ceiling', () => {
		fc.assert(
			fc.property(ceiling, fc.constantFrom('adaptive' as const, 'fixed' as const), fc.array(event, { maxLength: 400 }), (c, mode, events) => {
				const limit = createAdaptiveLimit({ ceiling: c, mode });
				const check = () => {
					const w = limit.current();
					if (!Number.isInteger(w) || w < 1 || w > c) throw new Error(`window ${w} outside 1..${c}`);
				};
				check();
				apply(limit, events, check);
			}),
			params,
		);
	});

	it('a healthy run reaches the ceiling, whatever came before', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 200 }), fc.array(event, { maxLength: 200 }), (c, events) => {
				const limit = createAdaptiveLimit({ ceiling: c, mode: 'adaptive' });
				apply(limit, events, () => {});
				// additive increase from 1 needs about c^2/2 successes; rounds of successes get there
				for (let round = 0; round < 2 * c + 10 && limit.current() < c; round++) healthyRound(limit);
				expect(limit.current()).toBe(c);
			}),
			{ seed: SEED, numRuns: 100 },
		);
	});

	it('one burst of overloads halves the window once', () => {
		fc.assert(
			fc.property(ceiling, fc.array(event, { maxLength: 200 }), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 1000 }), (c, events, burst, shuffleSeed) => {
				const limit = createAdaptiveLimit({ ceiling: c, mode: 'adaptive' });
				apply(limit, events, () => {});
				const seqs = Array.from({ length: burst }, () => limit.nextStartSeq());
				// answers come back in any order
				const order = seqs.map((s, k) => ({ s, key: (k * 7919 + shuffleSeed) % (burst + 13) })).sort((a, b) => a.key - b.key);
				const before = limit.current();
				const decreases = order.map(({ s }) => limit.onOverload(s)).filter((d) => d !== undefined);
				const after = Math.max(1, Math.floor(before / 2));
				expect(limit.current()).toBe(after);
				expect(decreases).toEqual(after < before ? [{ from: before, to: after }] : []);
			}),
			params,
		);
	});
});
