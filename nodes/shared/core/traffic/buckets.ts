/**
 * Rate-limit buckets an API names in its answers: GitHub's `x-ratelimit-resource` (core, search,
 * graphql...), Discord's `x-ratelimit-bucket`, Zendesk's endpoint header `zendesk-ratelimit-<endpoint>`
 * (whose answers also carry the account's count: the API's). A quota such an answer advertises is that bucket's,
 * not the API's: when it is spent, requests to that bucket wait for its reset and the API's other
 * endpoints go on. Without a name the API is the unit (rate.ts keeps its quota).
 *
 * A request does not know its bucket before it is sent; its route (method and path, hashed by the
 * caller) is mapped to the bucket the last answer on that route named (as Discord documents for its
 * bucket header: "group shared limits as you encounter them"). A route never answered yet is not
 * held back: its answer tells. Pure and plain JSON, kept in the API's state (controller.ts).
 *
 * A bucket's count is taken as the answer says it: the requests in flight are the API's, not the
 * bucket's (the controller does not know a request's bucket until it answers), so none are taken
 * off. Near the end of a bucket's quota a few requests more than it holds may go; their throttle
 * (GitHub's 403, Discord's 429, with the reset) pauses the bucket like a count of 0 does.
 */
import { countSent, onQuota, quotaSpentUntil, quotaUnanswered, type Quota, type QuotaChange, type QuotaHolder } from './rate';

export interface BucketsData {
	/** [route, bucket]: the bucket each route's last answer named, the most recently learned last. */
	routes: Array<[route: string, bucket: string]>;
	/** Each bucket's quota (a bucket without one is dropped). */
	quotas: Record<string, Quota>;
}

/** Routes remembered per API: far more endpoints than a workflow calls, and a small state. */
export const MAX_ROUTES = 64;
/** Buckets with a quota in force per API (GitHub has about ten resources). */
const MAX_BUCKETS = 32;

function bucketOfRoute(data: BucketsData | undefined, route: string | undefined): string | undefined {
	if (!data || route === undefined) return undefined;
	for (const [r, bucket] of data.routes) if (r === route) return bucket;
	return undefined;
}

/**
 * The bucket a route maps to, when its quota holds the request back: spent until its reset ('time'),
 * or past the reset while the request asking for the new count is out ('change').
 */
export function bucketSpentUntil(data: BucketsData | undefined, route: string | undefined, nowMs: number): { bucket: string; until: number; wake: 'time' | 'change' } | undefined {
	const bucket = bucketOfRoute(data, route);
	if (bucket === undefined || !data) return undefined;
	const quota = data.quotas[bucket];
	if (!quota) return undefined;
	const spent = quotaSpentUntil({ quota }, nowMs);
	return spent ? { bucket, ...spent } : undefined;
}

/** A request on a route goes (mutates): it counts against its bucket's quota. `leaseEnd`: when its lease ends. */
export function bucketSent(data: BucketsData | undefined, route: string | undefined, nowMs: number, id: string, leaseEnd: number): void {
	const bucket = bucketOfRoute(data, route);
	if (bucket === undefined || !data || !data.quotas[bucket]) return;
	countSent({ quota: data.quotas[bucket] }, nowMs, id, leaseEnd);
}

/** Runs `change` on the bucket's quota and keeps what it leaves (mutates). */
function onBucketQuota<T>(data: BucketsData, bucket: string, change: (holder: QuotaHolder) => T): T {
	const holder: QuotaHolder = data.quotas[bucket] ? { quota: data.quotas[bucket] } : {};
	const result = change(holder);
	if (holder.quota) data.quotas[bucket] = holder.quota;
	else delete data.quotas[bucket];
	return result;
}

/** The answer on `route` named `bucket`: the route is mapped to it (mutates). */
function learnRoute(data: BucketsData, route: string, bucket: string): void {
	const index = data.routes.findIndex(([r]) => r === route);
	if (index >= 0 && index === data.routes.length - 1 && data.routes[index][1] === bucket) return;
	if (index >= 0) data.routes.splice(index, 1);
	data.routes.push([route, bucket]);
	if (data.routes.length > MAX_ROUTES) data.routes.shift();
}

interface BucketAnswer {
	route?: string;
	bucket: string;
	/** The quota the answer advertised: the bucket's (its reset an instant, epoch ms). */
	quota?: { remaining: number; resetAt: number };
	/** A throttle's stated wait (Retry-After) when it outlasts the reset. */
	waitMs?: number;
}

/** An answer that named its bucket (mutates; creates the buckets' state): how the bucket's quota changed. */
export function bucketAnswered(data: BucketsData, nowMs: number, id: string, answer: BucketAnswer): QuotaChange {
	if (answer.route !== undefined) learnRoute(data, answer.route, answer.bucket);
	const quota = answer.quota;
	if (!quota) return onBucketQuota(data, answer.bucket, (holder) => quotaUnanswered(holder, id, nowMs));
	const resetAt = Math.max(nowMs, quota.resetAt, quota.remaining <= 0 ? nowMs + (answer.waitMs ?? 0) : 0);
	const change = onBucketQuota(data, answer.bucket, (holder) => onQuota(holder, quota.remaining, resetAt, 0, nowMs));
	const names = Object.keys(data.quotas);
	// the bound: the buckets whose reset comes first go first (a spent one lasts longest)
	if (names.length > MAX_BUCKETS) {
		const soonest = names.reduce((a, b) => (data.quotas[b].resetAt < data.quotas[a].resetAt ? b : a));
		delete data.quotas[soonest];
	}
	return change;
}

/** Keeps what still matters at `nowMs` (mutates): quotas past their reset with nobody asking are dropped. */
export function settleBuckets(data: BucketsData, nowMs: number): void {
	for (const [bucket, quota] of Object.entries(data.quotas)) {
		if (quota.resetAt <= nowMs && quota.asking === undefined && quota.spent !== true) delete data.quotas[bucket];
	}
}

/** From this time on the buckets' quotas matter no more (the routes are kept with the API's memory). */
export function bucketsForgetAt(data: BucketsData): number {
	let latest = -Infinity;
	for (const quota of Object.values(data.quotas)) latest = Math.max(latest, quota.resetAt);
	return latest;
}
