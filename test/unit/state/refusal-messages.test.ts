import { BREAKER_DEFAULTS } from '../../../nodes/shared/state/breaker';
import { BUDGET_DEFAULTS } from '../../../nodes/shared/state/budget';
import { describeBudgetRefusal, describeRefusedCall } from '../../../nodes/shared/state/refusal-messages';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { T0 } from './fc-options';

describe('refusal messages for the retry story', () => {
	it('explains a spent budget with its counts and rule', async () => {
		const store = new MemoryStateStore();
		for (let i = 0; i < 100; i++) await store.recordFirstAttempt('k', T0, BUDGET_DEFAULTS);
		let verdict = await store.tryAcquireRetry('k', T0, BUDGET_DEFAULTS);
		while (verdict.allowed) verdict = await store.tryAcquireRetry('k', T0, BUDGET_DEFAULTS);
		expect(describeBudgetRefusal(verdict.snapshot, BUDGET_DEFAULTS)).toBe(
			'Retry budget spent: 50 retries for 100 first attempts in the last 1 min (allowed: 10% of first attempts + 40 = 50)',
		);
		expect(describeBudgetRefusal({ firstAttempts: 1, retries: 1, available: 0, windowMs: 30_000 }, { ratio: 0.25, minRetriesPerWindow: 1, windowMs: 30_000 })).toBe(
			'Retry budget spent: 1 retry for 1 first attempt in the last 30 s (allowed: 25% of first attempts + 1 = 1)',
		);
	});

	it('explains an open and a half-open breaker with the time to the next probe', async () => {
		const store = new MemoryStateStore();
		for (let i = 0; i < 5; i++) await store.breakerRecord('k', T0, false, BREAKER_DEFAULTS);
		const refused = await store.breakerAllows('k', T0 + 4_500, BREAKER_DEFAULTS);
		expect(describeRefusedCall(refused.snapshot, T0 + 4_500)).toBe('Circuit breaker open: the host failed too often; next probe in 25.5 s');
		await store.breakerAllows('k', T0 + 30_000, BREAKER_DEFAULTS);
		const waiting = await store.breakerAllows('k', T0 + 31_000, BREAKER_DEFAULTS);
		expect(describeRefusedCall(waiting.snapshot, T0 + 31_000)).toBe(
			'Circuit breaker half-open: one probe request is finding out whether the host is back; the next may go in 29 s at the latest',
		);
		await store.breakerRecord('k', T0 + 31_000, false, BREAKER_DEFAULTS);
		const again = await store.breakerAllows('k', T0 + 31_000, BREAKER_DEFAULTS);
		expect(describeRefusedCall(again.snapshot, T0 + 31_000)).toBe('Circuit breaker open (opened 2 times in a row): the host failed too often; next probe in 1 min');
	});
});
