/**
 * Scenario 2, sustained outage: the upstream answers 503 to everything. One execution of N items,
 * the error output on (onError: continueErrorOutput), in real time. How many requests does one
 * item become, does every item come out on the error output, and within its deadline?
 *
 * Resilient HTTP Request runs at its defaults except the Total Deadline (the default 300 s would
 * make each row last 5 minutes): `deadlineMs`. Retry On Fail with the error output on: n8n re-runs
 * the whole node while the first item of its output is an error (here always), so every item is
 * sent Max. Tries times; rows above `rofMeasuredUpTo` items are computed by that arithmetic.
 */
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { describeCounts, reasonsOf, storyOf, waitsOf, type WaitTotals } from '../stories';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, items, perItemUrl, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, RETRY_ON_FAIL_MAX, runOnce, type RetryOnFail } from '../workflows';

export interface SustainedSettings {
	sizes: readonly number[];
	deadlineMs: number;
	rofMeasuredUpTo: number;
	seed: number;
}

export type SustainedSlug = 'rof-default' | 'rof-max' | 'resilient';

export interface SustainedRow {
	slug: SustainedSlug;
	name: string;
	items: number;
	/** Run (true) or computed by arithmetic (false). */
	measured: boolean;
	requests: number;
	amplification: number;
	onErrorOutput: number;
	onSuccessOutput: number;
	/** From the execution's start to its end. */
	durationMs: number;
	/** Resilient: its Total Deadline; the latest item's end minus its own deadline (<= 0: within). */
	deadlineMs?: number;
	latestEndVsDeadlineMs?: number;
	/** Resilient: failed items by `error.reason`, and the waits of the items that were sent. */
	reasons?: Record<string, number>;
	waits?: WaitTotals;
	/** Items that were never sent (their story has no attempt). */
	neverSent?: number;
}

export const SUSTAINED_ROF: ReadonlyArray<{ slug: SustainedSlug; name: string; retry: RetryOnFail }> = [
	{ slug: 'rof-default', name: 'HTTP Request + Retry On Fail, default (3 tries, 1000 ms)', retry: RETRY_ON_FAIL_DEFAULT },
	{ slug: 'rof-max', name: 'HTTP Request + Retry On Fail, max (5 tries, 5000 ms)', retry: RETRY_ON_FAIL_MAX },
];

/** A row of n8n's Retry On Fail, by arithmetic: Max. Tries runs of the node, each sending every item. */
export function computedRofRow(slug: SustainedSlug, name: string, retry: RetryOnFail, size: number): SustainedRow {
	return {
		slug,
		name,
		items: size,
		measured: false,
		requests: retry.maxTries * size,
		amplification: retry.maxTries,
		onErrorOutput: size,
		onSuccessOutput: 0,
		durationMs: (retry.maxTries - 1) * retry.waitBetweenTries,
	};
}

/** Every size of one Retry On Fail setting at once (their paths tell them apart): waits are n8n's sleeps. */
export async function measureRof(upstream: Upstream, rof: (typeof SUSTAINED_ROF)[number], sizes: readonly number[]): Promise<SustainedRow[]> {
	await upstream.take();
	const slug = (size: number) => `sustained-${rof.slug}-${size}`;
	const runs = await Promise.all(
		sizes.map(async (size) => {
			const started = Date.now();
			const run = await runOnce(benchWorkflow(slug(size), coreHttp(perItemUrl(`${upstream.url}/down`, slug(size)), rof.retry, 'GET', 'continueErrorOutput')), items(0, size));
			return { size, run, durationMs: Date.now() - started };
		}),
	);
	const log = await upstream.take();
	return runs.map(({ size, run, durationMs }) => {
		const requests = log.filter((r) => r.key.startsWith(`${slug(size)}-`)).length;
		return {
			slug: rof.slug,
			name: rof.name,
			items: size,
			measured: true,
			requests,
			amplification: requests / size,
			onErrorOutput: run.status === 'success' ? run.outputOf('HTTP', 1).length : 0,
			onSuccessOutput: run.status === 'success' ? run.outputOf('HTTP', 0).length : 0,
			durationMs,
		};
	});
}

export async function measureResilient(upstream: Upstream, size: number, settings: Pick<SustainedSettings, 'deadlineMs' | 'seed'>): Promise<SustainedRow> {
	await upstream.take();
	const slug = `sustained-resilient-${size}`;
	const http = resilientHttp(perItemUrl(`${upstream.url}/down`, slug), { retryOptions: { totalDeadline: settings.deadlineMs } }, 'continueErrorOutput');
	const started = Date.now();
	// every item may use its whole deadline, and Max Items in Flight (200) are in progress at once
	const limitMs = Math.ceil(size / 200 + 1) * settings.deadlineMs + 60_000;
	const run = await runOnce(benchWorkflow(slug, http), items(0, size), { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() }, limitMs);
	const durationMs = Date.now() - started;
	const requests = (await upstream.take()).length;
	if (run.status !== 'success') throw new Error(`sustained outage, ${size} items: the execution ended ${run.status} (${run.error?.message ?? 'no error'})`);
	const failed = run.outputOf('HTTP', 1);
	const stories = failed.map(storyOf);
	const latest = Math.max(...stories.map((s) => s?.elapsedMs ?? Infinity));
	return {
		slug: 'resilient',
		name: `Resilient HTTP Request, defaults, Total Deadline ${settings.deadlineMs / 1000} s`,
		items: size,
		measured: true,
		requests,
		amplification: requests / size,
		onErrorOutput: failed.length,
		onSuccessOutput: run.outputOf('HTTP', 0).length,
		durationMs,
		deadlineMs: settings.deadlineMs,
		latestEndVsDeadlineMs: latest - settings.deadlineMs,
		reasons: reasonsOf(failed),
		waits: waitsOf(failed),
		neverSent: stories.filter((s) => s !== undefined && s.history.length === 0).length,
	};
}

export async function runSustainedOutage(upstream: Upstream, settings: SustainedSettings): Promise<SustainedRow[]> {
	const rows: SustainedRow[] = [];
	const measuredSizes = settings.sizes.filter((size) => size <= settings.rofMeasuredUpTo);
	for (const rof of SUSTAINED_ROF) {
		const measured = measuredSizes.length > 0 ? await measureRof(upstream, rof, measuredSizes) : [];
		for (const size of settings.sizes) rows.push(measured.find((r) => r.items === size) ?? computedRofRow(rof.slug, rof.name, rof.retry, size));
	}
	for (const size of settings.sizes) rows.push(await measureResilient(upstream, size, settings));
	return rows;
}

export const describeReasons = (row: SustainedRow) => describeCounts(row.reasons ?? {});
