import { formatDuration } from '../../nodes/shared/core/retry-story';

describe('formatDuration', () => {
	it.each<[number, string]>([
		[0, '0 ms'],
		[850, '850 ms'],
		[999.4, '999 ms'],
		[999.6, '1 s'],
		[1000, '1 s'],
		[1500, '1.5 s'],
		[12_340, '12.3 s'],
		[59_900, '59.9 s'],
		[59_999, '1 min'],
		[60_000, '1 min'],
		[125_000, '2 min 5 s'],
		[119_400, '1 min 59 s'],
		[119_700, '2 min'],
		[3_599_999, '60 min'],
	])('%d ms -> %s', (ms, text) => {
		expect(formatDuration(ms)).toBe(text);
	});

	it('never shows 60 seconds or 1000 ms', () => {
		const bad: string[] = [];
		for (let ms = 0; ms < 400_000; ms += 7) {
			const text = formatDuration(ms);
			if (/\b60 s\b|\b60\.0 s\b|\b1000 ms\b/.test(text)) bad.push(`${ms}: ${text}`);
		}
		expect(bad).toEqual([]);
	});
});
