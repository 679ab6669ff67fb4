/**
 * The batching of the Redis store: the steps of this process on one API (a lane) run one script
 * at a time, in order; those that queued while a script ran go together in the next one, up to
 * maxBatch, so a busy worker makes fewer calls, not more. What a batch costs in Redis is the
 * committer's (redis-store.ts); a failed one fails the steps queued behind it too.
 */
import type { TrafficParams } from '../core/traffic/controller';
import type { TrafficStep } from '../core/traffic/store';
import { RedisStoreError } from './redis-connection';
import { RedisTimeoutError } from './redis-client';
import { LeaseNames } from './lease-names';
import { NOTHING, type QueuedStep, type Seen } from './step-planner';

interface Pending extends QueuedStep {
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/** The steps of this process on one API: one script at a time, the others queued behind it. */
export interface Lane {
	pending: Pending[];
	running: boolean;
	/** What this process last saw of the API: each batch starts from it. */
	seen: Seen;
	/** This process's leases on the API as Redis names them (and those a timed-out script may have left). */
	names: LeaseNames;
}

/** Applies one batch of a lane's steps in Redis; resolves with their results, in order. */
type CommitBatch = (key: string, lane: Lane, batch: readonly QueuedStep[]) => Promise<unknown[]>;

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

/** Lanes kept at most: past it the least recently created idle one goes (its next step costs one extra round trip). */
const MAX_LANES = 10_000;

export class StepBatcher {
	private readonly lanes = new Map<string, Lane>();

	constructor(
		private readonly maxBatch: number,
		private readonly commit: CommitBatch,
	) {}

	/** Queues a step on its API's lane; it runs in the lane's next script. */
	enqueue<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T> {
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
		if (this.lanes.size > MAX_LANES) {
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
				const batch = lane.pending.splice(0, this.maxBatch);
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
}
