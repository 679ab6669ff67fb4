/**
 * How the state store reaches Redis: the connection read from the Resilient HTTP Redis credential,
 * the client settings, and the client library, loaded on first use.
 */
import { createHash } from 'node:crypto';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** How to reach Redis: the fields of the Resilient HTTP Redis credential. */
export interface RedisConnection {
	host: string;
	port: number;
	/** Database number (SELECT). */
	database: number;
	/** ACL user; empty for password-only auth. */
	user?: string;
	password?: string;
	/** TLS (the credential's `ssl` field, named as in n8n's own Redis credential). */
	tls: boolean;
	/** Accept any server certificate (self-signed). */
	disableTlsVerification?: boolean;
	/**
	 * A Redis Cluster's nodes (n8n's QUEUE_BULL_REDIS_CLUSTER_NODES): when given, host and port are
	 * not used, and the database is 0 (a cluster has no other).
	 */
	clusterNodes?: Array<{ host: string; port: number }>;
}

/** A Redis store error: Redis unreachable, timed out, or an unexpected answer. */
export class RedisStoreError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'RedisStoreError';
	}
}

function text(value: unknown, fallback: string): string {
	return typeof value === 'string' ? value.trim() : value === undefined || value === null ? fallback : String(value).trim();
}

function integer(value: unknown, name: string, fallback: number, min: number, max: number): number {
	const n = value === undefined || value === null || value === '' ? fallback : Number(value);
	if (!Number.isInteger(n) || n < min || n > max) throw new RedisStoreError(`Redis credential: ${name} must be a whole number from ${min} to ${max}, not ${String(value)}`);
	return n;
}

/** The connection from the credential's data (fields named as in n8n's own Redis credential). */
export function redisConnectionFromCredential(data: ICredentialDataDecryptedObject): RedisConnection {
	const host = text(data.host, 'localhost') || 'localhost';
	const connection: RedisConnection = {
		host,
		port: integer(data.port, 'Port', 6379, 1, 65_535),
		database: integer(data.database, 'Database Number', 0, 0, 65_535),
		tls: data.ssl === true,
	};
	const user = text(data.user, '');
	if (user) connection.user = user;
	if (typeof data.password === 'string' && data.password !== '') connection.password = data.password;
	if (connection.tls && data.disableTlsVerification === true) connection.disableTlsVerification = true;
	const clusterNodes = parseClusterNodes(text(data.clusterNodes, ''));
	if (clusterNodes.length > 0) {
		if (connection.database !== 0) throw new RedisStoreError(`Redis credential: a Redis Cluster has database 0 only: set Database Number to 0, not ${connection.database}`);
		connection.clusterNodes = clusterNodes;
	}
	return connection;
}

/** "host:port,host:port" as n8n reads QUEUE_BULL_REDIS_CLUSTER_NODES (blank entries skipped). */
function parseClusterNodes(value: string): Array<{ host: string; port: number }> {
	const nodes: Array<{ host: string; port: number }> = [];
	for (const pair of value.split(',')) {
		const entry = pair.trim();
		if (entry === '') continue;
		const colon = entry.lastIndexOf(':');
		const host = colon > 0 ? entry.slice(0, colon).trim() : '';
		const port = Number(colon > 0 ? entry.slice(colon + 1) : NaN);
		if (host === '' || !Number.isInteger(port) || port < 1 || port > 65_535) throw new RedisStoreError(`Redis credential: Cluster Nodes must be host:port pairs separated by commas, not "${entry}"`);
		nodes.push({ host, port });
	}
	return nodes;
}

/** One string per distinct connection (the password hashed, not kept in the string). */
export function connectionId(connection: RedisConnection): string {
	const { password, ...rest } = connection;
	const secret = password === undefined ? '' : createHash('sha256').update(password).digest('hex');
	return JSON.stringify({ ...rest, user: rest.user ?? '', disableTlsVerification: rest.disableTlsVerification === true, secret });
}

/** The client settings of a store: fail fast, never resend a script that may have run. */
export function clientOptions(connection: RedisConnection, options: { connectTimeoutMs: number }): RedisOptions {
	return {
		host: connection.host,
		port: connection.port,
		...serverOptions(connection, options),
	};
}

/** A Redis Cluster's settings, as n8n's queue mode makes them (its nodes' options, TLS names as given). */
export function clusterOptions(connection: RedisConnection, options: { connectTimeoutMs: number }): ClusterOptions {
	const { db: _db, ...redisOptions } = serverOptions(connection, options);
	return {
		redisOptions,
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRedirections: 16,
		// a cluster's TLS certificates name the hosts the user gave, not the addresses they resolve to
		...(connection.tls ? { dnsLookup: (address: string, lookup: (error: Error | null, address: string) => void) => lookup(null, address) } : {}),
		clusterRetryStrategy: (times: number) => Math.min(times * 200, 2_000),
	};
}

function serverOptions(connection: RedisConnection, options: { connectTimeoutMs: number }): RedisOptions {
	return {
		db: connection.database,
		...(connection.user ? { username: connection.user } : {}),
		...(connection.password !== undefined ? { password: connection.password } : {}),
		...(connection.tls ? { tls: { rejectUnauthorized: connection.disableTlsVerification !== true } } : {}),
		connectionName: 'n8n-nodes-resilient-http',
		lazyConnect: true,
		connectTimeout: options.connectTimeoutMs,
		// No `commandTimeout`: ioredis 5.3.2 leaves its timer running when a command fails, so the
		// store times its commands itself (RedisStateStore.timed).
		// A closed connection's socket is destroyed after this if it does not close by itself (default 2 s)
		disconnectTimeout: 500,
		// While disconnected a command fails at once instead of waiting in a queue
		enableOfflineQueue: false,
		// A script in flight when the connection drops is failed, never sent again: it may have run
		// (a retry would be counted twice)
		maxRetriesPerRequest: 0,
		autoResendUnfulfilledCommands: false,
		// Keep reconnecting in the background, at most every 2 s, so the store comes back by itself
		retryStrategy: (times: number) => Math.min(times * 200, 2_000),
	};
}

/** ioredis, loaded on first use only: the memory store's path never loads it. */
export function loadIoredis(): typeof import('ioredis') | RedisStoreError {
	try {
		return require('ioredis') as typeof import('ioredis');
	} catch (error) {
		return new RedisStoreError(
			`Redis store: cannot load the Redis client (ioredis): ${messageOf(error)}. The package was installed without its dependencies: install it with \`npm install --omit=peer\` (README, Install in your own n8n)`,
		);
	}
}

/** An error's message. Not by `instanceof Error`: errors of another realm (Node's net module under Jest's VM) fail it. */
export function messageOf(error: unknown): string {
	if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
	return String(error);
}
