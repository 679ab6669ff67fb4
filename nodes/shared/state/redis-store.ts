/**
 * The state store for queue mode: retry budgets and circuit breakers in Redis (the one n8n already
 * uses for its queue), shared by every worker. Chosen in the node with a *Resilient HTTP Redis*
 * credential; wrap it in a FallbackStateStore so that a Redis outage never fails a request.
 *
 * - Atomic across workers: each method is one EVALSHA of a Lua script (redis-scripts.ts) that runs
 *   the same algorithm as budget.ts / breaker.ts on the key's hash; EVAL when Redis answers
 *   NOSCRIPT (after a restart or SCRIPT FLUSH).
 * - The caller's clock: `nowMs` is passed into the script, as for the memory store. Workers'
 *   clocks must be roughly in sync (n8n's queue mode needs that anyway); a skew of up to
 *   `ttlGraceMs` never drops live state early.
 * - Keys `rh:budget:<key>` and `rh:breaker:<key>`, hashes with a PEXPIRE: a key vanishes
 *   `ttlGraceMs` after the core forgets its state (budgetForgetAt / breakerForgetAt).
 * - ioredis (the client n8n uses for its queue, same version) is `require`d on the first call of
 *   a Redis store, never when the memory store is used.
 * - Fails fast when Redis is unreachable: no offline queue (a command while disconnected fails at
 *   once), connect and command timeouts of 1 s, no resending of a script that may have run (a
 *   retry counted twice). ioredis keeps reconnecting in the background (every 2 s at most).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { withTimeout } from '../core/runtime';
import { clampWindowMs } from './sliding-window';
import { clientOptions, connectionId, loadIoredis, messageOf, RedisStoreError, type RedisConnection } from './redis-connection';
import { BREAKER_SCRIPT, BUDGET_SCRIPT } from './redis-scripts';
import type { BreakerChange, BreakerParams, BreakerSnapshot, BreakerState, BreakerVerdict, BudgetParams, BudgetSnapshot, BudgetVerdict, StateStore } from './types';

export const REDIS_STORE_DEFAULTS = Object.freeze({
	/** Every key this package writes starts with it. */
	keyPrefix: 'rh:',
	/** A dead Redis is noticed within this (then the fallback answers). */
	connectTimeoutMs: 1_000,
	/** A script runs in well under a millisecond; a hung Redis is given up after this. */
	commandTimeoutMs: 1_000,
	/** Keys expire this long after the core forgets them: tolerates clocks this far apart. */
	ttlGraceMs: 10_000,
});

export interface RedisStateStoreOptions {
	keyPrefix?: string;
	connectTimeoutMs?: number;
	commandTimeoutMs?: number;
	ttlGraceMs?: number;
}

/** Numbers into the scripts: exact (JavaScript's shortest round-trip form), and NaN / ±Infinity by name. */
export function encodeNumber(n: number): string {
	if (Number.isNaN(n)) return 'nan';
	if (n === Infinity) return 'inf';
	if (n === -Infinity) return '-inf';
	return String(n);
}

/** Numbers out of the scripts (%.17g, or nan / inf / -inf). */
export function decodeNumber(s: unknown): number {
	if (s === 'nan') return NaN;
	if (s === 'inf') return Infinity;
	if (s === '-inf') return -Infinity;
	const n = typeof s === 'string' && s !== '' ? Number(s) : NaN;
	if (Number.isNaN(n)) throw new RedisStoreError(`Redis store: unexpected number in a script's reply: ${String(s)}`);
	return n;
}

function reply(value: unknown, length: number): string[] {
	if (!Array.isArray(value) || value.length !== length) throw new RedisStoreError(`Redis store: unexpected script reply ${JSON.stringify(value)}`);
	return value.map((v) => (typeof v === 'string' ? v : String(v)));
}

function breakerState(s: string): BreakerState {
	if (s === 'closed' || s === 'open' || s === 'half-open') return s;
	throw new RedisStoreError(`Redis store: unexpected breaker state ${s}`);
}

interface Script {
	source: string;
	sha: string;
}

function script(source: string): Script {
	return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const BUDGET = script(BUDGET_SCRIPT);
const BREAKER = script(BREAKER_SCRIPT);

export class RedisStateStore implements StateStore {
	readonly kind = 'redis' as const;
	readonly connection: Readonly<RedisConnection>;
	private readonly options: Required<RedisStateStoreOptions>;
	private redis: Redis | undefined;
	private connecting: Promise<Redis> | undefined;
	private lastError: Error | undefined;

	/** A store with its own Redis client (connected on first use). */
	constructor(connection: RedisConnection, options: RedisStateStoreOptions = {}) {
		this.connection = Object.freeze({ ...connection });
		this.options = { ...REDIS_STORE_DEFAULTS, ...options };
		if (!this.options.keyPrefix) throw new RedisStoreError('keyPrefix must not be empty');
	}

	/** The Redis key of a budget or breaker, e.g. `rh:budget:api.example.com`. */
	keyFor(kind: 'budget' | 'breaker', key: string): string {
		return `${this.options.keyPrefix}${kind}:${key}`;
	}

	async recordFirstAttempt(key: string, nowMs: number, params: BudgetParams): Promise<BudgetSnapshot> {
		return (await this.budget('first', key, nowMs, params)).snapshot;
	}

	async tryAcquireRetry(key: string, nowMs: number, params: BudgetParams): Promise<BudgetVerdict> {
		return this.budget('retry', key, nowMs, params);
	}

	async breakerAllows(key: string, nowMs: number, params: BreakerParams): Promise<BreakerVerdict> {
		const r = await this.breaker('allow', key, nowMs, false, params);
		if (r.allowed) return { allowed: true, probe: r.probe, snapshot: r.snapshot };
		return { allowed: false, snapshot: r.snapshot };
	}

	async breakerRecord(key: string, nowMs: number, success: boolean, params: BreakerParams): Promise<BreakerChange | undefined> {
		const r = await this.breaker('record', key, nowMs, success, params);
		return r.changed ? { from: r.from, to: r.snapshot.state, snapshot: r.snapshot } : undefined;
	}

	/** Connects when not connected yet and sends PING (the credential test). */
	async ping(): Promise<void> {
		const redis = await this.client();
		try {
			await this.timed(redis.ping());
		} catch (error) {
			throw this.wrap(error);
		}
	}

	/** Closes the connection (tests, shutdown). The next call connects again. */
	async close(): Promise<void> {
		const redis = this.redis;
		this.redis = undefined;
		this.connecting = undefined;
		if (!redis) return;
		if (redis.status !== 'ready') {
			redis.disconnect();
			return;
		}
		try {
			await this.timed(redis.quit());
		} catch {
			redis.disconnect();
		}
	}

	private async budget(op: 'first' | 'retry', key: string, nowMs: number, params: BudgetParams): Promise<BudgetVerdict> {
		const r = reply(
			await this.run(BUDGET, this.keyFor('budget', key), [
				op,
				encodeNumber(nowMs),
				encodeNumber(params.ratio),
				encodeNumber(params.minRetriesPerWindow),
				encodeNumber(params.windowMs),
				encodeNumber(this.options.ttlGraceMs),
			]),
			5,
		);
		const snapshot: BudgetSnapshot = { firstAttempts: decodeNumber(r[1]), retries: decodeNumber(r[2]), available: decodeNumber(r[3]), windowMs: decodeNumber(r[4]) };
		if (snapshot.windowMs !== clampWindowMs(params.windowMs)) throw new RedisStoreError('Redis store: the budget script answered for another window');
		return { allowed: r[0] === '1', snapshot };
	}

	private async breaker(
		op: 'allow' | 'record',
		key: string,
		nowMs: number,
		success: boolean,
		params: BreakerParams,
	): Promise<{ allowed: boolean; probe: boolean; changed: boolean; from: BreakerState; snapshot: BreakerSnapshot }> {
		const r = reply(
			await this.run(BREAKER, this.keyFor('breaker', key), [
				op,
				encodeNumber(nowMs),
				success ? '1' : '0',
				encodeNumber(params.consecutiveFailures),
				encodeNumber(params.failureRatio),
				encodeNumber(params.minimumCalls),
				encodeNumber(params.windowMs),
				encodeNumber(params.breakMs),
				encodeNumber(params.maxBreakMs),
				encodeNumber(this.options.ttlGraceMs),
			]),
			8,
		);
		const snapshot: BreakerSnapshot = { state: breakerState(r[4]), consecutiveFailures: decodeNumber(r[5]), openings: decodeNumber(r[6]) };
		if (r[7] !== '') snapshot.openUntil = decodeNumber(r[7]);
		return { allowed: r[0] === '1', probe: r[1] === '1', changed: r[2] === '1', from: breakerState(r[3]), snapshot };
	}

	/** EVALSHA, or EVAL when Redis does not have the script (yet, or any more). */
	private async run(s: Script, key: string, args: string[]): Promise<unknown> {
		const redis = await this.client();
		try {
			return await this.timed(redis.evalsha(s.sha, 1, key, ...args));
		} catch (error) {
			if (/^NOSCRIPT/.test(messageOf(error))) {
				try {
					return await this.timed(redis.eval(s.source, 1, key, ...args));
				} catch (evalError) {
					throw this.wrap(evalError);
				}
			}
			throw this.wrap(error);
		}
	}

	/** The command's answer, or an error after commandTimeoutMs (a hung Redis). */
	private timed<T>(command: Promise<T>): Promise<T> {
		const ms = this.options.commandTimeoutMs;
		return withTimeout(command, ms, () => new Error(`no answer within ${ms} ms`));
	}

	private wrap(error: unknown): Error {
		return new RedisStoreError(`Redis ${this.connection.host}:${this.connection.port}: ${messageOf(error)}`);
	}

	/** The connected client: connects on first use; fails at once while Redis is away. */
	private async client(): Promise<Redis> {
		if (this.redis === undefined) {
			const ioredis = loadIoredis();
			if (ioredis instanceof RedisStoreError) throw ioredis;
			const redis = new ioredis.Redis(clientOptions(this.connection, this.options));
			// Errors reach the callers as failed commands; without a listener ioredis prints every one
			redis.on('error', (error: Error) => {
				this.lastError = error;
			});
			this.redis = redis;
		}
		const redis = this.redis;
		switch (redis.status) {
			case 'ready':
				return redis;
			case 'wait':
			case 'connecting':
			case 'connect':
				this.connecting ??= this.waitUntilReady(redis).finally(() => {
					this.connecting = undefined;
				});
				return await this.connecting;
			default: {
				// reconnecting, close, end: Redis is away; ioredis keeps trying in the background
				const reason = this.lastError ? `: ${this.lastError.message}` : '';
				throw new RedisStoreError(`Redis ${this.connection.host}:${this.connection.port} is not connected (${redis.status})${reason}`);
			}
		}
	}

	private waitUntilReady(redis: Redis): Promise<Redis> {
		return new Promise<Redis>((resolve, reject) => {
			const done = (error?: Error): void => {
				clearTimeout(timer);
				redis.off('ready', onReady);
				redis.off('close', onClose);
				redis.off('end', onClose);
				if (error) reject(error);
				else resolve(redis);
			};
			const onReady = (): void => done();
			const onClose = (): void => done(this.wrap(this.lastError ?? new Error('connection closed')));
			const timer = setTimeout(() => done(this.wrap(new Error(`no connection within ${this.options.connectTimeoutMs} ms`))), this.options.connectTimeoutMs);
			redis.once('ready', onReady);
			redis.once('close', onClose);
			redis.once('end', onClose);
			// The outcome arrives as the events above; ioredis reconnects by itself after a failure
			if (redis.status === 'wait') redis.connect().catch((error: unknown) => done(this.wrap(error)));
		});
	}
}

const processStores = new Map<string, RedisStateStore>();

/** The Redis store of this process for a connection: one client per credential, shared by all executions. */
export function getRedisStateStore(connection: RedisConnection, options: RedisStateStoreOptions = {}): RedisStateStore {
	const id = `${connectionId(connection)}|${options.keyPrefix ?? REDIS_STORE_DEFAULTS.keyPrefix}`;
	let store = processStores.get(id);
	if (store === undefined) {
		store = new RedisStateStore(connection, options);
		processStores.set(id, store);
	}
	return store;
}

/** Closes every process-wide Redis store's client (tests, graceful shutdown). */
export async function closeRedisStateStores(): Promise<void> {
	const stores = [...processStores.values()];
	processStores.clear();
	await Promise.all(stores.map((store) => store.close()));
}
