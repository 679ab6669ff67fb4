/**
 * The controller's events as data (nodes/shared/core/traffic/events.ts): every event a node's gate
 * reports reaches the process's bus as a plain record, where the log writes its line (as it always
 * read) and a counter counts it per API and kind.
 */
import type { IExecuteFunctions, Logger } from 'n8n-workflow';
import type { AttemptFailure } from '../../../nodes/shared/core/classify';
import type { AttemptGate, AttemptResult } from '../../../nodes/shared/core/retry-loop';
import { HOLD_DEFAULTS } from '../../../nodes/shared/core/traffic/hold-state';
import type { Outcome, TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import { TrafficEventBus, TrafficEventCounter, type TrafficEventRecord } from '../../../nodes/shared/core/traffic/events';
import { createTrafficGate } from '../../../nodes/shared/n8n/traffic/traffic-gate';
import { getProcessTrafficEventCounts, getProcessTrafficEvents } from '../../../nodes/shared/n8n/traffic/traffic-events';
import { logTrafficEvent } from '../../../nodes/shared/n8n/traffic/traffic-log';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { createHttpTrafficGate, trafficRequest } from '../../../nodes/ResilientHttpRequest/traffic/traffic-gate';
import type { HttpResponse } from '../../../nodes/ResilientHttpRequest/types';
import { FakeRuntime } from '../fake-runtime';

/** A logger that keeps every line it was given, by level. */
function captureLog(): { lines: Array<[string, string]>; logger: Logger } {
	const lines: Array<[string, string]> = [];
	const write = (level: string) => (message: string) => lines.push([level, message]);
	return { lines, logger: { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') } as unknown as Logger };
}

/** A node's context: its name, and its own logger (a fresh one that nobody reads, if not given). */
const ctxOf = (name: string, logger: Logger = captureLog().logger) => ({ getNode: () => ({ name }), logger }) as unknown as IExecuteFunctions;

/** One attempt through the gate, answered with `result`. */
async function attempt<T>(gate: AttemptGate<T>, result: AttemptResult<T>): Promise<void> {
	const entry = await gate.enter(1, undefined, undefined);
	if (!entry.go) throw new Error(`refused: ${entry.why}`);
	await entry.done(result);
}

const params = (extra: Partial<TrafficParams> = {}): TrafficParams => ({ window: { ceiling: 10, mode: 'fixed' }, leaseMs: 60_000, ...extra });

describe('the event bus', () => {
	const source = { key: 'api:1', label: 'api.example.com', node: 'Fetch', nodeType: 'Resilient HTTP Request' };

	it('gives every reader each event as one record, with its API, node and time', () => {
		const bus = new TrafficEventBus();
		const read: TrafficEventRecord[] = [];
		bus.subscribe((record) => read.push(record));
		bus.publish(source, [{ kind: 'rate-learned', rps: 2 }, { kind: 'window', decrease: { from: 10, to: 5 } }], 1_000);
		expect(read).toEqual([
			{ kind: 'rate-learned', rps: 2, ...source, at: 1_000 },
			{ kind: 'window', decrease: { from: 10, to: 5 }, ...source, at: 1_000 },
		]);
	});

	it('stops giving a reader records once it unsubscribed', () => {
		const bus = new TrafficEventBus();
		let read = 0;
		const unsubscribe = bus.subscribe(() => read++);
		bus.publish(source, [{ kind: 'rate-learned', rps: 2 }], 0);
		unsubscribe();
		bus.publish(source, [{ kind: 'rate-learned', rps: 2 }], 0);
		expect(read).toBe(1);
	});

	it('counts per API and kind, with the label last seen', () => {
		const bus = new TrafficEventBus();
		const counter = new TrafficEventCounter();
		bus.subscribe(counter.count);
		bus.publish(source, [{ kind: 'paused', until: 5, by: 'retry-after' }, { kind: 'resumed', by: 'retry-after', how: 'time' }, { kind: 'paused', until: 9, by: 'retry-after' }], 0);
		bus.publish({ ...source, key: 'api:2', label: 'its scope' }, [{ kind: 'rate-learned', rps: 1 }], 0);
		expect(counter.countsOf('api:1')).toEqual({ paused: 2, resumed: 1 });
		expect(counter.countsOf('api:3')).toEqual({});
		expect(counter.all()).toEqual([
			{ key: 'api:1', label: 'api.example.com', counts: { paused: 2, resumed: 1 } },
			{ key: 'api:2', label: 'its scope', counts: { 'rate-learned': 1 } },
		]);
	});
});

describe("a node's gate publishes to the process's bus", () => {
	it("the HTTP node's 429: the pause is counted for its API, and logged as it always was", async () => {
		const log = captureLog();
		const runtime = new FakeRuntime();
		const key = 'api:events-http';
		const request = trafficRequest('GET', 'https://api.example.com/items');
		const gate = createHttpTrafficGate(ctxOf('Fetch', log.logger), new MemoryStateStore(), { key, label: 'api.example.com', params: params() }, runtime, undefined, { loopRetry: false, request, maxServerDelayMs: 60_000, readRateLimitHeaders: true });
		const throttled: AttemptFailure = { kind: 'status', status: 429, message: 'Too Many Requests', reachedServer: 'yes', transient: true, serverDelay: { delayMs: 2_000, header: 'retry-after', kind: 'retry-after' } };
		await attempt(gate, { ok: false, failure: throttled });
		expect(getProcessTrafficEventCounts().countsOf(key)).toEqual({ paused: 1 });
		const until = new Date(runtime.now() + 2_000).toISOString();
		expect(log.lines).toEqual([['info', `Resilient HTTP Request "Fetch": the API api.example.com asked to wait (retry-after): its requests are paused for 2 s (${until})`]]);
	});

	it("another node's outage: any result type, its own reading, its own name in the log", async () => {
		const log = captureLog();
		const runtime = new FakeRuntime();
		const key = 'api:events-other';
		const outage: Outcome = { success: false, outageFailure: true, overload: false, throttled: false };
		const reading = { outcomeOf: (result: AttemptResult<string>): Outcome => (result.ok ? { success: true, outageFailure: false, overload: false, throttled: false } : outage), wasPaced: () => false };
		const gate = createTrafficGate<string>(ctxOf('Mail', log.logger), new MemoryStateStore(), { key, label: 'smtp.example.com', params: params({ hold: { ...HOLD_DEFAULTS, consecutiveFailures: 3 } }) }, runtime, undefined, { nodeType: 'Some Mail Node', loopRetry: false, maxServerDelayMs: 60_000, reading });
		const failure: AttemptFailure = { kind: 'network', code: 'ECONNREFUSED', message: 'refused', reachedServer: 'no', transient: true };
		for (let i = 0; i < 3; i++) await attempt(gate, { ok: false, failure });
		expect(getProcessTrafficEventCounts().countsOf(key)).toEqual({ held: 1 });
		expect(log.lines).toEqual([['warn', expect.stringMatching(/^Some Mail Node "Mail": the API smtp\.example\.com looks down: its requests are held, one probe at /)]]);
	});

	it('a healthy answer publishes nothing', async () => {
		const runtime = new FakeRuntime();
		const read: TrafficEventRecord[] = [];
		const unsubscribe = getProcessTrafficEvents().subscribe((record) => read.push(record));
		const gate = createHttpTrafficGate(ctxOf('Fetch'), new MemoryStateStore(), { key: 'api:events-healthy', label: 'api.example.com', params: params() }, runtime, undefined, { loopRetry: false, request: trafficRequest('GET', 'https://api.example.com/'), maxServerDelayMs: 60_000, readRateLimitHeaders: true });
		const ok: HttpResponse = { status: 200, statusText: 'OK', headers: {}, body: '' } as unknown as HttpResponse;
		await attempt(gate, { ok: true, value: ok });
		unsubscribe();
		expect(read).toEqual([]);
		expect(getProcessTrafficEventCounts().countsOf('api:events-healthy')).toEqual({});
	});
});

describe("the log, a reader of each event the node publishes", () => {
	const source = { key: 'api:log', label: 'api.example.com', node: 'Fetch', nodeType: 'Resilient HTTP Request' };

	it('writes each event as it always read, at its level', () => {
		const log = captureLog();
		getProcessTrafficEvents().publish(source, [{ kind: 'resumed', by: 'retry-after', how: 'time' }, { kind: 'rate-learned', rps: 2.345 }, { kind: 'window', decrease: { from: 20, to: 10 } }, { kind: 'recovered', change: {} as never }], 0, (record) => logTrafficEvent(log.logger, record));
		expect(log.lines).toEqual([
			['info', `Resilient HTTP Request "Fetch": the API api.example.com's pause (retry-after) is over: its requests go again`],
			['info', 'Resilient HTTP Request "Fetch": the API api.example.com throttles: its requests are paced at 2.3 per second'],
			['debug', 'Resilient HTTP Request "Fetch": requests in flight to api.example.com 20 -> 10'],
			['info', 'Resilient HTTP Request "Fetch": the API api.example.com answers again: the held requests come back gradually'],
		]);
	});

	it("counts what an operator ended by hand, and leaves its line to the operator's node (one line for all it ended)", () => {
		const log = captureLog();
		getProcessTrafficEvents().publish({ ...source, key: 'api:log-hand', nodeType: 'Resilient HTTP Traffic Control' }, [{ kind: 'resumed', by: 'outage hold', how: 'hand' }], 0, (record) => logTrafficEvent(log.logger, record));
		expect(log.lines).toEqual([]);
		expect(getProcessTrafficEventCounts().countsOf('api:log-hand')).toEqual({ resumed: 1 });
	});
});

