/**
 * The Backoff Delay node's execute(): decide each item's route and delay with the engine's one
 * decision (the same as the HTTP node's), wait once for the longest delay, and route the items to
 * Retry or Give up.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { AttemptFailure } from '../shared/core/classify';
import { decideAfterFailure, type Decision, type DecisionPolicy, type RetryToken } from '../shared/core/decide';
import { serverRequestedDelay } from '../shared/core/retry-after';
import { RETRY_DEFAULTS } from '../shared/core/defaults';
import { classifyItemFailure, parseWaitValue, readItemFailure, type ItemClassification, type ItemFailure } from '../shared/core/item-failure';
import { stopSummary } from '../shared/core/stop-messages';
import { numberParameter, parameterError } from '../shared/n8n/parameters';
import { readPollParameters, readSharedRetryParameters } from '../shared/n8n/retry-parameters';
import { formatDuration } from '../shared/core/retry-story';
import type { Runtime } from '../shared/core/runtime';
import { BACKOFF_DEFAULTS } from './description';
import { readLoopState, type BackoffAnnotation } from './loop-state';

interface ItemSettings {
	/** Polling Until Done: every item is a job not done yet. */
	polling: boolean;
	policy: DecisionPolicy;
	classification: ItemClassification;
	stateField: string;
	serverWait: unknown;
}

function readItemSettings(ctx: IExecuteFunctions, i: number): ItemSettings {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const loopFor = ctx.getNodeParameter('loopFor', i, 'failures');
	if (loopFor !== 'failures' && loopFor !== 'polling') parameterError(ctx, i, 'Loop For', `must be Retrying Failures or Polling Until Done, got ${JSON.stringify(loopFor)}`);
	const polling = loopFor === 'polling';
	const onlyTransient = polling || (ctx.getNodeParameter('onlyTransient', i, true) as boolean);
	const stateField = String(options.stateField ?? BACKOFF_DEFAULTS.stateField).trim();
	if (stateField === '') parameterError(ctx, i, 'Backoff Field', 'must not be empty: the node keeps the attempt number there');
	const shared = readSharedRetryParameters(ctx, i, {
		collection: options,
		totalDeadlineMs: 0,
		maxServerDelayMs: BACKOFF_DEFAULTS.maxServerDelayMs,
		// with Only Transient Failures off every failure is retried: the list only tells transient ones apart
		retryOnStatusCodes: onlyTransient ? ctx.getNodeParameter('retryOnStatusCodes', i, RETRY_DEFAULTS.retryOnStatuses) : RETRY_DEFAULTS.retryOnStatuses,
	});
	return {
		stateField,
		polling,
		serverWait: options.serverWait ?? '',
		policy: polling ? { ...shared.policy, poll: readPollParameters(ctx, i, options, { prefix: 'Options > ', why: 'Polling Until Done' }, shared.policy.totalDeadlineMs) } : shared.policy,
		classification: { onlyTransient, obeyHints: shared.obeyServerHints, retryOn: shared.retryOn },
	};
}

function lastFailure(failure: ItemFailure): IDataObject {
	return {
		...(failure.status !== undefined ? { status: failure.status } : {}),
		...(failure.code ? { code: failure.code } : {}),
		...(failure.message ? { message: failure.message } : {}),
	};
}

/**
 * Polling Until Done: the item is the answer of a job not done yet. What it says of the pace is
 * read from it (a Retry-After in its headers, a Resilient HTTP Request error's retryAt, as on a
 * failure); a status it carries is kept for the annotation.
 */
function notDoneYet(json: IDataObject, nowMs: number): ItemFailure {
	const found = readItemFailure(json, nowMs, { obeyHints: true });
	const headers = json.headers !== null && typeof json.headers === 'object' ? (json.headers as IDataObject) : undefined;
	const serverDelay = found.serverDelay ?? (headers ? serverRequestedDelay(headers, nowMs, { readRateLimitHeaders: false }) : undefined);
	return { failed: false, ...(found.status !== undefined ? { status: found.status } : {}), message: 'not done yet', ...(serverDelay ? { serverDelay } : {}) };
}

/** The engine's "not yet": asked again at the polling pace, within the deadline, no attempt spent. */
function notYetFailure(found: ItemFailure): AttemptFailure {
	const status = found.status ?? 200;
	return { kind: 'status', status, message: `${status}, not done yet`, reachedServer: 'yes', transient: true, notYet: true };
}

function annotate(decision: Decision, failure: ItemFailure, token: RetryToken, maxAttempts: number, nowMs: number, polling: boolean): BackoffAnnotation {
	const polls = polling ? { polls: (token.polls ?? 0) + (decision.retry ? 1 : 0) } : {};
	const common = { maxAttempts, firstFailureAt: new Date(token.startedAt).toISOString(), lastFailure: lastFailure(failure), ...polls };
	if (!decision.retry) {
		return {
			attempt: token.attempts,
			...common,
			stoppedBecause: decision.stop,
			// the same text the HTTP node writes for the same stop (this node cannot know the time the attempts took)
			message: stopSummary(decision.stop, decision.why, { attempts: token.attempts }),
			...(decision.serverDelay ? { serverDelayMs: decision.serverDelay.delayMs } : {}),
		};
	}
	return {
		attempt: token.attempts + 1,
		...common,
		delayMs: decision.delayMs,
		delayReason: decision.delayReason,
		...(decision.delayHeader ? { delayHeader: decision.delayHeader } : {}),
		nextAttemptAt: new Date(nowMs + decision.delayMs).toISOString(),
	};
}

interface Routed {
	index: number;
	item: INodeExecutionData;
	annotation: BackoffAnnotation;
	field: string;
}

function routedItem(source: INodeExecutionData, index: number, json: IDataObject): INodeExecutionData {
	return { json, ...(source.binary ? { binary: source.binary } : {}), pairedItem: { item: index } };
}

/**
 * Polling Until Done behind n8n's own request node: its answer replaces the item's JSON, so the
 * state this node wrote on the item is gone on the next pass. The items of a polling loop go round
 * together: the previous pass's Retry items carry the loop's state (the first pass, the polls), read
 * from this execution's run data through n8n's data proxy.
 */
function lastPassState(ctx: IExecuteFunctions, field: string, json: IDataObject): IDataObject {
	if (json[field] !== undefined) return {};
	const proxy = ctx.getWorkflowDataProxy(0);
	const runIndex = proxy.$runIndex as number;
	if (!(runIndex > 0)) return {};
	const previous = (proxy.$(ctx.getNode().name) as { all(branch: number, run: number): INodeExecutionData[] }).all(0, runIndex - 1);
	const states = previous.map((item) => item.json[field]).filter((s): s is IDataObject => s !== null && typeof s === 'object' && !Array.isArray(s));
	if (states.length === 0) return {};
	// the longest-running item's state: a loop no item of which polls longer than its deadline allows
	const oldest = states.reduce((a, b) => (Date.parse(String(b.firstFailureAt)) < Date.parse(String(a.firstFailureAt)) ? b : a));
	return { [field]: oldest };
}

/** Item i's decision, annotated on the item: Retry (with its delay) or Give up. */
function decideItem(ctx: IExecuteFunctions, runtime: Runtime, item: INodeExecutionData, i: number, nowMs: number): { retry: boolean; routed: Routed } {
	const settings = readItemSettings(ctx, i);
	const json = item.json;
	const state = readLoopState(settings.polling ? { ...json, ...lastPassState(ctx, settings.stateField, json) } : json, settings.stateField, nowMs);
	if ('problem' in state) {
		throw new NodeOperationError(ctx.getNode(), `Field "${settings.stateField}" of item ${i} ${state.problem}`, {
			itemIndex: i,
			description: 'The node counts attempts in this field. Remove it from the item, or choose another Backoff Field.',
		});
	}
	const failure = settings.polling ? notDoneYet(json, nowMs) : readItemFailure(json, nowMs, settings.classification);
	try {
		const override = parseWaitValue(settings.serverWait, nowMs);
		if (override !== undefined) failure.serverDelay = { delayMs: override, header: 'Server-Requested Wait', kind: 'retry-after' };
	} catch (error) {
		parameterError(ctx, i, 'Server-Requested Wait', (error as Error).message);
	}
	const classified = settings.polling ? { ...notYetFailure(failure), ...(failure.serverDelay ? { serverDelay: failure.serverDelay } : {}) } : classifyItemFailure(failure, settings.classification);
	const decision = decideAfterFailure(classified, state, settings.policy, nowMs, () => runtime.random());
	const annotation = annotate(decision, failure, state, settings.policy.maxAttempts, nowMs, settings.polling);
	const out = routedItem(item, i, { ...json, [settings.stateField]: annotation });
	return { retry: decision.retry, routed: { index: i, item: out, annotation, field: settings.stateField } };
}

/** An item that cannot be decided: thrown, or with On Error set to continue, through Give up (or the error output), whole. */
function brokenItem(ctx: IExecuteFunctions, item: INodeExecutionData, i: number, error: unknown): INodeExecutionData {
	// NodeOperationError hands back an error that already is one, unchanged
	if (!ctx.continueOnFail()) throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
	// a broken item must not loop: it leaves through Give up (or the error output), whole. n8n moves
	// an item to the error output only when `error` is its only key, and merges the input back in.
	const failure = { message: (error as Error).message };
	return routedItem(item, i, ctx.getNode().onError === 'continueErrorOutput' ? { error: failure } : { ...item.json, error: failure });
}

/** Waits for the longest delay (in process, or in n8n's waiting state when it is long and every item retries), then routes. */
async function waitThenRoute(ctx: IExecuteFunctions, runtime: Runtime, nowMs: number, longest: number, retryItems: INodeExecutionData[], giveUp: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	const limit = numberParameter(ctx, 0, 'In-Process Wait Limit (Ms)', (ctx.getNodeParameter('options', 0, {}) as IDataObject).inProcessWaitLimit ?? BACKOFF_DEFAULTS.inProcessWaitLimitMs);
	if (longest > limit && giveUp.length === 0) {
		// n8n resumes a waiting node by passing the input of its execution-stack entry through its
		// first output: that input must carry the decision, and every item goes to Retry. The entry
		// gets new items: the old ones are shared with the upstream node's output and other branches.
		const executeData = ctx.getExecuteData();
		executeData.data = { ...executeData.data, main: [retryItems, ...executeData.data.main.slice(1)] };
		await ctx.putExecutionToWait(new Date(nowMs + longest));
		return [retryItems];
	}
	if (longest > limit) {
		ctx.logger.warn(
			`Backoff Delay waits ${formatDuration(longest)} in process, not in n8n's waiting state: some items of this pass go to Give up, and a resumed execution can only continue on Retry. This wait does not survive a restart.`,
		);
	}
	try {
		await runtime.sleep(longest, ctx.getExecutionCancelSignal?.());
	} catch {
		throw new NodeOperationError(ctx.getNode(), 'The execution was canceled');
	}
	return [retryItems, giveUp];
}

export async function executeBackoffDelay(ctx: IExecuteFunctions, runtime: Runtime): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const mode = ctx.getNodeParameter('mode', 0, 'wait') as 'wait' | 'computeOnly';
	const nowMs = runtime.now();
	const retry: Routed[] = [];
	const giveUp: INodeExecutionData[] = [];

	for (let i = 0; i < items.length; i++) {
		try {
			const decided = decideItem(ctx, runtime, items[i], i, nowMs);
			if (decided.retry) retry.push(decided.routed);
			else giveUp.push(decided.routed.item);
		} catch (error) {
			giveUp.push(brokenItem(ctx, items[i], i, error));
		}
	}

	if (retry.length === 0) return [[], giveUp];
	const longest = Math.max(...retry.map((r) => r.annotation.delayMs ?? 0));
	const waitUntil = new Date(nowMs + longest).toISOString();
	for (const r of retry) r.annotation.waitUntil = waitUntil;
	const retryItems = retry.map((r) => r.item);
	if (mode === 'computeOnly') return [retryItems, giveUp];
	return waitThenRoute(ctx, runtime, nowMs, longest, retryItems, giveUp);
}
