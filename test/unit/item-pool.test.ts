/** The item pool with a limit that changes while it runs (the adaptive window). */
import { runItemPool } from '../../nodes/shared/core/item-pool';
import { FakeRuntime, flushMicrotasks } from './fake-runtime';

/** Tasks that finish when the test says so; records how many ran at once. */
function manualTasks() {
	const pending: Array<() => void> = [];
	const seen = { running: 0, maxRunning: 0, started: [] as number[] };
	const task = (index: number) =>
		new Promise<void>((resolve) => {
			seen.started.push(index);
			seen.running++;
			seen.maxRunning = Math.max(seen.maxRunning, seen.running);
			pending.push(() => {
				seen.running--;
				resolve();
			});
		});
	const finish = async (n: number) => {
		for (const done of pending.splice(0, n)) done();
		await flushMicrotasks();
	};
	return { seen, task, finish };
}

const noBatching = { batchSize: -1, batchIntervalMs: 0 };

describe('item pool with a dynamic limit', () => {
	it('reads the limit before each start: a raise starts more at once, a cut lets the running ones finish', async () => {
		let limit = 2;
		const { seen, task, finish } = manualTasks();
		const done = runItemPool(20, { ...noBatching, concurrency: () => limit }, new FakeRuntime(), {}, task);
		await flushMicrotasks();
		expect(seen.started).toEqual([0, 1]);

		limit = 5;
		await finish(1); // one settles: the pool fills up to the new limit
		expect(seen.running).toBe(5);
		expect(seen.started).toHaveLength(6);

		limit = 1;
		await finish(2); // 3 still running, above the new limit: nothing starts, nothing is cut
		expect(seen.running).toBe(3);
		expect(seen.started).toHaveLength(6);
		await finish(3);
		expect(seen.running).toBe(1);
		expect(seen.maxRunning).toBe(5);

		while (seen.started.length < 20 || seen.running > 0) await finish(1);
		await done;
		expect(seen.started).toEqual(Array.from({ length: 20 }, (_, k) => k));
	});

	it('treats a limit that is not a finite number as 1', async () => {
		const { seen, task, finish } = manualTasks();
		const done = runItemPool(3, { ...noBatching, concurrency: () => NaN }, new FakeRuntime(), {}, task);
		await flushMicrotasks();
		expect(seen.running).toBe(1);
		while (seen.started.length < 3 || seen.running > 0) await finish(1);
		await done;
		expect(seen.maxRunning).toBe(1);
	});
});
