/** The fake runtime is test infrastructure: if it lies, every retry-loop test lies with it. */
import { CancelledError } from '../../nodes/shared/core/runtime';
import { DEFAULT_START_MS, FakeRuntime, flushMicrotasks, mulberry32, scripted } from './fake-runtime';

describe('mulberry32', () => {
	it('is deterministic per seed, in [0, 1), and differs between seeds', () => {
		const a = mulberry32(5);
		const b = mulberry32(5);
		const c = mulberry32(6);
		const xs = Array.from({ length: 1000 }, () => a());
		expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
		expect(c()).not.toBe(xs[0]);
		expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
		expect(new Set(xs).size).toBeGreaterThan(990);
	});
});

describe('scripted', () => {
	it('replays, then repeats the last value, or throws when strict', () => {
		const r = scripted([0.1, 0.2]);
		expect([r(), r(), r()]).toEqual([0.1, 0.2, 0.2]);
		const strict = scripted([0.5], true);
		strict();
		expect(() => strict()).toThrow(/exhausted/);
	});
});

describe('FakeRuntime', () => {
	it('starts at a fixed instant and records random draws', () => {
		const rt = new FakeRuntime({ random: scripted([0.25, 0.75]) });
		expect(rt.now()).toBe(DEFAULT_START_MS);
		expect([rt.random(), rt.random()]).toEqual([0.25, 0.75]);
		expect(rt.draws).toEqual([0.25, 0.75]);
	});

	it('sleep advances the virtual clock, records itself and resolves on a microtask', async () => {
		const rt = new FakeRuntime();
		let resolved = false;
		const p = rt.sleep(1500).then(() => {
			resolved = true;
		});
		expect(resolved).toBe(false);
		await p;
		expect(resolved).toBe(true);
		expect(rt.now()).toBe(DEFAULT_START_MS + 1500);
		expect(rt.sleeps).toEqual([{ ms: 1500, startedAt: DEFAULT_START_MS, outcome: 'done', endedAt: DEFAULT_START_MS + 1500 }]);
	});

	it('sleep rejects at once on an aborted signal', async () => {
		const rt = new FakeRuntime();
		const c = new AbortController();
		c.abort();
		await expect(rt.sleep(1000, c.signal)).rejects.toBeInstanceOf(CancelledError);
		expect(rt.now()).toBe(DEFAULT_START_MS);
	});

	it('sleep rejects when the signal aborts on the way, the clock stopped there', async () => {
		const rt = new FakeRuntime();
		const c = new AbortController();
		rt.at(300, () => c.abort());
		await expect(rt.sleep(1000, c.signal)).rejects.toBeInstanceOf(CancelledError);
		expect(rt.now()).toBe(DEFAULT_START_MS + 300);
		expect(rt.sleeps[0]).toMatchObject({ outcome: 'cancelled', endedAt: DEFAULT_START_MS + 300 });
	});

	it('sleep rejects when the signal aborts before its microtask', async () => {
		const rt = new FakeRuntime();
		const c = new AbortController();
		const p = rt.sleep(1000, c.signal);
		c.abort();
		await expect(p).rejects.toBeInstanceOf(CancelledError);
	});

	it('sleep refuses garbage durations', async () => {
		const rt = new FakeRuntime();
		await expect(rt.sleep(-1)).rejects.toThrow(/invalid duration/);
		await expect(rt.sleep(Number.NaN)).rejects.toThrow(/invalid duration/);
		await expect(rt.sleep(Infinity)).rejects.toThrow(/invalid duration/);
	});

	it('timers fire only when time advances, in due order, and can be cancelled', async () => {
		const rt = new FakeRuntime();
		const fired: string[] = [];
		rt.startTimer(200, () => fired.push(`b@${rt.now() - DEFAULT_START_MS}`));
		rt.startTimer(100, () => fired.push(`a@${rt.now() - DEFAULT_START_MS}`));
		const cancel = rt.startTimer(150, () => fired.push('cancelled'));
		rt.startTimer(5000, () => fired.push('late'));
		await flushMicrotasks();
		expect(fired).toEqual([]);
		cancel();
		rt.advance(250);
		expect(fired).toEqual(['a@100', 'b@200']);
		expect(rt.now()).toBe(DEFAULT_START_MS + 250);
		await rt.sleep(10_000);
		expect(fired).toEqual(['a@100', 'b@200', 'late']);
		expect(rt.pendingTimers).toBe(0);
	});

	it('runUntilSettled jumps to the next timer, and reports a deadlock', async () => {
		const rt = new FakeRuntime();
		const p = new Promise<string>((resolve) => rt.startTimer(60_000, () => resolve('done')));
		await expect(rt.runUntilSettled(p)).resolves.toBe('done');
		expect(rt.now()).toBe(DEFAULT_START_MS + 60_000);
		await expect(rt.runUntilSettled(new Promise(() => undefined))).rejects.toThrow(/deadlock/);
	});
});
