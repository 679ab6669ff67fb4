/**
 * What an operator reads of an API's traffic controller, and how a pause or a hold is ended by hand
 * (the Resilient HTTP Traffic Control node). Pure: the state as a store keeps it, the time passed in.
 *
 * The view shows what the state holds: the settings of the nodes that call the API (Max Items in
 * Flight, Rate Limit, the budget's share) are theirs, not the state's, so the window is the learned
 * one (a node's Max Items in Flight caps it), the pace the learned one, the budget its counts.
 * Each part is its limit's (limits/limit.ts view and resume), for the package's limits: the
 * operator is handed no TrafficParams, so a list a caller passes there is not shown.
 */
import { freshRate } from './rate';
import { freshWindow } from './window';
import type { ResumeRequest, TrafficData, TrafficEvent, TrafficView } from './types';
import { isoTime } from './limits/limit';
import { TRAFFIC_LIMITS } from './limits/registry';

/** One API's view, each limit's part by the limit; `inFlight`: its requests in flight, as the store counts them (leases are not in the state). */
export function trafficView(key: string, data: TrafficData, inFlight: number, nowMs: number): TrafficView {
	const view: TrafficView = { api: key, label: data.label ?? null, paused: null, buckets: [], held: null, window: null, pace: { learnedPerSecond: null, nextAt: null }, budget: null, tokens: null, lastRequestAt: isoTime(data.touchedAt) };
	for (const limit of TRAFFIC_LIMITS) limit.view?.(data, nowMs, view, inFlight);
	return view;
}

/**
 * Ends a pause or a hold by hand (mutates a copy): the next request goes at once. A spent quota is
 * forgotten (the next answer says the count again); a hold closes and the window restarts in slow
 * start, as after a successful probe.
 */
export function resumeTraffic(previous: TrafficData | undefined, nowMs: number, what: ResumeRequest): { data: TrafficData; events: TrafficEvent[] } {
	// no state: nothing to end (a state forgotten long ago, which a store drops at once)
	if (!previous) return { data: { window: freshWindow({ ceiling: 1, mode: 'adaptive' }), rate: freshRate(), pausedUntil: 0, touchedAt: -Infinity }, events: [] };
	const data = JSON.parse(JSON.stringify(previous)) as TrafficData;
	const events: TrafficEvent[] = [];
	for (const limit of TRAFFIC_LIMITS) limit.resume?.(data, nowMs, what, events);
	return { data, events };
}
