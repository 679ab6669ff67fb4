/** The admissions Wait for Room keeps for Report Outcome (nodes/shared/core/traffic/open-admissions.ts). */
import { OpenAdmissions } from '../../../nodes/shared/core/traffic/open-admissions';

describe('OpenAdmissions', () => {
	it('gives back the admissions of one execution and API, oldest first, and none of another', () => {
		const open = new OpenAdmissions<string>();
		open.open('e1', 'api:a', 'first', 1000, 0);
		open.open('e2', 'api:a', 'other execution', 1000, 0);
		open.open('e1', 'api:b', 'other api', 1000, 0);
		open.open('e1', 'api:a', 'second', 1000, 0);
		expect(open.apisOf('e1', 0).sort()).toEqual(['api:a', 'api:b']);
		expect(open.take('e1', 'api:a', 10)).toBe('first');
		expect(open.takeAll('e1', 'api:a', 10)).toEqual(['second']);
		expect(open.take('e1', 'api:a', 10)).toBeUndefined();
		expect(open.apisOf('e1', 10)).toEqual(['api:b']);
		expect(open.take('e2', 'api:a', 10)).toBe('other execution');
	});

	it('an admission past its lease is of no use: skipped when taken, not listed, and let go', () => {
		const open = new OpenAdmissions<string>();
		open.open('e1', 'api:a', 'expired', 100, 0);
		open.open('e1', 'api:a', 'live', 10_000, 0);
		expect(open.apisOf('e1', 500)).toEqual(['api:a']);
		expect(open.take('e1', 'api:a', 500)).toBe('live');
		expect(open.size).toBe(0);
		open.open('e1', 'api:a', 'expired too', 100, 0);
		expect(open.apisOf('e1', 500)).toEqual([]);
	});

	it('executions that never report are let go as their leases expire, so the memory stays bounded', () => {
		const open = new OpenAdmissions<number>();
		for (let k = 0; k < 1000; k++) open.open(`e${k}`, 'api:a', k, 1000 + k, k);
		// later arrivals, long after the first leases expired, sweep them out now and then
		for (let k = 0; k < 512; k++) open.open(`late${k}`, 'api:a', k, 1_000_000, 500_000);
		expect(open.size).toBeLessThan(1000);
		expect(open.size).toBeGreaterThanOrEqual(256);
	});
});
