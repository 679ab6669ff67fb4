/**
 * What one worker learned alone, added to the shared state when the shared store answers again
 * (the Redis store came back after the worker used its memory meanwhile): a pause the API asked
 * for, a hold on an API that looks down, a pace learned from throttling and a quota (the API's or
 * a bucket's) are news of the API as good as any other worker's; forgetting them would send again
 * what the API refused.
 * Counts (window, budget, successes) stay the shared ones: a worker's own counts of a few seconds
 * would only undo what all workers learned together. Pure, like the controller.
 */
import { MAX_ROUTES } from './buckets';
import { freshTraffic, type Step, type TrafficData, type TrafficParams } from './controller';

function adoptPause(data: TrafficData, local: TrafficData, nowMs: number): void {
	if (!(local.pausedUntil > nowMs && local.pausedUntil > data.pausedUntil)) return;
	data.pausedUntil = local.pausedUntil;
	if (local.pausedBy !== undefined) data.pausedBy = local.pausedBy;
	// a guessed end is probed; the local probe's request is not the shared state's
	if (local.pauseProbeAt !== undefined) data.pauseProbeAt = local.pauseProbeAt;
	if (local.pauseProbeMs !== undefined) data.pauseProbeMs = local.pauseProbeMs;
	delete data.pauseProbeId;
}

function adoptRate(data: TrafficData, local: TrafficData): void {
	const learned = local.rate.learned;
	if (learned && (!data.rate.learned || learned.at > data.rate.learned.at)) data.rate.learned = { ...learned };
	data.rate.nextAt = Math.max(data.rate.nextAt, local.rate.nextAt);
	const quota = local.rate.quota;
	if (quota && (!data.rate.quota || quota.resetAt > data.rate.quota.resetAt)) {
		const { asking: _asking, askingUntil: _askingUntil, ...counted } = quota;
		data.rate.quota = counted;
	}
}

/** The buckets' quotas and routes learned alone: a quota with a later reset is the newer word, as for the API's own. */
function adoptBuckets(data: TrafficData, local: TrafficData): void {
	if (!local.buckets) return;
	const buckets = (data.buckets ??= { routes: [], quotas: {} });
	for (const [route, bucket] of local.buckets.routes) if (!buckets.routes.some(([r]) => r === route)) buckets.routes.push([route, bucket]);
	// the bound the controller keeps (the oldest learned go first)
	if (buckets.routes.length > MAX_ROUTES) buckets.routes.splice(0, buckets.routes.length - MAX_ROUTES);
	for (const [bucket, quota] of Object.entries(local.buckets.quotas)) {
		const known = buckets.quotas[bucket];
		if (known && known.resetAt >= quota.resetAt) continue;
		const { asking: _asking, askingUntil: _askingUntil, ...counted } = quota;
		buckets.quotas[bucket] = counted;
	}
}

/**
 * The shared state with what `local` learned meanwhile; `local` is not changed. No shared state
 * (a Redis that came back empty): a fresh one, with the news; the counts start afresh as they
 * would for every other worker.
 */
export function adoptLearned(shared: TrafficData | undefined, local: TrafficData, nowMs: number, params: TrafficParams): Step<boolean> {
	const data: TrafficData = shared ? (JSON.parse(JSON.stringify(shared)) as TrafficData) : freshTraffic(params, nowMs);
	adoptPause(data, local, nowMs);
	adoptRate(data, local);
	adoptBuckets(data, local);
	// a hold opened alone is kept (its probe finds out for everyone); a shared one is left as it is
	if (local.hold && local.hold.state === 'open' && (!data.hold || data.hold.state === 'closed')) {
		const { probeSince: _probeSince, ...hold } = local.hold;
		data.hold = JSON.parse(JSON.stringify(hold)) as NonNullable<TrafficData['hold']>;
	}
	data.touchedAt = Math.max(data.touchedAt, local.touchedAt);
	return { data, result: true, changed: true };
}
