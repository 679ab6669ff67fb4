/**
 * The gate every request of an item passes before it is sent: it asks the API's controller, and
 * waits while the controller says wait (paused, held, a slot, the pace, the budget), as long as the
 * item can still succeed within its deadline. An item leaves without a request only when what it
 * waits for comes too late: after its total deadline, or (a pause the server asked for) beyond
 * Max Server-Requested Delay. Pure: the store, clock, sleeper and random source are injected.
 */
import type { StateStore } from './store';
import type { Runtime } from '../runtime';
import type { GateStop } from '../retry-loop';
import { formatDuration } from '../retry-story';
import { admit, complete, type Admission, type AdmitRequest, type Outcome, type TrafficEvent, type TrafficParams, type WaitReason } from './controller';
import type { Waiters } from './waiters';

export interface GateContext {
	store: StateStore;
	/** The API's controller key (hashed: it may hold a credential's id). */
	key: string;
	params: TrafficParams;
	runtime: Runtime;
	waiters: Waiters;
	signal?: AbortSignal;
	/**
	 * Longest wait between two looks at the state when nothing in this process will say it changed
	 * (another worker may have changed it: Redis). The memory store is only changed here.
	 */
	pollMs: number;
	/** Told of every change the controller reports, once (a pause, an outage, a recovery, ...). */
	onEvents?: (events: TrafficEvent[]) => void;
}

interface GateLimits {
	/** No request may start at or after this (epoch ms); undefined: no deadline. */
	deadlineAt?: number;
	/** The longest server-requested wait the item accepts. */
	maxServerDelayMs: number;
}

/** How long the request waited, by reason (ms). */
type Waits = Partial<Record<WaitReason, number>>;

export type GateResult =
	| { go: true; probe: boolean; waitedMs: number; waits: Waits; admission: Extract<Admission, { go: true }> }
	| { go: false; stop: GateStop | 'canceled'; why: string; retryAt?: number; waitedMs: number; waits: Waits };

/**
 * Waiters queue by what frees them: a report frees a slot or ends a probe (`held` and
 * `concurrency` wait in one queue); a first request makes room in the budget.
 */
function queueOf(key: string, reason: WaitReason): string {
	if (reason === 'budget') return `${key}|budget`;
	if (reason === 'paused') return `${key}|paused`;
	return `${key}|slot`;
}

/** A wait that ends at a known time lasts that long, plus a little spread so waiters do not return in one wave. */
function spread(ms: number, random: () => number): number {
	const r = random();
	return Math.ceil(Math.min(100, ms * 0.1) * (Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0));
}

function stopFor(blocked: Extract<Admission, { go: false }>, limits: GateLimits, nowMs: number, beyondServerLimit: boolean): { stop: GateStop; why: string } {
	const when = blocked.until !== undefined && Number.isFinite(blocked.until) ? ` (${new Date(Math.min(blocked.until, 8.64e15)).toISOString()})` : '';
	const limit = beyondServerLimit ? `more than Max Server-Requested Delay (${formatDuration(limits.maxServerDelayMs)})` : 'after the total deadline';
	switch (blocked.reason) {
		case 'paused': {
			if (blocked.bucket !== undefined) {
				const wait = blocked.until !== undefined ? ` for ${formatDuration(blocked.until - nowMs)}` : '';
				return { stop: 'retry-after-too-long', why: `The API paused the requests to its rate-limit bucket "${blocked.bucket}"${wait}: its quota is spent until its reset${when}, ${limit}` };
			}
			const by = blocked.pausedBy === 'quota' ? 'its rate-limit quota is spent until its reset' : `it asked to wait (${blocked.pausedBy ?? 'Retry-After'})`;
			const wait = blocked.until !== undefined ? ` ${formatDuration(blocked.until - nowMs)}` : '';
			return { stop: 'retry-after-too-long', why: `The API paused all requests:${wait ? ` for${wait}` : ''} ${by}${when}, ${limit}` };
		}
		case 'held':
			return { stop: 'circuit-open', why: `The API looks down: requests are held while a probe finds out when it is back; the next probe${when} comes ${limit}` };
		case 'budget':
			return blocked.until === Infinity
				? { stop: 'retry-budget-exhausted', why: 'The retry budget of the API allows no retry (Budget: Retries Allowed and Retries Always Allowed per Window are 0)' }
				: { stop: 'retry-budget-exhausted', why: `The retry budget of the API is spent (retries are over their share of the traffic); room for this retry comes ${limit}` };
		case 'concurrency':
			return { stop: 'deadline-exceeded', why: `The total deadline passed while the request waited for a slot: the API's requests in flight are at their limit` };
		case 'rate':
			return { stop: 'deadline-exceeded', why: `The total deadline passed while the request waited for its turn at the API's pace` };
	}
}

/** Waits until the controller lets the request go, or says why it cannot within the item's limits. */
export async function passGate(ctx: GateContext, request: AdmitRequest, limits: GateLimits): Promise<GateResult> {
	const { runtime, signal } = ctx;
	const started = runtime.now();
	const waits: Waits = {};
	const waited = () => Math.max(0, runtime.now() - started);
	// the pace slot reserved for this request, once the pace held it back
	let asking = request;
	for (;;) {
		if (signal?.aborted) return { go: false, stop: 'canceled', why: 'the execution was canceled', waitedMs: waited(), waits };
		const now = runtime.now();
		const admission = await ctx.store.traffic(ctx.key, now, ctx.params, (data) => admit(data, now, asking, ctx.params));
		if (admission.events) ctx.onEvents?.(admission.events);
		if (admission.go) {
			// room left: the next waiter may go too (slow start grows the window one success at a time)
			if (admission.inFlight < admission.window) ctx.waiters.wake(queueOf(ctx.key, 'concurrency'));
			// a first request raises the budget's limit: a retry waiting for it may fit now
			if (!request.retry) ctx.waiters.wake(queueOf(ctx.key, 'budget'));
			// the pause is over: the request that has waited longest for it goes next, then the next
			ctx.waiters.wake(queueOf(ctx.key, 'paused'));
			return { go: true, probe: admission.probe, waitedMs: waited(), waits, admission };
		}
		const { until } = admission;
		const never = until === Infinity;
		const beyondServerLimit = admission.reason === 'paused' && until !== undefined && until - now > limits.maxServerDelayMs;
		// a time-bound wait ends at `until`; for a wait on a change, `until` is only the latest it may end
		const tooLate = limits.deadlineAt !== undefined && (admission.wake === 'time' && until !== undefined ? until >= limits.deadlineAt : now >= limits.deadlineAt);
		if (never || beyondServerLimit || tooLate) {
			return { go: false, ...stopFor(admission, limits, now, beyondServerLimit), ...(until !== undefined && Number.isFinite(until) ? { retryAt: until } : {}), waitedMs: waited(), waits };
		}
		if (admission.paceSlotAt !== undefined) asking = { ...request, paceSlotAt: admission.paceSlotAt };
		// a known end, a little spread; else until the state changes (here) or the poll (elsewhere).
		// No spread for a reserved pace slot (it is this request's alone) nor for the end of a pause:
		// the requests it held go together as the window allows, before an answer can pause it again
		const exact = admission.paceSlotAt !== undefined || admission.reason === 'paused';
		const target = until === undefined ? Infinity : exact ? until : until + spread(until - now, () => runtime.random());
		const limit = Math.min(target, limits.deadlineAt ?? Infinity);
		// (a bucket's pause is not the API's: the API's requests going on must not wake its waiters)
		if (admission.reason === 'paused' && admission.wake === 'time' && admission.bucket === undefined) {
			// in line, oldest first: when the pause ends the first request through wakes the one that
			// has waited longest, and so on, so that requests which arrived during the pause (new
			// items) do not go before the retries the pause held back, and whose 429 may pause it again
			await ctx.waiters.wait(queueOf(ctx.key, 'paused'), Math.max(0, limit - now), (ms, fire) => runtime.startTimer(ms, fire), signal);
		} else if (admission.wake === 'time' && admission.reason !== 'paused' && admission.reason !== 'held') {
			try {
				await runtime.sleep(Math.max(0, limit - now), signal);
			} catch {
				// the sleeper rejects only when the signal aborts; the loop's first check says so
			}
		} else if (admission.wake === 'time') {
			// a bucket's pause, or a hold until its probe: woken early only when ended by hand (wakeAll)
			await ctx.waiters.wait(`${ctx.key}|${admission.reason}-time`, Math.max(0, limit - now), (ms, fire) => runtime.startTimer(ms, fire), signal);
		} else {
			// a quota past its reset waits for the answer that tells the new count: any report may be it
			const queue = queueOf(ctx.key, admission.reason === 'paused' ? 'concurrency' : admission.reason);
			await ctx.waiters.wait(queue, Math.max(0, Math.min(limit - now, ctx.pollMs)), (ms, fire) => runtime.startTimer(ms, fire), signal);
		}
		waits[admission.reason] = (waits[admission.reason] ?? 0) + Math.max(0, runtime.now() - now);
	}
}

/** After the request: the controller learns from its outcome; one waiter looks again. */
export async function reportOutcome(ctx: GateContext, id: string, outcome: Outcome): Promise<TrafficEvent[]> {
	const now = ctx.runtime.now();
	const events = await ctx.store.traffic(ctx.key, now, ctx.params, (data) => complete(data, now, id, outcome, ctx.params));
	// a slot is free, or the probe has answered
	ctx.waiters.wake(queueOf(ctx.key, 'concurrency'));
	if (events.length > 0) ctx.onEvents?.(events);
	return events;
}
