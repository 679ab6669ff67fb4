/** The queues of waiting requests (nodes/shared/core/traffic/waiters.ts): wakeSoon's one timer. */
import { Waiters } from '../../../nodes/shared/core/traffic/waiters';
import { FakeRuntime } from '../fake-runtime';

describe('Waiters.wakeSoon', () => {
	const setup = (count: number) => {
		const runtime = new FakeRuntime();
		const waiters = new Waiters();
		const timer = (ms: number, fire: () => void) => runtime.startTimer(ms, fire);
		const woken: number[] = [];
		for (let i = 0; i < count; i++) void waiters.wait('q', Infinity, timer).then(() => woken.push(i));
		return { runtime, waiters, timer, woken };
	};
	const flush = async () => {
		for (let i = 0; i < 5; i++) await Promise.resolve();
	};

	it('wakes nobody at once; on the timer, one waiter per wake asked, oldest first, on one timer', async () => {
		const { runtime, waiters, timer, woken } = setup(3);
		waiters.wakeSoon('q', timer);
		waiters.wakeSoon('q', timer);
		await flush();
		expect(woken).toEqual([]);
		expect(runtime.pendingTimers).toBe(1);
		expect(waiters.handingOn('q')).toBe(true);
		runtime.advance(0);
		await flush();
		expect(woken).toEqual([0, 1]);
		expect(waiters.handingOn('q')).toBe(false);
		expect(waiters.size('q')).toBe(1);
	});

	it('with nobody waiting it starts no timer, and a later waiter is not woken by an earlier wake', async () => {
		const { runtime, waiters, timer } = setup(0);
		waiters.wakeSoon('q', timer);
		expect(runtime.pendingTimers).toBe(0);
		let woken = false;
		void waiters.wait('q', Infinity, timer).then(() => (woken = true));
		runtime.advance(0);
		await flush();
		expect(woken).toBe(false);
	});

	it('more wakes than waiters: the others are dropped, and the queue is cleared', async () => {
		const { runtime, waiters, timer, woken } = setup(1);
		for (let i = 0; i < 3; i++) waiters.wakeSoon('q', timer);
		runtime.advance(0);
		await flush();
		expect(woken).toEqual([0]);
		expect(waiters.size('q')).toBe(0);
	});
});
