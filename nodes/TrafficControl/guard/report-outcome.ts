/**
 * Report Outcome: after the node that made the call, each item tells the API's controller what its
 * call did (a success; a 429 and the wait asked; a 5xx, a timeout), and gives back the room Wait for
 * Room took for it. Other executions and workers learn from it as from Resilient HTTP Request's
 * answers: a throttle pauses the API for all, an outage holds it. Items go on unchanged: those that
 * succeeded to Success, those that carry an error to Failed (for Backoff Delay, say).
 */
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Runtime } from '../../shared/core/runtime';
import { getProcessOpenAdmissions } from '../../shared/core/traffic/open-admissions';
import { itemResult } from './item-outcome';
import { readReportSettings, type ReportSettings } from './settings';

/** The API each item reports to: the one API Scope names, or the one this execution waited for. */
function apiOf(ctx: IExecuteFunctions, i: number, settings: ReportSettings, waitedFor: string[]): string | undefined {
	if (settings.apiKey !== undefined) return settings.apiKey;
	if (waitedFor.length <= 1) return waitedFor[0];
	throw new NodeOperationError(ctx.getNode(), `Parameter "API Scope" must name the API the items waited for: this execution's items wait for a report from ${waitedFor.length} APIs (item ${i})`, {
		itemIndex: i,
		description: `Item ${i}: give "API Scope" the text of the Wait for Room these items came through.`,
	});
}

export async function reportOutcome(ctx: IExecuteFunctions, runtime: Runtime): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const execution = ctx.getExecutionId();
	const admissions = getProcessOpenAdmissions();
	const waitedFor = admissions.apisOf(execution, runtime.now());
	// every item's settings first: a bad one fails the node before anything is reported
	const read = items.map((_, i) => {
		const settings = readReportSettings(ctx, i, runtime.now());
		return { settings, api: apiOf(ctx, i, settings, waitedFor) };
	});
	const success: INodeExecutionData[] = [];
	const failed: INodeExecutionData[] = [];
	let reported = 0;
	for (const [i, item] of items.entries()) {
		const { settings, api } = read[i];
		const result = itemResult(item.json, settings, runtime.now());
		const close = api === undefined ? undefined : admissions.take(execution, api, runtime.now());
		if (close) {
			await close(result);
			reported++;
		}
		(result.ok ? success : failed).push({ ...item, pairedItem: { item: i } });
	}
	if (reported === 0 && items.length > 0) {
		// nothing was waiting for these items' report: say so where the user looks, not silently
		ctx.addExecutionHints?.({
			message: "Report Outcome found no item of this execution waiting for a report: put Traffic Control's Wait for Room before the node these items came from, with the same API Scope",
			type: 'warning',
			location: 'outputPane',
		});
	}
	return [success, failed];
}
