/**
 * The rate-limit buckets an API names in its answers (buckets.ts: GitHub's resources, Discord's
 * buckets, Zendesk's endpoints): a request whose route maps to a bucket whose quota is spent waits
 * for the bucket's reset; the API's other routes go on.
 */
import { bucketAnswered, bucketSent, bucketsForgetAt, bucketSpentUntil, MAX_ROUTES, settleBuckets, type BucketsData } from '../buckets';
import { isoTime as iso, readsNoCount } from './limit';
import type { Limit, Outcome } from '../types';

/** The answer says its bucket's quota is spent: the bucket's limit, not the API's (it pauses that bucket's routes only). */
export function spentBucketAnswer(outcome: Outcome): boolean {
	return outcome.bucket !== undefined && outcome.quota !== undefined && outcome.quota.remaining <= 0;
}

/** A deep copy of plain JSON (the buckets are nothing else), for a step that changes them in place. */
function copyJson<T>(value: T): T {
	if (typeof value !== 'object' || value === null) return value;
	if (Array.isArray(value)) return value.map(copyJson) as T;
	const copy: Record<string, unknown> = {};
	for (const key of Object.keys(value)) copy[key] = copyJson((value as Record<string, unknown>)[key]);
	return copy as T;
}

function asking(data: BucketsData | undefined, id: string): boolean {
	if (data === undefined) return false;
	for (const bucket in data.quotas) if (data.quotas[bucket].asking === id) return true;
	return false;
}

export const buckets: Limit = {
	name: 'buckets',
	copy(data) {
		if (data.buckets) data.buckets = copyJson(data.buckets);
	},
	settle(data, nowMs) {
		if (data.buckets) settleBuckets(data.buckets, nowMs);
	},
	verdict({ data, nowMs, request }) {
		const spent = bucketSpentUntil(data.buckets, request.route, nowMs);
		return spent === undefined ? undefined : { go: false, reason: 'paused', until: spent.until, wake: spent.wake, pausedBy: 'quota', bucket: spent.bucket };
	},
	refusalMerges: readsNoCount,
	admitted({ data, nowMs, request }, admission) {
		bucketSent(data.buckets, request.route, nowMs, request.id, admission.lease[1]);
	},
	admissionMerges: readsNoCount,
	completed(answer) {
		const { data, nowMs, id, outcome, events } = answer;
		if (asking(data.buckets, id)) answer.frees = answer.exact = true;
		if (outcome.bucket === undefined) return;
		answer.exact = true;
		data.buckets ??= { routes: [], quotas: {} };
		const wait = outcome.throttled && outcome.serverWait && !outcome.serverWait.inferred ? { waitMs: outcome.serverWait.ms } : {};
		const change = bucketAnswered(data.buckets, nowMs, id, { bucket: outcome.bucket, ...(outcome.route !== undefined ? { route: outcome.route } : {}), ...(outcome.quota ? { quota: outcome.quota } : {}), ...wait });
		const resetAt = data.buckets.quotas[outcome.bucket]?.resetAt ?? nowMs;
		if (change === 'spent') events.push({ kind: 'paused', until: resetAt, by: 'quota', bucket: outcome.bucket });
		if (change === 'refilled') events.push({ kind: 'resumed', by: 'quota', how: 'refilled', bucket: outcome.bucket });
	},
	forgetAt: (data) => (data.buckets ? bucketsForgetAt(data.buckets) : -Infinity),
	view(data, nowMs, view) {
		view.buckets = Object.entries(data.buckets?.quotas ?? {}).map(([bucket, q]) => ({ bucket, remaining: Math.max(0, q.remaining - q.sentSince), resetAt: iso(q.resetAt), spent: q.resetAt > nowMs && q.remaining - q.sentSince <= 0 }));
	},
	resume(data, _nowMs, what, events) {
		if (!what.pause) return;
		for (const bucket of Object.keys(data.buckets?.quotas ?? {})) {
			events.push({ kind: 'resumed', by: 'quota', how: 'hand', bucket });
			delete data.buckets!.quotas[bucket];
		}
	},
	/** The buckets' quotas and routes learned alone: a quota with a later reset is the newer word, as for the API's own. */
	adopt(data, local) {
		if (!local.buckets) return;
		const known = (data.buckets ??= { routes: [], quotas: {} });
		for (const [route, bucket] of local.buckets.routes) if (!known.routes.some(([r]) => r === route)) known.routes.push([route, bucket]);
		// the bound the controller keeps (the oldest learned go first)
		if (known.routes.length > MAX_ROUTES) known.routes.splice(0, known.routes.length - MAX_ROUTES);
		for (const [bucket, learned] of Object.entries(local.buckets.quotas)) {
			const shared = known.quotas[bucket];
			if (shared && shared.resetAt >= learned.resetAt) continue;
			const { asking: _asking, askingUntil: _askingUntil, ...counted } = learned;
			known.quotas[bucket] = counted;
		}
	},
};
