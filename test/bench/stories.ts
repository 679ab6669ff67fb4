/**
 * What the items' retry stories say, summed over a run: how long they waited at their API's
 * traffic controller and why (`_retry.history[].traffic.waitedFor`), and why the failed ones
 * stopped (`error.reason`). The benchmark reads a miss's likely cause from these.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { RetryStory, TrafficWaitReason } from '../../nodes/shared/core/retry-story';

export const WAIT_REASONS: readonly TrafficWaitReason[] = ['paused', 'held', 'window', 'pace', 'budget', 'tokens'];

export interface WaitTotals {
	/** Ms waited at the gate before attempts that went, summed over all items, by reason. */
	ms: Partial<Record<TrafficWaitReason, number>>;
	/** Items that waited for the reason at least once. */
	items: Partial<Record<TrafficWaitReason, number>>;
	/** Items read (with a story). */
	stories: number;
}

/** The retry story of an output item: on a success item at `_retry`, on an error item inside `error`. */
export function storyOf(item: INodeExecutionData): RetryStory | undefined {
	const json = item.json as IDataObject;
	const story = (json._retry ?? (json.error as IDataObject | undefined)?._retry) as RetryStory | undefined;
	return story && Array.isArray(story.history) ? story : undefined;
}

export function emptyWaits(): WaitTotals {
	return { ms: {}, items: {}, stories: 0 };
}

/** Adds the waits of these items to `totals` (mutates, returns it). */
export function addWaits(totals: WaitTotals, items: readonly INodeExecutionData[]): WaitTotals {
	for (const item of items) {
		const story = storyOf(item);
		if (!story) continue;
		totals.stories++;
		const seen = new Set<TrafficWaitReason>();
		for (const record of story.history) {
			for (const [reason, ms] of Object.entries(record.traffic?.waitedFor ?? {}) as Array<[TrafficWaitReason, number]>) {
				totals.ms[reason] = (totals.ms[reason] ?? 0) + ms;
				seen.add(reason);
			}
		}
		for (const reason of seen) totals.items[reason] = (totals.items[reason] ?? 0) + 1;
	}
	return totals;
}

export const waitsOf = (items: readonly INodeExecutionData[]) => addWaits(emptyWaits(), items);

/** The reason that took the most time, or undefined when nobody waited. */
export function dominantWait(totals: WaitTotals): TrafficWaitReason | undefined {
	let best: TrafficWaitReason | undefined;
	for (const reason of WAIT_REASONS) if ((totals.ms[reason] ?? 0) > 0 && (best === undefined || (totals.ms[reason] ?? 0) > (totals.ms[best] ?? 0))) best = reason;
	return best;
}

/** "held: 200 items, 51 s in all; window: 120 items, 10 min in all": largest first; "none" when nobody waited. */
export function describeWaits(totals: WaitTotals): string {
	const parts = WAIT_REASONS.filter((r) => (totals.ms[r] ?? 0) > 0)
		.sort((a, b) => (totals.ms[b] ?? 0) - (totals.ms[a] ?? 0))
		.map((r) => `${r}: ${totals.items[r] ?? 0} items, ${formatSeconds(totals.ms[r] ?? 0)} in all`);
	return parts.length === 0 ? 'none' : parts.join('; ');
}

function formatSeconds(ms: number): string {
	return ms >= 600_000 ? `${Math.round(ms / 60_000)} min` : ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** How many failed items stopped for each reason (`error.reason`). */
export function reasonsOf(failed: readonly INodeExecutionData[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const item of failed) {
		const reason = String(((item.json as IDataObject).error as IDataObject | undefined)?.reason ?? 'none');
		counts[reason] = (counts[reason] ?? 0) + 1;
	}
	return counts;
}

export const describeCounts = (counts: Record<string, number>) =>
	Object.entries(counts)
		.sort((a, b) => b[1] - a[1])
		.map(([name, n]) => `${name} ${n}`)
		.join(', ') || 'none';
