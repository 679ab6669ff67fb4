/**
 * The names of an API's waiting queues (nodes/shared/core/traffic/wait-queues.ts): each reason
 * has its queue, and waking all of an API's queues wakes no other API's.
 */
import { queueOf, wakeAllQueuesOf, wakeOneOfEachQueue } from '../../../nodes/shared/core/traffic/wait-queues';
import { Waiters } from '../../../nodes/shared/core/traffic/waiters';
import { FakeRuntime, flushMicrotasks } from '../fake-runtime';

describe('the queues of an API', () => {
	it('a hold and a slot wait in one queue (a report frees both); every other reason in its own', () => {
		expect(queueOf('api:1', 'held')).toBe(queueOf('api:1', 'window'));
		const names = (['window', 'paused', 'budget', 'pace', 'bucket'] as const).map((reason) => queueOf('api:1', reason));
		expect(new Set(names).size).toBe(5);
		expect(queueOf('api:2', 'paused')).not.toBe(queueOf('api:1', 'paused'));
	});

	/** Two waiters in each queue of `api:1`, and of `api:12` (whose key starts like it). */
	function waitingEverywhere(waiters: Waiters, runtime: FakeRuntime): Map<string, boolean[]> {
		const woken = new Map<string, boolean[]>();
		for (const key of ['api:1', 'api:12']) {
			for (const reason of ['window', 'paused', 'budget', 'pace', 'bucket'] as const) {
				const queue = queueOf(key, reason);
				const results: boolean[] = [];
				woken.set(queue, results);
				for (let n = 0; n < 2; n++) void waiters.wait(queue, Infinity, runtime.startTimer).then((w) => results.push(w));
			}
		}
		return woken;
	}

	it("all woken, by hand: every waiter of every queue of the API, and none of another API's", async () => {
		const waiters = new Waiters();
		const woken = waitingEverywhere(waiters, new FakeRuntime());
		wakeAllQueuesOf(waiters, 'api:1');
		await flushMicrotasks();
		for (const [queue, results] of woken) expect([queue, results]).toEqual([queue, queue.startsWith('api:1|') ? [true, true] : []]);
	});

	it("another process's news: the longest waiter of each queue of the API looks", async () => {
		const waiters = new Waiters();
		const woken = waitingEverywhere(waiters, new FakeRuntime());
		wakeOneOfEachQueue(waiters, 'api:1');
		await flushMicrotasks();
		for (const [queue, results] of woken) expect([queue, results]).toEqual([queue, queue.startsWith('api:1|') ? [true] : []]);
	});
});
