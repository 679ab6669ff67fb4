/**
 * The issue's goals, read against the figures. Each goal says how it was read, what was measured
 * and whether it was met, so a miss is reported as a miss, with its reason.
 */
import type { DuplicateRow } from './scenarios/duplicates';
import type { HealthyResult } from './scenarios/healthy-overhead';
import type { RetryAfterRow } from './scenarios/retry-after';
import type { StateSizeRow } from './scenarios/state-size';
import type { StormResult } from './scenarios/outage-storm';
import type { SustainedRow } from './scenarios/sustained-outage';

export interface BenchResults {
	storm: StormResult[];
	sustained: SustainedRow[];
	healthy: HealthyResult;
	/** The same against an upstream with latency. */
	healthyLatent: HealthyResult;
	retryAfter: RetryAfterRow[];
	duplicates: DuplicateRow[];
	stateSize: StateSizeRow[];
}

export interface GoalVerdict {
	goal: string;
	measured: string;
	met: boolean;
}

const x = (value: number) => `${value.toFixed(2)}x`;

export function evaluateGoals(results: BenchResults): GoalVerdict[] {
	const verdicts: GoalVerdict[] = [];

	for (const row of results.sustained) {
		verdicts.push({
			goal: `Sustained outage, budget on, ${row.fleet} executions: amplification at most 1.2`,
			measured: `${x(row.resilientBudget)} (bound ${x(row.budgetBound)}; no budget ${x(row.resilientNoBudget)}; Retry On Fail ${x(row.retryOnFailDefault)} default, ${x(row.retryOnFailMax)} max)`,
			met: row.resilientBudget <= 1.2 + 1e-9,
		});
	}

	const rof = results.storm.find((r) => r.strategy.slug === 'rof-default');
	const rofMax = results.storm.find((r) => r.strategy.slug === 'rof-max');
	const full = results.storm.find((r) => r.strategy.slug === 'full');
	if (rof && full) {
		verdicts.push({
			goal: 'Outage storm, peak after recovery (literal: any 100 ms window after the upstream is back): full jitter at most 1/5 of Retry On Fail default',
			measured: `full jitter ${full.peakAfterRecovery}, Retry On Fail ${rof.peakAfterRecovery}${rof.peakAfterRecovery === 0 ? ' (all its tries fell inside the outage: nothing after it)' : ''}${rofMax ? `; Retry On Fail at max ${rofMax.peakAfterRecovery}` : ''}`,
			met: full.peakAfterRecovery * 5 <= rof.peakAfterRecovery,
		});
		verdicts.push({
			goal: 'Outage storm, retry peak (retries in any 100 ms window): full jitter at most 1/5 of Retry On Fail default',
			measured: `full jitter ${full.retryPeak}, Retry On Fail ${rof.retryPeak} (ratio ${(full.retryPeak / Math.max(1, rof.retryPeak)).toFixed(2)})`,
			met: full.retryPeak * 5 <= rof.retryPeak,
		});
	}

	for (const healthy of [results.healthy, results.healthyLatent]) {
		const { median } = healthy;
		const where = healthy.latencyMs > 0 ? `upstream answering in ${healthy.latencyMs} ms` : 'loopback upstream answering at once';
		const wallDefault = median.resilientDefault.wallMs / median.core.wallMs;
		const wallAll = median.resilientAll.wallMs / median.core.wallMs;
		verdicts.push({
			goal: `Healthy upstream, ${healthy.items} items, ${where}, defaults (adaptive window up to 200): wall time ratio to HTTP Request at most 1.05`,
			measured: `${x(wallDefault)} (CPU ${x(median.resilientDefault.cpuMs / median.core.cpuMs)}); fixed 10 in flight (the former default) ${x(median.resilientFixed10.wallMs / median.core.wallMs)}`,
			met: wallDefault <= 1.05,
		});
		verdicts.push({
			goal: `Healthy upstream, ${healthy.items} items, ${where}, all items in flight (as HTTP Request): wall time ratio at most 1.05`,
			measured: `${x(wallAll)} (CPU ${x(median.resilientAll.cpuMs / median.core.cpuMs)})`,
			met: wallAll <= 1.05,
		});
	}

	for (const row of results.retryAfter.filter((r) => !r.name.startsWith('Retry On Fail'))) {
		verdicts.push({ goal: `Retry-After, ${row.name}: zero early retries`, measured: `${row.early} early of ${row.retried} retried`, met: row.early === 0 });
	}

	for (const row of results.duplicates.filter((r) => !r.name.startsWith('Retry On Fail'))) {
		verdicts.push({
			goal: `Duplicates, ${row.name}: each successful item sent (charged) once`,
			measured: `${row.charges} charges for ${row.items} items, ${row.chargedTwice} charged twice`,
			met: row.chargedTwice === 0 && row.charges === row.items,
		});
	}

	const bounded = results.stateSize[0];
	if (bounded) {
		verdicts.push({
			goal: 'State memory bounded by its configured size',
			measured: `${bounded.keysKept} keys kept of ${bounded.keysOffered} offered (bound ${bounded.maxKeys}), heap +${(bounded.heapGrowthBytes / 1e6).toFixed(1)} MB`,
			met: bounded.keysKept <= bounded.maxKeys,
		});
	}
	return verdicts;
}
