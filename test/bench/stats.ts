/** Small statistics for the benchmark: percentiles, medians, request rates over time. */

/** Nearest-rank percentile (p in 0..100) of the values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export const median = (values: readonly number[]) => percentile(values, 50);

/** The arithmetic mean; NaN for none. */
export const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** The most timestamps in any window [t, t + windowMs), t anywhere (not just on bin edges), and the first such t. */
export function slidingPeakAt(times: readonly number[], windowMs: number): { peak: number; at: number } {
	const sorted = [...times].sort((a, b) => a - b);
	let peak = 0;
	let at = NaN;
	let start = 0;
	for (let end = 0; end < sorted.length; end++) {
		while (sorted[end] - sorted[start] >= windowMs) start++;
		if (end - start + 1 > peak) {
			peak = end - start + 1;
			at = sorted[start];
		}
	}
	return { peak, at };
}

export const slidingPeak = (times: readonly number[], windowMs: number) => slidingPeakAt(times, windowMs).peak;

/** How many timestamps fall in each of `bins` bins of `binMs`, the first starting at 0. */
export function binCounts(times: readonly number[], binMs: number, bins: number): number[] {
	const counts = new Array<number>(bins).fill(0);
	for (const t of times) {
		const bin = Math.floor(t / binMs);
		if (bin >= 0 && bin < bins) counts[bin]++;
	}
	return counts;
}
