/**
 * A virtual-time Runtime for unit tests. Nothing here waits on the real clock.
 *
 * - now() reads a virtual clock (starts at a fixed instant).
 * - sleep(ms, signal) records the sleep, moves the clock forward by ms, firing any virtual timer
 *   due on the way (in due order), and resolves on a microtask. It rejects with CancelledError if
 *   the signal is aborted already, or becomes aborted on the way (a timer that aborts it stops
 *   the clock at that timer's instant, so "promptly" is measurable), or by the microtask.
 * - startTimer(ms, fn) registers a virtual timer; it fires only when the test advances time
 *   (advance / advanceTo / runUntilSettled) or when a sleep passes its due time.
 * - random() comes from a seeded mulberry32, or from a scripted sequence.
 */
import { CancelledError, type Runtime } from '../../nodes/shared/core/runtime';

/** 2026-01-15T12:00:00.000Z */
export const DEFAULT_START_MS = Date.UTC(2026, 0, 15, 12, 0, 0);

/** The classic 32-bit mulberry32 PRNG: a deterministic number in [0, 1) per call. */
export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Returns the values in order, then repeats the last one (or throws when `strict`). */
export function scripted(values: readonly number[], strict = false): () => number {
	if (values.length === 0) throw new Error('scripted() needs at least one value');
	let i = 0;
	return () => {
		if (i < values.length) return values[i++];
		if (strict) throw new Error(`scripted random source exhausted after ${values.length} draws`);
		return values[values.length - 1];
	};
}

interface VirtualTimer {
	id: number;
	dueAt: number;
	fn: () => void;
}

export interface SleepRecord {
	/** The ms asked for. */
	ms: number;
	/** Virtual time when the sleep started. */
	startedAt: number;
	/** How it ended: 'done', or 'cancelled' (with the virtual instant of the cancellation). */
	outcome: 'pending' | 'done' | 'cancelled';
	endedAt?: number;
}

export interface FakeRuntimeOptions {
	startMs?: number;
	seed?: number;
	random?: () => number;
}

/** Lets every pending microtask (and promise chain hanging off them) run. */
export function flushMicrotasks(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

export class FakeRuntime implements Runtime {
	private clock: number;
	private readonly source: () => number;
	private timers: VirtualTimer[] = [];
	private nextTimerId = 1;
	readonly sleeps: SleepRecord[] = [];
	/** Every random() draw, in order. */
	readonly draws: number[] = [];
	/** Timers ever started: [ms, virtual start]. */
	readonly timersStarted: Array<{ ms: number; at: number }> = [];

	constructor(options: FakeRuntimeOptions = {}) {
		this.clock = options.startMs ?? DEFAULT_START_MS;
		this.source = options.random ?? mulberry32(options.seed ?? 1);
		// Bind so the methods can be passed around detached, like systemRuntime's.
		this.now = this.now.bind(this);
		this.random = this.random.bind(this);
		this.sleep = this.sleep.bind(this);
		this.startTimer = this.startTimer.bind(this);
	}

	now(): number {
		return this.clock;
	}

	random(): number {
		const r = this.source();
		this.draws.push(r);
		return r;
	}

	/** Sleep durations asked for, in order. */
	get sleepDurations(): number[] {
		return this.sleeps.map((s) => s.ms);
	}

	get pendingTimers(): number {
		return this.timers.length;
	}

	startTimer(ms: number, onFire: () => void): () => void {
		if (typeof ms !== 'number' || Number.isNaN(ms)) throw new Error(`startTimer got ${String(ms)} ms`);
		const timer: VirtualTimer = { id: this.nextTimerId++, dueAt: this.clock + Math.max(0, ms), fn: onFire };
		this.timersStarted.push({ ms, at: this.clock });
		this.timers.push(timer);
		return () => {
			this.timers = this.timers.filter((t) => t !== timer);
		};
	}

	async sleep(ms: number, signal?: AbortSignal): Promise<void> {
		// Stricter than setTimeout on purpose: the policy code must never ask for a garbage wait.
		if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new Error(`sleep got an invalid duration: ${String(ms)}`);
		const record: SleepRecord = { ms, startedAt: this.clock, outcome: 'pending' };
		this.sleeps.push(record);
		if (signal?.aborted) {
			record.outcome = 'cancelled';
			record.endedAt = this.clock;
			throw new CancelledError();
		}
		this.advanceTo(this.clock + ms, () => signal?.aborted === true);
		await Promise.resolve();
		if (signal?.aborted) {
			record.outcome = 'cancelled';
			record.endedAt = this.clock;
			throw new CancelledError();
		}
		record.outcome = 'done';
		record.endedAt = this.clock;
	}

	/** Moves the clock forward by `ms`, firing due timers in order. */
	advance(ms: number): void {
		if (!(ms >= 0)) throw new Error(`advance got ${ms}`);
		this.advanceTo(this.clock + ms);
	}

	/**
	 * Moves the clock to `target`, firing timers due on the way in (dueAt, id) order, the clock
	 * set to each one's due time as it fires. Stops early (clock at the firing timer) when `stop`
	 * turns true after a timer fired.
	 */
	advanceTo(target: number, stop?: () => boolean): void {
		for (;;) {
			const due = this.timers.filter((t) => t.dueAt <= target).sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)[0];
			if (!due) break;
			this.timers = this.timers.filter((t) => t !== due);
			this.clock = Math.max(this.clock, due.dueAt);
			due.fn();
			if (stop?.()) return;
		}
		this.clock = Math.max(this.clock, target);
	}

	/** Schedules `fn` at `ms` from now on the virtual clock (test convenience over startTimer). */
	at(ms: number, fn: () => void): () => void {
		return this.startTimer(ms, fn);
	}

	/**
	 * Drives `promise` to completion on virtual time: lets microtasks run; while it is pending,
	 * jumps the clock to the next virtual timer. Throws when it is pending with no timer left
	 * (a deadlock: the code waits on something virtual time can never bring).
	 */
	async runUntilSettled<T>(promise: Promise<T>, maxSteps = 10_000): Promise<T> {
		let settled = false;
		const tracked = promise.finally(() => {
			settled = true;
		});
		// Avoid an unhandled rejection warning while we drive it; the caller still sees the rejection.
		tracked.catch(() => undefined);
		for (let step = 0; step < maxSteps; step++) {
			await flushMicrotasks();
			if (settled) return tracked;
			const next = [...this.timers].sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)[0];
			if (!next) throw new Error('runUntilSettled: the promise is pending and no virtual timer is left (deadlock)');
			this.advanceTo(next.dueAt);
		}
		throw new Error(`runUntilSettled: still pending after ${maxSteps} steps`);
	}
}
