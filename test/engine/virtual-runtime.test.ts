/** The engine tests' runtime: virtual waits take no real time, a request in flight holds the clock. */
import { request } from 'node:http';

import { CancelledError } from '../../nodes/shared/core/runtime';
import { startLocalServer } from './local-server';
import { createVirtualRuntime } from './virtual-runtime';

/** Resolves with what ended the request: its status, or the error code. */
function send(url: string): Promise<string> {
	return new Promise((resolve) => {
		const req = request(url, (res) => {
			res.resume();
			res.on('end', () => resolve(String(res.statusCode)));
		});
		req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
		req.end();
	});
}

const fired = (runtime: ReturnType<typeof createVirtualRuntime>, ms: number) => new Promise<number>((resolve) => runtime.startTimer(ms, () => resolve(runtime.offsetMs())));

describe('createVirtualRuntime', () => {
	it('a sleep moves the clock by what it asked and is recorded; frozen, it does not move the clock', async () => {
		const runtime = createVirtualRuntime();
		const before = runtime.now();
		await runtime.sleep(60_000);
		expect(runtime.sleeps).toEqual([60_000]);
		expect(runtime.offsetMs()).toBe(60_000);
		expect(runtime.now() - before).toBeGreaterThanOrEqual(60_000);

		const frozen = createVirtualRuntime(42, { frozen: true });
		await frozen.sleep(60_000);
		expect(frozen.sleeps).toEqual([60_000]);
		expect(frozen.offsetMs()).toBe(0);
	});

	it('sleeps as timers: sleeps side by side overlap on the clock instead of adding up, and a cancelled one ends at once', async () => {
		const runtime = createVirtualRuntime(42, { sleepsAsTimers: true });
		const ended: number[] = [];
		const sleepThenNote = (ms: number) => runtime.sleep(ms).then(() => ended.push(ms));
		await Promise.all([sleepThenNote(45_000), sleepThenNote(30_000)]);
		expect(ended).toEqual([30_000, 45_000]);
		expect(runtime.sleeps).toEqual([45_000, 30_000]);
		// the clock moved by the longer sleep (jumped there, not waited), not by the sum of both
		expect(runtime.offsetMs()).toBeGreaterThan(44_000);
		expect(runtime.offsetMs()).toBeLessThanOrEqual(45_000);

		const cancel = new AbortController();
		const cancelled = runtime.sleep(60_000, cancel.signal);
		cancel.abort();
		await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
		expect(runtime.offsetMs()).toBeLessThanOrEqual(45_000);
	});

	it('no real time: the clock moves only by virtual time; a timer real time fires (a request in flight) sets it to its due time', async () => {
		const server = await startLocalServer(() => ({ hang: true }));
		const runtime = createVirtualRuntime(42, { noRealTime: true });
		try {
			const start = runtime.now();
			await new Promise((resolve) => setTimeout(resolve, 20));
			expect(runtime.now()).toBe(start);
			await runtime.sleep(1_000);
			expect(runtime.now() - start).toBe(1_000);
			const answer = send(`${server.url}/hang`);
			while (server.requests.length < 1) await new Promise((resolve) => setImmediate(resolve));
			expect(await fired(runtime, 50)).toBe(1_050);
			expect(runtime.timerJumps).toEqual([]);
			await server.close();
			expect(await answer).toBe('ECONNRESET');
		} finally {
			await server.close();
		}
	});

	it('with nothing in flight, timers fire in due order by jumps of the clock, each at its due time', async () => {
		const runtime = createVirtualRuntime();
		const order: number[] = [];
		const start = runtime.now();
		const at: number[] = [];
		const both = Promise.all([
			fired(runtime, 45_000).then(() => {
				order.push(45_000);
				at.push(runtime.now() - start);
			}),
			fired(runtime, 30_000).then(() => {
				order.push(30_000);
				at.push(runtime.now() - start);
			}),
		]);
		const cancelled = jest.fn();
		const cancel = runtime.startTimer(10_000, cancelled);
		cancel();
		await both;
		expect(order).toEqual([30_000, 45_000]);
		expect(at[0]).toBeGreaterThanOrEqual(30_000);
		expect(at[1]).toBeGreaterThanOrEqual(45_000);
		// jumped, not waited: both fired by jumps, and the clock moved no further than the last
		expect(runtime.timerJumps.map((j) => j.ms)).toEqual([30_000, 45_000]);
		expect(runtime.offsetMs()).toBeLessThanOrEqual(45_000);
		expect(cancelled).not.toHaveBeenCalled();
	});

	it('a timer does not jump while an HTTP request is in flight: real time fires it (an attempt timeout meets a real hang)', async () => {
		const server = await startLocalServer(() => ({ hang: true }));
		const runtime = createVirtualRuntime();
		try {
			const answer = send(`${server.url}/hang`);
			while (server.requests.length < 1) await new Promise((resolve) => setImmediate(resolve));
			const offset = await fired(runtime, 50);
			expect(offset).toBe(0);
			expect(runtime.timerJumps).toEqual([]);
			await server.close();
			expect(await answer).toBe('ECONNRESET');
		} finally {
			await server.close();
		}
	});

	it('once the request has ended, the clock jumps again', async () => {
		const server = await startLocalServer(() => ({ status: 204 }));
		const runtime = createVirtualRuntime();
		try {
			const realStart = Date.now();
			const timer = fired(runtime, 60_000);
			expect(await send(`${server.url}/x`)).toBe('204');
			// real time ran while the request was in flight (seconds on a loaded machine): the jump
			// covers the rest of the minute
			const realDuringRequest = Date.now() - realStart;
			expect(await timer).toBeGreaterThanOrEqual(60_000 - realDuringRequest - 1_000);
			expect(runtime.timerJumps).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});
