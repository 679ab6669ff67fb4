/**
 * Report Outcome: after the node that made the calls, each of its items tells the API's controller
 * what its call did (a success; a 429 and the wait asked; a 5xx, a timeout), and gives back the
 * room Wait for Room took for it. Other executions and workers learn from it as from Resilient HTTP
 * Request's answers: a throttle pauses the API for all, an outage holds it. Items go on: those that
 * succeeded to Success, those that carry an error to Failed, with the data the node was given (for
 * Backoff Delay, say, which sends them round again).
 *
 * One run of the node before is reported at once, whichever of its outputs reached this node first:
 * with On Error: Continue (using error output) both outputs lead here and n8n runs this node once
 * for each, the error branch first perhaps; reporting only its own items would leave the other
 * branch's room taken while the error branch's retries wait for room (a deadlock, met in a real n8n).
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Runtime } from '../../shared/core/runtime';
import { getProcessOpenAdmissions } from '../../shared/core/traffic/open-admissions';
import { itemFailed, itemResult } from './item-outcome';
import { readReportSettings, type ReportSettings } from './settings';

/** Node runs already reported (execution, node, run): the second branch of a run reports nothing again. Bounded: the oldest go first. */
const reportedRuns = new Set<string>();
const REPORTED_RUNS_KEPT = 10_000;

function markReported(run: string): boolean {
	if (reportedRuns.has(run)) return false;
	reportedRuns.add(run);
	if (reportedRuns.size > REPORTED_RUNS_KEPT) reportedRuns.delete(reportedRuns.values().next().value as string);
	return true;
}

/** The API the items report to: the one API Scope names, or the one this execution waited for. */
function apiOf(ctx: IExecuteFunctions, settings: ReportSettings, waitedFor: string[]): string | undefined {
	if (settings.apiKey !== undefined) return settings.apiKey;
	if (waitedFor.length <= 1) return waitedFor[0];
	throw new NodeOperationError(ctx.getNode(), `Parameter "API Scope" must name the API the items waited for: this execution's items wait for a report from ${waitedFor.length} APIs (item 0)`, {
		itemIndex: 0,
		description: 'Item 0: give "API Scope" the text of the Wait for Room these items came through.',
	});
}

/**
 * The run of the node before that these items come from, and its items on its other output (the
 * error output's when these are the success output's, and the other way round); none when n8n
 * cannot tell (then only these items are reported).
 */
function runBefore(ctx: IExecuteFunctions): { run: string; others: INodeExecutionData[] } | undefined {
	const source = ctx.getExecuteData().source?.main?.[0];
	if (!source) return undefined;
	const runIndex = source.previousNodeRun ?? 0;
	const other = (source.previousNodeOutput ?? 0) === 0 ? 1 : 0;
	let others: INodeExecutionData[] = [];
	try {
		others = ctx.getWorkflowDataProxy(0).$(source.previousNode).all(other, runIndex) as INodeExecutionData[];
	} catch {
		// the node has no such output, or it gave none in this run
	}
	return { run: `${ctx.getExecutionId()}|${source.previousNode}|${runIndex}`, others };
}

/** An item that failed, with the data the node before was given under it, as n8n's error output merges it. */
function withInputData(ctx: IExecuteFunctions, item: INodeExecutionData, i: number, waitNode: string | undefined): INodeExecutionData {
	const json = item.json;
	// n8n's rule (its error output): only an item that holds nothing but the error gets its input back
	if (waitNode === undefined || !Object.keys(json).every((key) => key === 'error' || key === 'message' || key === 'details')) return item;
	try {
		const given = ctx.getWorkflowDataProxy(i).$(waitNode).itemMatching(i) as INodeExecutionData | undefined;
		return given?.json ? { ...item, json: { ...(given.json as IDataObject), ...json } } : item;
	} catch {
		return item;
	}
}

export async function reportOutcome(ctx: IExecuteFunctions, runtime: Runtime): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const execution = ctx.getExecutionId();
	const admissions = getProcessOpenAdmissions();
	const waitedFor = admissions.apisOf(execution, runtime.now());
	// every item's settings first: a bad one fails the node before anything is reported
	const settings = items.map((_, i) => readReportSettings(ctx, i, runtime.now()));
	const api = items.length > 0 ? apiOf(ctx, settings[0], waitedFor) : undefined;
	const waitNode = api === undefined ? undefined : admissions.peek(execution, api, runtime.now())?.waitNode;
	// this run's items with their own settings, then the other output's of the same run of the node
	// before (found on the item), once for the run
	const before = runBefore(ctx);
	const fresh = before === undefined || markReported(before.run);
	const toReport: Array<[INodeExecutionData, ReportSettings]> = fresh && api !== undefined ? [...items.map((item, i): [INodeExecutionData, ReportSettings] => [item, settings[i]]), ...(before?.others ?? []).map((item): [INodeExecutionData, ReportSettings] => [item, {}])] : [];
	let reported = 0;
	for (const [item, itemSettings] of toReport) {
		const admission = admissions.take(execution, api as string, runtime.now());
		if (!admission) break;
		await admission.close(itemResult(item.json, itemSettings, runtime.now()));
		reported++;
	}
	const success: INodeExecutionData[] = [];
	const failed: INodeExecutionData[] = [];
	for (const [i, item] of items.entries()) {
		if (itemFailed(item.json, settings[i])) failed.push({ ...withInputData(ctx, item, i, waitNode), pairedItem: { item: i } });
		else success.push({ ...item, pairedItem: { item: i } });
	}
	if (fresh && reported === 0 && items.length > 0) {
		// nothing was waiting for these items' report: say so where the user looks, not silently
		ctx.addExecutionHints?.({
			message: "Report Outcome found no item of this execution waiting for a report: put Traffic Control's Wait for Room before the node these items came from, with the same API Scope",
			type: 'warning',
			location: 'outputPane',
		});
	}
	return [success, failed];
}
