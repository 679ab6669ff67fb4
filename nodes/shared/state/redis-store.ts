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
import { trafficForgetAt, type LeaseView, type TrafficData, type TrafficParams } from '../core/traffic/controller';
import { connectionId, RedisStoreError, type RedisConnection } from './redis-connection';
import { RedisClient, RedisTimeoutError, type RedisLike } from './redis-client';
import type { StateStore, TrafficInspector, TrafficStep } from '../core/traffic/store';
import { LeaseNames, type LeaseChanges } from './lease-names';
import { counterChanges, countersFromHash, joinTraffic, splitTraffic, withScalarCounts, type Counters } from './traffic-counters';
import { decodeRead, decodeStep, encodeRead, encodeStep, freeChannel, READ, replyBytes, STEP, type StepPlan, type StepReply } from './step-codec';

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
	/** Scripts that added their counts to other workers' (Step.merges) rather than compare them. */
	merges: number;
	/** Of the lost races, why: another version of the state, leases in flight out of the steps' range, a window others grew, counts others added to (an exact write). */
	lostTo: { state: number; inFlight: number; window: number; counts: number };
	/** Scripts that got no answer in time. */
	timeouts: number;
	/** Leases a timed-out script may have added (or was to end) that a later script ended. */
	leasesReleased: number;
	/** Bytes of the scripts' arguments and answers. */
	bytesSent: number;
	bytesReceived: number;
	/** The most bytes one script sent and got back: bounded by maxBatch steps, whatever the requests in flight. */
	largestCall: number;
}

/** What this process last saw of an API: its version, state and leases. */
interface Seen {
	version: string;
	/** The state without its counts, canonical JSON ('' none). */
	base: string;
	data: TrafficData | undefined;
	counters: Counters;
	/**
	 * The counts' sequence in Redis when `counters` were all of them; STALE once another worker
	 * added to them since (an exact write then fetches them first).
	 */
	sequence: string;
	count: number;
	soonest: number;
}

const STALE = '\u0000stale';
const NO_COUNTERS: Counters = new Map();

/** Nothing seen yet: an API Redis does not hold costs no extra round trip. */
const NOTHING: Seen = Object.freeze({ version: '', base: '', data: undefined, counters: NO_COUNTERS, sequence: '', count: 0, soonest: Infinity });
/** After a timeout: what Redis holds is unknown, the next script fetches it. */
const UNKNOWN: Seen = Object.freeze({ version: '\u0000unknown', base: '', data: undefined, counters: NO_COUNTERS, sequence: STALE, count: -1, soonest: Infinity });

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
	/** This process's leases on the API as Redis names them (and those a timed-out script may have left). */
	names: LeaseNames;
}

/** One script's arguments, and what the steps answered if it applies. */
interface Plan {
	step: StepPlan;
	results: unknown[];
	/** What this process sees once it applies (a merge: before the counts Redis hands back). */
	seen: Seen;
	merge: boolean;
	/** The counts' sequence the script leaves when no other worker added to them meanwhile. */
	nextSequence: string;
	leases: LeaseChanges;
}

/** A state a key holds ("<version>\n<json>") and its counts, or NOTHING for none (or something that is no state of ours). */
function parseSeen(raw: string, count: number, soonest: string, sequence: string, hash: unknown): Seen {
	const newline = raw.indexOf('\n');
	const counters = Array.isArray(hash) ? countersFromHash(hash) : NO_COUNTERS;
	const rest = { counters, sequence, count, soonest: soonest === '' ? Infinity : Number(soonest) };
	if (raw === '' || newline < 0) return { ...NOTHING, ...rest, version: raw === '' ? '' : raw };
	const version = raw.slice(0, newline);
	try {
		const data = joinTraffic(JSON.parse(raw.slice(newline + 1)), counters);
		return { version, base: data ? raw.slice(newline + 1) : '', data, ...rest };
	} catch {
		return { version, base: '', data: undefined, ...rest };
	}
}

/** What this process sees once a script applied its plan: the leases Redis counts, and after a merge the window's counts others added to. */
function applied(plan: Plan, reply: Extract<StepReply, { applied: true }>): Seen {
	const leases = { count: reply.inFlight, soonest: reply.soonest };
	const sequence = reply.sequence;
	if (!plan.merge) return { ...plan.seen, ...leases, sequence };
	// nobody else added to the counts since this process last had them all: it still has them all
	const complete = sequence === plan.nextSequence;
	const data = plan.seen.data;
	if (!data) return { ...plan.seen, ...leases, sequence: complete ? sequence : STALE };
	const counters = new Map([...plan.seen.counters, ...reply.scalars]);
	return { ...plan.seen, ...leases, data: { ...data, ...withScalarCounts(data, counters) }, counters, sequence: complete ? sequence : STALE };
}

/** STEP's reply, or a store error for what is none. */
function decodeReply(raw: unknown): StepReply {
	const reply = decodeStep(raw);
	if (!reply) throw new RedisStoreError(`Redis store: unexpected script reply ${JSON.stringify(raw)}`);
	return reply;
}

/** What a batch's steps did, run in order on what this process last saw. */
interface Ran {
	results: unknown[];
	/** The state after them; params: those of the last step that changed it (none: nothing changed). */
	data: TrafficData | undefined;
	params: TrafficParams | undefined;
	count: number;
	soonest: number;
	nowMs: number;
	frees: boolean;
	/** The leases added (id, end) and ended (id), and the latest end of one added. */
	added: Array<[string, number]>;
	ended: string[];
	leasesUntil: number;
	/**
	 * Every step merges (Step.merges), for any leases in flight in [fewest, most] and a window of at
	 * most windowAtMost; `most` is for a window of roomSize, and grows with it up to roomCeiling.
	 */
	mergeable: boolean;
	fewest: number;
	most: number;
	windowAtMost: number;
	roomSize: number;
	roomCeiling: number;
	/** No step has a most in flight that a grown window leaves as it is (a fixed window, one at its ceiling). */
	roomGrows: boolean;
}

function runSteps(seen: Seen, batch: readonly Pending[]): Ran {
	const ran: Ran = { results: [], data: seen.data, params: undefined, count: seen.count, soonest: seen.soonest, nowMs: -Infinity, frees: false, added: [], ended: [], leasesUntil: -Infinity, mergeable: seen.version !== '', fewest: -Infinity, most: Infinity, windowAtMost: Infinity, roomSize: -Infinity, roomCeiling: Infinity, roomGrows: true };
	for (const pending of batch) {
		ran.nowMs = Math.max(ran.nowMs, pending.nowMs);
		const view: LeaseView = { count: Math.max(0, ran.count), soonest: ran.soonest };
		const step = pending.step(ran.data, view);
		ran.results.push(step.result);
		if (step.merges) {
			// the step saw the leases seen plus those the steps before it added or ended
			ran.fewest = Math.max(ran.fewest, step.merges.inFlight[0] - (view.count - seen.count));
			ran.most = Math.min(ran.most, step.merges.inFlight[1] - (view.count - seen.count));
			ran.windowAtMost = Math.min(ran.windowAtMost, step.merges.windowAtMost ?? Infinity);
			// the largest window a step's room was for and the smallest ceiling: the growth counted is never more than a step's
			if (step.merges.roomGrows) {
				ran.roomSize = Math.max(ran.roomSize, step.merges.roomGrows.size);
				ran.roomCeiling = Math.min(ran.roomCeiling, step.merges.roomGrows.ceiling);
			} else if (Number.isFinite(step.merges.inFlight[1])) ran.roomGrows = false;
		} else ran.mergeable = false;
		if (step.changed) {
			ran.data = step.data;
			ran.params = pending.params;
		}
		if (step.lease && 'add' in step.lease) {
			const [id, end] = step.lease.add;
			ran.added.push([id, end]);
			ran.count++;
			ran.soonest = Math.min(ran.soonest, end);
			ran.leasesUntil = Math.max(ran.leasesUntil, end);
		} else if (step.lease) {
			ran.ended.push(step.lease.end);
			ran.count = Math.max(0, ran.count - 1);
		}
		if (step.frees) ran.frees = true;
	}
	ran.mergeable &&= ran.fewest <= seen.count && seen.count <= ran.most;
	return ran;
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
	private readonly counters: RedisStoreStats = { scripts: 0, steps: 0, merges: 0, lostTo: { state: 0, inFlight: 0, window: 0, counts: 0 }, lostCas: 0, timeouts: 0, leasesReleased: 0, bytesSent: 0, bytesReceived: 0, largestCall: 0 };
	private readonly watchers = new Map<string, Set<() => void>>();
	private subscriber: Promise<RedisLike> | undefined;

	/** A store with its own Redis client (connected on first use). */
	constructor(connection: RedisConnection, options: RedisStateStoreOptions = {}) {
		this.connection = Object.freeze({ ...connection });
		this.options = { ...REDIS_STORE_DEFAULTS, ...options };
		if (!this.options.keyPrefix) throw new RedisStoreError('keyPrefix must not be empty');
		// the script passes a batch's leases to one ZADD (Lua's unpack takes a few thousand values at most)
		if (!(Number.isInteger(this.options.maxBatch) && this.options.maxBatch >= 1 && this.options.maxBatch <= 1_000)) throw new RedisStoreError(`maxBatch must be a whole number from 1 to 1000, not ${this.options.maxBatch}`);
		this.client = new RedisClient(this.connection, this.options);
	}

	/** The Redis key of an API's traffic state, e.g. `rh:traffic:{api:3f2a...}`: the braces keep an API's keys in one cluster slot. */
	keyFor(key: string): string {
		return `${this.options.keyPrefix}traffic:{${key.replace(/[{}]/g, '_')}}`;
	}

	/** What this store sent so far. */
	stats(): RedisStoreStats {
		return { ...this.counters, lostTo: { ...this.counters.lostTo } };
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
		lane = { pending: [], running: false, seen: NOTHING, names: new LeaseNames() };
		this.lanes.set(key, lane);
		// bounded: the least recently created idle lane goes (its next step costs one extra round trip)
		if (this.lanes.size > 10_000) {
			for (const [oldKey, old] of this.lanes) {
				if (!old.running && old.names.idle()) {
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
		for (let attempt = 0; attempt < this.options.maxCasAttempts; attempt++) {
			const plan = this.plan(lane, batch, redisKey);
			const call = encodeStep(plan.step);
			this.counters.scripts++;
			if (plan.merge) this.counters.merges++;
			this.counters.bytesSent += call.bytes;
			const raw: unknown = await this.client.run(STEP, call.keys, call.args).catch((error: unknown) => {
				if (error instanceof RedisTimeoutError) {
					// it may still run: its leases are ended by the next script, and what Redis holds is unknown
					this.counters.timeouts++;
					lane.names.timedOut(plan.leases);
					lane.seen = UNKNOWN;
				}
				return Promise.reject(error);
			});
			const reply = decodeReply(raw);
			const received = replyBytes(raw);
			this.counters.bytesReceived += received;
			this.counters.largestCall = Math.max(this.counters.largestCall, call.bytes + received);
			if (reply.applied) {
				this.counters.steps += batch.length;
				this.counters.leasesReleased += lane.names.pendingEnds;
				lane.names.applied(plan.leases);
				lane.seen = applied(plan, reply);
				return plan.results;
			}
			// another worker changed the state in between (or leases expired): the steps run again on what it holds now
			this.counters.lostCas++;
			if (reply.lostTo) this.counters.lostTo[reply.lostTo]++;
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
	 * Runs the batch's steps, in order, on what this process last saw: the script that applies them.
	 * A merge when every step says its verdict reads no count (Step.merges) and the steps only added
	 * to counts: then other workers' healthy requests, which only add to counts too, race it no more.
	 */
	private plan(lane: Lane, batch: Pending[], redisKey: string): Plan {
		const seen = lane.seen;
		const ran = runSteps(seen, batch);
		const { data, count, soonest, nowMs, results } = ran;
		const base = Math.floor(nowMs);
		const leases = lane.names.changes(ran.added, ran.ended, nowMs);
		const next = { ...seen, data, count, soonest };
		// a window others grew raises the most in flight, when every step with a most said so (refusals have none)
		const room = ran.roomGrows && Number.isFinite(ran.roomSize) ? { size: ran.roomSize, ceiling: ran.roomCeiling } : undefined;
		// the check (a merge's or an exact write's), what to write, the count and lease changes
		const stepPlan = (merge: boolean, write: StepPlan['write'], ttlMs: number, counterOps: StepPlan['counterOps']): StepPlan => ({
			redisKey,
			check: merge ? { merge, version: seen.version, fewest: Math.max(0, ran.fewest), most: ran.most, windowAtMost: ran.windowAtMost, room } : { merge, version: seen.version, sequence: seen.sequence, inFlight: seen.count },
			nowMs: base,
			write,
			ttlMs: Math.max(1, ttlMs),
			leaseTtlMs: Math.max(1, Math.ceil(ran.leasesUntil - nowMs + this.options.ttlGraceMs)),
			counterOps,
			leases: { prefix: this.versionPrefix, first: leases.first, added: leases.added.length, endsInMs: leases.added.length > 0 ? Math.ceil(ran.leasesUntil - base) : 0, ended: leases.endNumbers },
			publish: ran.frees,
			from: this.versionPrefix,
		});
		if (!ran.params || !data) {
			// nothing to write: the check that the verdicts still hold, and the leases
			return { step: stepPlan(ran.mergeable, undefined, 1, []), results, seen: next, merge: ran.mergeable, nextSequence: seen.sequence, leases };
		}
		const split = splitTraffic(data);
		const changes = counterChanges(seen.counters, split.counters);
		const ttlMs = Math.ceil(trafficForgetAt(data, ran.params) - nowMs + this.options.ttlGraceMs);
		const merge = ran.mergeable && split.base === seen.base && changes.merge !== undefined && ttlMs > 0;
		const counterOps = (merge ? changes.merge : changes.exact)!;
		const nextSequence = counterOps.length === 0 ? seen.sequence : /^\d+$/.test(seen.sequence) ? String(Number(seen.sequence) + 1) : seen.sequence === '' ? '1' : STALE;
		if (merge) {
			return { step: stepPlan(true, undefined, ttlMs, counterOps), results, seen: { ...next, counters: split.counters }, merge, nextSequence, leases };
		}
		const rewrite = split.base !== seen.base;
		const version = rewrite ? `${this.versionPrefix}.${(++this.versions).toString(36)}` : seen.version;
		const write = ttlMs <= 0 ? 'delete' : rewrite ? { value: `${version}\n${split.base}` } : undefined;
		const after: Seen = write === 'delete' ? { ...NOTHING, count, soonest } : { ...next, version, base: split.base, counters: split.counters };
		return { step: stepPlan(false, write, ttlMs, counterOps), results, seen: after, merge, nextSequence: write === 'delete' ? '' : nextSequence, leases };
	}

	/**
	 * Calls `onChange` when another process publishes that a request waiting on `key` may go. One
	 * subscription per key and process, whatever the number of watchers.
	 */
	watch(key: string, onChange: () => void): () => void {
		const channel = freeChannel(this.keyFor(key));
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
