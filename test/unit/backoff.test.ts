import {
	computeBackoffDelay,
	exponentialCeiling,
	JITTER_STRATEGIES,
	type BackoffParams,
	type JitterStrategy,
	type RandomSource,
} from '../../nodes/shared/core/backoff';
import { RETRY_DEFAULTS } from '../../nodes/shared/core/defaults';
import { mulberry32, scripted } from './fake-runtime';

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const RETRIES = Array.from({ length: 200 }, (_, i) => i + 1);

/** Integer parameter sets the tight bounds are checked on. */
const PARAM_SETS: Array<[base: number, cap: number]> = [
	[RETRY_DEFAULTS.baseDelayMs, RETRY_DEFAULTS.maxDelayMs],
	[1, 10],
	[100, 30_000],
	[250, 1_000],
	[1_000, 86_400_000],
	[7, 7],
];

/** The exponential ceiling the tests expect, computed independently. */
function expectedCeiling(retry: number, base: number, cap: number): number {
	return Math.min(cap, base * 2 ** Math.max(0, retry - 1));
}

/** Walks retries 1..200 threading the previous delay, as the retry loop does. */
function chain(params: BackoffParams, random: RandomSource): number[] {
	const delays: number[] = [];
	let previous: number | undefined;
	for (const retry of RETRIES) {
		const d = computeBackoffDelay(params, retry, random, previous);
		delays.push(d);
		previous = d;
	}
	return delays;
}

describe('exponentialCeiling', () => {
	it('doubles from the base and stops at the cap', () => {
		expect([1, 2, 3, 4, 5, 6, 7].map((n) => exponentialCeiling(n, 1000, 30_000))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
	});

	it('treats retry 0 and negative retries as the first', () => {
		expect(exponentialCeiling(0, 500, 30_000)).toBe(500);
		expect(exponentialCeiling(-3, 500, 30_000)).toBe(500);
	});

	it('never overflows to Infinity or NaN for huge retry numbers', () => {
		for (const retry of [61, 100, 1024, 1e6, Number.MAX_SAFE_INTEGER]) {
			expect(exponentialCeiling(retry, 1000, 30_000)).toBe(30_000);
			expect(exponentialCeiling(retry, 1, Number.MAX_VALUE)).toBe(2 ** 60);
		}
	});

	it('caps a huge base instead of returning Infinity', () => {
		expect(exponentialCeiling(5, Number.MAX_VALUE, 30_000)).toBe(30_000);
		expect(exponentialCeiling(5, 1e308, Number.MAX_VALUE)).toBe(Number.MAX_VALUE);
	});
});

describe('computeBackoffDelay: none', () => {
	it.each(PARAM_SETS)('is exactly base*2^(n-1), capped (base %d, cap %d)', (base, cap) => {
		const random = jest.fn(() => 0.5);
		for (const retry of RETRIES) {
			expect(computeBackoffDelay({ strategy: 'none', baseDelayMs: base, maxDelayMs: cap }, retry, random)).toBe(expectedCeiling(retry, base, cap));
		}
		// No jitter, no draw: the random source is never consulted.
		expect(random).not.toHaveBeenCalled();
	});

	it('matches a hand-written schedule for the defaults', () => {
		const p: BackoffParams = { strategy: 'none', baseDelayMs: 1000, maxDelayMs: 30_000 };
		expect([1, 2, 3, 4, 5, 6, 50].map((n) => computeBackoffDelay(p, n, Math.random))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
	});
});

describe('computeBackoffDelay: full jitter', () => {
	it.each(PARAM_SETS)('stays in [0, ceiling] over many seeds and retries (base %d, cap %d)', (base, cap) => {
		const bad: string[] = [];
		for (const seed of SEEDS) {
			const random = mulberry32(seed);
			for (const retry of RETRIES) {
				const d = computeBackoffDelay({ strategy: 'full', baseDelayMs: base, maxDelayMs: cap }, retry, random);
				if (!(Number.isInteger(d) && d >= 0 && d <= expectedCeiling(retry, base, cap))) bad.push(`seed ${seed} retry ${retry}: ${d}`);
			}
		}
		expect(bad).toEqual([]);
	});

	it('spreads over the whole range (mean near ceiling/2, both ends reached)', () => {
		const random = mulberry32(42);
		const p: BackoffParams = { strategy: 'full', baseDelayMs: 1000, maxDelayMs: 30_000 };
		const draws = Array.from({ length: 20_000 }, () => computeBackoffDelay(p, 10, random));
		const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
		expect(mean).toBeGreaterThan(15_000 * 0.97);
		expect(mean).toBeLessThan(15_000 * 1.03);
		expect(Math.min(...draws)).toBeLessThan(300);
		expect(Math.max(...draws)).toBeGreaterThan(29_700);
	});

	it('maps random 0 to 0 and random 1 to the ceiling', () => {
		const p: BackoffParams = { strategy: 'full', baseDelayMs: 1000, maxDelayMs: 30_000 };
		expect(computeBackoffDelay(p, 3, () => 0)).toBe(0);
		expect(computeBackoffDelay(p, 3, () => 1)).toBe(4000);
		expect(computeBackoffDelay(p, 3, () => 0.5)).toBe(2000);
	});
});

describe('computeBackoffDelay: equal jitter', () => {
	it.each(PARAM_SETS)('keeps a floor of ceiling/2 and stays under the ceiling (base %d, cap %d)', (base, cap) => {
		const bad: string[] = [];
		for (const seed of SEEDS) {
			const random = mulberry32(seed);
			for (const retry of RETRIES) {
				const ceiling = expectedCeiling(retry, base, cap);
				const d = computeBackoffDelay({ strategy: 'equal', baseDelayMs: base, maxDelayMs: cap }, retry, random);
				if (!(Number.isInteger(d) && d >= ceiling / 2 && d <= ceiling)) bad.push(`seed ${seed} retry ${retry}: ${d} (ceiling ${ceiling})`);
			}
		}
		expect(bad).toEqual([]);
	});

	it('uses the whole upper half', () => {
		const random = mulberry32(7);
		const p: BackoffParams = { strategy: 'equal', baseDelayMs: 1000, maxDelayMs: 30_000 };
		const draws = Array.from({ length: 10_000 }, () => computeBackoffDelay(p, 20, random));
		expect(Math.min(...draws)).toBeLessThan(15_300);
		expect(Math.max(...draws)).toBeGreaterThan(29_700);
		expect(computeBackoffDelay(p, 20, () => 0)).toBe(15_000);
		expect(computeBackoffDelay(p, 20, () => 1)).toBe(30_000);
	});
});

describe('computeBackoffDelay: decorrelated jitter', () => {
	it.each(PARAM_SETS)('stays in [min(base, cap), cap] along threaded chains (base %d, cap %d)', (base, cap) => {
		const low = Math.min(base, cap);
		const bad: string[] = [];
		for (const seed of SEEDS) {
			const delays = chain({ strategy: 'decorrelated', baseDelayMs: base, maxDelayMs: cap }, mulberry32(seed));
			delays.forEach((d, i) => {
				// each step draws from [low, min(cap, previous * 3)]
				const previous = i === 0 ? low : Math.max(low, delays[i - 1]);
				const high = Math.max(low, Math.min(cap, previous * 3));
				if (!(Number.isInteger(d) && d >= low && d <= cap && d <= high)) bad.push(`seed ${seed} retry ${i + 1}: ${d} (previous ${previous})`);
			});
		}
		expect(bad).toEqual([]);
	});

	it('grows from the previous delay: random 1 triples it until the cap', () => {
		const p: BackoffParams = { strategy: 'decorrelated', baseDelayMs: 100, maxDelayMs: 10_000 };
		expect(chain(p, () => 1).slice(0, 6)).toEqual([300, 900, 2700, 8100, 10_000, 10_000]);
		// random 0 always returns the base
		expect(chain(p, () => 0).slice(0, 4)).toEqual([100, 100, 100, 100]);
	});

	it('reads the previous delay, and ignores one below the base', () => {
		const p: BackoffParams = { strategy: 'decorrelated', baseDelayMs: 100, maxDelayMs: 10_000 };
		expect(computeBackoffDelay(p, 2, () => 0.5, 1000)).toBe(100 + Math.round((3000 - 100) * 0.5));
		expect(computeBackoffDelay(p, 2, () => 1, 1000)).toBe(3000);
		expect(computeBackoffDelay(p, 2, () => 1, 10)).toBe(300);
		expect(computeBackoffDelay(p, 2, () => 1, undefined)).toBe(300);
		expect(computeBackoffDelay(p, 2, () => 1, Number.NaN)).toBe(300);
		expect(computeBackoffDelay(p, 2, () => 1, Infinity)).toBe(10_000);
	});

	/** The AWS "decorrelated jitter" formula as published: sleep = min(cap, random_between(base, sleep * 3)). */
	function naiveAws(base: number, cap: number, previous: number, random: RandomSource): number {
		return Math.min(cap, Math.round(base + (previous * 3 - base) * random()));
	}

	it('does not pile up on the cap once saturated (unlike the naive AWS formula)', () => {
		const base = 1000;
		const cap = 30_000;
		const n = 20_000;
		// Saturated: the previous delay sits on the cap.
		const oursRandom = mulberry32(123);
		const naiveRandom = mulberry32(123);
		let oursAtCap = 0;
		let naiveAtCap = 0;
		for (let i = 0; i < n; i++) {
			if (computeBackoffDelay({ strategy: 'decorrelated', baseDelayMs: base, maxDelayMs: cap }, 50, oursRandom, cap) === cap) oursAtCap++;
			if (naiveAws(base, cap, cap, naiveRandom) === cap) naiveAtCap++;
		}
		expect(oursAtCap / n).toBeLessThan(0.001);
		expect(naiveAtCap / n).toBeGreaterThanOrEqual(0.6);
	});

	it('does not pile up on the cap along threaded chains either', () => {
		for (const [base, cap] of [
			[1000, 30_000],
			[100, 30_000],
			[1000, 5000],
		]) {
			let ours = 0;
			let oursSaturated = 0;
			let naive = 0;
			let naiveSaturated = 0;
			for (const seed of SEEDS) {
				const delays = chain({ strategy: 'decorrelated', baseDelayMs: base, maxDelayMs: cap }, mulberry32(seed));
				for (let i = 1; i < delays.length; i++) {
					if (delays[i - 1] * 3 < cap) continue; // saturated: the range reaches the cap
					oursSaturated++;
					if (delays[i] === cap) ours++;
				}
				const random = mulberry32(seed);
				let previous = base;
				for (let i = 0; i < RETRIES.length; i++) {
					const d = naiveAws(base, cap, previous, random);
					if (previous === cap) {
						naiveSaturated++;
						if (d === cap) naive++;
					}
					previous = d;
				}
			}
			expect(oursSaturated).toBeGreaterThan(500);
			expect(naiveSaturated).toBeGreaterThan(500);
			expect(ours / oursSaturated).toBeLessThan(0.005);
			expect(naive / naiveSaturated).toBeGreaterThanOrEqual(0.6);
		}
	});

	it('spreads saturated delays over [base, cap] rather than bunching at the top', () => {
		const delays = SEEDS.flatMap((seed) => chain({ strategy: 'decorrelated', baseDelayMs: 1000, maxDelayMs: 30_000 }, mulberry32(seed)).slice(20));
		const lowerHalf = delays.filter((d) => d < 15_500).length / delays.length;
		const topTenth = delays.filter((d) => d > 27_100).length / delays.length;
		expect(lowerHalf).toBeGreaterThan(0.3);
		expect(topTenth).toBeLessThan(0.2);
		expect(topTenth).toBeGreaterThan(0);
	});
});

describe('computeBackoffDelay: edge cases', () => {
	const randomSources: Array<[string, () => RandomSource]> = [
		['seeded', () => mulberry32(9)],
		['always 0', () => () => 0],
		['always 1', () => () => 1],
		['just under 1', () => () => 0.9999999999999999],
		['NaN', () => () => Number.NaN],
		['negative', () => () => -0.5],
		['above 1', () => () => 7],
		['Infinity', () => () => Infinity],
		['-Infinity', () => () => -Infinity],
		['mixed garbage', () => scripted([Number.NaN, -1, 2, 0.3, Infinity, 0.99, -Infinity, 0.5, 1])],
	];
	const params: Array<[string, number, number]> = [
		['base 0', 0, 30_000],
		['cap 0', 1000, 0],
		['base 0 and cap 0', 0, 0],
		['cap < base', 5000, 1000],
		['base huge', 1e308, 30_000],
		['base and cap at MAX_VALUE', Number.MAX_VALUE, Number.MAX_VALUE],
		['negative base', -500, 10_000],
		['negative cap', 1000, -1],
		['fractional cap', 100, 1000.7],
		['fractional cap below base', 2000, 1000.7],
		['fractional base', 0.3, 10],
		['cap 1', 1000, 1],
		['NaN base and cap', Number.NaN, Number.NaN],
		['infinite cap', 1000, Infinity],
		['infinite base and cap', Infinity, Infinity],
		['-Infinity cap', 1000, -Infinity],
	];

	for (const strategy of JITTER_STRATEGIES) {
		describe(strategy, () => {
			it.each(params)('%s: finite, >= 0, <= cap for every retry 1..200 and every random source', (_label, base, cap) => {
				for (const [sourceLabel, make] of randomSources) {
					const delays = chain({ strategy, baseDelayMs: base, maxDelayMs: cap }, make());
					for (const d of delays) {
						// a NaN cap is no cap: nothing is waited
						if (!(Number.isSafeInteger(d) && d >= 0 && d <= (Number.isNaN(cap) ? 0 : Math.max(0, cap)))) {
							throw new Error(`${strategy} ${_label} with random ${sourceLabel}: got ${d}`);
						}
					}
				}
			});
		});
	}

	it('cap 0 means no wait at all', () => {
		for (const strategy of JITTER_STRATEGIES) {
			expect(chain({ strategy, baseDelayMs: 1000, maxDelayMs: 0 }, mulberry32(1)).every((d) => d === 0)).toBe(true);
		}
	});

	it('base 0 means no wait for the exponential strategies', () => {
		for (const strategy of ['none', 'full', 'equal', 'decorrelated'] as JitterStrategy[]) {
			expect(chain({ strategy, baseDelayMs: 0, maxDelayMs: 30_000 }, mulberry32(1)).every((d) => d === 0)).toBe(true);
		}
	});

	it('cap < base pins every strategy at or under the cap; none and decorrelated sit on it', () => {
		expect(chain({ strategy: 'none', baseDelayMs: 5000, maxDelayMs: 1000 }, mulberry32(1)).every((d) => d === 1000)).toBe(true);
		expect(chain({ strategy: 'decorrelated', baseDelayMs: 5000, maxDelayMs: 1000 }, mulberry32(1)).every((d) => d === 1000)).toBe(true);
		expect(chain({ strategy: 'equal', baseDelayMs: 5000, maxDelayMs: 1000 }, mulberry32(1)).every((d) => d >= 500 && d <= 1000)).toBe(true);
	});

	it('a random source outside [0, 1) is clamped, not propagated', () => {
		const p = (strategy: JitterStrategy): BackoffParams => ({ strategy, baseDelayMs: 1000, maxDelayMs: 30_000 });
		expect(computeBackoffDelay(p('full'), 3, () => Number.NaN)).toBe(0);
		expect(computeBackoffDelay(p('full'), 3, () => -2)).toBe(0);
		expect(computeBackoffDelay(p('full'), 3, () => 5)).toBe(4000);
		expect(computeBackoffDelay(p('equal'), 3, () => Number.NaN)).toBe(2000);
		expect(computeBackoffDelay(p('decorrelated'), 3, () => 5, 1000)).toBe(3000);
	});

	it('rejects an unknown strategy', () => {
		expect(() => computeBackoffDelay({ strategy: 'linear' as JitterStrategy, baseDelayMs: 1, maxDelayMs: 10 }, 1, Math.random)).toThrow(/Unknown jitter strategy: linear/);
	});
});
