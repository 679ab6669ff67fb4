/**
 * The state store of one n8n process: the traffic controllers (one per API) in memory. n8n runs
 * every execution of a process in one instance of this module, so `getMemoryStateStore()` is
 * shared by all workflows of the process (queue-mode workers each have their own; the Redis
 * store shares across workers).
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
import { trafficForgetAt, type TrafficData, type TrafficParams } from '../core/traffic/controller';
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
	data: TrafficData;
	forgetAt: number;
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
		const result = step(this.take(key, nowMs)?.data);
		this.keep(key, { data: result.data, forgetAt: trafficForgetAt(result.data, params) }, nowMs);
		return result.result;
	}

	async list(nowMs: number): Promise<Array<{ key: string; data: TrafficData }>> {
		const live: Array<{ key: string; data: TrafficData }> = [];
		for (const [key, entry] of this.entries) if (nowMs < entry.forgetAt) live.push({ key, data: entry.data });
		return live;
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
