/**
 * Wait for Room: each item waits at its API's traffic controller (the one Resilient HTTP Request's
 * requests pass: pause, hold, window, pace, budget, tokens), then goes on unchanged to the node after
 * it, which makes the call. Its admission stays open (the room it took) until Report Outcome, after
 * that node, reports what the call did. An item that finds no room within Max Wait fails, saying why.
 */
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { AttemptResult } from '../../shared/core/retry-loop';
import { isLoopRetry } from '../../shared/core/item-records';
import type { Runtime } from '../../shared/core/runtime';
import type { Outcome } from '../../shared/core/traffic/controller';
import { failureOutcome, wasPaced } from '../../shared/core/traffic/failure-outcome';
import { getProcessOpenAdmissions } from '../../shared/core/traffic/open-admissions';
import type { StateStore } from '../../shared/core/traffic/store';
import { NO_TOKENS, tokenUsage } from '../../shared/core/traffic/token-estimate';
import { createTrafficGate } from '../../shared/n8n/traffic/traffic-gate';
import { readWaitSettings, type WaitSettings } from './settings';

/** What a reported result tells the API's controller: the same reading as an HTTP attempt's. */
function outcomeOf(result: AttemptResult<Record<string, unknown>>): Outcome {
	if (!result.ok) return failureOutcome(result.failure);
	const value = result.value;
	// an LLM node's raw answer says what it used: the estimate is corrected by it
	const usage = 'usage' in value || 'usageMetadata' in value ? tokenUsage(value) : undefined;
	return { success: true, outageFailure: false, overload: false, throttled: false, ...(usage ? { tokens: { counted: NO_TOKENS, usage } } : {}) };
}

/**
 * Why the item found no room, as n8n's nodes hand a failed item on under On Error: Continue: the
 * error alone, paired with its input item, which n8n's error output merges back in (its data kept).
 */
function failedItem(item: INodeExecutionData, i: number, error: NodeOperationError): INodeExecutionData {
	return { json: { error: error.message }, ...(item.binary ? { binary: item.binary } : {}), pairedItem: { item: i } };
}

export async function waitForRoom(ctx: IExecuteFunctions, store: StateStore, runtime: Runtime, nodeType: string): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const execution = ctx.getExecutionId();
	const signal = ctx.getExecutionCancelSignal?.();
	// every item's settings before any waits: a bad one fails the node then, with nothing admitted
	const settings: Array<WaitSettings | NodeOperationError> = items.map((item, i) => {
		try {
			return readWaitSettings(ctx, i, item.json);
		} catch (error) {
			const failure = new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
			if (!ctx.continueOnFail()) throw failure;
			return failure;
		}
	});
	const admissions = getProcessOpenAdmissions();
	// an item that fails the node (On Error: Stop Workflow) stops the others' waits: none is
	// admitted for a node that will not run (those admitted already give their room back after Report Within)
	const stop = new AbortController();
	const stopWaits = () => stop.abort();
	if (signal?.aborted) stop.abort();
	else signal?.addEventListener('abort', stopWaits, { once: true });
	let fatal: NodeOperationError | undefined;
	// the items wait side by side, each in the API's line (its pace, window and turns order them)
	const out = await Promise.all(
		items.map(async (item, i): Promise<INodeExecutionData | undefined> => {
			const setting = settings[i];
			if (setting instanceof NodeOperationError) return failedItem(item, i, setting);
			const loopRetry = isLoopRetry(item.json);
			const gate = createTrafficGate<Record<string, unknown>>(ctx, store, setting.api, runtime, stop.signal, {
				nodeType,
				loopRetry,
				maxServerDelayMs: setting.maxWaitMs,
				reading: { outcomeOf, wasPaced },
				...(setting.tokens ? { tokens: setting.tokens } : {}),
			});
			// as for Total Deadline, the wait in line for Rate Limit or tokens does not count against Max Wait
			const entry = await gate.enter(loopRetry ? 2 : 1, undefined, runtime.now() + setting.maxWaitMs);
			if (!entry.go) {
				const message = entry.stop === 'canceled' ? 'The execution was canceled while the item waited for room' : `No room for the item at the API: ${entry.why} (item ${i})`;
				const error = new NodeOperationError(ctx.getNode(), message, { itemIndex: i, description: 'Raise Max Wait, or let the item go to the error output (On Error: Continue (using error output)).' });
				if (!ctx.continueOnFail()) {
					fatal ??= error;
					stop.abort();
					return undefined;
				}
				return failedItem(item, i, error);
			}
			admissions.open(execution, setting.api.key, { close: entry.done, waitNode: ctx.getNode().name }, runtime.now() + (setting.api.params.leaseMs ?? 0), runtime.now());
			return { ...item, pairedItem: { item: i } };
		}),
	);
	signal?.removeEventListener('abort', stopWaits);
	if (fatal) throw fatal;
	return [out.filter((item): item is INodeExecutionData => item !== undefined)];
}
