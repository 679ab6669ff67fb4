/**
 * Issue 39's goals (recovery at the speed of the API, fair shares, urgent items, fewer 429s without
 * headers, a key's own limits), read against the real-n8n figures of one bench run: the webhook
 * fleet's 20 s outage, the queue-mode rate row, and the tenants rows (test/bench/real-n8n-tenants.mjs).
 */
import type { GoalStatus, GoalVerdict } from './goals';
import { isSkipped, type FleetRow, type RealN8nReading, type TenantsRun } from './real-n8n-results';

export const ISSUE39_GOALS = {
	/** The webhook fleet's last execution ends at most this long after the API's return. */
	returnNoticedMs: 5_000,
	amplification: 1.1,
	/** A small tenant beside a bulk one: at most this times its time alone. */
	tenantSlowdown: 2,
	/** 429s of the queue-mode rate row without headers, as a share of its requests. */
	rate429Share: 0.02,
	/** An urgent item's wait at the controller may exceed one interval of the pace by a timer's lateness. */
	timerToleranceMs: 10,
	/** Under Rate Limit Per Key, a small tenant beside a big one: at most this times its own pace's time (its items / the key's rate). */
	keyedSlowdown: 1.25,
} as const;

const judged = (met: boolean): GoalStatus => (met ? 'met' : 'not met');
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const notMeasured = (scenario: string, goals: string[], why: string): GoalVerdict[] => goals.map((goal) => ({ scenario, goal, measured: `not measured in this run: ${why} (section 8)`, status: 'not measured', issueGoal: true }));

function outageVerdicts(row: FleetRow | undefined, outageMs: number, scenario: string, goals: string[]): GoalVerdict[] {
	if (!row) return notMeasured(scenario, goals, 'no Resilient HTTP Request row');
	const afterReturn = row.completionMs.max - outageMs;
	return [
		{ scenario, goal: goals[0], measured: `${row.succeeded} of ${row.executions}`, status: judged(row.succeeded === row.executions), issueGoal: true },
		{ scenario, goal: goals[1], measured: `${row.amplification.toFixed(2)}x (${row.requests} requests)`, status: judged(row.amplification <= ISSUE39_GOALS.amplification + 1e-9), issueGoal: true },
		{ scenario, goal: goals[2], measured: `the last execution ended ${s(afterReturn)} after it (${s(row.completionMs.max)} after the first call)`, status: judged(afterReturn <= ISSUE39_GOALS.returnNoticedMs), issueGoal: true },
	];
}

function rateVerdict(reading: Extract<RealN8nReading, { measured: true }>, scenario: string, goal: string): GoalVerdict[] {
	const queue = reading.results.queueMode;
	if (isSkipped(queue)) return notMeasured(scenario, [goal], `skipped (${queue.skipped})`);
	const row = queue.rateLimit.rows.find((r) => r.slug === 'resilient');
	if (!row) return notMeasured(scenario, [goal], 'no Resilient HTTP Request row');
	const share = row.requests ? row.status429 / row.requests : 0;
	return [{ scenario, goal, measured: `${(share * 100).toFixed(1)}% (${row.status429} of ${row.requests})`, status: judged(share <= ISSUE39_GOALS.rate429Share + 1e-9), issueGoal: true }];
}

function tenantsVerdicts(run: TenantsRun, scenarios: { shares: string; urgent: string }, goals: { shares: string[]; urgent: string }): GoalVerdict[] {
	const alone = run.alone.smallMs[0];
	const fair = run.fair.smallMs;
	const fifo = run.fifo.smallMs;
	const ratios = fair.map((ms) => (ms === null || !alone ? Infinity : ms / alone));
	const fifoRatios = fifo.map((ms) => (ms === null || !alone ? Infinity : ms / alone));
	const interval = 1000 / run.settings.limitRps;
	const waits = run.urgent.urgentWaitedMs;
	const rows = [run.fair, run.fifo, run.urgent];
	return [
		{
			scenario: scenarios.shares,
			goal: goals.shares[0],
			measured: `${ratios.map((r) => `${r.toFixed(2)}x`).join(' and ')} (${fair.map((ms) => (ms === null ? '-' : s(ms))).join(' and ')} against ${alone === null ? '-' : s(alone)} alone; without the key ${fifoRatios.map((r) => `${r.toFixed(1)}x`).join(' and ')}); three tenants waiting take a third of the pace each`,
			status: judged(ratios.every((r) => r <= ISSUE39_GOALS.tenantSlowdown)),
			issueGoal: true,
		},
		{
			scenario: scenarios.shares,
			goal: goals.shares[1],
			measured: `${rows.map((r) => `${r.slug} ${r.status429} x 429 in ${r.requests} requests`).join(', ')}; the busiest sliding second on the API's clock held ${Math.max(...rows.map((r) => r.busiestSecond))}`,
			status: judged(rows.every((r) => r.status429 === 0) && rows.every((r) => r.succeeded === r.executions)),
			issueGoal: true,
		},
		{
			scenario: scenarios.urgent,
			goal: goals.urgent,
			measured: `waited ${waits.map((ms) => `${ms} ms`).join(', ')} at the controller (one interval: ${interval} ms; a timer's lateness of ${ISSUE39_GOALS.timerToleranceMs} ms allowed)`,
			status: judged(waits.length === run.settings.urgentCalls && waits.every((ms) => ms <= interval + ISSUE39_GOALS.timerToleranceMs)),
			issueGoal: true,
		},
	];
}

const KEYED_SCENARIO = 'issue 39, real n8n: Rate Limit Per Key 5/s, three tenants at once (200, 20, 20 items), one API limited to 20/s';
const KEYED_GOALS = ["no tenant over its Rate Limit Per Key in any second (980 ms) on the API's clock, no 429, every item succeeds", `each small tenant within ${ISSUE39_GOALS.keyedSlowdown}x its own pace's time (its items / the key's rate)`];

function keyedVerdicts(run: TenantsRun): GoalVerdict[] {
	const row = run.keyed;
	const rate = run.settings.keyRps;
	if (row === undefined || rate === undefined) return notMeasured(KEYED_SCENARIO, KEYED_GOALS, 'no Rate Limit Per Key row in the real-n8n figures');
	const ownMs = (run.settings.small / rate) * 1000;
	const ratios = row.smallMs.map((ms) => (ms === null ? Infinity : ms / ownMs));
	return [
		{
			scenario: KEYED_SCENARIO,
			goal: KEYED_GOALS[0],
			measured: `the busiest 980 ms per tenant (big, small, small) ${row.tenantBusiest980Ms.join(', ')} (a sliding second ${row.tenantBusiestSecond.join(', ')}); ${row.status429} x 429 in ${row.requests} requests; ${row.succeeded} of ${row.executions} executions succeeded`,
			status: judged(row.tenantBusiest980Ms.every((n) => n <= rate) && row.status429 === 0 && row.succeeded === row.executions),
			issueGoal: true,
		},
		{
			scenario: KEYED_SCENARIO,
			goal: KEYED_GOALS[1],
			measured: `${ratios.map((r) => `${r.toFixed(2)}x`).join(' and ')} (${row.smallMs.map((ms) => (ms === null ? '-' : s(ms))).join(' and ')} against ${s(ownMs)}); the big tenant ${row.bigMs === null ? '-' : s(row.bigMs)}`,
			status: judged(ratios.every((r) => r <= ISSUE39_GOALS.keyedSlowdown)),
			issueGoal: true,
		},
	];
}

export function issue39Verdicts(reading: RealN8nReading): GoalVerdict[] {
	const outageScenario = 'issue 39, real n8n: 200 webhook executions, 20 s outage';
	const queueOutageScenario = 'issue 39, real n8n, queue mode: 200 executions across the workers, 20 s outage';
	const outageGoals = ['100% succeed', `amplification <= ${ISSUE39_GOALS.amplification}x`, `the last execution within ${ISSUE39_GOALS.returnNoticedMs / 1000} s of the API's return`];
	const rateScenario = 'issue 39, real n8n, queue mode: rate limit without headers';
	const rateGoal = `429s <= ${ISSUE39_GOALS.rate429Share * 100}% of requests`;
	const scenarios = { shares: 'issue 39, real n8n: three tenants, one API limited to 20/s, one sends 1,000 items, two send 20', urgent: 'issue 39, real n8n: 5 urgent items during a bulk run of 400 at 20/s' };
	const goals = { shares: [`each small tenant within ${ISSUE39_GOALS.tenantSlowdown}x its time alone`, "the API's limit never exceeded (no 429), every item succeeds"], urgent: 'each urgent item waits at most one interval of the pace' };
	const all = (why: string) => [...notMeasured(outageScenario, outageGoals, why), ...notMeasured(queueOutageScenario, outageGoals, why), ...notMeasured(rateScenario, [rateGoal], why), ...notMeasured(scenarios.shares, goals.shares, why), ...notMeasured(scenarios.urgent, [goals.urgent], why), ...notMeasured(KEYED_SCENARIO, KEYED_GOALS, why)];
	if (!reading.measured) return all(reading.short);
	const { webhookFleet, queueMode, tenants } = reading.results;
	const verdicts: GoalVerdict[] = [];
	verdicts.push(...(isSkipped(webhookFleet) ? notMeasured(outageScenario, outageGoals, `skipped (${webhookFleet.skipped})`) : outageVerdicts(webhookFleet.rows.find((r) => r.slug === 'resilient'), webhookFleet.outageMs, outageScenario, outageGoals)));
	const recovery = isSkipped(queueMode) ? undefined : queueMode.recovery;
	const noRecovery = isSkipped(queueMode) ? `skipped (${queueMode.skipped})` : 'no recovery row in the real-n8n figures';
	verdicts.push(...(recovery === undefined ? notMeasured(queueOutageScenario, outageGoals, noRecovery) : outageVerdicts(recovery.rows.find((r) => r.slug === 'resilient'), recovery.outageMs, queueOutageScenario, outageGoals)));
	verdicts.push(...rateVerdict(reading, rateScenario, rateGoal));
	if (tenants === undefined || isSkipped(tenants)) {
		const why = tenants === undefined ? 'no tenants rows in the real-n8n figures' : `skipped (${tenants.skipped})`;
		verdicts.push(...notMeasured(scenarios.shares, goals.shares, why), ...notMeasured(scenarios.urgent, [goals.urgent], why), ...notMeasured(KEYED_SCENARIO, KEYED_GOALS, why));
	} else verdicts.push(...tenantsVerdicts(tenants, scenarios, goals), ...keyedVerdicts(tenants));
	return verdicts;
}
