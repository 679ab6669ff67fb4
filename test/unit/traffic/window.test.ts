/**
 * The learned window on an API's requests in flight (nodes/shared/core/traffic/window.ts): examples
 * of slow start, additive increase, one halving per round and the restart after an outage, then
 * fast-check properties over random event sequences. Fixed seed (FC_SEED picks another).
 */
import fc from 'fast-check';
import { freshWindow, INITIAL_WINDOW, nextStart, onOverload, onSuccess, restart, windowSize, type WindowParams } from '../../../nodes/shared/core/traffic/window';

/** The window's steps on one JSON state, as a store would keep it. */
interface AdaptiveLimit {
	current(): number;
	nextStartSeq(): number;
	onSuccess(): void;
	onOverload(seq: number): ReturnType<typeof onOverload>;
	restart(): void;
}
function createAdaptiveLimit(params: WindowParams): AdaptiveLimit {
	const data = freshWindow(params);
	return {
		current: () => windowSize(data, params),
		nextStartSeq: () => nextStart(data),
		onSuccess: () => onSuccess(data, params),
		onOverload: (seq) => onOverload(data, seq, params),
		restart: () => restart(data),
	};
}

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

	it('takes a ceiling or an initial window that is not a whole number of at least 1 as 1, or the default', () => {
		expect(createAdaptiveLimit({ ceiling: 0, mode: 'adaptive' }).current()).toBe(1);
		expect(createAdaptiveLimit({ ceiling: 2.5, mode: 'fixed' }).current()).toBe(1);
		expect(createAdaptiveLimit({ ceiling: 100, mode: 'adaptive', initial: NaN }).current()).toBe(INITIAL_WINDOW);
	});

	it('after an outage restarts from one in flight, doubling per round again', () => {
		const limit = createAdaptiveLimit({ ceiling: 100, mode: 'adaptive' });
		healthyRound(limit);
		limit.onOverload(limit.nextStartSeq()); // 10, congestion avoidance
		limit.restart();
		const windows = [limit.current()];
		for (let round = 0; round < 4; round++) {
			healthyRound(limit);
			windows.push(limit.current());
		}
		expect(windows).toEqual([1, 2, 4, 8, 16]);
	});

	it('an overload of a request started before the restart does not halve the restarted window', () => {
		const limit = createAdaptiveLimit({ ceiling: 100, mode: 'adaptive' });
		const old = limit.nextStartSeq();
		limit.restart();
		healthyRound(limit); // 2
		expect(limit.onOverload(old)).toBeUndefined();
		expect(limit.current()).toBe(2);
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
