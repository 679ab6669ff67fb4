/**
 * A runtime for engine tests: backoff sleeps take no real time but move a virtual clock forward
 * (and are recorded), while attempt timeouts use real timers, since real HTTP takes real time.
 */
import { CancelledError, type Runtime } from '../../nodes/shared/runtime';

export interface VirtualRuntime extends Runtime {
	/** Every sleep the code asked for, in order (ms). */
	sleeps: number[];
	/** Virtual ms added to the real clock so far. */
	offsetMs(): number;
}

/** mulberry32: a tiny seeded PRNG, so jitter is reproducible. */
export function seededRandom(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function createVirtualRuntime(seed = 42): VirtualRuntime {
	let offset = 0;
	const sleeps: number[] = [];
	const random = seededRandom(seed);
	return {
		sleeps,
		offsetMs: () => offset,
		now: () => Date.now() + offset,
		random,
		async sleep(ms, signal) {
			if (signal?.aborted) throw new CancelledError();
			sleeps.push(ms);
			offset += ms;
			await new Promise((resolve) => setImmediate(resolve));
			if (signal?.aborted) throw new CancelledError();
		},
		startTimer(ms, onFire) {
			const timer = setTimeout(onFire, ms);
			return () => clearTimeout(timer);
		},
	};
}
