/**
 * One connection of a Redis store to Redis, a single server (TLS or not) or a Redis Cluster as
 * n8n's queue mode uses it (QUEUE_BULL_REDIS_CLUSTER_NODES): connected on first use, failing
 * fast while Redis is away, every command timed on its own (the queue in front of it is not
 * Redis's time), scripts by EVALSHA with EVAL when Redis does not have them.
 */
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { clientOptions, clusterOptions, loadIoredis, messageOf, RedisStoreError, type RedisConnection } from './redis-connection';

export type RedisLike = Redis | Cluster;

interface Script {
	source: string;
	sha: string;
}

export function script(source: string): Script {
	return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** A command that Redis did not answer in time: it may still run there (the store then undoes what it can). */
export class RedisTimeoutError extends RedisStoreError {
	constructor(message: string) {
		super(message);
		this.name = 'RedisTimeoutError';
	}
}

export class RedisClient {
	private redis: RedisLike | undefined;
	private connecting: Promise<RedisLike> | undefined;
	private lastError: Error | undefined;

	constructor(
		readonly connection: Readonly<RedisConnection>,
		private readonly options: { connectTimeoutMs: number; commandTimeoutMs: number },
	) {}

	/** Where it connects, for messages (never the password). */
	get where(): string {
		const nodes = this.connection.clusterNodes;
		return nodes && nodes.length > 0 ? `Redis Cluster ${nodes.map((n) => `${n.host}:${n.port}`).join(',')}` : `Redis ${this.connection.host}:${this.connection.port}`;
	}

	/** EVALSHA, or EVAL when Redis does not have the script (yet, or any more). */
	async run(s: Script, keys: string[], args: string[]): Promise<unknown> {
		const redis = await this.client();
		try {
			return await this.timed(redis.evalsha(s.sha, keys.length, ...keys, ...args));
		} catch (error) {
			if (!/^NOSCRIPT/.test(messageOf(error))) throw this.wrap(error);
			try {
				return await this.timed(redis.eval(s.source, keys.length, ...keys, ...args));
			} catch (evalError) {
				throw this.wrap(evalError);
			}
		}
	}

	async ping(): Promise<void> {
		const redis = await this.client();
		try {
			await this.timed(redis.ping());
		} catch (error) {
			throw this.wrap(error);
		}
	}

	/** Every key that matches `pattern` (SCAN, on each master of a Cluster): for an operator, never on a request's path. */
	async scan(pattern: string): Promise<string[]> {
		const redis = await this.client();
		const servers: Redis[] = redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis];
		const keys = new Set<string>();
		try {
			for (const server of servers) {
				let cursor = '0';
				do {
					const [next, page] = await this.timed(server.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
					cursor = next;
					for (const key of page) keys.add(key);
				} while (cursor !== '0');
			}
		} catch (error) {
			throw this.wrap(error);
		}
		return [...keys];
	}

	/** A second connection with the same settings, connected (pub/sub needs one of its own). */
	async duplicate(): Promise<RedisLike> {
		const redis = await this.client();
		const copy = redis.duplicate();
		copy.on('error', () => {
			// its commands fail and it reconnects by itself; the store's own client reports the outage
		});
		return this.waitUntilReady(copy).catch((error: unknown) => {
			copy.disconnect();
			return Promise.reject(error);
		});
	}

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

	/**
	 * The command's answer, or an error after commandTimeoutMs (a hung Redis). The timer may fire
	 * only because this process could not run for a while (a busy worker, a starved CPU): after such
	 * a pause Node runs due timers before it reads the sockets, so the answer may already be waiting
	 * in Redis's socket. The timeout looks once more after the loop's next read of the sockets
	 * (setImmediate runs after it) before it blames Redis.
	 */
	private timed<T>(command: Promise<T>): Promise<T> {
		const ms = this.options.commandTimeoutMs;
		return new Promise<T>((resolve, reject) => {
			let settled = false;
			const settle = (done: () => void): void => {
				if (settled) return;
				settled = true;
				clearTimeout(timer);
				done();
			};
			const timer = setTimeout(() => setImmediate(() => settle(() => reject(new RedisTimeoutError(`${this.where}: no answer within ${ms} ms`)))), ms);
			command.then(
				(value) => settle(() => resolve(value)),
				(error: unknown) => settle(() => reject(error)),
			);
		});
	}

	private wrap(error: unknown): Error {
		if (error instanceof RedisStoreError) return error;
		return new RedisStoreError(`${this.where}: ${messageOf(error)}`);
	}

	private create(): RedisLike {
		const ioredis = loadIoredis();
		if (ioredis instanceof RedisStoreError) throw ioredis;
		const nodes = this.connection.clusterNodes;
		const redis: RedisLike =
			nodes && nodes.length > 0 ? new ioredis.Cluster(nodes.map((n) => ({ ...n })), clusterOptions(this.connection, this.options)) : new ioredis.Redis(clientOptions(this.connection, this.options));
		// Errors reach the callers as failed commands; without a listener ioredis prints every one
		redis.on('error', (error: Error) => {
			this.lastError = error;
		});
		return redis;
	}

	/** The connected client: connects on first use; fails at once while Redis is away. */
	private async client(): Promise<RedisLike> {
		this.redis ??= this.create();
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
				throw new RedisStoreError(`${this.where} is not connected (${redis.status})${reason}`);
			}
		}
	}

	private waitUntilReady(redis: RedisLike): Promise<RedisLike> {
		return new Promise<RedisLike>((resolve, reject) => {
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
