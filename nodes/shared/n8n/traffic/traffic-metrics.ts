/**
 * This process's traffic counts (nodes/shared/core/traffic/traffic-counts.ts), added to where a
 * request passes its API's controller and where the controller's events are published: the
 * process keeps them for Traffic Control's Get Metrics on the memory store, and a store shared by
 * processes (Redis) is handed them too, for the fleet's (it adds them up in the background).
 */
import type { StateStore } from '../../core/traffic/store';
import { TrafficCounts, type Counts } from '../../core/traffic/traffic-counts';

const processCounts = new TrafficCounts();

/** Counts what one request or step of `key` did, in this process and in the store that keeps the fleet's. */
export function countTraffic(store: StateStore, api: { key: string; label: string }, counts: Counts): void {
	processCounts.add(api.key, api.label, counts);
	store.count?.(api.key, api.label, counts);
}

/** What this process counted, per API. */
export function getProcessTrafficCounts(): TrafficCounts {
	return processCounts;
}
