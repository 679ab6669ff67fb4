/**
 * Shared state of the traffic controllers (one per API: retry budget, outage hold, pause, learned
 * window and pace). Two stores implement it: in memory (default, per n8n process) and Redis (queue
 * mode, shared by all workers). Every step is atomic, so concurrent executions and workers never
 * lose an update.
 */
import type { LeaseView, Step, TrafficData, TrafficParams } from './controller';
import type { ApiCounts, Counts } from './traffic-counts';

/**
 * One atomic step on an API's traffic state (see core/traffic/controller.ts): the state, and the
 * requests in flight as the store counts them at the step's time.
 */
export type TrafficStep<T> = (data: TrafficData | undefined, leases: LeaseView) => Step<T>;

export interface StateStore {
	readonly kind: 'memory' | 'redis';
	/**
	 * Applies one pure step of the traffic controller to the state of `key` atomically: no other
	 * step on that key, of this process or another worker, runs in between. `params` tell the store
	 * when the resulting state may be dropped (trafficForgetAt).
	 */
	traffic<T>(key: string, nowMs: number, params: TrafficParams, step: TrafficStep<T>): Promise<T>;
	/**
	 * Calls `onChange` when another process reports a change of `key` that may let a waiting
	 * request go (a store shared by processes); returns what ends the watch. Absent: nothing but
	 * this process changes the state.
	 */
	watch?(key: string, onChange: () => void): () => void;
	/**
	 * Adds what a request of `key` counted (traffic-counts.ts) to the counts the store keeps for
	 * every process (a store shared by processes); never waits and never fails: the counts go in
	 * the background. Absent: the store keeps none (the process's are the only ones).
	 */
	count?(key: string, label: string, counts: Counts): void;
}

/** Every API's state, read for an operator (the Traffic Control node), never on a request's path. */
export interface TrafficInspector {
	/** The APIs whose state is kept now: their keys (hashed), states and requests in flight, in no particular order. */
	list(nowMs: number): Promise<Array<{ key: string; data: TrafficData; inFlight: number }>>;
	/** Every process's counts per API, this one's included (a store shared by processes; StateStore.count). */
	counts?(): Promise<ApiCounts[]>;
}
