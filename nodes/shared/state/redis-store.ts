/**
 * The state store for queue mode: the APIs' traffic controllers in Redis (the one n8n already uses
 * for its queue, single or Cluster), shared by every worker. Chosen in the node with a *Resilient
 * HTTP Redis* credential; wrap it in a FallbackStateStore so that a Redis outage never fails a
 * request.
 *
 * - One policy, one implementation: a step is the controller's own TypeScript; Redis applies its
 *   result atomically with one Lua script (STEP, state/step-script.ts) that holds no policy; what
 *   it is sent and answers is typed, its argument order in one place (state/step-codec.ts). The API's state is kept in
 *   two parts (state/traffic-counters.ts): the counts that requests only add to (the budget's,
 *   the hold's and the pace's counts, the window's growth, the last use) in a hash, and the rest
 *   as one small JSON value with a version.
 * - Merge or compare. A batch whose steps all say their verdict reads no count (Step.merges: a
 *   healthy request's admission and success, a refusal for a full window) and that only added to
 *   counts is a merge: the script checks that the version is the one they started from and that
 *   the leases in flight are in the range their verdicts hold for, then adds their counts to
 *   whatever other workers added (HINCRBY). Healthy requests of several workers no longer race
 *   each other. Any other batch is exact: the version, the counts' sequence and the leases must
 *   be what the steps saw, and it writes what changed. On a lost race the script hands back the
 *   current state and the steps run again on it. A refusal writes nothing, but the pace's, once.
 * - What a merged step reports of counts (requests in flight, the window, the budget) is what its
 *   worker last saw; its verdict is the one the exact state gives (a test holds both to one pure
 *   controller).
 * - O(1) per request: the state holds no list of requests in flight (leases are members of the
 *   sorted set, one at a time), so a call's size and Redis's work do not grow with the requests in
 *   flight; the version is a token, compared, never the whole value. A lease's name in Redis is
 *   the process's prefix and a number (state/lease-names.ts): a batch's added leases go as one
 *   range, its ended ones as short numbers.
 * - One round trip per step when nothing raced: each process keeps the version and state it last
 *   saw per API. Steps of one process on one API queue up; those that queued while a script ran
 *   go together in the next one (up to maxBatch), so a busy worker makes fewer calls, not more.
 * - The pieces: batching (state/step-batcher.ts), the compare-and-set planning
 *   (state/step-planner.ts), the STEP call's arguments and reply (state/step-codec.ts), the stats
 *   (state/redis-store-stats.ts) and pub/sub (state/free-watch.ts); this class composes them.
 * - The fleet's counts for metrics (state/fleet-counts.ts): `rh:metrics:{<key>}`, added to in the
 *   background, never on a request's path.
 * - Keys `rh:traffic:{<key>}` (the state: "<version>\n<json>"), `rh:traffic:{<key>}:counts` (a
 *   hash) and `rh:traffic:{<key>}:leases`, with PEXPIREs: a key vanishes `ttlGraceMs` after the
 *   controller forgets it or its last lease ends. The braces are a Redis Cluster hash tag: one
 *   API's keys share a slot, so one script may touch them all.
 * - Waking other workers: a step that may let a request go (a slot freed at the limit, a probe
 *   answered, a pause or hold ended) publishes on `rh:traffic:{<key>}:free`; a process with
 *   requests waiting on that API subscribes (watch) and wakes one of them.
 * - The caller's clock: `nowMs` is the calling worker's. Workers' clocks must be roughly in sync
 *   (n8n's queue mode needs that anyway); a skew of up to `ttlGraceMs` never drops live state.
 * - A script that timed out may still run on Redis: the leases it may have added, and those it was
 *   to end, are ended by the next script on that API, so none is left counting as in flight.
 */
import { randomBytes } from 'node:crypto';
import type { TrafficData, TrafficParams } from '../core/traffic/controller';
import { connectionId, RedisStoreError, type RedisConnection } from './redis-connection';
import { RedisClient, RedisTimeoutError } from './redis-client';
import type { StateStore, TrafficInspector, TrafficStep } from '../core/traffic/store';
import { decodeRead, decodeStep, encodeRead, encodeStep, freeChannel, READ, replyBytes, STEP, type StepReply } from './step-codec';
import { applied, parseSeen, StepPlanner, UNKNOWN, type QueuedStep } from './step-planner';
import { StepBatcher, type Lane } from './step-batcher';
import { StoreStats, type RedisStoreStats } from './redis-store-stats';
import { FreeWatch } from './free-watch';
import { FleetCounts } from './fleet-counts';
import type { ApiCounts, Counts } from '../core/traffic/traffic-counts';

export { RedisStepsError } from './step-batcher';

export const REDIS_STORE_DEFAULTS = Object.freeze({
	/** Every key this package writes starts with it. */
	keyPrefix: 'rh:',
	/** A dead Redis is noticed within this (then the fallback answers). */
	connectTimeoutMs: 1_000,
	/** A script runs in well under a millisecond; a hung Redis is given up after this (the command's own time, not its queue's). */
	commandTimeoutMs: 1_000,
	/** Keys expire this long after the core forgets them: tolerates clocks this far apart. */
	ttlGraceMs: 10_000,
	/** A batch of steps that lost this many races in a row (other workers kept writing the key) fails. */
	maxCasAttempts: 50,
	/** Steps of one API applied by one script at most. */
	maxBatch: 32,
});

export interface RedisStateStoreOptions {
	keyPrefix?: string;
	connectTimeoutMs?: number;
	commandTimeoutMs?: number;
	ttlGraceMs?: number;
	maxCasAttempts?: number;
	maxBatch?: number;
}

/** STEP's reply, or a store error for what is none. */
function decodeReply(raw: unknown): StepReply {
	const reply = decodeStep(raw);
	if (!reply) throw new RedisStoreError(`Redis store: unexpected script reply ${JSON.stringify(raw)}`);
	return reply;
}

/** The composition: batching (StepBatcher), planning (StepPlanner), the STEP calls and their stats, pub/sub (FreeWatch). */
export class RedisStateStore implements StateStore, TrafficInspector {
	readonly kind = 'redis' as const;
	readonly connection: Readonly<RedisConnection>;
	private readonly options: Required<RedisStateStoreOptions>;
	private readonly client: RedisClient;
	/** This process's prefix of versions and lease names, and what its pub/sub messages say. */
	private readonly versionPrefix = randomBytes(6).toString('base64url');
	private readonly counters = new StoreStats();
	private readonly batcher: StepBatcher;
	private readonly planner: StepPlanner;
	private readonly free: FreeWatch;
	private readonly fleet: FleetCounts;

	/** A store with its own Redis client (connected on first use). */
	constructor(connection: RedisConnection, options: RedisStateStoreOptions = {}) {
		this.connection = Object.freeze({ ...connection });
		this.options = { ...REDIS_STORE_DEFAULTS, ...options };
		if (!this.options.keyPrefix) throw new RedisStoreError('keyPrefix must not be empty');
		// the script passes a batch's leases to one ZADD (Lua's unpack takes a few thousand values at most)
		if (!(Number.isInteger(this.options.maxBatch) && this.options.maxBatch >= 1 && this.options.maxBatch <= 1_000)) throw new RedisStoreError(`maxBatch must be a whole number from 1 to 1000, not ${this.options.maxBatch}`);
		this.client = new RedisClient(this.connection, this.options);
		this.batcher = new StepBatcher(this.options.maxBatch, (key, lane, batch) => this.commit(key, lane, batch));
		this.planner = new StepPlanner(this.versionPrefix, this.options.ttlGraceMs);
		this.free = new FreeWatch(this.client, this.versionPrefix);
		this.fleet = new FleetCounts(this.client, this.options.keyPrefix);
	}

	/** The Redis key of an API's traffic state, e.g. `rh:traffic:{api:3f2a...}`: the braces keep an API's keys in one cluster slot. */
	keyFor(key: string): string {
		return `${this.options.keyPrefix}traffic:{${key.replace(/[{}]/g, '_')}}`;
	}

	/** What this store sent so far. */
	stats(): RedisStoreStats {
		return this.counters.snapshot();
	}

	/**
	 * Steps of this process on one key run in order; those queued while a script runs go in the
	 * next one together. Each starts from the state this process last saw, so that an uncontended
	 * step is one round trip.
	 */
	traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		return this.batcher.enqueue(key, nowMs, params, step);
	}

	/** Sends a batch's plan until it applies: on a lost race the steps run again on what Redis holds now. */
	private async commit(key: string, lane: Lane, batch: readonly QueuedStep[]): Promise<unknown[]> {
		const redisKey = this.keyFor(key);
		for (let attempt = 0; attempt < this.options.maxCasAttempts; attempt++) {
			const plan = this.planner.plan(lane.seen, lane.names, batch, redisKey);
			const call = encodeStep(plan.step);
			this.counters.sent(call.bytes, plan.merge);
			const raw: unknown = await this.client.run(STEP, call.keys, call.args).catch((error: unknown) => {
				if (error instanceof RedisTimeoutError) {
					// it may still run: its leases are ended by the next script, and what Redis holds is unknown
					this.counters.timedOut();
					lane.names.timedOut(plan.leases);
					lane.seen = UNKNOWN;
				}
				return Promise.reject(error);
			});
			const reply = decodeReply(raw);
			this.counters.answered(call.bytes, replyBytes(raw));
			if (reply.applied) {
				this.counters.applied(batch.length, lane.names.pendingEnds);
				lane.names.applied(plan.leases);
				lane.seen = applied(plan, reply);
				return plan.results;
			}
			// another worker changed the state in between (or leases expired): the steps run again on what it holds now
			this.counters.lost(reply.lostTo);
			lane.seen = parseSeen(reply.value, reply.inFlight, reply.soonest, reply.sequence, reply.hash);
		}
		throw new RedisStoreError(`Redis store: ${this.options.maxCasAttempts} concurrent updates of one API's state in a row; giving up on these steps`);
	}

	/**
	 * Every API's state in Redis and its requests in flight (SCAN, on each master of a Cluster; then
	 * one read script per API): for an operator, never on a request's path.
	 */
	async list(nowMs: number): Promise<Array<{ key: string; data: TrafficData; inFlight: number }>> {
		const prefix = `${this.options.keyPrefix}traffic:{`;
		const found: Array<{ key: string; data: TrafficData; inFlight: number }> = [];
		for (const redisKey of await this.client.scan(`${prefix}*}`)) {
			const call = encodeRead(redisKey, nowMs);
			const reply = decodeRead(await this.client.run(READ, call.keys, call.args));
			if (!reply) continue;
			const { data } = parseSeen(reply.value, 0, '', '', reply.hash);
			if (data) found.push({ key: redisKey.slice(prefix.length, -1), data, inFlight: reply.inFlight });
		}
		return found;
	}

	/**
	 * Calls `onChange` when another process publishes that a request waiting on `key` may go. One
	 * subscription per key and process, whatever the number of watchers.
	 */
	watch(key: string, onChange: () => void): () => void {
		return this.free.watch(freeChannel(this.keyFor(key)), onChange);
	}

	/** Adds a request's counts to the fleet's (state/fleet-counts.ts): sent in the background, within a second. */
	count(key: string, label: string, counts: Counts): void {
		this.fleet.add(key, label, counts);
	}

	/** Every process's counts per API, this one's sent first. */
	async counts(): Promise<ApiCounts[]> {
		return this.fleet.read();
	}

	/** Connects when not connected yet and sends PING (the credential test). */
	async ping(): Promise<void> {
		await this.client.ping();
	}

	/** Closes the connections (tests, shutdown). The next call connects again. */
	async close(): Promise<void> {
		await this.fleet.close();
		await this.free.close();
		await this.client.close();
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
