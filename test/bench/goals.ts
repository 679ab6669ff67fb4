/**
 * Issue 12's goals, read against the figures of one bench run. Each verdict says what was
 * measured and whether the goal was met; a goal whose figures this run does not have (the real-n8n
 * part did not run, or a row is missing) is "not measured", which is not met.
 */
import { phaseFigures } from './healthy-figures';
import { isSkipped, type FleetRun, type RateRow, type RateRun, type RealN8nReading } from './real-n8n-results';
import type { DuplicateRow } from './scenarios/duplicates';
import type { RateResult } from './scenarios/rate-limit';
import { summarizePolling, type PollingRow } from './scenarios/polling';
import type { RetryAfterRow } from './scenarios/retry-after';
import type { StateSizeRow } from './scenarios/state-size';
import type { StormResult } from './scenarios/outage-storm';
import type { SustainedRow } from './scenarios/sustained-outage';
import { describeCounts } from './stories';
import { issue39Verdicts } from './goals-issue39';
import { issue36Verdicts } from './goals-issue36';

export interface BenchResults {
	storm: StormResult[];
	sustained: SustainedRow[];
	rate: RateResult[];
	retryAfter: RetryAfterRow[];
	duplicates: DuplicateRow[];
	stateSize: StateSizeRow[];
	realN8n: RealN8nReading;
	/** Scenario 9, with the loop's fixed wait (the goal's "one interval"). */
	polling: { rows: PollingRow[]; loopWaitSeconds: number };
}

export type GoalStatus = 'met' | 'not met' | 'not measured';

export interface GoalVerdict {
	scenario: string;
	goal: string;
	measured: string;
	status: GoalStatus;
	/** One of the issue's goals (true), or a further check of this benchmark (false). */
	issueGoal: boolean;
	/** Which engine row it judges ('storm', 'sustained:100', 'rate:resilient', 'healthy', 'retry-after:resilient'): where the notes look for a cause. */
	row?: string;
}

const withRow = (row: string, verdicts: GoalVerdict[]): GoalVerdict[] => verdicts.map((v) => ({ ...v, row }));

/** An item may leave this much after its deadline and still count as within it: a timer's lateness on a loaded machine. */
export const DEADLINE_TOLERANCE_MS = 250;

/** The issue's bounds, in one place. */
export const GOALS = {
	stormSuccess: 0.99,
	stormAmplification: 2.1,
	/** Resilient's retry peak at most this share of Retry On Fail default's. */
	stormRetryPeakShare: 1 / 5,
	realFleetSuccess: 0.99,
	realFleetAmplification: 2.2,
	sustainedAmplification: 1.1,
	rate429Share: 0.05,
	rate429ShareWithHeaders: 0.01,
	rateTimeRatio: 1.2,
	/** Issue 24: Resilient HTTP Request's time and CPU against HTTP Request's, in real n8n, first execution included. */
	healthyRatio: 1.05,
	/** Issue 24: every first request throttled with its own Retry-After, against every item in flight at once. */
	retryAfterRatio: 1.5,
	/** Issue 22: after a daily-limit 429 without a stated end, traffic resumes within this of the quota's return. */
	guessedPauseResumeMs: 300_000,
} as const;

const EPSILON = 1e-9;
const x = (value: number) => `${value.toFixed(2)}x`;
const pct = (part: number, whole: number) => `${whole === 0 ? '-' : (Math.round((1000 * part) / whole) / 10).toString()}%`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const judged = (met: boolean): GoalStatus => (met ? 'met' : 'not met');

function stormVerdicts(scenario: string, rows: ReadonlyArray<{ slug: string; executions: number; succeeded: number; amplification: number; retryPeak: number }>, amplificationBound: number, withPeak: boolean): GoalVerdict[] {
	const ours = rows.find((r) => r.slug === 'resilient');
	const rof = rows.find((r) => r.slug === 'rof-default');
	const rofMax = rows.find((r) => r.slug === 'rof-max');
	const context = [rof ? `Retry On Fail default ${pct(rof.succeeded, rof.executions)} at ${x(rof.amplification)}` : '', rofMax ? `max ${pct(rofMax.succeeded, rofMax.executions)} at ${x(rofMax.amplification)}` : ''].filter(Boolean).join(', ');
	const missing = (goal: string): GoalVerdict => ({ scenario, goal, measured: 'no Resilient HTTP Request row', status: 'not measured', issueGoal: true });
	const verdicts: GoalVerdict[] = [];
	const successGoal = `>= ${GOALS.stormSuccess * 100}% of the executions succeed`;
	const ampGoal = `amplification <= ${amplificationBound}x`;
	if (!ours) return [missing(successGoal), missing(ampGoal), ...(withPeak ? [missing('retry peak per 100 ms <= 1/5 of Retry On Fail default\'s')] : [])];
	verdicts.push({ scenario, goal: successGoal, measured: `${pct(ours.succeeded, ours.executions)} (${ours.succeeded} of ${ours.executions})${context ? `; ${context}` : ''}`, status: judged(ours.succeeded >= GOALS.stormSuccess * ours.executions - EPSILON), issueGoal: true });
	verdicts.push({ scenario, goal: ampGoal, measured: x(ours.amplification), status: judged(ours.amplification <= amplificationBound + EPSILON), issueGoal: true });
	if (withPeak) {
		const goal = 'retry peak per 100 ms <= 1/5 of Retry On Fail default\'s';
		if (!rof) verdicts.push({ scenario, goal, measured: `${ours.retryPeak}; no Retry On Fail default row to compare with`, status: 'not measured', issueGoal: true });
		else verdicts.push({ scenario, goal, measured: `${ours.retryPeak} against ${rof.retryPeak} (bound ${(rof.retryPeak * GOALS.stormRetryPeakShare).toFixed(1)}, ratio ${(ours.retryPeak / Math.max(1, rof.retryPeak)).toFixed(2)})`, status: judged(ours.retryPeak <= rof.retryPeak * GOALS.stormRetryPeakShare + EPSILON), issueGoal: true });
	}
	return verdicts;
}

/** The figures of a rate row, from the engine or from real n8n (a RateRow without its labels). */
type RateFigures = Omit<RateRow, 'slug' | 'name'>;

function rateVerdicts(scenario: string, row: RateFigures | undefined, share429: number, issueGoal: boolean): GoalVerdict[] {
	const goals = ['100% succeed', `429s <= ${share429 * 100}% of requests`, `time <= ${GOALS.rateTimeRatio}x of the ideal (items / rate)`];
	if (!row) return goals.map((goal) => ({ scenario, goal, measured: 'no such row', status: 'not measured', issueGoal }));
	return [
		{ scenario, goal: goals[0], measured: `${pct(row.succeeded, row.executions)} (${row.succeeded} of ${row.executions})`, status: judged(row.succeeded === row.executions), issueGoal },
		{ scenario, goal: goals[1], measured: `${pct(row.status429, row.requests)} (${row.status429} of ${row.requests})`, status: judged(row.status429 <= share429 * row.requests + EPSILON), issueGoal },
		{ scenario, goal: goals[2], measured: `${x(row.durationMs / row.idealMs)} (${s(row.durationMs)}, ideal ${s(row.idealMs)})`, status: judged(row.durationMs <= GOALS.rateTimeRatio * row.idealMs + EPSILON), issueGoal },
	];
}

const engineRate = (r: RateResult | undefined): RateFigures | undefined => r && { executions: r.items, succeeded: r.succeeded, requests: r.requests, status429: r.status429, durationMs: r.durationMs, idealMs: r.idealMs };

/** Issue 24's healthy goals, from the real-n8n part's healthy rows (section 4). */
function healthyVerdicts(reading: RealN8nReading): GoalVerdict[] {
	const goals = [`time <= ${GOALS.healthyRatio}x HTTP Request's`, `CPU <= ${GOALS.healthyRatio}x HTTP Request's`];
	const healthy = reading.measured ? reading.results.healthy : undefined;
	if (!reading.measured || healthy === undefined || isSkipped(healthy)) {
		const why = !reading.measured ? reading.short : healthy === undefined ? 'no healthy rows in the real-n8n figures' : `skipped (${(healthy as { skipped: string }).skipped})`;
		return goals.map((goal) => ({ scenario: 'real n8n: healthy API', goal, measured: `not measured in this run: ${why} (section 4)`, status: 'not measured', issueGoal: true }));
	}
	return healthy.sizes.flatMap((size) =>
		(['first', 'later'] as const).flatMap((phase) => {
			const f = phaseFigures(size, phase);
			const scenario = `real n8n: healthy API (${healthy.latencyMs} ms), ${size.items} items, ${phase === 'first' ? 'first execution (an API new to the node)' : 'later execution'}`;
			return [
				{ scenario, goal: goals[0], measured: `${x(f.timeRatio)} (the median of ${f.rounds} rounds' ratios; medians of the times: node ${Math.round(f.resilientNodeMs)} ms, HTTP Request ${Math.round(f.coreNodeMs)} ms)`, status: judged(f.timeRatio <= GOALS.healthyRatio + EPSILON), issueGoal: true },
				{ scenario, goal: goals[1], measured: `${x(f.cpuRatio)} (${Math.round(f.resilientCpuMs)} ms against ${Math.round(f.coreCpuMs)} ms beyond the execution without a request node)`, status: judged(f.cpuRatio <= GOALS.healthyRatio + EPSILON), issueGoal: true },
			];
		}),
	);
}

/** The goals of the real-n8n part, from its JSON; "not measured" with the reason when this run has none. */
function realN8nVerdicts(reading: RealN8nReading): GoalVerdict[] {
	const webhook = 'real n8n: 200 webhook executions, 20 s outage';
	const queueStorm = 'real n8n, queue mode: outage storm across workers';
	const queueRate = 'real n8n, queue mode: rate limit across workers';
	const queueRateHeaders = 'real n8n, queue mode: rate limit with remaining/reset headers';
	const shapes: Array<[string, string[]]> = [
		[webhook, [`>= ${GOALS.realFleetSuccess * 100}% of the executions succeed`, `amplification <= ${GOALS.realFleetAmplification}x`]],
		[queueStorm, [`>= ${GOALS.stormSuccess * 100}% of the executions succeed`, `amplification <= ${GOALS.stormAmplification}x`, 'retry peak per 100 ms <= 1/5 of Retry On Fail default\'s']],
		[queueRate, ['100% succeed', `429s <= ${GOALS.rate429Share * 100}% of requests`, `time <= ${GOALS.rateTimeRatio}x of the ideal (items / rate)`]],
		[queueRateHeaders, ['100% succeed', `429s <= ${GOALS.rate429ShareWithHeaders * 100}% of requests`, `time <= ${GOALS.rateTimeRatio}x of the ideal (items / rate)`]],
	];
	const notMeasured = (scenarios: Array<[string, string[]]>, why: string): GoalVerdict[] => scenarios.flatMap(([scenario, goals]) => goals.map((goal) => ({ scenario, goal, measured: `not measured in this run: ${why} (section 8)`, status: 'not measured' as const, issueGoal: true })));
	if (!reading.measured) return notMeasured(shapes, reading.short);
	const { webhookFleet, queueMode } = reading.results;
	const fleetRows = (run: FleetRun) => run.rows.map((r) => ({ slug: r.slug, executions: r.executions, succeeded: r.succeeded, amplification: r.amplification, retryPeak: r.retryPeak100ms }));
	const verdicts: GoalVerdict[] = [];
	verdicts.push(...(isSkipped(webhookFleet) ? notMeasured([shapes[0]], `skipped (${webhookFleet.skipped})`) : stormVerdicts(webhook, fleetRows(webhookFleet), GOALS.realFleetAmplification, false)));
	if (isSkipped(queueMode)) {
		verdicts.push(...notMeasured(shapes.slice(1), `skipped (${queueMode.skipped})`));
	} else {
		verdicts.push(...stormVerdicts(queueStorm, fleetRows(queueMode.storm), GOALS.stormAmplification, true));
		const rate = (run: RateRun, slug: string) => run.rows.find((r) => r.slug === slug);
		verdicts.push(...rateVerdicts(queueRate, rate(queueMode.rateLimit, 'resilient'), GOALS.rate429Share, true));
		verdicts.push(...rateVerdicts(queueRateHeaders, rate(queueMode.rateLimit, 'resilient-quota-headers'), GOALS.rate429ShareWithHeaders, true));
	}
	return verdicts;
}

/** Issue 22's pause goals, from the real-n8n part's pauses rows (section 8). */
function pausesVerdicts(reading: RealN8nReading): GoalVerdict[] {
	const dailyScenario = "real n8n: HubSpot's daily-limit 429 (no stated end), quota back 20 s later, a call every 10 s";
	const statedScenario = 'real n8n: 429 + Retry-After: 30 to the first call, a call every 3 s';
	const dailyGoal = `traffic resumes within ${GOALS.guessedPauseResumeMs / 60_000} min of the quota's return`;
	const statedGoals = ['no request before the stated end', 'every item after the first succeeds'];
	const pauses = reading.measured ? reading.results.pauses : undefined;
	if (!reading.measured || pauses === undefined || isSkipped(pauses)) {
		const why = !reading.measured ? reading.short : pauses === undefined ? 'no pauses rows in the real-n8n figures' : `skipped (${(pauses as { skipped: string }).skipped})`;
		const none = (scenario: string, goal: string): GoalVerdict => ({ scenario, goal, measured: `not measured in this run: ${why} (section 8)`, status: 'not measured', issueGoal: true });
		return [none(dailyScenario, dailyGoal), ...statedGoals.map((goal) => none(statedScenario, goal))];
	}
	const { daily, stated } = pauses;
	const resumed = daily.resumedAfterReturnMs;
	return [
		{
			scenario: dailyScenario,
			goal: dailyGoal,
			measured: `${resumed === null ? 'never' : s(resumed)} after it (the quota came back ${s(daily.quotaBackAfterMs)} after the 429); ${daily.sentWhileSpent} request(s) while it was spent, ${daily.requests} in all for ${daily.calls} calls; ${daily.succeeded} executions succeeded, ${daily.failed} not (the first call's item among them)`,
			status: judged(resumed !== null && resumed <= GOALS.guessedPauseResumeMs),
			issueGoal: true,
		},
		{ scenario: statedScenario, goal: statedGoals[0], measured: `${stated.earlyRequests} early of ${stated.requests} requests; the first after the end came ${stated.firstAfterEndMs === null ? '-' : `${stated.firstAfterEndMs} ms`} after it`, status: judged(stated.earlyRequests === 0 && stated.requests > 1), issueGoal: true },
		{ scenario: statedScenario, goal: statedGoals[1], measured: `${stated.succeeded} of ${stated.calls} executions succeeded (${stated.status429} x 429)`, status: judged(stated.succeeded === stated.calls && stated.failed === 0), issueGoal: true },
	];
}

export function evaluateGoals(results: BenchResults): GoalVerdict[] {
	const verdicts: GoalVerdict[] = [];
	const fleet = results.storm[0]?.fleet ?? 0;
	verdicts.push(...withRow('storm', stormVerdicts(`engine: ${fleet} executions at once, outage storm`, results.storm.map((r) => ({ slug: r.row.slug, executions: r.fleet, succeeded: r.succeeded, amplification: r.amplification, retryPeak: r.retryPeak })), GOALS.stormAmplification, true)));

	for (const row of results.sustained.filter((r) => r.slug === 'resilient')) {
		const scenario = `sustained outage, one execution of ${row.items} items, error output on`;
		const rof = results.sustained.filter((r) => r.slug !== 'resilient' && r.items === row.items).map((r) => `${r.slug === 'rof-max' ? 'Retry On Fail max' : 'Retry On Fail default'} ${x(r.amplification)}${r.measured ? '' : ' (computed)'}`);
		const key = `sustained:${row.items}`;
		verdicts.push({ scenario, goal: `amplification <= ${GOALS.sustainedAmplification}x`, measured: `${x(row.amplification)} (${row.requests} requests)${rof.length > 0 ? `; ${rof.join(', ')}` : ''}`, status: judged(row.amplification <= GOALS.sustainedAmplification + EPSILON), issueGoal: true, row: key });
		const late = row.latestEndVsDeadlineMs ?? Infinity;
		verdicts.push({
			scenario,
			goal: 'every item on the error output, within its deadline',
			measured: `${row.onErrorOutput} of ${row.items} on the error output (${row.onSuccessOutput} on the success output); the latest item ended ${late <= 0 ? `${Math.round(-late)} ms before` : `${Math.round(late)} ms after`} its deadline (${s(row.deadlineMs ?? 0)}, tolerance ${DEADLINE_TOLERANCE_MS} ms); reasons: ${describeCounts(row.reasons ?? {})}`,
			status: judged(row.onErrorOutput === row.items && late <= DEADLINE_TOLERANCE_MS),
			issueGoal: true,
			row: key,
		});
	}

	const rps = results.rate[0]?.rps ?? 0;
	const rateItems = results.rate[0]?.items ?? 0;
	const rateRow = (slug: string) => engineRate(results.rate.find((r) => r.row.slug === slug));
	verdicts.push(...withRow('rate:resilient', rateVerdicts(`engine: ${rateItems} items, shared limit ${rps}/s (429 + Retry-After: 1)`, rateRow('resilient'), GOALS.rate429Share, true)));
	verdicts.push(...withRow('rate:resilient-headers', rateVerdicts(`engine: the same, remaining/reset headers on every answer`, rateRow('resilient-headers'), GOALS.rate429ShareWithHeaders, true)));
	verdicts.push(...withRow('healthy', healthyVerdicts(results.realN8n)));
	verdicts.push(...realN8nVerdicts(results.realN8n));
	verdicts.push(...pausesVerdicts(results.realN8n));
	verdicts.push(...issue39Verdicts(results.realN8n));
	verdicts.push(...issue36Verdicts(results.realN8n));

	// further checks: the benchmark's own, beyond the issue's table
	verdicts.push(...withRow('rate:resilient-rate', rateVerdicts(`engine: ${rateItems} items, shared limit ${rps}/s, Rate Limit set to ${rps}/s`, rateRow('resilient-rate'), GOALS.rate429Share, false)));
	for (const row of results.retryAfter.filter((r) => r.slug !== 'rof')) {
		const scenario = `Retry-After: ${row.items} items, 429 + Retry-After on every first request, ${row.name}`;
		verdicts.push({ scenario, goal: 'every item succeeds', measured: `${row.succeeded} of ${row.items} in ${s(row.durationMs)}`, status: judged(row.succeeded === row.items), issueGoal: false, row: `retry-after:${row.slug}` });
		verdicts.push({ scenario, goal: 'zero early retries', measured: `${row.early} early of ${row.retried} retried`, status: judged(row.early === 0 && row.retried > 0), issueGoal: false, row: `retry-after:${row.slug}` });
	}
	const [atDefaults, allInFlight] = [results.retryAfter.find((r) => r.slug === 'resilient'), results.retryAfter.find((r) => r.slug === 'resilient-all')];
	if (atDefaults && allInFlight) {
		const ratio = atDefaults.durationMs / allInFlight.durationMs;
		verdicts.push({ scenario: `Retry-After: ${atDefaults.items} items, 429 + Retry-After on every first request`, goal: `defaults within ${GOALS.retryAfterRatio}x of every item in flight (issue 24)`, measured: `${x(ratio)} (${s(atDefaults.durationMs)} against ${s(allInFlight.durationMs)})`, status: judged(ratio <= GOALS.retryAfterRatio + EPSILON), issueGoal: false, row: 'retry-after:resilient' });
	}
	verdicts.push(...pollingVerdicts(results.polling));
	for (const row of results.duplicates.filter((r) => r.slug === 'dup-resilient')) {
		verdicts.push({ scenario: `duplicate side effects: ${row.items} POST items`, goal: 'each successful item sent (charged) once', measured: `${row.charges} charges for ${row.items} items, ${row.chargedTwice} charged twice`, status: judged(row.chargedTwice === 0 && row.charges === row.items), issueGoal: false });
	}
	const bounded = results.stateSize[0];
	if (bounded) {
		verdicts.push({ scenario: `state size: ${bounded.keysOffered} APIs`, goal: 'the memory store keeps at most its bound', measured: `${bounded.keysKept} keys kept (bound ${bounded.maxKeys}), heap +${(bounded.heapGrowthBytes / 1e6).toFixed(1)} MB`, status: judged(bounded.keysKept <= bounded.maxKeys), issueGoal: false });
	}
	return verdicts;
}

/** The start request and one status request: no poller sees a job done with fewer. */
const FEWEST_POLLING_REQUESTS = 2;

/**
 * Issue 23's goal for polling a job (a further check here: the table of issue 12's goals is unchanged): fewer requests than the fixed-wait loop, and the job seen done
 * no later than the loop saw it by more than one of the loop's intervals, both on average over the
 * job's phases (docs/polling.md: no poller that makes fewer requests can be that close at every phase).
 */
function pollingVerdicts({ rows, loopWaitSeconds }: BenchResults['polling']): GoalVerdict[] {
	const verdicts: GoalVerdict[] = [];
	for (const jobSeconds of [...new Set(rows.map((r) => r.jobSeconds))]) {
		const ours = summarizePolling(rows, jobSeconds, 'resilient');
		const loop = summarizePolling(rows, jobSeconds, 'loop');
		const phases = ours?.jobs ?? 0;
		const scenario = `polling a job of ${s(jobSeconds * 1000)} (${phases} phase${phases === 1 ? '' : 's'}), against a fixed ${loopWaitSeconds} s Wait + IF loop`;
		const row = `polling:${jobSeconds}`;
		if (!ours || !loop || ours.succeeded < ours.jobs || loop.succeeded < loop.jobs) {
			verdicts.push({ scenario, goal: 'every job polled to its end both ways', measured: `Resilient ${ours?.succeeded ?? 0} of ${ours?.jobs ?? 0} done, loop ${loop?.succeeded ?? 0} of ${loop?.jobs ?? 0}`, status: ours && loop ? 'not met' : 'not measured', issueGoal: false, row });
			continue;
		}
		// a loop that saw every job done at its first status request made the fewest requests any
		// poller can (the start and one status): there the goal is to match it
		const fewest = loop.mostRequests <= FEWEST_POLLING_REQUESTS;
		const range = (p: typeof ours) => (p.fewestRequests === p.mostRequests ? `${p.fewestRequests}` : `${p.meanRequests.toFixed(1)} (${p.fewestRequests} to ${p.mostRequests})`);
		verdicts.push({
			scenario,
			goal: fewest ? `as few requests as the loop (${FEWEST_POLLING_REQUESTS}, the start and one status, is the fewest possible)` : 'fewer requests than the loop, on average over the phases',
			measured: `${range(ours)} against ${range(loop)}`,
			status: judged(fewest ? ours.mostRequests <= FEWEST_POLLING_REQUESTS : ours.meanRequests < loop.meanRequests),
			issueGoal: false,
			row,
		});
		const later = ours.meanLateMs - loop.meanLateMs;
		verdicts.push({
			scenario,
			goal: `seen done no later than the loop by more than one interval (${loopWaitSeconds} s), on average over the phases`,
			measured: `${s(ours.meanLateMs)} after the job's end against ${s(loop.meanLateMs)} (${later > 0 ? `${s(later)} later` : `${s(-later)} sooner`}; at most ${s(ours.mostLateMs)} against ${s(loop.mostLateMs)})`,
			status: judged(later <= loopWaitSeconds * 1000),
			issueGoal: false,
			row,
		});
	}
	return verdicts;
}

