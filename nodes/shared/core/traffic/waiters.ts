/**
 * Requests of this process waiting at an API's controller for something that has no known time: a
 * slot in flight, the probe's result, room in the retry budget. Each report to the controller (and
 * each admission that may leave room for another) wakes the longest waiter, one at a time, so a
 * freed slot costs one new look at the state, not one per waiting request; the woken request
 * wakes the next one when it goes. Other workers' changes are not seen here: waiters also look
 * again after a bounded time (the gate's poll).
 */

import { onAbort } from '../abort-listeners';

type Wake = () => void;

export class Waiters {
	private readonly queues = new Map<string, Wake[]>();

	/** Resolves on the next wake for `key`, after `maxMs`, or when the signal aborts (never rejects). */
	wait(key: string, maxMs: number, startTimer: (ms: number, fire: () => void) => () => void, signal?: AbortSignal): Promise<void> {
		return new Promise<void>((resolve) => {
			let done = false;
			const queue = this.queues.get(key) ?? [];
			this.queues.set(key, queue);
			const finish = () => {
				if (done) return;
				done = true;
				cancelTimer();
				unsubscribe();
				const index = queue.indexOf(finish);
				if (index >= 0) queue.splice(index, 1);
				if (queue.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
				resolve();
			};
			queue.push(finish);
			const cancelTimer = startTimer(Math.max(0, maxMs), finish);
			const unsubscribe = onAbort(signal, finish);
			if (signal?.aborted) finish();
		});
	}

	/** Wakes every waiter of every queue whose key starts with `prefix` (an API's pause or hold ended by hand). */
	wakeAll(prefix: string): void {
		for (const [key, queue] of [...this.queues]) if (key.startsWith(prefix)) for (const wake of [...queue]) wake();
	}

	/** Wakes the `count` longest waiters for `key`. */
	wake(key: string, count = 1): void {
		const queue = this.queues.get(key);
		for (let i = 0; i < count && queue && queue.length > 0; i++) queue[0]();
	}
}

const processWaiters = new Waiters();

/** The waiters of this n8n process: every execution's requests to an API wait in one queue. */
export function getProcessWaiters(): Waiters {
	return processWaiters;
}
