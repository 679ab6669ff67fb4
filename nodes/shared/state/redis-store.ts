/**
 * The state store for queue mode: the APIs' traffic controllers in Redis (the one n8n already uses
 * for its queue, single or Cluster), shared by every worker. Chosen in the node with a *Resilient
 * HTTP Redis* credential; wrap it in a FallbackStateStore so that a Redis outage never fails a
 * request.
 *
 * - One policy, one implementation: a step is the controller's own TypeScript; Redis applies its
 *   result atomically with one Lua script (STEP) that holds no policy: it writes the API's small
 *   state only if its version is still the one the step started from, and adds or ends the step's
 *   lease in a sorted set by expiry. On a lost race it hands back the current state and the step
 *   runs again on it. A refusal writes nothing (the script only checks the version), but the
 *   pace's, once: it reserves the request's slot (and the few the controller writes once, admit).
 * - O(1) per request: the state holds no list of requests in flight (leases are members of the
 *   sorted set, one at a time), so a call's size and Redis's work do not grow with the requests in
 *   flight; the version is a token, compared, never the whole value.
 * - One round trip per step when nothing raced: each process keeps the version and state it last
 *   saw per API. Steps of one process on one API queue up; those that queued while a script ran
 *   go together in the next one (up to maxBatch), so a busy worker makes fewer calls, not more.
 * - Keys `rh:traffic:{<key>}` (the state: "<version>\n<json>") and `rh:traffic:{<key>}:leases`,
 *   with PEXPIREs: a key vanishes `ttlGraceMs` after the controller forgets it or its last lease
 *   ends. The braces are a Redis Cluster hash tag: one API's keys share a slot, so one script
 *   may touch both.
 * - Waking other workers: a step that may let a request go (a slot freed at the limit, a probe
 *   answered, a pause or hold ended) publishes on `rh:traffic:{<key>}:free`; a process with
 *   requests waiting on that API subscribes (watch) and wakes one of them.
 * - The caller's clock: `nowMs` is the calling worker's. Workers' clocks must be roughly in sync
 *   (n8n's queue mode needs that anyway); a skew of up to `ttlGraceMs` never drops live state.
 * - A script that timed out may still run on Redis: the leases it may have added are ended by the
 *   next script on that API, so none is left counting as in flight.
 */
import { randomBytes } from 'node:crypto';
import { trafficForgetAt, type LeaseView, type TrafficData, type TrafficParams } from '../core/traffic/controller';
import { connectionId, RedisStoreError, type RedisConnection } from './redis-connection';
import { RedisClient, RedisTimeoutError, script, type RedisLike } from './redis-client';
import type { StateStore, TrafficInspector, TrafficStep } from '../core/traffic/store';

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

/** What a store sent and how it went (the benchmark reads it; so can a test). */
interface RedisStoreStats {
	/** Scripts sent (round trips). */
	scripts: number;
	/** Controller steps applied. */
	steps: number;
	/** Scripts that found another version than the one their steps started from. */
	lostCas: number;
	/** Scripts that got no answer in time. */
	timeouts: number;
	/** Leases ended because the script that added them timed out. */
	leasesReleased: number;
	/** Bytes of the scripts' arguments and answers. */
	bytesSent: number;
	bytesReceived: number;
	/** The most bytes one script sent and got back: bounded by maxBatch steps, whatever the requests in flight. */
	largestCall: number;
}

/**
 * KEYS[1] the state, KEYS[2] the leases. ARGV: [1] the version the steps started from ('' none),
 * [2] the leases they counted, [3] now (ms), [4] the new value "<version>\n<json>" ('' write
 * nothing, '-' delete), [5] its time to live (ms), [6] the leases' time to live (ms), [7] a
 * channel to publish on ('' none), [8] the message, [9...] lease changes: '+', id, end (ms after
 * [3]: a few digits, not an epoch) | '-', id.
 * Expired leases are dropped first. Returns {1, leases, soonest end} when applied,
 * {0, current value, leases, soonest end} when the state or the count is not what the steps saw.
 */
const STEP = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
local current = redis.call('GET', KEYS[1])
if current == false then current = '' end
local version = string.match(current, '^[^\\n]*')
local count = redis.call('ZCARD', KEYS[2])
if version ~= ARGV[1] or count ~= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {0, current, count, first[2] or ''}
end
if ARGV[4] == '-' then
  redis.call('DEL', KEYS[1])
elseif ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
end
local i = 9
local added = false
while i <= #ARGV do
  if ARGV[i] == '+' then
    redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[i + 2]), ARGV[i + 1])
    added = true
    i = i + 3
  else
    redis.call('ZREM', KEYS[2], ARGV[i + 1])
    i = i + 2
  end
end
if added and redis.call('PTTL', KEYS[2]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[2], ARGV[6]) end
if ARGV[7] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[8]) end
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return {1, redis.call('ZCARD', KEYS[2]), first[2] or ''}
`);

/** KEYS[1] the state, KEYS[2] the leases; ARGV[1] now (ms). Returns {the state's value, leases in flight}. */
const READ = script(`
local value = redis.call('GET', KEYS[1])
if value == false then value = '' end
return {value, redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[1], '+inf')}
`);

/** What this process last saw of an API: its version, state and leases. */
interface Seen {
	version: string;
	data: TrafficData | undefined;
	count: number;
	soonest: number;
}

/** Nothing seen yet: an API Redis does not hold costs no extra round trip. */
const NOTHING: Seen = Object.freeze({ version: '', data: undefined, count: 0, soonest: Infinity });
/** After a timeout: what Redis holds is unknown, the next script fetches it. */
const UNKNOWN: Seen = Object.freeze({ version: '\u0000unknown', data: undefined, count: -1, soonest: Infinity });

interface Pending {
	nowMs: number;
	params: TrafficParams;
	step: TrafficStep<unknown>;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/** The steps of this process on one API: one script at a time, the others queued behind it. */
interface Lane {
	pending: Pending[];
	running: boolean;
	seen: Seen;
	/** Leases a timed-out script may have added: the next script ends them. */
	doubtful: string[];
}

/** One script's arguments, and what the steps answered if it applies. */
interface Plan {
	args: string[];
	results: unknown[];
	seen: Seen;
	added: string[];
}

/** A state a key holds ("<version>\n<json>"), or NOTHING for none (or something that is no state of ours). */
function parseSeen(raw: string, count: number, soonest: string): Seen {
	const newline = raw.indexOf('\n');
	const leases = { count, soonest: soonest === '' ? Infinity : Number(soonest) };
	if (raw === '' || newline < 0) return { ...NOTHING, ...leases, version: raw === '' ? '' : raw };
	try {
		const data = JSON.parse(raw.slice(newline + 1)) as TrafficData;
		const valid = typeof data === 'object' && data !== null && typeof data.window === 'object' && typeof data.rate === 'object';
		return { version: raw.slice(0, newline), data: valid ? data : undefined, ...leases };
	} catch {
		return { version: raw.slice(0, newline), data: undefined, ...leases };
	}
}

/** A store error that says how many steps it failed (the fallback answers them). */
export class RedisStepsError extends RedisStoreError {
	constructor(
		message: string,
		readonly affected: number,
		readonly timedOut: boolean,
	) {
		super(message);
		this.name = 'RedisStepsError';
	}
}

export class RedisStateStore implements StateStore, TrafficInspector {
	readonly kind = 'redis' as const;
	readonly connection: Readonly<RedisConnection>;
	private readonly options: Required<RedisStateStoreOptions>;
	private readonly client: RedisClient;
	private readonly lanes = new Map<string, Lane>();
	private readonly versionPrefix = randomBytes(6).toString('base64url');
	private versions = 0;
	private readonly counters: RedisStoreStats = { scripts: 0, steps: 0, lostCas: 0, timeouts: 0, leasesReleased: 0, bytesSent: 0, bytesReceived: 0, largestCall: 0 };
	private readonly watchers = new Map<string, Set<() => void>>();
	private subscriber: Promise<RedisLike> | undefined;

	/** A store with its own Redis client (connected on first use). */
	constructor(connection: RedisConnection, options: RedisStateStoreOptions = {}) {
		this.connection = Object.freeze({ ...connection });
		this.options = { ...REDIS_STORE_DEFAULTS, ...options };
		if (!this.options.keyPrefix) throw new RedisStoreError('keyPrefix must not be empty');
		if (!(Number.isInteger(this.options.maxBatch) && this.options.maxBatch >= 1)) throw new RedisStoreError(`maxBatch must be a whole number of at least 1, not ${this.options.maxBatch}`);
		this.client = new RedisClient(this.connection, this.options);
	}

	/** The Redis key of an API's traffic state, e.g. `rh:traffic:{api:3f2a...}`: the braces keep an API's keys in one cluster slot. */
	keyFor(key: string): string {
		return `${this.options.keyPrefix}traffic:{${key.replace(/[{}]/g, '_')}}`;
	}

	/** What this store sent so far. */
	stats(): RedisStoreStats {
		return { ...this.counters };
	}

	/**
	 * Steps of this process on one key run in order; those queued while a script runs go in the
	 * next one together. Each starts from the state this process last saw, so that an uncontended
	 * step is one round trip.
	 */
	traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
		const lane = this.laneOf(key);
		return new Promise<T>((resolve, reject) => {
			lane.pending.push({ nowMs, params, step: step as TrafficStep<unknown>, resolve: resolve as (value: unknown) => void, reject });
			if (!lane.running) void this.drain(key, lane);
		});
	}

	private laneOf(key: string): Lane {
		let lane = this.lanes.get(key);
		if (lane) return lane;
		lane = { pending: [], running: false, seen: NOTHING, doubtful: [] };
		this.lanes.set(key, lane);
		// bounded: the least recently created idle lane goes (its next step costs one extra round trip)
		if (this.lanes.size > 10_000) {
			for (const [oldKey, old] of this.lanes) {
				if (!old.running && old.doubtful.length === 0) {
					this.lanes.delete(oldKey);
					break;
				}
			}
		}
		return lane;
	}

	private async drain(key: string, lane: Lane): Promise<void> {
		lane.running = true;
		try {
			while (lane.pending.length > 0) {
				const batch = lane.pending.splice(0, this.options.maxBatch);
				try {
					const results = await this.commit(key, lane, batch);
					batch.forEach((pending, i) => pending.resolve(results[i]));
				} catch (error) {
					// the steps queued behind a failed script would wait for the same Redis: they fail with it
					const failed = [...batch, ...lane.pending.splice(0)];
					const timedOut = error instanceof RedisTimeoutError;
					const wrapped = new RedisStepsError(error instanceof Error ? error.message : String(error), failed.length, timedOut);
					for (const pending of failed) pending.reject(wrapped);
				}
			}
		} finally {
			lane.running = false;
		}
	}

	private async commit(key: string, lane: Lane, batch: Pending[]): Promise<unknown[]> {
		const redisKey = this.keyFor(key);
		const keys = [redisKey, `${redisKey}:leases`];
		for (let attempt = 0; attempt < this.options.maxCasAttempts; attempt++) {
			const plan = this.plan(lane, batch, `${redisKey}:free`);
			this.counters.scripts++;
			const sent = plan.args.reduce((sum, arg) => sum + Buffer.byteLength(arg), 0) + keys[0].length * 2 + 8;
			this.counters.bytesSent += sent;
			const reply: unknown = await this.client.run(STEP, keys, plan.args).catch((error: unknown) => {
				if (error instanceof RedisTimeoutError) {
					// it may still run: its leases are ended by the next script, and what Redis holds is unknown
					this.counters.timeouts++;
					lane.doubtful.push(...plan.added);
					lane.seen = UNKNOWN;
				}
				return Promise.reject(error);
			});
			if (!Array.isArray(reply)) throw new RedisStoreError(`Redis store: unexpected script reply ${JSON.stringify(reply)}`);
			const received = reply.reduce<number>((sum, part) => sum + String(part).length, 0);
			this.counters.bytesReceived += received;
			this.counters.largestCall = Math.max(this.counters.largestCall, sent + received);
			if (Number(reply[0]) === 1) {
				this.counters.steps += batch.length;
				this.counters.leasesReleased += lane.doubtful.length;
				lane.doubtful = [];
				lane.seen = { ...plan.seen, count: Number(reply[1]), soonest: reply[2] === '' ? Infinity : Number(reply[2]) };
				return plan.results;
			}
			// another worker wrote the key in between (or leases expired): the steps run again on what it holds now
			this.counters.lostCas++;
			lane.seen = parseSeen(typeof reply[1] === 'string' ? reply[1] : '', Number(reply[2]), typeof reply[3] === 'string' ? reply[3] : '');
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
			const reply: unknown = await this.client.run(READ, [redisKey, `${redisKey}:leases`], [String(Math.floor(nowMs))]);
			if (!Array.isArray(reply)) continue;
			const { data } = parseSeen(typeof reply[0] === 'string' ? reply[0] : '', 0, '');
			if (data) found.push({ key: redisKey.slice(prefix.length, -1), data, inFlight: Number(reply[1]) || 0 });
		}
		return found;
	}

	/** Runs the batch's steps, in order, on what this process last saw: the script that applies them. */
	private plan(lane: Lane, batch: Pending[], channel: string): Plan {
		const seen = lane.seen;
		let { data, count, soonest } = seen;
		let changed = false;
		let frees = false;
		let forgetAt = -Infinity;
		let leasesUntil = -Infinity;
		let nowMs = -Infinity;
		const results: unknown[] = [];
		// a lease's end as an epoch for now; sent as ms after the script's now (fewer bytes per step)
		const ops: Array<string | number> = [];
		const added: string[] = [];
		for (const pending of batch) {
			nowMs = Math.max(nowMs, pending.nowMs);
			const view: LeaseView = { count: Math.max(0, count), soonest };
			const step = pending.step(data, view);
			results.push(step.result);
			if (step.changed) {
				data = step.data;
				changed = true;
				forgetAt = trafficForgetAt(step.data, pending.params);
			}
			if (step.lease && 'add' in step.lease) {
				const [id, end] = step.lease.add;
				ops.push('+', id, end);
				added.push(id);
				count++;
				soonest = Math.min(soonest, end);
				leasesUntil = Math.max(leasesUntil, end);
			} else if (step.lease) {
				ops.push('-', step.lease.end);
				count = Math.max(0, count - 1);
			}
			if (step.frees) frees = true;
		}
		for (const id of lane.doubtful) ops.push('-', id);
		const ttlMs = Math.ceil(forgetAt - nowMs + this.options.ttlGraceMs);
		const version = changed ? `${this.versionPrefix}.${(++this.versions).toString(36)}` : seen.version;
		const value = !changed ? '' : ttlMs > 0 ? `${version}\n${JSON.stringify(data)}` : '-';
		const leaseTtlMs = Math.max(1, Math.ceil(leasesUntil - nowMs + this.options.ttlGraceMs));
		const base = Math.floor(nowMs);
		const leaseOps = ops.map((op) => (typeof op === 'number' ? String(op - base) : op));
		const args = [seen.version, String(seen.count), String(base), value, String(Math.max(1, ttlMs)), String(leaseTtlMs), frees ? channel : '', this.versionPrefix, ...leaseOps];
		return { args, results, seen: { version: value === '-' ? '' : version, data: value === '-' ? undefined : data, count, soonest }, added };
	}

	/**
	 * Calls `onChange` when another process publishes that a request waiting on `key` may go. One
	 * subscription per key and process, whatever the number of watchers.
	 */
	watch(key: string, onChange: () => void): () => void {
		const channel = `${this.keyFor(key)}:free`;
		let listeners = this.watchers.get(channel);
		if (!listeners) {
			listeners = new Set();
			this.watchers.set(channel, listeners);
			void this.subscribe(channel, true);
		}
		listeners.add(onChange);
		return () => {
			listeners.delete(onChange);
			if (listeners.size > 0 || this.watchers.get(channel) !== listeners) return;
			this.watchers.delete(channel);
			void this.subscribe(channel, false);
		};
	}

	private async subscribe(channel: string, on: boolean): Promise<void> {
		try {
			const subscriber = await this.subscriberClient();
			if (!on) {
				await subscriber.unsubscribe(channel);
				return;
			}
			await subscriber.subscribe(channel);
			// news published while the subscription was being made is lost: the watchers look once now
			for (const listener of this.watchers.get(channel) ?? []) listener();
		} catch {
			// without pub/sub the waiting requests still look again at the gate's safety poll
			const failed = this.subscriber;
			this.subscriber = undefined;
			(await failed?.catch(() => undefined))?.disconnect();
		}
	}

	private subscriberClient(): Promise<RedisLike> {
		this.subscriber ??= this.client.duplicate().then((subscriber) => {
			subscriber.on('message', (channel: string, from: string) => {
				// this process's own reports already woke its waiters
				if (from === this.versionPrefix) return;
				for (const listener of this.watchers.get(channel) ?? []) listener();
			});
			return subscriber;
		});
		return this.subscriber;
	}

	/** Connects when not connected yet and sends PING (the credential test). */
	async ping(): Promise<void> {
		await this.client.ping();
	}

	/** Closes the connections (tests, shutdown). The next call connects again. */
	async close(): Promise<void> {
		const subscriber = this.subscriber;
		this.subscriber = undefined;
		if (subscriber) (await subscriber.catch(() => undefined))?.disconnect();
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
