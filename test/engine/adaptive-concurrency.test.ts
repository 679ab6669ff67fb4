/**
 * Adaptive items in flight, executed in n8n-core against local upstreams that count the requests
 * open at once. Bounds, not sequences: the order of HTTP answers is not deterministic.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';
import type { LocalHandler } from './local-server';
import { useLocalServers } from './servers';
import { ensureEngineContainer } from './support/engine-container';
import { createVirtualRuntime } from './virtual-runtime';
import { httpWorkflow, runHttp } from './workflow-builders';

const server = useLocalServers();

/** The node's debug lines (window decreases are logged at debug level). */
const debugLines: string[] = [];
beforeAll(() => {
	ensureEngineContainer();
	const ignore = () => {};
	const logger = { error: ignore, warn: ignore, info: ignore, debug: (message: string) => debugLines.push(message), scoped: () => logger };
	Container.set(Logger, logger as unknown as Logger);
	LoggerProxy.init(logger as unknown as Logger);
});
beforeEach(() => {
	debugLines.length = 0;
});
const windowDecreases = () => debugLines.filter((line) => line.includes('requests in flight'));

const HOLD_MS = 5;
const hold = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An upstream that counts requests open at once and the most it saw. */
function countingUpstream(answer: (open: number) => Promise<{ status: number; headers?: Record<string, string> }>) {
	const seen = { open: 0, maxOpen: 0, statuses: new Map<number, number>() };
	const handler: LocalHandler = async () => {
		seen.open++;
		seen.maxOpen = Math.max(seen.maxOpen, seen.open);
		try {
			const { status, headers } = await answer(seen.open);
			seen.statuses.set(status, (seen.statuses.get(status) ?? 0) + 1);
			return { status, ...(headers ? { headers } : {}), body: { status } };
		} finally {
			seen.open--;
		}
	};
	return { seen, handler };
}

const items = (n: number) => Array.from({ length: n }, (_, k) => ({ json: { k } }));

/** Retries bounded by attempts only: the comparison below is about the window, not the budget. */
const RETRY_FREELY: IDataObject = { maxAttempts: 100, sharedLimits: { budget: false }, retryOptions: { baseDelay: 1, maxDelay: 10, totalDeadline: 0 } };

describe('adaptive items in flight', () => {
	it.each([
		['the default ceiling (1000)', {}, 1000],
		['a ceiling of 25', { maxConcurrency: 25 }, 25],
	])('healthy upstream, 300 items, %s: more than 10 in flight at once, never more than the ceiling', async (_label, options, ceiling) => {
		const { seen, handler } = countingUpstream(async () => {
			await hold(HOLD_MS);
			return { status: 200 };
		});
		const upstream = await server(handler);
		const wf = httpWorkflow({ url: `${upstream.url}/x`, options }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(300), createVirtualRuntime());

		expect(run.outputOf('HTTP', 0)).toHaveLength(300);
		expect(run.outputOf('HTTP', 1)).toHaveLength(0);
		expect(upstream.requests).toHaveLength(300);
		expect(seen.maxOpen).toBeGreaterThan(10);
		expect(seen.maxOpen).toBeLessThanOrEqual(ceiling);
		expect(windowDecreases()).toEqual([]);
	});

	it('an upstream that answers 429 above 8 requests at once: all items succeed, far fewer 429s than with a fixed 200', async () => {
		const K = 8;
		const rateLimited = () =>
			countingUpstream(async (open) => {
				if (open > K) return { status: 429, headers: { 'retry-after': '0' } };
				await hold(HOLD_MS);
				return { status: 200 };
			});
		const run = async (adapt: boolean) => {
			const { seen, handler } = rateLimited();
			const upstream = await server(handler);
			const wf = httpWorkflow({ url: `${upstream.url}/x`, ...RETRY_FREELY, options: { adaptConcurrency: adapt, maxConcurrency: 200 } }, { onError: 'continueErrorOutput' });
			const result = await runHttp(wf, items(200), createVirtualRuntime());
			return { seen, result, decreases: windowDecreases().splice(0) };
		};

		const adaptive = await run(true);
		debugLines.length = 0;
		const fixed = await run(false);

		expect(adaptive.result.outputOf('HTTP', 1)).toHaveLength(0);
		expect(adaptive.result.outputOf('HTTP', 0)).toHaveLength(200);
		expect(adaptive.seen.statuses.get(200)).toBe(200);
		const adaptive429 = adaptive.seen.statuses.get(429) ?? 0;
		const fixed429 = fixed.seen.statuses.get(429) ?? 0;
		// measured: about 26 against 120-135 (the engine starts items one after another, so the fixed
		// 200 never has all of them at the upstream at once)
		expect(fixed.seen.maxOpen).toBeGreaterThan(K);
		expect(adaptive429).toBeLessThan(fixed429 / 2);
		// each decrease is logged at debug level, with its cause; the fixed window never changes
		expect(adaptive.decreases.length).toBeGreaterThan(0);
		// the first one halves the window from where it stood: 10 (its start) when the first round
		// already met a 429, more when the first requests finished before the ninth was open
		const [, from, to] = adaptive.decreases[0].match(/^Resilient HTTP Request "HTTP": requests in flight to 127\.0\.0\.1:\d+ (\d+) -> (\d+)$/) ?? [];
		expect(Number(from)).toBeGreaterThanOrEqual(10);
		expect(Number(to)).toBe(Math.floor(Number(from) / 2));
		expect(fixed.decreases).toEqual([]);
	});

	it('with Batching set, 429s do not shrink the window: the batches keep the pace the user chose', async () => {
		const { seen, handler } = countingUpstream(async (open) => {
			if (open > 2) return { status: 429, headers: { 'retry-after': '0' } };
			await hold(HOLD_MS);
			return { status: 200 };
		});
		const upstream = await server(handler);
		const wf = httpWorkflow({ url: `${upstream.url}/x`, ...RETRY_FREELY, options: { batching: { batch: { batchSize: 20, batchInterval: 1 } } } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(40), createVirtualRuntime());

		expect(run.outputOf('HTTP', 0)).toHaveLength(40);
		expect(seen.statuses.get(200)).toBe(40);
		expect(seen.statuses.get(429)).toBeGreaterThan(0);
		expect(windowDecreases()).toEqual([]);
	});

	it('Adapt off: the fixed ceiling from the first request on, never more', async () => {
		const CEILING = 30;
		// each request waits until the ceiling is reached (or 5 s pass, which fails the test below)
		const waiting: Array<() => void> = [];
		let reached = false;
		const { seen, handler } = countingUpstream(async (open) => {
			if (!reached && open >= CEILING) {
				reached = true;
				for (const release of waiting.splice(0)) release();
			}
			if (!reached) {
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, 5000);
					waiting.push(() => {
						clearTimeout(timer);
						resolve();
					});
				});
			}
			await hold(1);
			return { status: 200 };
		});
		const upstream = await server(handler);
		const wf = httpWorkflow({ url: `${upstream.url}/x`, options: { adaptConcurrency: false, maxConcurrency: CEILING } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(90), createVirtualRuntime());

		expect(run.outputOf('HTTP', 0)).toHaveLength(90);
		expect(reached).toBe(true);
		expect(seen.maxOpen).toBe(CEILING);
	});

	it('Adapt on: the window starts at 10 items in flight', async () => {
		// nothing is answered before 10 requests are open; then an eleventh has 200 ms to show up
		// (or 5 s pass with fewer open, which fails the test below)
		let eleventh = false;
		let released = false;
		const waiting: Array<() => void> = [];
		const releaseAll = () => {
			released = true;
			for (const release of waiting.splice(0)) release();
		};
		const { seen, handler } = countingUpstream(async (open) => {
			if (open > 10) eleventh = true;
			if (released) return { status: 200 };
			if (open === 10) setTimeout(releaseAll, 200);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, 5000);
				waiting.push(() => {
					clearTimeout(timer);
					resolve();
				});
				if (eleventh) releaseAll();
			});
			return { status: 200 };
		});
		const upstream = await server(handler);
		const wf = httpWorkflow({ url: `${upstream.url}/x`, options: { maxConcurrency: 50 } }, { onError: 'continueErrorOutput' });
		const run = await runHttp(wf, items(10 + 1), createVirtualRuntime());

		expect(run.outputOf('HTTP', 0)).toHaveLength(11);
		expect(eleventh).toBe(false);
		expect(seen.maxOpen).toBe(10);
	});

	it('rejects an Adapt Items in Flight that is not true or false', async () => {
		const upstream = await server(() => ({ status: 200 }));
		const wf = httpWorkflow({ url: `${upstream.url}/x`, options: { adaptConcurrency: 'maybe' } });
		const run = await runHttp(wf, items(1), createVirtualRuntime());

		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('Parameter "Adapt Items in Flight" must be true or false, got "maybe" (item 0)');
		expect(upstream.requests).toHaveLength(0);
	});
});
