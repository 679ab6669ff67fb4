/**
 * One-line explanations of a refused retry or call, for the retry story's summary and the error
 * message. They name counts and times only, never the key (a key may hold a host name or URL).
 */
import { formatDuration } from '../core/retry-story';
import { budgetLimit } from './budget';
import type { BreakerSnapshot, BudgetParams, BudgetSnapshot } from './types';

/** e.g. "Retry budget spent: 50 retries for 100 first attempts in the last 1 min (allowed: 10% of first attempts + 40)" */
export function describeBudgetRefusal(snapshot: BudgetSnapshot, params: BudgetParams): string {
	const percent = Math.round(Math.max(0, params.ratio) * 1000) / 10;
	const limit = budgetLimit(snapshot.firstAttempts, params);
	const retries = `${snapshot.retries} ${snapshot.retries === 1 ? 'retry' : 'retries'}`;
	const firsts = `${snapshot.firstAttempts} first ${snapshot.firstAttempts === 1 ? 'attempt' : 'attempts'}`;
	return `Retry budget spent: ${retries} for ${firsts} in the last ${formatDuration(snapshot.windowMs)} (allowed: ${percent}% of first attempts + ${Math.max(0, params.minRetriesPerWindow)} = ${Math.floor(limit)})`;
}

/** e.g. "Circuit breaker open: the host is given a break; next probe in 25 s" */
export function describeRefusedCall(snapshot: BreakerSnapshot, nowMs: number): string {
	const wait = snapshot.openUntil !== undefined ? formatDuration(Math.max(0, snapshot.openUntil - nowMs)) : undefined;
	if (snapshot.state === 'half-open') {
		return `Circuit breaker half-open: one probe request is finding out whether the host is back${wait ? `; the next may go in ${wait} at the latest` : ''}`;
	}
	const times = snapshot.openings > 1 ? ` (opened ${snapshot.openings} times in a row)` : '';
	return `Circuit breaker open${times}: the host failed too often; next probe${wait ? ` in ${wait}` : ' soon'}`;
}
