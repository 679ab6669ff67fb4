/**
 * The retry budget and the circuit breaker as guards of the retry loop: limits in, state store
 * calls out, notes for the retry story back.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { AttemptFailure } from '../shared/core/classify';
import type { GuardNote, GuardVerdict, RetryGuards } from '../shared/core/retry-loop';
import type { Runtime } from '../shared/core/runtime';
import { describeBudgetRefusal, describeRefusedCall } from '../shared/state/refusal-messages';
import type { BreakerSnapshot, BudgetSnapshot, StateStore } from '../shared/state/types';
import type { SharedLimits } from './shared-limits';

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
