/**
 * The retry budget and the circuit breaker as guards of the retry loop: n8n parameters in,
 * state store calls out. Keys are hashed, so a scope that holds an API key is never stored or
 * logged in clear.
 */
import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { isOverloadSignal, type AdaptiveLimit, type WindowDecrease } from '../shared/adaptive-limit';
import type { AttemptFailure } from '../shared/classify';
import { numberParameter } from '../shared/parameters';
import type { GuardNote, GuardVerdict, RetryGuards } from '../shared/retry-loop';
import type { Runtime } from '../shared/runtime';
import { BREAKER_DEFAULTS } from '../shared/state/breaker';
import { BUDGET_DEFAULTS } from '../shared/state/budget';
import { describeBudgetRefusal, describeRefusedCall } from '../shared/state/describe';
import type { BreakerParams, BreakerSnapshot, BudgetParams, BudgetSnapshot, StateStore } from '../shared/state/types';

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

/** For the breaker, a failure is the dependency misbehaving: network errors, timeouts, 5xx. */
function countsAsBreakerFailure(failure: AttemptFailure | undefined): boolean {
	if (!failure || !failure.transient) return false;
	return failure.kind !== 'status' || (failure.status ?? 0) >= 500;
}

function budgetNote(s: BudgetSnapshot): Record<string, unknown> {
	return { firstAttempts: s.firstAttempts, retries: s.retries, available: s.available, windowMs: s.windowMs };
}

function breakerNote(s: BreakerSnapshot): Record<string, unknown> {
	return { state: s.state, consecutiveFailures: s.consecutiveFailures, ...(s.openUntil !== undefined ? { openUntil: new Date(s.openUntil).toISOString() } : {}) };
}

/** Logs a spent budget once per window and key, not once per item. */
const lastBudgetWarning = new Map<string, number>();
function warnOncePerWindow(ctx: IExecuteFunctions, key: string, nowMs: number, windowMs: number, message: string): void {
	const last = lastBudgetWarning.get(key);
	if (last !== undefined && nowMs - last < windowMs) return;
	if (lastBudgetWarning.size > 10_000) lastBudgetWarning.clear();
	lastBudgetWarning.set(key, nowMs);
	ctx.logger.warn(`Resilient HTTP Request "${ctx.getNode().name}" in workflow "${ctx.getWorkflow().name ?? ctx.getWorkflow().id}": ${message}. Items that would retry go to the error output until the window frees up.`);
}

/**
 * An item that comes back through a Backoff Delay loop (its `_backoff.attempt` is 2 or more) is a
 * retry, not a first attempt: its first request here asks the budget like any retry, so loops
 * cannot bypass it.
 */
export function isLoopRetry(json: IDataObject): boolean {
	const state = json._backoff;
	if (typeof state !== 'object' || state === null || Array.isArray(state)) return false;
	const attempt = (state as IDataObject).attempt;
	return typeof attempt === 'number' && attempt >= 2;
}

export function createGuards(ctx: IExecuteFunctions, store: StateStore, limits: SharedLimits, runtime: Runtime, loopRetry = false): RetryGuards {
	const { budget, breaker } = limits;
	const guards: RetryGuards = {};
	const askBudget = async (): Promise<GuardVerdict> => {
		if (!budget) return { allowed: true };
		const now = runtime.now();
		const verdict = await store.tryAcquireRetry(budget.key, now, budget.params);
		if (verdict.allowed) return { allowed: true, note: { budget: budgetNote(verdict.snapshot) } };
		const message = describeBudgetRefusal(verdict.snapshot, budget.params);
		warnOncePerWindow(ctx, budget.key, now, budget.params.windowMs, message);
		return { allowed: false, reason: 'retry-budget-exhausted', message, note: { budget: budgetNote(verdict.snapshot) } };
	};
	if (budget || breaker) {
		guards.beforeAttempt = async (attempt): Promise<GuardVerdict> => {
			const now = runtime.now();
			let note: GuardNote = {};
			if (budget && attempt === 1 && loopRetry) {
				const verdict = await askBudget();
				if (!verdict.allowed) return verdict;
				note = { ...verdict.note };
			} else if (budget && attempt === 1) {
				note.budget = budgetNote(await store.recordFirstAttempt(budget.key, now, budget.params));
			}
			if (breaker) {
				const verdict = await store.breakerAllows(breaker.key, now, breaker.params);
				if (!verdict.allowed) {
					return {
						allowed: false,
						reason: 'circuit-open',
						message: describeRefusedCall(verdict.snapshot, now).replace('the host', `the host ${breaker.label}`),
						...(verdict.snapshot.openUntil !== undefined ? { retryAt: verdict.snapshot.openUntil } : {}),
					};
				}
				if (verdict.probe) note.breaker = { ...breakerNote(verdict.snapshot), probe: true };
			}
			return { allowed: true, note };
		};
	}
	if (breaker) {
		guards.afterAttempt = async (_attempt, failure) => {
			const change = await store.breakerRecord(breaker.key, runtime.now(), !countsAsBreakerFailure(failure), breaker.params);
			if (!change) return undefined;
			const text = `circuit breaker for ${breaker.label} ${change.from} -> ${change.to}`;
			if (change.to === 'open') ctx.logger.warn(`Resilient HTTP Request "${ctx.getNode().name}": ${text} until ${new Date(change.snapshot.openUntil ?? 0).toISOString()}`);
			else ctx.logger.info(`Resilient HTTP Request "${ctx.getNode().name}": ${text}`);
			return { breaker: { ...breakerNote(change.snapshot), changed: `${change.from} -> ${change.to}` } };
		};
	}
	if (budget) guards.beforeRetry = askBudget;
	return guards;
}

/**
 * Adds the adaptive window's feedback to an item's guards, around the budget and the breaker: an
 * attempt is numbered once they let it through (a refused attempt sends nothing), and its outcome
 * is reported after theirs. Attempts of one item run one after another, so one number per item is
 * enough to tell which round an overload belongs to.
 */
export function withWindowFeedback(guards: RetryGuards, limit: AdaptiveLimit, onDecrease: (decrease: WindowDecrease, failure: AttemptFailure) => void): RetryGuards {
	let startSeq = 0;
	return {
		...guards,
		beforeAttempt: async (attempt): Promise<GuardVerdict> => {
			const verdict = guards.beforeAttempt ? await guards.beforeAttempt(attempt) : { allowed: true as const };
			if (verdict.allowed) startSeq = limit.nextStartSeq();
			return verdict;
		},
		afterAttempt: async (attempt, failure) => {
			const note = guards.afterAttempt ? await guards.afterAttempt(attempt, failure) : undefined;
			if (!failure) {
				limit.onSuccess();
			} else if (isOverloadSignal(failure)) {
				const decrease = limit.onOverload(startSeq);
				if (decrease) onDecrease(decrease, failure);
			}
			return note;
		},
	};
}
