import type { BackoffParams } from '../../nodes/shared/core/backoff';
import { planDelay, type DelayPlanInput } from '../../nodes/shared/core/delay-plan';

const backoff: BackoffParams = { strategy: 'none', baseDelayMs: 1000, maxDelayMs: 30_000 };
const plan = (input: Partial<DelayPlanInput>) => planDelay({ retry: 1, backoff, maxServerDelayMs: 60_000, remainingMs: Infinity, random: () => 0, ...input });
const retryAfter = (delayMs: number) => ({ delayMs, header: 'retry-after', kind: 'retry-after' as const });

describe('planDelay', () => {
	it('waits the backoff, or the server\'s wait when it is longer (never earlier)', () => {
		expect(plan({})).toEqual({ kind: 'wait', delayMs: 1000, reason: 'backoff' });
		expect(plan({ requested: retryAfter(5000) })).toEqual({ kind: 'wait', delayMs: 5000, reason: 'retry-after', header: 'retry-after' });
		expect(plan({ requested: retryAfter(0) })).toEqual({ kind: 'wait', delayMs: 1000, reason: 'backoff' });
	});

	it('polling: a server wait is obeyed down to a second (a shorter Poll Interval lowers that floor); below it, the floor', () => {
		const poll = { intervalMs: 3000, growth: 2, maxIntervalMs: 8000 };
		expect(plan({ poll, requested: retryAfter(1000) })).toEqual({ kind: 'wait', delayMs: 1000, reason: 'retry-after', header: 'retry-after' });
		expect(plan({ poll, requested: retryAfter(0) })).toEqual({ kind: 'wait', delayMs: 1000, reason: 'poll' });
		expect(plan({ poll: { ...poll, intervalMs: 200 }, requested: retryAfter(0) })).toEqual({ kind: 'wait', delayMs: 200, reason: 'poll' });
		expect(plan({ poll })).toEqual({ kind: 'wait', delayMs: 3000, reason: 'poll' });
	});

	it.each([0, -1, -Infinity, Number.NaN])('a deadline already past (time left %p) ends the item, whatever the server asked', (remainingMs) => {
		expect(plan({ remainingMs })).toMatchObject({ kind: 'deadline' });
		expect(plan({ remainingMs, requested: retryAfter(10) })).toMatchObject({ kind: 'deadline' });
	});

	it('a server wait over the limit or the time left is handed on, not slept', () => {
		expect(plan({ requested: retryAfter(61_000) })).toMatchObject({ kind: 'server-delay-too-long', limit: 'max-server-delay' });
		expect(plan({ requested: retryAfter(Infinity) })).toMatchObject({ kind: 'server-delay-too-long', limit: 'max-server-delay' });
		expect(plan({ requested: retryAfter(9000), remainingMs: 9000 })).toMatchObject({ kind: 'server-delay-too-long', limit: 'deadline' });
	});

	it('a requested wait that is no number is ignored; a negative one means now; fractions round up', () => {
		expect(plan({ requested: retryAfter(Number.NaN) })).toEqual({ kind: 'wait', delayMs: 1000, reason: 'backoff' });
		expect(plan({ requested: retryAfter(-5000) })).toEqual({ kind: 'wait', delayMs: 1000, reason: 'backoff' });
		expect(plan({ requested: retryAfter(1500.2) })).toMatchObject({ kind: 'wait', delayMs: 1501 });
	});

	it('a faulty random source adds no NaN or negative spread', () => {
		for (const r of [Number.NaN, -3, Infinity, 7]) {
			const result = plan({ requested: retryAfter(5000), random: () => r });
			expect(result.kind).toBe('wait');
			if (result.kind === 'wait') {
				expect(result.delayMs).toBeGreaterThanOrEqual(5000);
				expect(result.delayMs).toBeLessThanOrEqual(5500);
			}
		}
	});
});
