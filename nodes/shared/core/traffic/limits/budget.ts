/**
 * The retry budget (budget.ts): a retry after an error waits while retries are over their share of
 * the traffic (10 % of first attempts + 40 per minute by default). A retry the server paced (it
 * asked for the wait) does not spend the budget, and a probe is neither a first attempt nor a
 * retry. A request counts one, whatever its cost: the share is of requests.
 */
import { BUDGET_DEFAULTS, budgetForgetAt, budgetRetryReleaseAt, budgetSnapshot, recordFirst, tryAcquire } from '../budget';
import { readsNoCount } from './limit';
import type { AdmitRequest, Limit } from '../types';

/** A retry the budget must allow: one after an error, not paced by the server. */
const spends = (request: AdmitRequest) => request.retry && !request.paced;

export const budget: Limit = {
	name: 'budget',
	letsProbesBy: true,
	verdict({ data, nowMs, request, params }) {
		if (!params.budget || !spends(request)) return undefined;
		const snapshot = budgetSnapshot(data.budget, nowMs, params.budget);
		if (snapshot.available >= 1) return undefined;
		// a budget that allows no retry at all, whatever the traffic, will not allow this one later
		if (!(params.budget.ratio > 0) && !(params.budget.minRetriesPerWindow > 0)) return { go: false, reason: 'budget', until: Infinity, wake: 'time' };
		const release = budgetRetryReleaseAt(data.budget, nowMs, params.budget);
		return { go: false, reason: 'budget', wake: 'change', ...(release !== undefined ? { until: release } : {}) };
	},
	admitted({ data, nowMs, request, params, probe }, admission) {
		// a paced retry counts as neither: the server set its time, and it adds no first attempt
		if (!params.budget || probe || (request.retry && request.paced)) return;
		const step = request.retry ? tryAcquire(data.budget, nowMs, params.budget) : recordFirst(data.budget, nowMs, params.budget);
		data.budget = step.data;
		admission.budget = 'snapshot' in step.result ? step.result.snapshot : step.result;
	},
	// taking a retry reads the budget's counts
	admissionMerges: ({ request, params }) => (params.budget && spends(request) ? undefined : readsNoCount()),
	forgetAt: (data) => (data.budget ? budgetForgetAt(data.budget) : -Infinity),
	view(data, nowMs, view) {
		if (!data.budget) return;
		const snapshot = budgetSnapshot(data.budget, nowMs, { ...BUDGET_DEFAULTS, windowMs: data.budget.windowMs });
		view.budget = { firstAttempts: snapshot.firstAttempts, retries: snapshot.retries, windowMs: snapshot.windowMs };
	},
};
