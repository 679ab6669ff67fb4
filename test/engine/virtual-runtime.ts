/**
 * A runtime for engine tests: backoff sleeps take no real time but move a virtual clock forward
 * (and are recorded), while attempt timeouts use real timers, since real HTTP takes real time.
 */
import { CancelledError, type Runtime } from '../../nodes/shared/core/runtime';
import { mulberry32 } from '../unit/fake-runtime';

export interface VirtualRuntime extends Runtime {
	/** Every sleep the code asked for, in order (ms). */
	sleeps: number[];
	/** Virtual ms added to the real clock so far. */
	offsetMs(): number;
}

/** Seeded, so jitter is reproducible (the unit tests' mulberry32). */
export const seededRandom = mulberry32;

/**
 * `frozen`: sleeps take no virtual time either, so many concurrent executions all happen inside
 * one budget window (their sleeps would otherwise add up on the one shared clock).
 */
export function createVirtualRuntime(seed = 42, { frozen = false }: { frozen?: boolean } = {}): VirtualRuntime & { advance(ms: number): void } {
	let offset = 0;
	const sleeps: number[] = [];
	const random = seededRandom(seed);
	return {
		sleeps,
		offsetMs: () => offset,
		advance: (ms: number) => {
			offset += ms;
		},
		now: () => Date.now() + offset,
		random,
		async sleep(ms, signal) {
			if (signal?.aborted) throw new CancelledError();
			sleeps.push(ms);
			if (!frozen) offset += ms;
			await new Promise((resolve) => setImmediate(resolve));
			if (signal?.aborted) throw new CancelledError();
		},
		startTimer(ms, onFire) {
			const timer = setTimeout(onFire, ms);
			return () => clearTimeout(timer);
		},
	};
}
