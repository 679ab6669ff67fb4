/** The loop state the node keeps on each item (the retry token of the engine), and the annotation it writes. */
import type { IDataObject } from 'n8n-workflow';
import type { RetryToken } from '../shared/core/decide';

/** What is written on every item the node routes. */
export interface BackoffAnnotation extends IDataObject {
	/** The attempt the next request will be (on Retry), or the attempts made (on Give up). */
	attempt: number;
	maxAttempts: number;
	firstFailureAt: string;
	/** Polling Until Done: the passes that found the job not done yet (the poll interval grows with them). */
	polls?: number;
	/** Retry only. */
	delayMs?: number;
	delayReason?: string;
	delayHeader?: string;
	nextAttemptAt?: string;
	/** When the items of this pass resume: the longest delay among them (one wait for all). */
	waitUntil?: string;
	/** Give up only: one of the stop reasons both nodes share. */
	stoppedBecause?: string;
	message?: string;
	lastFailure?: IDataObject;
}

type StateProblem = { problem: string };

/**
 * The token an earlier pass left on the item, or the first one: one attempt made (the one that
 * failed), the deadline counting from now, the item's first failure.
 */
export function readLoopState(json: IDataObject, field: string, nowMs: number): RetryToken | StateProblem {
	const raw = json[field];
	if (raw === undefined || raw === null) return { attempts: 1, startedAt: nowMs };
	if (typeof raw !== 'object' || Array.isArray(raw)) return { problem: `holds ${JSON.stringify(raw)}, not the node's state object` };
	const state = raw as IDataObject;
	const attempt = typeof state.attempt === 'string' && state.attempt.trim() !== '' ? Number(state.attempt) : state.attempt;
	if (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1) {
		return { problem: `has attempt ${JSON.stringify(state.attempt)}, which is not an attempt number (a whole number of 1 or more)` };
	}
	const first = typeof state.firstFailureAt === 'string' ? Date.parse(state.firstFailureAt) : NaN;
	const previous = typeof state.delayMs === 'number' && state.delayReason === 'backoff' ? state.delayMs : undefined;
	const polls = typeof state.polls === 'number' && Number.isInteger(state.polls) && state.polls > 0 ? state.polls : undefined;
	return { attempts: attempt, startedAt: Number.isFinite(first) ? first : nowMs, ...(previous !== undefined ? { previousDelayMs: previous } : {}), ...(polls !== undefined ? { polls } : {}) };
}
