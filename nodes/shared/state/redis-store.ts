/**
 * The state store for queue mode: the APIs' traffic controllers in Redis (the one n8n already uses
 * for its queue), shared by every worker. Chosen in the node with a *Resilient HTTP Redis*
 * credential; wrap it in a FallbackStateStore so that a Redis outage never fails a request.
 *
 * - One policy, one implementation: a step is the controller's own TypeScript, applied to the
 *   key's JSON state with a compare-and-set Lua script (CAS): the script writes the new state only
 *   if the key still holds the state the step started from, else it hands back what the key holds
 *   now and the step runs again on that. Every decision is atomic across workers, and there is no
 *   second (Lua) copy of the policy to drift from the first.
 * - The caller's clock: `nowMs` is the calling worker's. Workers' clocks must be roughly in sync
 *   (n8n's queue mode needs that anyway); a skew of up to `ttlGraceMs` never drops live state.
 * - Keys `rh:traffic:<key>` (the key is a hash: it may hold a credential's id), strings with a
 *   PEXPIRE: a key vanishes `ttlGraceMs` after the controller forgets its state (trafficForgetAt).
 * - ioredis (the client n8n uses for its queue, same version) is `require`d on the first call of
 *   a Redis store, never when the memory store is used.
 * - Fails fast when Redis is unreachable: no offline queue (a command while disconnected fails at
 *   once), connect and command timeouts of 1 s. ioredis keeps reconnecting in the background.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { trafficForgetAt, type TrafficData, type TrafficParams } from '../core/traffic/controller';
import { withTimeout } from '../core/runtime';
import { clientOptions, connectionId, loadIoredis, messageOf, RedisStoreError, type RedisConnection } from './redis-connection';
import type { StateStore, TrafficInspector, TrafficStep } from '../core/traffic/store';

export const REDIS_STORE_DEFAULTS = Object.freeze({
	/** Every key this package writes starts with it. */
	keyPrefix: 'rh:',
	/** A dead Redis is noticed within this (then the fallback answers). */
	connectTimeoutMs: 1_000,
	/** A script runs in well under a millisecond; a hung Redis is given up after this. */
	commandTimeoutMs: 1_000,
	/** Keys expire this long after the core forgets them: tolerates clocks this far apart. */
	ttlGraceMs: 10_000,
	/** A step that lost this many races in a row (other workers kept writing the key) fails. */
	maxCasAttempts: 50,
});

export interface RedisStateStoreOptions {
	keyPrefix?: string;
	connectTimeoutMs?: number;
	commandTimeoutMs?: number;
	ttlGraceMs?: number;
	maxCasAttempts?: number;
}

interface Script {
	source: string;
	sha: string;
}

function script(source: string): Script {
	return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Compare-and-set: KEYS[1] the state's key; ARGV[1] the state the step started from ('' for none),
 * ARGV[2] the new state ('' deletes it), ARGV[3] its time to live (ms). Returns {1} when written,
 * {0, current} when the key holds something else now.
 */
const CAS = script(`
local current = redis.call('GET', KEYS[1])
if current == false then current = '' end
if current ~= ARGV[1] then return {0, current} end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return {1}
`);

/** The state a key holds, or undefined for none (or for something that is no state of ours). */
function parseState(raw: string): TrafficData | undefined {
	if (raw === '') return undefined;
	try {
		const data = JSON.parse(raw) as TrafficData;
		return typeof data === 'object' && data !== null && Array.isArray(data.leases) && typeof data.window === 'object' ? data : undefined;
	} catch {
		return undefined;
	}
}

export class RedisStateStore implements StateStore, TrafficInspector {
	readonly kind = 'redis' as const;
	readonly connection: Readonly<RedisConnection>;
	private readonly options: Required<RedisStateStoreOptions>;
	private redis: Redis | undefined;
	private connecting: Promise<Redis> | undefined;
	private lastError: Error | undefined;
	/** Steps of this process waiting on each key. */
	private readonly queues = new Map<string, Promise<void>>();
	/** What this process last saw each key hold: a step starts from it (a stale one costs one retry). */
	private readonly lastSeen = new Map<string, string>();

	/** A store with its own Redis client (connected on first use). */
	constructor(connection: RedisConnection, options: RedisStateStoreOptions = {}) {
		this.connection = Object.freeze({ ...connection });
		this.options = { ...REDIS_STORE_DEFAULTS, ...options };
		if (!this.options.keyPrefix) throw new RedisStoreError('keyPrefix must not be empty');
	}

	/** The Redis key of an API's traffic state, e.g. `rh:traffic:api:3f2a...`. */
	keyFor(key: string): string {
		return `${this.options.keyPrefix}traffic:${key}`;
	}

	/**
	 * Steps of this process on one key run one after another (a queue per key), so that races are
	 * between workers only, not between the hundreds of requests of one worker; and each starts from
	 * the state this process last saw, so that an uncontended step is one round trip.
	 */
	async traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		const previous = this.queues.get(key) ?? Promise.resolve();
		const run = previous.then(() => this.casStep(key, nowMs, params, step));
		const settled = run.then(
			() => undefined,
			() => undefined,
		);
		this.queues.set(key, settled);
		void settled.then(() => {
			if (this.queues.get(key) === settled) this.queues.delete(key);
		});
		return run;
	}

	private async casStep<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		const redisKey = this.keyFor(key);
		let raw = this.lastSeen.get(key) ?? '';
		for (let attempt = 0; attempt < this.options.maxCasAttempts; attempt++) {
			const result = step(parseState(raw));
			const ttlMs = Math.ceil(trafficForgetAt(result.data, params) - nowMs + this.options.ttlGraceMs);
			const next = ttlMs > 0 ? JSON.stringify(result.data) : '';
			const reply = await this.run(CAS, redisKey, [raw, next, String(Math.max(1, ttlMs))]);
			if (!Array.isArray(reply)) throw new RedisStoreError(`Redis store: unexpected script reply ${JSON.stringify(reply)}`);
			if (Number(reply[0]) === 1) {
				this.remember(key, next);
				return result.result;
			}
			// another worker wrote the key in between (or it expired): the step runs again on what it holds now
			raw = typeof reply[1] === 'string' ? reply[1] : '';
			this.remember(key, raw);
		}
		throw new RedisStoreError(`Redis store: ${this.options.maxCasAttempts} concurrent updates of one API's state in a row; giving up on this step`);
	}

	/** Every API's state in Redis (SCAN, then MGET by pages): for an operator, not on a request's path. */
	async list(): Promise<Array<{ key: string; data: TrafficData }>> {
		const redis = await this.client();
		const prefix = this.keyFor('');
		const found: Array<{ key: string; data: TrafficData }> = [];
		let cursor = '0';
		try {
			do {
				const [next, keys] = await this.timed(redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500));
				cursor = next;
				if (keys.length === 0) continue;
				const values = await this.timed(redis.mget(...keys));
				keys.forEach((redisKey, k) => {
					const data = parseState(values[k] ?? '');
					if (data) found.push({ key: redisKey.slice(prefix.length), data });
				});
			} while (cursor !== '0');
		} catch (error) {
			throw this.wrap(error);
		}
		return found;
	}

	/** The state last read or written per key: bounded, least recently used first out. */
	private remember(key: string, raw: string): void {
		this.lastSeen.delete(key);
		if (raw === '') return;
		this.lastSeen.set(key, raw);
		if (this.lastSeen.size > 10_000) this.lastSeen.delete(this.lastSeen.keys().next().value as string);
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
