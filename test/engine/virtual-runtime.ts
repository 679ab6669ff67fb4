/**
 * A runtime for engine tests, where real HTTP to local servers meets virtual time.
 *
 * - sleep(ms) takes no real time: it moves the virtual clock forward by ms (it is recorded) and
 *   resolves on the next turn of the event loop.
 * - startTimer(ms, fn) (an attempt's timeout, a wait at the traffic gate) is a virtual timer due
 *   at now() + ms. It fires when real time brings the clock there (a request that really hangs
 *   meets its attempt timeout), or earlier in real time when the process is idle: no HTTP request
 *   of this process in flight and no call to the runtime for a few milliseconds. Then nothing but
 *   time can move the test on, so the clock jumps to the earliest timer's due time and fires it,
 *   as a discrete-event simulation would: a wait at the gate for a pause of 30 s takes
 *   milliseconds, not 30 s, and the clock says 30 s went by.
 * - now() is the real clock plus every virtual ms added so far, so real HTTP still takes its own
 *   (short) time on it; with `noRealTime`, only the virtual ms (see createVirtualRuntime).
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { runInThisContext } from 'node:vm';
import { onAbort } from '../../nodes/shared/core/abort-listeners';
import { CancelledError, type Runtime } from '../../nodes/shared/core/runtime';
import { mulberry32 } from '../unit/fake-runtime';

export interface VirtualRuntime extends Runtime {
	/** Every sleep the code asked for, in order (ms). */
	sleeps: number[];
	/** Virtual ms added to the real clock so far (sleeps, idle jumps to a timer, advance()). */
	offsetMs(): number;
	/** Timers fired by a jump of the virtual clock, not by real time: [ms asked for, ms jumped]. */
	timerJumps: Array<{ ms: number; jumpedMs: number }>;
}

/** Seeded, so jitter is reproducible (the unit tests' mulberry32). */
export const seededRandom = mulberry32;

/**
 * HTTP requests this process has started and not yet closed. One counter per process: Jest loads
 * this module once per test file, each file with its own globalThis, while the channel is the
 * process's. So the counter is kept on the process's own global (outside Jest's sandbox): kept on
 * the file's, every file a worker ran would add one more subscriber and one more close listener
 * to every request (Node warned at 11 files).
 */
const IN_FLIGHT = Symbol.for('n8n-nodes-resilient-http.engine-test.http-in-flight');
type InFlight = { count: number; changes: number };
function httpInFlight(): InFlight {
	const holder = runInThisContext('globalThis') as Record<symbol, InFlight | undefined>;
	const existing = holder[IN_FLIGHT];
	if (existing) return existing;
	const counter: InFlight = { count: 0, changes: 0 };
	holder[IN_FLIGHT] = counter;
	subscribe('http.client.request.start', (message) => {
		const { request } = message as { request: ClientRequest };
		counter.count++;
		counter.changes++;
		request.once('close', () => {
			counter.count--;
			counter.changes++;
		});
	});
	return counter;
}

/** How long (real ms) the process must stay quiet, twice in a row, before the clock jumps. */
const QUIET_MS = 3;

interface VirtualTimer {
	dueAt: number;
	ms: number;
	fire(jumpedMs: number | undefined): void;
}

/**
 * `frozen`: sleeps take no virtual time, so many concurrent executions all happen inside one
 * budget window (their sleeps would otherwise add up on the one shared clock). Timers still fire
 * at their virtual due time.
 *
 * `sleepsAsTimers`: each sleep is a virtual timer, so sleeps that run side by side overlap on the
 * clock as they would on a wall clock (items waiting out one pause, two executions' paces), instead
 * of adding up: one item's retry backoff no longer moves the others' clock past the pause they wait.
 *
 * `noRealTime`: now() is the virtual clock alone (from the real time at creation, moved only by
 * sleeps, jumps and advance()), so real HTTP takes no time on it and what the code waited is exact.
 * A timer that real time fires (a request in flight all along) sets the clock to its due time.
 */
export function createVirtualRuntime(
	seed = 42,
	{ frozen = false, sleepsAsTimers = false, noRealTime = false }: { frozen?: boolean; sleepsAsTimers?: boolean; noRealTime?: boolean } = {},
): VirtualRuntime & { advance(ms: number): void } {
	let offset = 0;
	const sleeps: number[] = [];
	const timerJumps: VirtualRuntime['timerJumps'] = [];
	const random = seededRandom(seed);
	const inFlight = httpInFlight();
	const timers = new Set<VirtualTimer>();
	/** Bumped on every call into the runtime: code that calls it is running, not waiting. */
	let activity = 0;
	let watching = false;
	const createdAt = Date.now();
	const now = () => (noRealTime ? createdAt : Date.now()) + offset;

	const quietTurn = () => new Promise<void>((resolve) => setTimeout(() => setImmediate(resolve), QUIET_MS).unref());
	/** While a timer is pending: when the process goes idle, jump to the earliest one and fire it. */
	async function watchForIdle(): Promise<void> {
		if (watching) return;
		watching = true;
		try {
			let quietTurns = 0;
			while (timers.size > 0) {
				const before = activity + inFlight.changes;
				await quietTurn();
				const idle = inFlight.count === 0 && activity + inFlight.changes === before;
				quietTurns = idle ? quietTurns + 1 : 0;
				if (quietTurns < 2 || timers.size === 0) continue;
				quietTurns = 0;
				const next = [...timers].reduce((a, b) => (b.dueAt < a.dueAt ? b : a));
				const jumpedMs = Math.max(0, next.dueAt - now());
				offset += jumpedMs;
				next.fire(jumpedMs);
			}
		} finally {
			watching = false;
		}
	}

	function addTimer(ms: number, onFire: () => void): () => void {
		const timer: VirtualTimer = {
			dueAt: now() + ms,
			ms,
			fire(jumpedMs) {
				if (!timers.delete(timer)) return;
				clearTimeout(real);
				if (noRealTime) offset = Math.max(offset, timer.dueAt - createdAt);
				if (jumpedMs !== undefined) timerJumps.push({ ms, jumpedMs });
				activity++;
				onFire();
			},
		};
		const real = setTimeout(() => timer.fire(undefined), ms);
		timers.add(timer);
		void watchForIdle();
		return () => {
			activity++;
			timers.delete(timer);
			clearTimeout(real);
		};
	}

	/** A sleep that ends when its virtual timer fires, or with a CancelledError when `signal` aborts. */
	function timerSleep(ms: number, signal?: AbortSignal): Promise<void> {
		return new Promise((resolve, reject) => {
			const cancel = addTimer(ms, () => {
				unsubscribe();
				resolve();
			});
			const unsubscribe = onAbort(signal, () => {
				cancel();
				reject(new CancelledError());
			});
		});
	}

	return {
		sleeps,
		timerJumps,
		offsetMs: () => offset,
		advance: (ms: number) => {
			offset += ms;
		},
		now: () => {
			activity++;
			return now();
		},
		random: () => {
			activity++;
			return random();
		},
		async sleep(ms, signal) {
			activity++;
			if (signal?.aborted) throw new CancelledError();
			sleeps.push(ms);
			if (sleepsAsTimers) return timerSleep(ms, signal);
			if (!frozen) offset += ms;
			await new Promise((resolve) => setImmediate(resolve));
			if (signal?.aborted) throw new CancelledError();
		},
		startTimer(ms, onFire) {
			activity++;
			return addTimer(ms, onFire);
		},
	};
}

/**
 * `base` with sleeps that last until their signal aborts: a wait that only a cancellation can end.
 * `onSleep` hears of each sleep as it starts (a test cancels the execution there); `ended` counts
 * the sleeps the signal ended.
 */
export function withEndlessSleeps(base: Runtime, onSleep: (ms: number) => void): Runtime & { asked: number[]; ended: () => number } {
	const asked: number[] = [];
	let ended = 0;
	return {
		now: () => base.now(),
		random: () => base.random(),
		startTimer: (ms, onFire) => base.startTimer(ms, onFire),
		asked,
		ended: () => ended,
		sleep: (ms, signal) =>
			new Promise<void>((_resolve, reject) => {
				asked.push(ms);
				const cancel = () => {
					ended++;
					reject(new CancelledError());
				};
				if (signal?.aborted) return cancel();
				signal?.addEventListener('abort', cancel, { once: true });
				onSleep(ms);
			}),
	};
}
