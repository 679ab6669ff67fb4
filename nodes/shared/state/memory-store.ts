/**
 * The state store of one n8n process: the traffic controllers (one per API) in memory. n8n runs
 * every execution of a process in one instance of this module, so `getMemoryStateStore()` is
 * shared by all workflows of the process (queue-mode workers each have their own; the Redis
 * store shares across workers).
 *
 * O(1) per step: the requests in flight of an API are a map by lease id in order of their start,
 * not part of the state; a step is handed their count and soonest end. Leases of one API have one
 * length (the node's lease time), so the order of their start is the order of their end and the
 * ended ones are dropped from the front; a shorter lease started after a longer one is counted
 * until the longer ends or it reports (a wait a little too long, never a request too many).
 *
 * Atomic: a step reads, runs the pure controller and writes back without an `await` in between,
 * so the whole step runs in one turn of the event loop and concurrent executions never lose an
 * update. (The method is async only because the StateStore interface is.)
 *
 * Bounded, so that thousands of workflows and APIs cannot grow it without limit:
 * - at most `maxKeys` keys; the least recently used goes first;
 * - a key is dropped once the controller forgets its state (trafficForgetAt: ten minutes after its
 *   last request, later while it is paused, holds a budget count or a breaker's memory). Dropping
 *   then changes no answer: the controller would treat the state as fresh anyway. Only the LRU bound
 *   can drop live state (the API then starts afresh), and only past `maxKeys` APIs in use at once.
 * Eviction runs on calls (no timer keeps the process alive): each call drops the idle keys at
 * the least-recently-used end, and at most once per `sweepIntervalMs` a full pass drops every
 * idle key.
 */
import { trafficForgetAt, type LeaseView, type Step, type TrafficData, type TrafficParams } from '../core/traffic/controller';
import type { StateStore, TrafficInspector, TrafficStep } from '../core/traffic/store';

export const MEMORY_STORE_DEFAULTS = Object.freeze({
	/** Far more APIs than a process calls (the heap a key takes is measured by the benchmark). */
	maxKeys: 10_000,
	/** A full pass over 10,000 keys takes about a millisecond; once a minute is plenty. */
	sweepIntervalMs: 60_000,
});

interface MemoryStateStoreOptions {
	/** Most keys (APIs) kept. */
	maxKeys?: number;
	/** At most one full pass for idle keys per this much time (of the callers' clock). */
	sweepIntervalMs?: number;
}

interface Entry {
	data: TrafficData | undefined;
	/** Lease id -> its end (epoch ms), in order of start. */
	leases: Map<string, number>;
	/** The latest end of a lease started. */
	leasesUntil: number;
	/** The state's forget time (trafficForgetAt) or the last lease's end, whichever is later. */
	forgetAt: number;
}

/** Drops the ended leases at the front; the count and the soonest end of the others. */
function liveLeases(leases: Map<string, number>, nowMs: number): LeaseView {
	for (const [id, end] of leases) {
		if (end > nowMs) return { count: leases.size, soonest: end };
		leases.delete(id);
	}
	return { count: 0, soonest: Infinity };
}

function applyLease(leases: Map<string, number>, step: Step<unknown>): void {
	if (!step.lease) return;
	if ('add' in step.lease) leases.set(step.lease.add[0], step.lease.add[1]);
	else leases.delete(step.lease.end);
}

export class MemoryStateStore implements StateStore, TrafficInspector {
	readonly kind = 'memory' as const;
	/** Insertion order is recency order: every use moves a key to the end. */
	private readonly entries = new Map<string, Entry>();
	private readonly maxKeys: number;
	private readonly sweepIntervalMs: number;
	private nextSweepAt = -Infinity;

	constructor(options: MemoryStateStoreOptions = {}) {
		const maxKeys = options.maxKeys ?? MEMORY_STORE_DEFAULTS.maxKeys;
		const sweep = options.sweepIntervalMs ?? MEMORY_STORE_DEFAULTS.sweepIntervalMs;
		if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new Error(`maxKeys must be a positive integer, not ${maxKeys}`);
		if (!(sweep >= 0)) throw new Error(`sweepIntervalMs must be 0 or more, not ${sweep}`);
		this.maxKeys = maxKeys;
		this.sweepIntervalMs = sweep;
	}

	/** Keys (APIs) held. */
	get size(): number {
		return this.entries.size;
	}

	async traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		const entry = this.take(key, nowMs) ?? { data: undefined, leases: new Map<string, number>(), leasesUntil: -Infinity, forgetAt: -Infinity };
		const result = step(entry.data, liveLeases(entry.leases, nowMs));
		applyLease(entry.leases, result);
		if (result.lease && 'add' in result.lease) entry.leasesUntil = Math.max(entry.leasesUntil, result.lease.add[1]);
		if (result.changed) {
			entry.data = result.data;
			entry.forgetAt = Math.max(trafficForgetAt(result.data, params), entry.leasesUntil);
		}
		this.keep(key, entry, nowMs);
		return result.result;
	}

	async list(nowMs: number): Promise<Array<{ key: string; data: TrafficData; inFlight: number }>> {
		const live: Array<{ key: string; data: TrafficData; inFlight: number }> = [];
		for (const [key, entry] of this.entries) if (nowMs < entry.forgetAt && entry.data) live.push({ key, data: entry.data, inFlight: liveLeases(entry.leases, nowMs).count });
		return live;
	}

	/** The state of `key` as it stands (not a copy: read it, never change it), without using it. */
	peek(key: string, nowMs: number): TrafficData | undefined {
		const entry = this.entries.get(key);
		return entry && nowMs < entry.forgetAt ? entry.data : undefined;
	}

	/** Removes and returns the entry; `keep` puts it back at the most recently used end. */
	private take(id: string, nowMs: number): Entry | undefined {
		this.sweep(nowMs);
		const entry = this.entries.get(id);
		if (entry === undefined) return undefined;
		this.entries.delete(id);
		return nowMs >= entry.forgetAt ? undefined : entry;
	}

	private keep(id: string, entry: Entry, nowMs: number): void {
		// a state with nothing to remember takes no key
		if (nowMs >= entry.forgetAt) return;
		this.entries.set(id, entry);
		for (const oldest of this.entries.keys()) {
			if (this.entries.size <= this.maxKeys) break;
			this.entries.delete(oldest);
		}
	}

	private sweep(nowMs: number): void {
		// The least recently used end: cheap, and usually where the idle keys are
		for (const [id, entry] of this.entries) {
			if (nowMs < entry.forgetAt) break;
			this.entries.delete(id);
		}
		if (nowMs < this.nextSweepAt) return;
		this.nextSweepAt = nowMs + this.sweepIntervalMs;
		// idle keys behind a longer-lived one
		for (const [id, entry] of this.entries) {
			if (nowMs >= entry.forgetAt) this.entries.delete(id);
		}
	}
}

let processStore: MemoryStateStore | undefined;

/** The store shared by every execution in this n8n process. */
export function getMemoryStateStore(): MemoryStateStore {
	processStore ??= new MemoryStateStore();
	return processStore;
}
