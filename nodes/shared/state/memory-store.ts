/**
 * The state store of one n8n process: retry budgets and circuit breakers in memory. n8n runs
 * every execution of a process in one instance of this module, so `getMemoryStateStore()` is
 * shared by all workflows of the process (queue-mode workers each have their own; the Redis
 * store shares across workers).
 *
 * Atomic: each method reads, steps the pure core and writes back without an `await` in between,
 * so the whole step runs in one turn of the event loop and concurrent executions never lose an
 * update. (The methods are async only because the StateStore interface is.)
 *
 * Bounded, so that thousands of workflows and hosts cannot grow it without limit:
 * - at most `maxKeys` keys (budgets and breakers together); the least recently used goes first;
 * - a key is dropped once its state is forgotten by the core (budgetForgetAt, breakerForgetAt):
 *   a budget a window after its last count, a closed breaker a window after its last call, an
 *   open one well after its break. Dropping then changes no answer: the core would treat the
 *   state as fresh anyway. Only the LRU bound can drop live state (then a budget starts afresh
 *   and a breaker closes), and only past `maxKeys` keys in use at once.
 * Eviction runs on calls (no timer keeps the process alive): each call drops the idle keys at
 * the least-recently-used end, and at most once per `sweepIntervalMs` a full pass drops every
 * idle key.
 */
import { allowCall, breakerForgetAt, recordOutcome, type BreakerData } from './breaker';
import { budgetForgetAt, recordFirst, tryAcquire, type BudgetData } from './budget';
import type { BreakerChange, BreakerParams, BreakerVerdict, BudgetParams, BudgetSnapshot, BudgetVerdict, StateStore } from './types';

export const MEMORY_STORE_DEFAULTS = Object.freeze({
	/** Far more hosts than a process calls. At worst (all 10 buckets in use) a key takes about
	 * 1.1 KB (budget) to 1.4 KB (breaker) of heap: 10,000 keys about 15 MB, measured on Node 20. */
	maxKeys: 10_000,
	/** A full pass over 10,000 keys takes about a millisecond; once a minute is plenty. */
	sweepIntervalMs: 60_000,
});

export interface MemoryStateStoreOptions {
	/** Most keys kept, budgets and breakers together. */
	maxKeys?: number;
	/** At most one full pass for idle keys per this much time (of the callers' clock). */
	sweepIntervalMs?: number;
}

type Entry = { kind: 'budget'; data: BudgetData; forgetAt: number } | { kind: 'breaker'; data: BreakerData; forgetAt: number };

export class MemoryStateStore implements StateStore {
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

	/** Keys held (budgets and breakers together). */
	get size(): number {
		return this.entries.size;
	}

	async recordFirstAttempt(key: string, nowMs: number, params: BudgetParams): Promise<BudgetSnapshot> {
		const id = `budget:${key}`;
		const step = recordFirst(this.takeBudget(id, nowMs), nowMs, params);
		this.keep(id, { kind: 'budget', data: step.data, forgetAt: budgetForgetAt(step.data) }, nowMs);
		return step.result;
	}

	async tryAcquireRetry(key: string, nowMs: number, params: BudgetParams): Promise<BudgetVerdict> {
		const id = `budget:${key}`;
		const step = tryAcquire(this.takeBudget(id, nowMs), nowMs, params);
		this.keep(id, { kind: 'budget', data: step.data, forgetAt: budgetForgetAt(step.data) }, nowMs);
		return step.result;
	}

	async breakerAllows(key: string, nowMs: number, params: BreakerParams): Promise<BreakerVerdict> {
		const id = `breaker:${key}`;
		const step = allowCall(this.takeBreaker(id, nowMs), nowMs, params);
		this.keep(id, { kind: 'breaker', data: step.data, forgetAt: breakerForgetAt(step.data, params) }, nowMs);
		return step.result;
	}

	async breakerRecord(key: string, nowMs: number, success: boolean, params: BreakerParams): Promise<BreakerChange | undefined> {
		const id = `breaker:${key}`;
		const step = recordOutcome(this.takeBreaker(id, nowMs), nowMs, success, params);
		this.keep(id, { kind: 'breaker', data: step.data, forgetAt: breakerForgetAt(step.data, params) }, nowMs);
		return step.result;
	}

	private takeBudget(id: string, nowMs: number): BudgetData | undefined {
		const entry = this.take(id, nowMs);
		return entry?.kind === 'budget' ? entry.data : undefined;
	}

	private takeBreaker(id: string, nowMs: number): BreakerData | undefined {
		const entry = this.take(id, nowMs);
		return entry?.kind === 'breaker' ? entry.data : undefined;
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
		// A state with nothing to remember (a closed breaker that saw no call) takes no key
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
		// Keys idle for longer than their own window or break, behind a longer-lived one
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
