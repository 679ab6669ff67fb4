/**
 * The clock, random source, sleeper and timer the policy code runs on. Injected everywhere so
 * tests run on virtual time; `systemRuntime` is what n8n gets.
 */
import { onAbort } from './abort-listeners';

export interface Runtime {
	now(): number;
	/** A number in [0, 1). */
	random(): number;
	/** Waits `ms`; rejects with a CancelledError as soon as `signal` aborts. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
	/** Calls `onFire` after `ms`; returns a function that cancels the timer. */
	startTimer(ms: number, onFire: () => void): () => void;
}

export class CancelledError extends Error {
	constructor(message = 'The execution was canceled') {
		super(message);
		this.name = 'CancelledError';
	}
}

/** Longest delay setTimeout accepts; longer waits would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

function sleepWithSignal(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new CancelledError());
		const timer = setTimeout(() => {
			unsubscribe();
			resolve();
		}, Math.min(Math.max(0, ms), MAX_TIMER_MS));
		const unsubscribe = onAbort(signal, () => {
			clearTimeout(timer);
			reject(new CancelledError());
		});
	});
}

export const systemRuntime: Runtime = {
	now: () => Date.now(),
	random: () => Math.random(),
	sleep: sleepWithSignal,
	startTimer(ms, onFire) {
		const timer = setTimeout(onFire, Math.min(Math.max(0, ms), MAX_TIMER_MS));
		return () => clearTimeout(timer);
	},
};

/** The promise's outcome, or `onTimeout()`'s error after `ms` (the timer never outlives it). */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const timer = setTimeout(() => reject(onTimeout()), ms);
		promise.then(
			(value) => {
				clearTimeout(timer);
				resolve(value);
			},
			(error: unknown) => {
				clearTimeout(timer);
				reject(error);
			},
		);
	});
}
