/**
 * What one worker learned alone, added to the shared state when the shared store answers again
 * (the Redis store came back after the worker used its memory meanwhile): a pause the API asked
 * for, a hold on an API that looks down, a pace learned from throttling and a quota (the API's or
 * a bucket's) are news of the API as good as any other worker's; forgetting them would send again
 * what the API refused.
 * Counts (window, budget, successes) stay the shared ones: a worker's own counts of a few seconds
 * would only undo what all workers learned together. Pure, like the controller.
 */
import { freshTraffic, type Step, type TrafficData, type TrafficParams } from './controller';
import { TRAFFIC_LIMITS } from './limits/registry';

/**
 * The shared state with what `local` learned meanwhile; `local` is not changed. No shared state
 * (a Redis that came back empty): a fresh one, with the news; the counts start afresh as they
 * would for every other worker.
 */
export function adoptLearned(shared: TrafficData | undefined, local: TrafficData, nowMs: number, params: TrafficParams): Step<boolean> {
	const data: TrafficData = shared ? (JSON.parse(JSON.stringify(shared)) as TrafficData) : freshTraffic(params, nowMs);
	for (const limit of params.limits ?? TRAFFIC_LIMITS) limit.adopt?.(data, local, nowMs);
	data.touchedAt = Math.max(data.touchedAt, local.touchedAt);
	return { data, result: true, changed: true };
}
