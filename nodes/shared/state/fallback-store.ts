/**
 * A state store that never fails a request because of the store: it asks a primary (Redis) and,
 * when the primary errs or does not answer in time, answers from a fallback (the process's memory
 * store) instead.
 *
 * - Outage: the first failure logs one warning (`warn`), then every call goes to the fallback
 *   for `cooldownMs` without trying the primary (a dead Redis costs nothing per call). After the
 *   cooldown, one call tries the primary again (the others keep using the fallback while it
 *   does); a success ends the outage (`info`, if given), a failure starts another cooldown
 *   without a new warning. One warning per outage, never one per call.
 * - Time: the cooldown runs on the callers' clock (`nowMs` of the calls), like everything else.
 * - Time: a Redis store times each command itself (a command, not the queue of steps in front of
 *   it: a busy worker is not a dead Redis). `timeoutMs`, when given, bounds a whole call of a
 *   primary that does not (tests' fakes).
 * - The warning says why and how many steps (requests asking or reporting) the failure affected;
 *   the recovery says how many were answered from memory meanwhile.
 * - During an outage the fallback's state is this process's only. When the primary answers again,
 *   what this process learned meanwhile of each API it used (a pause, a hold, a learned pace, a
 *   quota: nodes/shared/core/traffic/adopt.ts) is added to the shared state, so nothing the API said is lost.
 * - `lastSource()` tells whether the last answer came from the primary or the fallback, for the
 *   retry story.
 */
import { withTimeout } from '../core/runtime';
import { adoptLearned } from '../core/traffic/adopt';
import { getMemoryStateStore, type MemoryStateStore } from './memory-store';
import { connectionId, messageOf, type RedisConnection } from './redis-connection';
import { getRedisStateStore, RedisStepsError, type RedisStateStoreOptions } from './redis-store';
import type { TrafficParams } from '../core/traffic/controller';
import type { StateStore, TrafficStep } from '../core/traffic/store';
import type { Counts } from '../core/traffic/traffic-counts';

export const FALLBACK_STORE_DEFAULTS = Object.freeze({
	/** After a failure, the primary is left alone this long (callers' clock). */
	cooldownMs: 30_000,
	/** APIs whose learned state is added to the shared one after an outage, at most. */
	maxAdopted: 1_000,
});

type StateSource = 'redis' | 'memory' | 'memory-fallback';

interface FallbackStateStoreOptions {
	/** Logged once per outage, e.g. n8n's `this.logger.warn`. */
	warn: (message: string) => void;
	/** Logged when the primary answers again after an outage. */
	info?: (message: string) => void;
	cooldownMs?: number;
	/** Bounds a whole call of the primary; absent: none (the Redis store times its commands itself). */
	timeoutMs?: number;
}

class PrimaryTimeoutError extends Error {
	constructor(ms: number) {
		super(`no answer within ${ms} ms`);
		this.name = 'PrimaryTimeoutError';
	}
}

export class FallbackStateStore implements StateStore {
	/** The primary's kind: the store the user chose. */
	readonly kind: StateStore['kind'];
	private warnSink: (message: string) => void;
	private infoSink: ((message: string) => void) | undefined;
	private readonly cooldownMs: number;
	private readonly timeoutMs: number | undefined;
	/** In an outage: the primary failed and has not answered since. */
	private down = false;
	/** The primary is not asked before this time (callers' clock). */
	private retryAt = -Infinity;
	private source: StateSource;
	private outages = 0;
	/** Steps answered by the fallback during this outage. */
	private answered = 0;
	private downSince = 0;
	/** APIs used during this outage, with their params: what was learned of them is adopted when the primary is back. */
	private readonly used = new Map<string, TrafficParams>();

	constructor(
		readonly primary: StateStore,
		readonly fallback: MemoryStateStore,
		options: FallbackStateStoreOptions,
	) {
		this.kind = primary.kind;
		this.source = primary.kind;
		this.warnSink = options.warn;
		this.infoSink = options.info;
		this.cooldownMs = options.cooldownMs ?? FALLBACK_STORE_DEFAULTS.cooldownMs;
		this.timeoutMs = options.timeoutMs;
		if (!(this.cooldownMs >= 0)) throw new Error(`cooldownMs must be 0 or more, not ${this.cooldownMs}`);
		if (this.timeoutMs !== undefined && !(this.timeoutMs > 0)) throw new Error(`timeoutMs must be more than 0, not ${this.timeoutMs}`);
	}

	/** Where the last answer came from: the primary (its kind), or the fallback during an outage. */
	lastSource(): StateSource {
		return this.source;
	}

	/** Whether the primary is considered down (calls go to the fallback). */
	get degraded(): boolean {
		return this.down;
	}

	/** Outages seen so far (each logged one warning). */
	get outageCount(): number {
		return this.outages;
	}

	/** Where the warnings go from now on (a process-wide store takes the latest execution's logger). */
	setLoggers(warn: (message: string) => void, info?: (message: string) => void): void {
		this.warnSink = warn;
		this.infoSink = info;
	}

	traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		return this.call(key, params, nowMs, (store) => store.traffic(key, nowMs, params, step));
	}

	/** The fleet's counts are the primary's: while it is down they wait in it for its return. */
	count(key: string, label: string, counts: Counts): void {
		this.primary.count?.(key, label, counts);
	}

	watch(key: string, onChange: () => void): () => void {
		return this.primary.watch?.(key, onChange) ?? (() => undefined);
	}

	private async call<T>(key: string, params: TrafficParams, nowMs: number, step: (store: StateStore) => Promise<T>): Promise<T> {
		if (this.down && !(nowMs >= this.retryAt)) return this.fromFallback(key, params, step);
		// Healthy, or the cooldown is over: this call tries the primary. While it does, other calls
		// of an outage stay on the fallback (one probe per cooldown, not a burst).
		const probe = this.down;
		if (probe) this.retryAt = nowMs + this.cooldownMs;
		let result: T;
		try {
			result = await this.withTimeout(step(this.primary));
		} catch (error) {
			this.primaryFailed(nowMs, error);
			return this.fromFallback(key, params, step);
		}
		// Only the probe ends an outage: a call that started before it began may still succeed late
		if (probe && this.down) this.primaryBack(nowMs);
		this.source = this.primary.kind;
		return result;
	}

	private primaryFailed(nowMs: number, error: unknown): void {
		this.retryAt = nowMs + this.cooldownMs;
		if (this.down) return;
		this.down = true;
		this.outages += 1;
		this.answered = 0;
		this.downSince = nowMs;
		const reason = messageOf(error);
		const affected = error instanceof RedisStepsError ? error.affected : 1;
		this.log(
			this.warnSink,
			`Resilient HTTP: the ${this.primary.kind} state store failed (${reason}) for ${affected} step${affected === 1 ? '' : 's'} of requests to the APIs; using this process's memory for the APIs' traffic controllers until it answers again (next try in ${Math.round(this.cooldownMs / 1000)} s). Requests are not affected.`,
		);
	}

	/** The outage ends: what this process learned meanwhile is added to the shared state. */
	private primaryBack(nowMs: number): void {
		this.down = false;
		const apis = [...this.used];
		this.used.clear();
		const seconds = Math.max(0, Math.round((nowMs - this.downSince) / 1000));
		this.log(
			this.infoSink,
			`Resilient HTTP: the ${this.primary.kind} state store answers again after ${seconds} s (${this.answered} steps answered from memory meanwhile); the APIs' traffic controllers are shared again, with what this process learned of ${apis.length} API${apis.length === 1 ? '' : 's'}`,
		);
		for (const [key, params] of apis) {
			const local = this.fallback.peek(key, nowMs);
			if (!local) continue;
			// best effort: a failure here is the next outage's, told by the next step
			this.primary.traffic(key, nowMs, params, (data) => adoptLearned(data, local, nowMs, params)).catch(() => undefined);
		}
	}

	private async fromFallback<T>(key: string, params: TrafficParams, step: (store: StateStore) => Promise<T>): Promise<T> {
		this.source = 'memory-fallback';
		this.answered++;
		if (this.used.size < FALLBACK_STORE_DEFAULTS.maxAdopted || this.used.has(key)) this.used.set(key, params);
		return step(this.fallback);
	}

	private withTimeout<T>(promise: Promise<T>): Promise<T> {
		const ms = this.timeoutMs;
		return ms === undefined ? promise : withTimeout(promise, ms, () => new PrimaryTimeoutError(ms));
	}

	/** A logger that throws must not fail the request either. */
	private log(sink: ((message: string) => void) | undefined, message: string): void {
		try {
			sink?.(message);
		} catch {
			// nothing left to report it to
		}
	}
}

const processStores = new Map<string, FallbackStateStore>();

/**
 * The store a node uses in queue mode: the process-wide Redis store for the connection, falling
 * back to the process's memory store. One per connection and process, so an outage warns once per
 * process; `warn` / `info` replace the previous loggers (the latest execution's).
 */
export function getRedisStateStoreWithFallback(
	connection: RedisConnection,
	loggers: { warn: (message: string) => void; info?: (message: string) => void },
	options: RedisStateStoreOptions = {},
): FallbackStateStore {
	const id = `${connectionId(connection)}|${options.keyPrefix ?? ''}`;
	let store = processStores.get(id);
	if (store === undefined) {
		store = new FallbackStateStore(getRedisStateStore(connection, options), getMemoryStateStore(), loggers);
		processStores.set(id, store);
	} else {
		store.setLoggers(loggers.warn, loggers.info);
	}
	return store;
}
