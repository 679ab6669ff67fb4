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
	// the tasks settle, then the pool refills their slots after this turn's callbacks (a second turn)
	const finish = async (n: number) => {
		for (const done of pending.splice(0, n)) done();
		await flushMicrotasks();
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

	it('refills the slots freed in one turn of the event loop together, after every callback of that turn', async () => {
		const events: string[] = [];
		const finishers: Array<() => void> = [];
		const task = (index: number) =>
			new Promise<void>((resolve) => {
				events.push(`start ${index}`);
				finishers.push(() => {
					events.push(`answer ${index}`);
					resolve();
				});
			});
		const done = runItemPool(6, { ...noBatching, concurrency: 3 }, new FakeRuntime(), {}, task);
		await flushMicrotasks();
		expect(events).toEqual(['start 0', 'start 1', 'start 2']);
		// three answers read in one turn, each in its own callback (as sockets' data events are)
		for (const answer of finishers.splice(0, 3)) setImmediate(answer);
		await flushMicrotasks();
		expect(events.slice(3)).toEqual(['answer 0', 'answer 1', 'answer 2']);
		await flushMicrotasks();
		expect(events.slice(6)).toEqual(['start 3', 'start 4', 'start 5']);
		for (const answer of finishers.splice(0)) answer();
		await done;
	});

	it('one item at a time: each next item starts in the turn after the one before settles', async () => {
		const started: number[] = [];
		const done = runItemPool(50, { ...noBatching, concurrency: 1 }, new FakeRuntime(), {}, async (index) => {
			started.push(index);
			await Promise.resolve();
		});
		await done;
		expect(started).toEqual(Array.from({ length: 50 }, (_, k) => k));
	});
});
