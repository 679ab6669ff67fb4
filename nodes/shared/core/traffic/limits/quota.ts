/**
 * The API's rate-limit quota (RateLimit / X-RateLimit-* headers on any answer, rate.ts keeps it
 * beside the pace): spent, nothing goes until its reset; past the reset, one request asks for the
 * new count and the others wait for its answer. A quota an answer gives for a named bucket is the
 * bucket's (buckets limit), the API's only when the answer states it beside (Zendesk's account count).
 * A request counts one against it, whatever its cost: the API counts requests.
 * Its state is copied with the rate's (rate.ts copyRate, the pace's copy).
 */
import { countSent, onQuota, quotaSpentUntil, quotaUnanswered } from '../rate';
import { isoTime as iso, readsNoCount } from './limit';
import type { Limit } from '../types';

export const quota: Limit = {
	name: 'quota',
	verdict({ data, nowMs }) {
		const spent = quotaSpentUntil(data.rate, nowMs);
		return spent === undefined ? undefined : { go: false, reason: 'paused', until: spent.until, wake: spent.wake, pausedBy: 'quota' };
	},
	refusalMerges: readsNoCount,
	admitted({ data, nowMs, request }, admission) {
		countSent(data.rate, nowMs, request.id, admission.lease[1]);
	},
	admissionMerges: readsNoCount,
	completed(answer) {
		const { data, nowMs, id, outcome, events } = answer;
		// the request that asked for the count after the reset: its answer frees the others
		if (data.rate.quota?.asking === id) answer.frees = answer.exact = true;
		if (outcome.quota || outcome.apiQuota) answer.exact = true;
		// an answer that names its bucket gives the bucket's quota, and the API's only beside it
		if (outcome.bucket !== undefined && !outcome.apiQuota) return;
		const stated = outcome.bucket !== undefined ? outcome.apiQuota : outcome.quota;
		// requests in flight were sent before the server counted them
		const change = stated ? onQuota(data.rate, stated.remaining, Math.max(nowMs, stated.resetAt), answer.inFlight, nowMs) : quotaUnanswered(data.rate, id, nowMs);
		if (change === 'spent') events.push({ kind: 'paused', until: data.rate.quota?.resetAt ?? nowMs, by: 'quota' });
		if (change === 'refilled') events.push({ kind: 'resumed', by: 'quota', how: 'refilled' });
	},
	view(data, nowMs, view) {
		const spent = data.rate.quota;
		if (view.paused === null && spent && spent.resetAt > nowMs && spent.remaining - spent.sentSince <= 0) view.paused = { until: iso(spent.resetAt), by: 'quota' };
	},
	resume(data, _nowMs, what, events) {
		if (!what.pause || !data.rate.quota) return;
		// one event for the API's pause: a pause ended with it already told
		if (!events.some((event) => event.kind === 'resumed' && event.bucket === undefined)) events.push({ kind: 'resumed', by: 'quota', how: 'hand' });
		delete data.rate.quota;
	},
	adopt(data, local) {
		const learned = local.rate.quota;
		if (!learned || (data.rate.quota && learned.resetAt <= data.rate.quota.resetAt)) return;
		const { asking: _asking, askingUntil: _askingUntil, ...counted } = learned;
		data.rate.quota = counted;
	},
};
