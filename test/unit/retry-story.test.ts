import { formatDuration, storyLines } from '../../nodes/shared/core/retry-story';

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

describe('storyLines', () => {
	const base = { maxAttempts: 5, totalDelayMs: 1200, idempotencyKey: undefined };
	it('reads one line per attempt: when, what, how long, and the wait before the next and why', () => {
		const lines = storyLines({
			...base,
			attempts: 3,
			stoppedBecause: 'final-status',
			summary: 'Stopped after 3 attempts in 3.4 s: response 404 Not Found is final',
			elapsedMs: 3400,
			history: [
				{ attempt: 1, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 15, status: 503, statusText: 'Service Unavailable', delayBeforeMs: 0, traffic: { waitedMs: 0, inFlight: 1, window: 10 }, budget: { available: 40 } },
				{ attempt: 2, startedAt: '2026-01-01T00:00:01.215Z', durationMs: 12, errorCode: 'ECONNRESET', error: 'socket hang up', delayBeforeMs: 1200, delayReason: 'backoff', traffic: { waitedMs: 0, inFlight: 1, window: 10 } },
				{ attempt: 3, startedAt: '2026-01-01T00:00:03.400Z', durationMs: 3, status: 404, statusText: 'Not Found', delayBeforeMs: 2000, delayReason: 'retry-after', delayHeader: 'retry-after', traffic: { waitedMs: 150, waitedFor: { window: 150 }, inFlight: 10, window: 10 } },
			],
		});
		expect(lines).toEqual([
			'Retry story: 3 attempts of at most 5, 3.4 s in all',
			'1. 2026-01-01T00:00:00.000Z: 503 Service Unavailable in 15 ms; then waited 1.2 s, backoff',
			'2. 2026-01-01T00:00:01.215Z: ECONNRESET: socket hang up in 12 ms; then waited 2 s, asked by the server (retry-after); waited 150 ms at the API\'s traffic control (for room in the window 150 ms, 10 in flight of a window of 10)',
			'3. 2026-01-01T00:00:03.400Z: 404 Not Found in 3 ms',
			'Stopped after 3 attempts in 3.4 s: response 404 Not Found is final',
		]);
	});

	it('shows the controller only where it explains a wait, and a wait the server asked for', () => {
		const lines = storyLines({
			...base,
			attempts: 1,
			stoppedBecause: 'retry-after-too-long',
			summary: 'The server asked to wait 2 h',
			elapsedMs: 5,
			retryAt: '2026-01-01T02:00:00.000Z',
			history: [{ attempt: 1, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 5, status: 429, delayBeforeMs: 0, traffic: { waitedMs: 900, waitedFor: { budget: 900 }, inFlight: 1, window: 10 }, budget: { retries: 3, available: 0 } }],
		});
		expect(lines).toEqual([
			'Retry story: 1 attempt of at most 5, 5 ms in all',
			'Before attempt 1: waited 900 ms at the API\'s traffic control (for the retry budget 900 ms, budget {"retries":3,"available":0})',
			'1. 2026-01-01T00:00:00.000Z: 429 in 5 ms',
			'The server asked to wait 2 h',
			'The server allows another try at 2026-01-01T02:00:00.000Z',
		]);
		expect(lines.join('\n')).not.toMatch(/window/);
	});

	it("tells no wait at the controller that has no reason (the store's own step) or lasts a few ms", () => {
		const record = (traffic: { waitedMs: number; waitedFor?: Record<string, number> }) =>
			storyLines({ ...base, attempts: 1, stoppedBecause: 'success', summary: 'Succeeded on attempt 1', elapsedMs: 9, history: [{ attempt: 1, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 8, status: 200, delayBeforeMs: 0, traffic: { ...traffic, inFlight: 1, window: 10 } }] }).join('\n');
		expect(record({ waitedMs: 1 })).not.toMatch(/Before attempt 1/);
		expect(record({ waitedMs: 40 })).not.toMatch(/Before attempt 1/);
		expect(record({ waitedMs: 4, waitedFor: { pace: 4 } })).not.toMatch(/Before attempt 1/);
		expect(record({ waitedMs: 40, waitedFor: { pace: 40 } })).toMatch(/^Before attempt 1: waited 40 ms at the API's traffic control \(for the pace 40 ms\)$/m);
	});
});
