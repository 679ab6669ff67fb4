/** The most of `times` (ms) within any span of `spanMs`: a sliding window over them, each counted at its time. */
export function busiest(times: readonly number[], spanMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let start = 0, end = 0; end < sorted.length; end++) {
		while (sorted[end] - sorted[start] >= spanMs) start++;
		most = Math.max(most, end - start + 1);
	}
	return most;
}
