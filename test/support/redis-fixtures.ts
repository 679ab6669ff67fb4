/**
 * What the Redis store's tests share: the unit tests (test/unit/state/redis-store.test.ts) and the
 * real-time ones (test/realtime/redis-store.test.ts), which time a real Redis, a real socket or
 * pub/sub. A real Redis is named by RH_TEST_REDIS_URL, a cluster by RH_TEST_REDIS_CLUSTER_NODES;
 * without them their tests are reported as skipped, with the reason in their name.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { admit, complete, type AdmitRequest, type Outcome, type TrafficParams } from '../../nodes/shared/core/traffic/controller';
import { HOLD_DEFAULTS } from '../../nodes/shared/core/traffic/hold-state';
import { BUDGET_DEFAULTS } from '../../nodes/shared/core/traffic/budget';
import { FallbackStateStore } from '../../nodes/shared/state/fallback-store';
import { MemoryStateStore } from '../../nodes/shared/state/memory-store';
import { redisConnectionFromCredential, type RedisConnection } from '../../nodes/shared/state/redis-connection';
import { closeRedisStateStores, RedisStateStore } from '../../nodes/shared/state/redis-store';
import type { StateStore } from '../../nodes/shared/core/traffic/store';

export const REDIS_URL = process.env.RH_TEST_REDIS_URL;
export const NO_REDIS = 'skipped: RH_TEST_REDIS_URL not set, no Redis server (export "$(bash scripts/redis-test-server.sh start)")';
export const REDIS_SERVER_BIN = process.env.RH_TEST_REDIS_SERVER ?? 'redis-server';
export const HAVE_REDIS_SERVER_BIN = spawnSync(REDIS_SERVER_BIN, ['--version'], { stdio: 'ignore' }).status === 0;

if (!REDIS_URL) console.warn(`Redis store tests against a real Redis are ${NO_REDIS}`);

/** A port nobody listens on: connecting is refused at once. */
export const UNREACHABLE: RedisConnection = { host: '127.0.0.1', port: 1, database: 0, tls: false };

function connectionFromUrl(url: string): RedisConnection {
	const u = new URL(url);
	const connection: RedisConnection = {
		host: u.hostname,
		port: u.port ? Number(u.port) : 6379,
		database: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
		tls: u.protocol === 'rediss:',
	};
	if (u.username) connection.user = decodeURIComponent(u.username);
	if (u.password) connection.password = decodeURIComponent(u.password);
	return connection;
}

/** The controller's limits in these tests: a window too wide to matter, the default budget and hold. */
export const P: TrafficParams = { window: { ceiling: 100_000, mode: 'fixed' }, leaseMs: 30_000, budget: { ...BUDGET_DEFAULTS }, hold: { ...HOLD_DEFAULTS } };
export const OK: Outcome = { success: true, outageFailure: false, overload: false, throttled: false };
export const DOWN: Outcome = { success: false, outageFailure: true, overload: true, throttled: false };

let ids = 0;
export const request = (retry = false, paced = false): AdmitRequest => ({ id: `r${process.pid}-${ids++}`, retry, paced });

/** A request to `key` answered at once with `outcome`: its admission. */
export async function call(store: StateStore, key: string, now: number, outcome: Outcome = OK, retry = false, params = P) {
	const r = request(retry);
	const admission = await store.traffic(key, now, params, (d, l) => admit(d, l, now, r, params));
	if (admission.go) await store.traffic(key, now, params, (d, l) => complete(d, l, now, admission.lease, outcome, params));
	return admission;
}

/** First attempts counted so far (by a first request that is counted too). */
export async function firsts(store: StateStore, key: string, now: number): Promise<number> {
	const admission = await call(store, key, now);
	return admission.go ? (admission.budget?.firstAttempts ?? 0) : -1;
}

/** Five failures in a row: the API is held. */
export async function takeDown(store: StateStore, key: string, now: number): Promise<void> {
	for (let i = 0; i < HOLD_DEFAULTS.consecutiveFailures; i++) await call(store, key, now, DOWN);
}

/** A fallback store on `primary`, with the warnings and notes it logs kept. */
export function fallbackOn(primary: StateStore, options: { cooldownMs?: number; timeoutMs?: number } = {}) {
	const warns: string[] = [];
	const infos: string[] = [];
	const memory = new MemoryStateStore();
	const store = new FallbackStateStore(primary, memory, { warn: (m) => warns.push(m), info: (m) => infos.push(m), ...options });
	return { store, memory, warns, infos };
}

export const describeRedis = REDIS_URL ? describe : describe.skip;
export const redisTitle = (what: string) => (REDIS_URL ? what : `${what} (${NO_REDIS})`);

/** Two workers (two stores, two clients) on the test Redis, and a client of its own to look at the keys. */
export interface RedisWorkers {
	connection: RedisConnection;
	/** This run's keys, so that runs sharing a server do not meet. */
	prefix: string;
	admin: Redis;
	workerA: RedisStateStore;
	workerB: RedisStateStore;
}

/** Inside a describe: the workers connect before its tests; after them, this run's keys are deleted. */
export function useRedisWorkers(): RedisWorkers {
	const connection = connectionFromUrl(REDIS_URL ?? 'redis://127.0.0.1:6379');
	const prefix = `rh:test-${process.pid}-${Date.now().toString(36)}:`;
	const workers = { connection, prefix } as RedisWorkers;

	beforeAll(async () => {
		workers.admin = new Redis({ host: connection.host, port: connection.port, db: connection.database, username: connection.user, password: connection.password, lazyConnect: true });
		await workers.admin.connect();
		workers.workerA = new RedisStateStore(connection, { keyPrefix: prefix });
		workers.workerB = new RedisStateStore(connection, { keyPrefix: prefix });
	});

	afterAll(async () => {
		const { admin } = workers;
		let cursor = '0';
		do {
			const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
			if (keys.length > 0) await admin.del(...keys);
			cursor = next;
		} while (cursor !== '0');
		await Promise.all([workers.workerA.close(), workers.workerB.close(), closeRedisStateStores()]);
		await admin.quit();
	});
	return workers;
}

/**
 * Redis Cluster, as n8n's queue mode runs it: RH_TEST_REDIS_CLUSTER_NODES names its nodes
 * (host:port,host:port; scripts/redis-cluster-test-server.sh starts three locally). Skipped, with
 * the reason in the name, without one.
 */
const CLUSTER_NODES = process.env.RH_TEST_REDIS_CLUSTER_NODES;
const NO_CLUSTER = 'skipped: RH_TEST_REDIS_CLUSTER_NODES not set, no Redis Cluster (export "$(bash scripts/redis-cluster-test-server.sh start)")';
export const describeCluster = CLUSTER_NODES ? describe : describe.skip;
export const clusterTitle = (what: string) => (CLUSTER_NODES ? what : `${what} (${NO_CLUSTER})`);

/** Two workers on the test cluster (inside a describe: they are closed after its tests). */
export function useClusterWorkers(): Omit<RedisWorkers, 'admin'> {
	const connection = redisConnectionFromCredential({ clusterNodes: CLUSTER_NODES ?? '', database: 0 });
	const prefix = `rh:test-${process.pid}-${Date.now().toString(36)}:`;
	const workers = { connection, prefix } as Omit<RedisWorkers, 'admin'>;

	beforeAll(() => {
		workers.workerA = new RedisStateStore(connection, { keyPrefix: prefix });
		workers.workerB = new RedisStateStore(connection, { keyPrefix: prefix });
	});

	afterAll(async () => {
		await Promise.all([workers.workerA.close(), workers.workerB.close()]);
	});
	return workers;
}

/** A redis-server of the test's own on a free port, to stop and start again on that port. */
export async function startDedicatedRedis(): Promise<{ port: number; start(): Promise<void>; stop(): Promise<void>; cleanup(): void }> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-redis-outage-'));
	const port = await new Promise<number>((resolve, reject) => {
		const probe = net.createServer();
		probe.once('error', reject);
		probe.listen(0, '127.0.0.1', () => {
			const address = probe.address();
			probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
		});
	});
	let child: ChildProcess | undefined;
	const start = async (): Promise<void> => {
		child = spawn(REDIS_SERVER_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
		for (let i = 0; i < 100; i++) {
			if (await pong(port)) return;
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		throw new Error(`dedicated redis-server did not start on port ${port}`);
	};
	const stop = async (): Promise<void> => {
		const running = child;
		child = undefined;
		if (!running || running.exitCode !== null || running.signalCode !== null) return;
		const exited = new Promise((resolve) => running.once('exit', resolve));
		running.kill('SIGKILL');
		await exited;
	};
	await start();
	return { port, start, stop, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

function pong(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		const finish = (ok: boolean): void => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(500, () => finish(false));
		socket.once('error', () => finish(false));
		socket.once('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			answer += chunk.toString();
			if (answer.includes('\r\n')) finish(answer.startsWith('+PONG'));
		});
	});
}
