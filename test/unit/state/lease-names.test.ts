import { LeaseNames } from '../../../nodes/shared/state/lease-names';

const T0 = 1_700_000_000_000;

describe('LeaseNames: a process\'s numbers for its leases in Redis', () => {
	it('numbers the leases added on from the last applied script; ends them by their numbers', () => {
		const names = new LeaseNames();
		const first = names.changes([['a', T0 + 10], ['b', T0 + 10]], [], T0);
		expect(first).toMatchObject({ first: 0, ended: [], endNumbers: [] });
		names.applied(first);
		const second = names.changes([['c', T0 + 20]], ['b', 'unknown'], T0 + 1);
		// a lease this process never named in Redis (one the fallback's memory gave) is not ended there
		expect(second).toMatchObject({ first: 2, ended: ['b'], endNumbers: [1] });
		names.applied(second);
		expect(names.changes([], ['a', 'c'], T0 + 2)).toMatchObject({ first: 3, endNumbers: [0, 2] });
	});

	it('a script that lost its race applied nothing: the next one reuses its numbers and ends what it was to end', () => {
		const names = new LeaseNames();
		names.applied(names.changes([['a', T0 + 10]], [], T0));
		names.changes([['b', T0 + 10]], ['a'], T0);
		const again = names.changes([['b', T0 + 10]], ['a'], T0);
		expect(again).toMatchObject({ first: 1, endNumbers: [0] });
	});

	it('after a timeout, the next script ends what the lost one may have added and what it was to end, once', () => {
		const names = new LeaseNames();
		names.applied(names.changes([['a', T0 + 10]], [], T0));
		const lost = names.changes([['b', T0 + 10], ['c', T0 + 10]], ['a'], T0);
		names.timedOut(lost);
		expect(names.pendingEnds).toBe(3);
		expect(names.idle()).toBe(false);
		const next = names.changes([['d', T0 + 10]], ['b'], T0 + 1);
		// b's lease is the fallback's now: only the numbers the timed-out script used are ended, and new ones are not reused
		expect(next).toMatchObject({ first: 3, ended: [], endNumbers: [1, 2, 0] });
		names.applied(next);
		expect(names.pendingEnds).toBe(0);
		names.applied(names.changes([], ['d'], T0 + 2));
		expect(names.idle()).toBe(true);
	});

	it('forgets the numbers of leases never reported once their end passed, looking only when many are held', () => {
		const names = new LeaseNames();
		const many = Array.from({ length: 2_000 }, (_, i): [string, number] => [`r${i}`, T0 + (i < 1_500 ? 10 : 60_000)]);
		names.applied(names.changes(many, [], T0));
		// an end that passed: Redis dropped that lease itself, so its number is not sent
		expect(names.changes([], ['r1', 'r1999'], T0 + 20).endNumbers).toEqual([1_999]);
		expect(names.changes([], ['r1600'], T0 + 20).endNumbers).toEqual([1_600]);
	});
});
