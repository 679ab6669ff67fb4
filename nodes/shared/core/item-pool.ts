/**
 * Runs one task per item with a limit on tasks in flight and optional batching (a pause between
 * the starts of consecutive batches, like HTTP Request's batching). The limit may change while the
 * pool runs (an adaptive window): it is read before each start, and a lower limit lets the tasks
 * in flight finish rather than cutting them. Pure: sleeps through the runtime.
 */
import type { Runtime } from './runtime';

interface PoolSettings {
	/** Tasks in flight at most: a number, or a function read before each start (whole, >= 1). */
	concurrency: number | (() => number);
	/** -1: no batching. */
	batchSize: number;
	batchIntervalMs: number;
}

interface PoolControl {
	signal?: AbortSignal;
	/** Checked before each start: once true, no further item starts (items in flight finish). */
	shouldStop?: () => boolean;
}

export async function runItemPool(count: number, settings: PoolSettings, runtime: Runtime, control: PoolControl, task: (index: number) => Promise<void>): Promise<void> {
	const { concurrency } = settings;
	// a limit that is not a finite number would start every item at once: treat it as 1
	const limit = () => {
		const value = typeof concurrency === 'function' ? concurrency() : concurrency;
		return Number.isFinite(value) ? Math.max(1, Math.floor(value)) : 1;
	};
	// A counter and one waiter, not a Promise.race over the tasks in flight: each race adds a
	// reaction to every task in flight, so a pool of N items cost O(N x limit).
	let inFlight = 0;
	let failure: { error: unknown } | undefined;
	let wake: (() => void) | undefined;
	// The slots freed in one turn of the event loop are refilled together, after that turn's I/O
	// callbacks (setImmediate): the answers that arrived together are all processed, then their
	// successors start together. Refilled at once, each answer's processing alternated with one
	// new request's start, and the sending phase of 5,000 items at 1,000 in flight took about
	// 1.5x as long in n8n as with the refills together (docs/decisions.md, "Freed slots are
	// refilled together"). Not a timer: a pool of one item at a time loses no millisecond per item.
	let refillDue = false;
	const refill = () => {
		refillDue = false;
		const resume = wake;
		wake = undefined;
		resume?.();
	};
	const settled = () => {
		inFlight--;
		if (refillDue) return;
		refillDue = true;
		setImmediate(refill);
	};
	const nextSettled = () => new Promise<void>((resolve) => (wake = resolve));
	for (let index = 0; index < count; index++) {
		if (failure || control.signal?.aborted || control.shouldStop?.()) break;
		if (index > 0 && settings.batchSize > 0 && settings.batchIntervalMs > 0 && index % settings.batchSize === 0) {
			try {
				await runtime.sleep(settings.batchIntervalMs, control.signal);
			} catch {
				break; // cancelled
			}
			if (control.shouldStop?.()) break;
		}
		while (inFlight >= limit()) await nextSettled();
		if (failure || control.signal?.aborted || control.shouldStop?.()) break;
		inFlight++;
		task(index).then(settled, (error: unknown) => {
			failure ??= { error };
			settled();
		});
	}
	while (inFlight > 0) await nextSettled();
	// a task that rejects stops further starts; the pool rejects once the others have finished
	if (failure) throw failure.error;
}
