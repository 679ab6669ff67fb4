/**
 * The parameters of the retry budget and the circuit breaker, read into the keys and limits the
 * state store takes. Keys are hashed, so a scope that holds an API key is never stored or logged
 * in clear.
 */
import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { numberParameter } from '../shared/n8n/parameters';
import { BREAKER_DEFAULTS } from '../shared/state/breaker';
import { BUDGET_DEFAULTS } from '../shared/state/budget';
import type { BreakerParams, BudgetParams } from '../shared/state/types';

export interface SharedLimits {
	budget?: { key: string; params: BudgetParams };
	breaker?: { key: string; params: BreakerParams; label: string };
}

function hashed(kind: string, scope: string): string {
	return `${kind}:${createHash('sha256').update(scope).digest('hex').slice(0, 32)}`;
}

export function readSharedLimits(ctx: IExecuteFunctions, i: number, url: string): SharedLimits {
	const o = ctx.getNodeParameter('sharedLimits', i, {}) as IDataObject;
	const num = (name: string, label: string, fallback: number, limits: { min?: number; max?: number; integer?: boolean } = {}) =>
		numberParameter(ctx, i, label, o[name] ?? fallback, limits);
	const limits: SharedLimits = {};
	if (o.budget !== false) {
		const scope = String(o.budgetScope ?? '').trim();
		limits.budget = {
			key: hashed('budget', scope === '' ? `workflow:${ctx.getWorkflow().id ?? ''}` : `scope:${scope}`),
			params: {
				ratio: num('budgetPercent', 'Budget: Retries Allowed (% of First Attempts)', BUDGET_DEFAULTS.ratio * 100, { max: 1000 }) / 100,
				minRetriesPerWindow: num('budgetMinRetries', 'Budget: Retries Always Allowed per Window', BUDGET_DEFAULTS.minRetriesPerWindow, { integer: true, max: 1_000_000 }),
				windowMs: num('budgetWindow', 'Budget: Window (Ms)', BUDGET_DEFAULTS.windowMs, { min: 1000 }),
			},
		};
	}
	if (o.breaker === true) {
		const scope = String(o.breakerScope ?? '').trim();
		const origin = new URL(url).origin;
		limits.breaker = {
			key: hashed('breaker', scope === '' ? `origin:${origin}` : `scope:${scope}`),
			label: scope === '' ? new URL(url).host : 'its scope',
			params: {
				consecutiveFailures: num('breakerConsecutiveFailures', 'Breaker: Consecutive Failures', BREAKER_DEFAULTS.consecutiveFailures, { integer: true, max: 1_000_000 }),
				failureRatio: num('breakerFailurePercent', 'Breaker: Failure Ratio (%)', BREAKER_DEFAULTS.failureRatio * 100, { max: 100 }) / 100,
				minimumCalls: num('breakerMinimumCalls', 'Breaker: Minimum Calls', BREAKER_DEFAULTS.minimumCalls, { integer: true, min: 1, max: 1_000_000 }),
				windowMs: num('breakerWindow', 'Breaker: Window (Ms)', BREAKER_DEFAULTS.windowMs, { min: 1000 }),
				breakMs: num('breakerBreak', 'Breaker: Break (Ms)', BREAKER_DEFAULTS.breakMs, { min: 1 }),
				maxBreakMs: num('breakerMaxBreak', 'Breaker: Max Break (Ms)', BREAKER_DEFAULTS.maxBreakMs, { min: 1 }),
			},
		};
	}
	return limits;
}
