/**
 * Scenario 2, sustained outage: the upstream answers 503 to everything. How many requests does
 * one logical request become, per fleet size, with and without the retry budget?
 *
 * Resilient HTTP Request runs on a frozen virtual clock (its backoff takes no time), so that a
 * fleet's retries all fall into one budget window: the budget's worst case, and what real time
 * gives too, since one item's 4 retries span at most 15 s of a 60 s window. Retry On Fail waits
 * are n8n's own real sleeps; the fleets of all sizes run at once to bound the time (the count
 * does not depend on the wait).
 */
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { budgetLimit, BUDGET_DEFAULTS } from '../../../nodes/shared/state/budget';
import { createVirtualRuntime } from '../../engine/virtual-runtime';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, perItemUrl, resilientHttp, RETRY_ON_FAIL_DEFAULT, RETRY_ON_FAIL_MAX, runFleet, type RetryOnFail } from '../workflows';

export interface SustainedSettings {
	fleets: readonly number[];
	seed: number;
}

export interface SustainedRow {
	fleet: number;
	/** Upstream requests per logical request, by configuration. */
	resilientBudget: number;
	resilientNoBudget: number;
	retryOnFailDefault: number;
	retryOnFailMax: number;
	/** What the budget allows at most: (F + floor(0.1 F) + 40) / F. */
	budgetBound: number;
}

export async function resilientAmplification(upstream: Upstream, fleet: number, budget: boolean, seed: number): Promise<number> {
	await upstream.take();
	const slug = `sustained-${budget ? 'budget' : 'nobudget'}-${fleet}`;
	const workflow = benchWorkflow(slug, resilientHttp(perItemUrl(`${upstream.url}/down`, slug), { sharedLimits: { budget } }));
	await runFleet(fleet, workflow, { runtime: createVirtualRuntime(seed, { frozen: true }), store: new MemoryStateStore() });
	return (await upstream.take()).length / fleet;
}

/** Every fleet size at once: the count per size is read from the paths. */
export async function retryOnFailAmplification(upstream: Upstream, fleets: readonly number[], retry: RetryOnFail, label: string): Promise<Map<number, number>> {
	await upstream.take();
	const slug = (fleet: number) => `sustained-${label}-${fleet}`;
	await Promise.all(fleets.map((fleet) => runFleet(fleet, benchWorkflow(slug(fleet), coreHttp(perItemUrl(`${upstream.url}/down`, slug(fleet)), retry)))));
	const log = await upstream.take();
	return new Map(fleets.map((fleet) => [fleet, log.filter((r) => r.key.startsWith(`${slug(fleet)}-`)).length / fleet]));
}

export async function runSustainedOutage(upstream: Upstream, settings: SustainedSettings): Promise<SustainedRow[]> {
	const rofDefault = await retryOnFailAmplification(upstream, settings.fleets, RETRY_ON_FAIL_DEFAULT, 'rof-default');
	const rofMax = await retryOnFailAmplification(upstream, settings.fleets, RETRY_ON_FAIL_MAX, 'rof-max');
	const rows: SustainedRow[] = [];
	for (const fleet of settings.fleets) {
		rows.push({
			fleet,
			resilientBudget: await resilientAmplification(upstream, fleet, true, settings.seed),
			resilientNoBudget: await resilientAmplification(upstream, fleet, false, settings.seed),
			retryOnFailDefault: rofDefault.get(fleet) ?? NaN,
			retryOnFailMax: rofMax.get(fleet) ?? NaN,
			budgetBound: (fleet + budgetLimit(fleet, BUDGET_DEFAULTS)) / fleet,
		});
	}
	return rows;
}
