/**
 * A discrete-event simulation of one process's items passing an API's traffic gate
 * (nodes/shared/core/traffic/gate.ts) on virtual time: each item enters the gate, its request is
 * answered after the server's latency, the outcome is reported, and a throttled item waits the
 * Retry-After it was given, with the retry loop's spread, before it enters again (its retry is paced,
 * as the retry loop marks it).
 * The store counts its steps: the work the controller costs per item.
 */
import { reportOutcome, type GateContext } from '../../../nodes/shared/core/traffic/gate';
import { keyGateOf, passKeyThenApi, reportKey, type KeyLimits } from '../../../nodes/shared/core/traffic/key-gate';
import type { Outcome, TrafficParams } from '../../../nodes/shared/core/traffic/controller';
import type { StateStore, TrafficStep } from '../../../nodes/shared/core/traffic/store';
import { SendLogs } from '../../../nodes/shared/core/traffic/send-log';
import { Waiters } from '../../../nodes/shared/core/traffic/waiters';
import type { Lane } from '../../../nodes/shared/core/traffic/fair-line';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { FakeRuntime } from '../fake-runtime';
import { serverDelaySpreadMs } from '../../../nodes/shared/core/delay-plan';

/** The memory store, counting its steps. */
export class CountingStore implements StateStore {
	readonly kind = 'memory' as const;
	steps = 0;
	private readonly inner = new MemoryStateStore();
	traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		this.steps++;
		return this.inner.traffic(key, nowMs, params, step);
	}
}

/** What the server answers to an item's n-th request (1-based) at `nowMs`. */
export type ServerModel = (item: number, attempt: number, nowMs: number) => { latencyMs: number; status: number; retryAfterMs?: number };

export interface SimulationResult {
	/** Store steps (admits and reports) per item. */
	stepsPerItem: number;
	/** Virtual ms from the start to the last item's end. */
	durationMs: number;
	/** Every request: [item, attempt, sent at (ms from the start), status]. */
	requests: Array<{ item: number; attempt: number; sentAt: number; status: number }>;
	/** Items that left the gate without success. */
	failed: number;
	/** When each item ended (ms from the start), by item. */
	endedAt: number[];
	/** Why the items that left without success stopped (the gate's stop), by item. */
	stops: Array<string | undefined>;
	/** What the gate said of the items that left without success, by item. */
	whys: Array<string | undefined>;
	/** The most requests of one share in flight at once, by share ('' for none). */
	mostInFlight: Map<string, number>;
}

interface SimulationOptions {
	maxAttempts?: number;
	seed?: number;
	/** Each item's lane (Fair Share Key, Urgent); none: arrival order. */
	laneOf?: (item: number) => Lane | undefined;
	/** When each item arrives at the gate (ms from the start; default 0). */
	arrivesAt?: (item: number) => number;
	/** Each item's Total Deadline, from its arrival (none by default). */
	deadlineMs?: number;
	/** Its wait in line for the pace or tokens does not count against it (GateLimits.lineFree, as the nodes set it). */
	lineFree?: boolean;
	/** How late the n-th sleep ends (an event loop busy elsewhere); default on time. */
	lateness?: (n: number) => number;
	/** The process keeps its actual sends for the Rate Limit (GateContext.sends). */
	sendLog?: boolean;
	/** Each Fair Share Key's own limits (key-gate.ts), by the item's lane's share ('' for none). */
	keyLimits?: KeyLimits;
}

function outcomeOf(status: number, retryAfterMs: number | undefined): Outcome {
	const throttled = status === 429;
	return {
		success: status < 400,
		outageFailure: status >= 500,
		overload: status === 429 || status === 503,
		throttled,
		...(throttled && retryAfterMs !== undefined ? { serverWait: { ms: retryAfterMs, header: 'retry-after' } } : {}),
	};
}

/** A sleeper on the fake runtime's timers, so that many items wait at once (FakeRuntime.sleep moves the clock for everyone). */
function timerSleep(runtime: FakeRuntime, lateness: (n: number) => number = () => 0) {
	let n = 0;
	return (ms: number, signal?: AbortSignal) =>
		new Promise<void>((resolve, reject) => {
			const cancel = runtime.startTimer(ms + lateness(++n), resolve);
			signal?.addEventListener('abort', () => (cancel(), reject(new Error('aborted'))), { once: true });
		});
}

/** `items` items at once through one API's gate with `params`, against `server`; at most `maxAttempts` requests each. */
export async function simulateGate(items: number, params: TrafficParams, server: ServerModel, options: SimulationOptions = {}): Promise<SimulationResult> {
	const runtime = new FakeRuntime({ seed: options.seed ?? 7 });
	runtime.sleep = timerSleep(runtime, options.lateness);
	const store = new CountingStore();
	const ctx: GateContext = { store, key: 'api', params, runtime, waiters: new Waiters(), pollMs: 5_000, ...(options.sendLog ? { sends: new SendLogs() } : {}) };
	const startedAt = runtime.now();
	const requests: SimulationResult['requests'] = [];
	let failed = 0;
	let ids = 0;
	const endedAt: number[] = new Array(items);
	const stops: Array<string | undefined> = new Array(items);
	const whys: Array<string | undefined> = new Array(items);
	const inFlight = new Map<string, number>();
	const mostInFlight = new Map<string, number>();
	const run = async (item: number) => {
		const arrival = options.arrivesAt?.(item) ?? 0;
		if (arrival > 0) await runtime.sleep(arrival);
		const lane = options.laneOf?.(item);
		await runItem(item, lane);
		endedAt[item] = runtime.now() - startedAt;
	};
	const runItem = async (item: number, lane: Lane | undefined) => {
		let paced = false;
		let deadlineAt = options.deadlineMs !== undefined ? runtime.now() + options.deadlineMs : undefined;
		for (let attempt = 1; attempt <= (options.maxAttempts ?? 5); attempt++) {
			const id = `r${++ids}`;
			const limits = { maxServerDelayMs: 60_000, ...(deadlineAt !== undefined ? { deadlineAt, lineFree: options.lineFree === true } : {}) };
			const share = lane?.share ?? '';
			const key = options.keyLimits ? keyGateOf(ctx, `api:key:${share}`, options.keyLimits) : undefined;
			const { result: gate, keyLease } = await passKeyThenApi(ctx, key, { id, retry: attempt > 1, paced, ...(lane ? { lane } : {}) }, limits);
			if (!gate.go) {
				stops[item] = gate.stop;
				whys[item] = gate.why;
				break;
			}
			inFlight.set(share, (inFlight.get(share) ?? 0) + 1);
			mostInFlight.set(share, Math.max(mostInFlight.get(share) ?? 0, inFlight.get(share) ?? 0));
			if (deadlineAt !== undefined) deadlineAt += gate.lineMs;
			const answer = server(item, attempt, runtime.now() - startedAt);
			requests.push({ item, attempt, sentAt: runtime.now() - startedAt, status: answer.status });
			await runtime.sleep(answer.latencyMs);
			inFlight.set(share, (inFlight.get(share) ?? 0) - 1);
			await reportOutcome(ctx, gate.admission.lease, { ...outcomeOf(answer.status, answer.retryAfterMs), sent: attempt === 1 ? 'first' : paced ? 'paced' : 'retry' });
			if (key && keyLease) await reportKey(key, keyLease);
			if (answer.status < 400) return;
			paced = answer.retryAfterMs !== undefined;
			// as the retry loop waits (delay-plan.ts): the Retry-After and a spread on top, so that its
			// items come back over a moment, some after the pause they caused has ended
			await runtime.sleep(answer.retryAfterMs !== undefined ? answer.retryAfterMs + Math.ceil(serverDelaySpreadMs(answer.retryAfterMs) * runtime.random()) : 100);
		}
		failed++;
	};
	await runtime.runUntilSettled(Promise.all(Array.from({ length: items }, (_, item) => run(item))), 10_000_000);
	return { stepsPerItem: store.steps / items, durationMs: runtime.now() - startedAt, requests, failed, endedAt, stops, whys, mostInFlight };
}
