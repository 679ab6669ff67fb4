/**
 * Requests of this process waiting at an API's controller, in queues by what frees them. Each
 * report to the controller (and each admission that may leave room for another) wakes the longest
 * waiter, one at a time, so a freed slot costs one new look at the state, not one per waiting
 * request; the woken request wakes the next one when it goes.
 *
 * A woken request counts as looking until it says it has looked (`looked`): room in the window
 * wakes as many waiters as there is room for less those already looking (`wakeForRoom`), so that
 * several admissions that each see the same room do not each wake that many. Woken beyond the
 * room, a request would be refused, go to the back of the line, and cost the store a step.
 *
 * Looking again without a wake (a pause's end, the next probe, the pace's next slot, or the safety
 * poll for changes made by other processes) is one timer per queue, not one per request: when it
 * fires, the longest waiter looks for all of them (`look`). A waiter's own timer is only its limit
 * (its deadline): it gives up then, it does not poll.
 */

import { onAbort } from '../abort-listeners';
import { FairLine, type Lane, type Ticket } from './fair-line';

/** Ends a wait; `woken`: by a wake or the queue's look (the request looks now), not its own limit. */
type Wake = (woken?: boolean) => void;

type StartTimer = (ms: number, fire: () => void) => () => void;

interface Queue {
	/** The waiters in the order they are woken (fair-line.ts). */
	waiters: FairLine<Wake>;
	/** Wakes asked for by wakeSoon and not yet given: one timer for all of them. */
	wakesDue: number;
	/** Waiters woken that have not said they looked (Waiters.looked). */
	looking: number;
	/** The queue's one look-again timer: when it fires (epoch ms of the callers' clock), and its cancel. */
	lookAt?: number;
	cancelLook?: () => void;
}

/** When the longest waiter looks again for the queue: at `atMs` (callers' clock), now being `nowMs`. */
interface LookAgain {
	atMs: number;
	nowMs: number;
}

/** Where a waiter stands in its queue: its item's lane, and whether it waits ahead of the others of its lane's rank. */
interface Standing {
	lane?: Lane;
	/** Goes before every waiter that is neither urgent nor ahead, however long those have waited (a retry at a pause). */
	ahead?: boolean;
	/** Its place in this queue's line, kept from an earlier wait there (fair-line.ts). */
	ticket?: Ticket;
}

export class Waiters {
	private readonly queues = new Map<string, Queue>();

	/**
	 * Resolves on the next wake for `key`, after `maxMs`, or when the signal aborts (never rejects):
	 * true when woken (by a wake or the queue's look), and then the request counts as looking until
	 * it calls `looked(key)`, which it must, whatever happens next. With `look`, the queue's timer is
	 * set to that time, unless it is set sooner already. Its standing orders it (fair-line.ts): urgent
	 * first, then ahead, then the rest, whose shares take turns; otherwise by arrival. `clock` (the
	 * callers'), given when the queue is made, times how far a share that arrives catches up.
	 */
	wait(key: string, maxMs: number, startTimer: StartTimer, signal?: AbortSignal, look?: LookAgain, standing: Standing = {}, clock?: () => number): Promise<boolean> {
		return new Promise<boolean>((resolve) => {
			let done = false;
			const queue = this.queues.get(key) ?? { waiters: new FairLine<Wake>(clock), wakesDue: 0, looking: 0 };
			this.queues.set(key, queue);
			const finish = (woken = false) => {
				if (done) return;
				done = true;
				if (woken) queue.looking++;
				cancelTimer();
				unsubscribe();
				queue.waiters.remove(finish, woken);
				this.dropIfIdle(key, queue);
				resolve(woken);
			};
			queue.waiters.add(finish, standing.lane, standing.ahead === true, standing.ticket);
			const cancelTimer = Number.isFinite(maxMs) ? startTimer(Math.max(0, maxMs), () => finish()) : () => undefined;
			if (look) this.lookAt(key, queue, look, startTimer);
			const unsubscribe = onAbort(signal, () => finish());
			if (signal?.aborted) finish();
		});
	}

	/** Wakes every waiter of every queue whose key starts with `prefix` (an API's pause or hold ended by hand). */
	wakeAll(prefix: string): void {
		for (const [key, queue] of [...this.queues]) if (key.startsWith(prefix)) for (const wake of queue.waiters.values()) wake(true);
	}

	/** Wakes the `count` longest waiters for `key`. */
	wake(key: string, count = 1): void {
		const queue = this.queues.get(key);
		for (let i = 0; i < count && queue && queue.waiters.length > 0; i++) queue.waiters.first()?.(true);
	}

	/** Room for `room` more requests: wakes that many waiters of `key`, less those woken already and still looking. */
	wakeForRoom(key: string, room: number): void {
		const queue = this.queues.get(key);
		if (queue) this.wake(key, room - queue.looking);
	}

	/** A request woken from `key` has looked (it went, waits again, or left): it no longer counts as looking. */
	looked(key: string): void {
		const queue = this.queues.get(key);
		if (!queue || queue.looking === 0) return;
		queue.looking--;
		this.dropIfIdle(key, queue);
	}

	/** Waiters woken from `key` that have not looked yet. */
	lookingIn(key: string): number {
		return this.queues.get(key)?.looking ?? 0;
	}

	/**
	 * Wakes the longest waiter of `key` on a timer of 0 ms, after the I/O callbacks already due: the
	 * answers that arrived together are all reported before the slots they freed are handed on. Sent
	 * on at once, the first OK of a batch would send the next request before the 429s read with it
	 * paused the API (in slow start: one new 429 for each OK that came first). Wakes asked for
	 * before the timer fires share it. Nobody waiting: nothing to do.
	 */
	wakeSoon(key: string, startTimer: StartTimer): void {
		const queue = this.queues.get(key);
		if (!queue || queue.waiters.length === 0) return;
		if (queue.wakesDue++ > 0) return;
		startTimer(0, () => {
			const count = queue.wakesDue;
			queue.wakesDue = 0;
			// still the key's queue: none is dropped while a wake is due
			this.wake(key, count);
			this.dropIfIdle(key, queue);
		});
	}

	/** A wakeSoon of `key` is due: a slot freed by an answer is being handed on to a waiter. */
	handingOn(key: string): boolean {
		return (this.queues.get(key)?.wakesDue ?? 0) > 0;
	}

	/** Waiters queued for `key`. */
	size(key: string): number {
		return this.queues.get(key)?.waiters.length ?? 0;
	}

	/** The longest waiter of `key` looks again at that time (if someone waits then), unless it is set sooner. */
	lookAgain(key: string, look: LookAgain, startTimer: StartTimer): void {
		const queue = this.queues.get(key);
		if (queue && queue.waiters.length > 0) this.lookAt(key, queue, look, startTimer);
	}

	/** A queue nobody waits in, with no timer of its own to fire (a look again, a wake due), is forgotten. */
	private dropIfIdle(key: string, queue: Queue): void {
		if (queue.waiters.length === 0 && queue.cancelLook === undefined && queue.wakesDue === 0 && queue.looking === 0 && this.queues.get(key) === queue) this.queues.delete(key);
	}

	private lookAt(key: string, queue: Queue, look: LookAgain, startTimer: StartTimer): void {
		if (queue.lookAt !== undefined && queue.lookAt <= look.atMs) return;
		queue.cancelLook?.();
		queue.lookAt = look.atMs;
		queue.cancelLook = startTimer(Math.max(0, look.atMs - look.nowMs), () => {
			queue.lookAt = undefined;
			queue.cancelLook = undefined;
			const first = queue.waiters.first();
			if (first) first(true);
			else this.dropIfIdle(key, queue);
		});
	}
}

const processWaiters = new Waiters();

/** The waiters of this n8n process: every execution's requests to an API wait in one queue. */
export function getProcessWaiters(): Waiters {
	return processWaiters;
}
