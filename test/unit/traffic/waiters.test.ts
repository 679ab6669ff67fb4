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

describe('Waiters.wakeForRoom', () => {
	const setup = (count: number) => {
		const runtime = new FakeRuntime();
		const waiters = new Waiters();
		const timer = (ms: number, fire: () => void) => runtime.startTimer(ms, fire);
		const woken: Array<[number, boolean]> = [];
		for (let i = 0; i < count; i++) void waiters.wait('q', i === count - 1 ? 50 : Infinity, timer).then((w) => woken.push([i, w]));
		return { runtime, waiters, woken };
	};
	const flush = async () => {
		for (let i = 0; i < 5; i++) await Promise.resolve();
	};

	it('wakes as many as there is room for, less those woken that have not looked yet', async () => {
		const { waiters, woken } = setup(6);
		waiters.wakeForRoom('q', 2);
		// a second admission that saw the same room wakes nobody more
		waiters.wakeForRoom('q', 2);
		await flush();
		expect(woken).toEqual([
			[0, true],
			[1, true],
		]);
		expect(waiters.lookingIn('q')).toBe(2);
		waiters.looked('q');
		waiters.wakeForRoom('q', 2);
		await flush();
		expect(woken.map(([i]) => i)).toEqual([0, 1, 2]);
		expect(waiters.lookingIn('q')).toBe(2);
	});

	it("a wait that ends on its own limit is not looking; the queue is kept while a woken one has not looked", async () => {
		const { runtime, waiters, woken } = setup(2);
		runtime.advance(50);
		await flush();
		expect(woken).toEqual([[1, false]]);
		expect(waiters.lookingIn('q')).toBe(0);
		waiters.wake('q');
		await flush();
		expect(waiters.size('q')).toBe(0);
		expect(waiters.lookingIn('q')).toBe(1);
		waiters.looked('q');
		expect(waiters.lookingIn('q')).toBe(0);
		// looked again (a bug elsewhere) changes nothing
		waiters.looked('q');
		expect(waiters.lookingIn('q')).toBe(0);
	});
});
