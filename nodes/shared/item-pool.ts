/**
 * Runs one task per item with a limit on tasks in flight and optional batching (a pause between
 * the starts of consecutive batches, like HTTP Request's batching). Pure: sleeps through the runtime.
 */
import type { Runtime } from './runtime';

export interface PoolSettings {
	concurrency: number;
	/** -1: no batching. */
	batchSize: number;
	batchIntervalMs: number;
}

export interface PoolControl {
	signal?: AbortSignal;
	/** Checked before each start: once true, no further item starts (items in flight finish). */
	shouldStop?: () => boolean;
}

export async function runItemPool(count: number, settings: PoolSettings, runtime: Runtime, control: PoolControl, task: (index: number) => Promise<void>): Promise<void> {
	const limit = Math.max(1, Math.floor(settings.concurrency));
	const inFlight = new Set<Promise<void>>();
	for (let index = 0; index < count; index++) {
		if (control.signal?.aborted || control.shouldStop?.()) break;
		if (index > 0 && settings.batchSize > 0 && settings.batchIntervalMs > 0 && index % settings.batchSize === 0) {
			try {
				await runtime.sleep(settings.batchIntervalMs, control.signal);
			} catch {
				break; // cancelled
			}
			if (control.shouldStop?.()) break;
		}
		while (inFlight.size >= limit) await Promise.race(inFlight);
		if (control.signal?.aborted || control.shouldStop?.()) break;
		const running: Promise<void> = task(index).finally(() => inFlight.delete(running));
		inFlight.add(running);
	}
	await Promise.all(inFlight);
}
