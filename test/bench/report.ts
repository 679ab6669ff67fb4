/** BENCHMARKS.md: the figures of one bench run, the machine it ran on and the goals read against them. */
import { cpus, loadavg, release, type } from 'node:os';
import { markdownTable } from '../support/doc-section';
import { POLL_DEFAULTS } from '../../nodes/shared/core/defaults';
import { BENCH_ENV, BENCH_RUN_ENV, type BenchSettings } from './config';
import { DEADLINE_TOLERANCE_MS, evaluateGoals, type BenchResults, type GoalVerdict } from './goals';
import { healthySection } from './healthy-report';
import { isSkipped, REAL_N8N_JSON, type FleetRun, type RateRun, type RealN8nResults } from './real-n8n-results';
import { summarizePolling } from './scenarios/polling';
import type { RateResult } from './scenarios/rate-limit';
import type { RetryAfterRow } from './scenarios/retry-after';
import type { StormResult } from './scenarios/outage-storm';
import type { SustainedRow } from './scenarios/sustained-outage';
import { slowStartNote } from './slow-start-note';
import { tenantsSection } from './tenants-report';
import { llmSection } from './llm-report';
import { slidingPeakAt } from './stats';
import { describeCounts, describeWaits, dominantWait, type WaitTotals } from './stories';

export interface Machine {
	cpu: string;
	cores: number;
	node: string;
	os: string;
	/** 1-minute load average when the run started and ended: other work on the machine skews timings. */
	loadAtStart: number;
	loadAtEnd: number;
	date: string;
	command: string;
	/** How long the engine part took. */
	engineDurationMs: number;
}

/** The machine now; `startedAt` and `loadAtStart` were taken when the engine part started. */
export function describeMachine(loadAtStart: number, startedAt = Date.now()): Machine {
	const overrides = [...Object.values(BENCH_ENV), ...BENCH_RUN_ENV]
		.filter((name) => process.env[name] !== undefined)
		.map((name) => `${name}=${process.env[name]}`);
	// the bench script sets BENCH_RUN_ID; without it the engine part ran alone
	const command = process.env.BENCH_RUN_ID ? 'npm run bench' : 'npx jest -c jest.bench.config.js --runInBand';
	return {
		cpu: cpus()[0]?.model.trim() ?? 'unknown',
		cores: cpus().length,
		node: process.version,
		os: `${type()} ${release()}`,
		loadAtStart,
		loadAtEnd: loadavg()[0],
		date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
		command: [...overrides, command].join(' '),
		engineDurationMs: Date.now() - startedAt,
	};
}

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '-');
const sec = (value: number) => (Number.isFinite(value) ? `${(value / 1000).toFixed(1)} s` : '-');
const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-');
const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((1000 * part) / whole) / 10}%` : '-');
const mark = (status: GoalVerdict['status']) => (status === 'met' ? 'met' : status === 'not met' ? '**NOT MET**' : '**not measured**');

export const PLOT_PATH = 'docs/bench-outage-storm.svg';

function goalsTable(goals: GoalVerdict[]): string {
	return markdownTable(
		['Scenario', 'Goal', 'Measured', 'Verdict'],
		goals.map((g) => [g.scenario, g.goal, g.measured, mark(g.status)]),
	);
}

const waitCell = (waits: WaitTotals | undefined) => (waits ? describeWaits(waits) : '-');

function stormTable(storm: readonly StormResult[]): string {
	return markdownTable(
		['Row', 'Succeeded', 'Requests', 'Amplification', 'Retry peak (/100 ms)', 'Peak after recovery (/100 ms)', 'Completion p50', 'p95', 'max', 'Waited at the controller (succeeded items)'],
		storm.map((r) => [r.row.name, pct(r.succeeded, r.fleet), r.requests, x(r.amplification), r.retryPeak, r.peakAfterRecovery, ms(r.completionMs.p50), ms(r.completionMs.p95), ms(r.completionMs.max), waitCell(r.waits)]),
	);
}

function sustainedTable(rows: readonly SustainedRow[]): string {
	return markdownTable(
		['Items', 'Row', 'How', 'Requests', 'Amplification', 'Error output', 'Success output', 'Execution took', 'Latest item vs its deadline', 'Reasons', 'Never sent'],
		rows.map((r) => [
			r.items,
			r.name,
			r.measured ? 'measured' : 'computed',
			r.requests,
			x(r.amplification),
			r.onErrorOutput,
			r.onSuccessOutput,
			r.measured ? sec(r.durationMs) : `about ${sec(r.durationMs)}`,
			r.latestEndVsDeadlineMs === undefined ? '-' : `${r.latestEndVsDeadlineMs > 0 ? '+' : ''}${Math.round(r.latestEndVsDeadlineMs)} ms`,
			r.reasons ? describeCounts(r.reasons) : '-',
			r.neverSent ?? '-',
		]),
	);
}

function rateTable(rows: readonly RateResult[]): string {
	return markdownTable(
		['Upstream', 'Row', 'Succeeded', 'Error output', 'Execution', 'Requests', '429s', '429 share', 'Time', 'Time / ideal', 'Waited at the controller'],
		rows.map((r) => [
			r.row.upstream === 'plain' ? 'limit only' : 'limit + remaining/reset headers',
			r.row.name,
			pct(r.succeeded, r.items),
			r.onErrorOutput,
			r.executionStatus,
			r.requests,
			r.status429,
			pct(r.status429, r.requests),
			sec(r.durationMs),
			x(r.durationMs / r.idealMs),
			waitCell(r.waits),
		]),
	);
}

function fleetTable(run: FleetRun): string {
	return markdownTable(
		['Row', 'Executions', 'Succeeded', 'Requests', 'Amplification', 'Retry peak (/100 ms)', 'Calls spread', 'Duration', 'Completion p50', 'p95', 'max'],
		run.rows.map((r) => [r.name, r.executions, pct(r.succeeded, r.executions), r.requests, x(r.amplification), r.retryPeak100ms, sec(r.callsSpreadMs), sec(r.durationMs), ms(r.completionMs.p50), ms(r.completionMs.p95), ms(r.completionMs.max)]),
	);
}

function realRateTable(run: RateRun): string {
	return markdownTable(
		['Row', 'Executions', 'Succeeded', 'Requests', '429s', '429 share', 'Time', 'Ideal', 'Time / ideal'],
		run.rows.map((r) => [r.name, r.executions, pct(r.succeeded, r.executions), r.requests, r.status429, pct(r.status429, r.requests), sec(r.durationMs), sec(r.idealMs), x(r.durationMs / r.idealMs)]),
	);
}

function realN8nSection(results: BenchResults): string {
	const reading = results.realN8n;
	if (!reading.measured) {
		return `Not measured in this run: ${reading.why}. Its goals are reported as not measured (a goal not
measured is not met). \`npm run bench\` runs this part first (real n8n 2.41.1 servers, webhook
executions) and hands its figures over in \`${REAL_N8N_JSON}\`.`;
	}
	const r: RealN8nResults = reading.results;
	const webhook = isSkipped(r.webhookFleet)
		? `Skipped: ${r.webhookFleet.skipped}.`
		: `${r.webhookFleet.executions} webhook executions of one item each against one n8n (regular mode), as fast as n8n takes
them; the upstream is down for ${sec(r.webhookFleet.outageMs)} from the first call.

${fleetTable(r.webhookFleet)}`;
	const queue = isSkipped(r.queueMode)
		? `Skipped: ${r.queueMode.skipped}.`
		: `Main + ${r.queueMode.workers} workers (concurrency ${r.queueMode.workerConcurrency} each), PostgreSQL + Redis, Shared State = Redis.

Outage storm, ${r.queueMode.storm.executions} executions, upstream down for ${sec(r.queueMode.storm.outageMs)}:

${fleetTable(r.queueMode.storm)}

Rate limit, ${r.queueMode.rateLimit.executions} executions of one item, shared limit ${r.queueMode.rateLimit.limitRps}/s (429 + Retry-After: 1 beyond):

${realRateTable(r.queueMode.rateLimit)}${
				r.queueMode.recovery
					? `

Recovery (issue 39), ${r.queueMode.recovery.executions} executions, upstream down for ${sec(r.queueMode.recovery.outageMs)} from the barrier's opening: how soon the workers notice its return (one probe for the fleet).

${fleetTable(r.queueMode.recovery)}`
					: ''
			}`;
	return `Measured by the real-n8n part of this run (${r.measuredAt}, run ${r.runId}): n8n ${r.n8nVersion} on Node ${r.nodeVersion}.

### Webhook fleet

${webhook}

### Queue mode

${queue}

### Pauses: stated and guessed

${pausesText(r.pauses)}

### Tenants: fair shares and urgent items

${tenantsSection(r.tenants)}

### Token budgets: an LLM API (issue 36)

${llmSection(r.llm, r.llmQueue)}`;
}

/** The pauses rows (test/bench/real-n8n-pauses.mjs): what a guessed pause and a stated one cost in a real n8n. */
function pausesText(run: RealN8nResults['pauses']): string {
	if (run === undefined) return 'Not in this run\'s figures.';
	if (isSkipped(run)) return `Skipped: ${run.skipped}.`;
	const { settings: p, daily, stated } = run;
	return `One n8n (regular mode), Resilient HTTP Request at its defaults, one item per webhook call, both rows side by side.
*Daily*: every request is answered HubSpot's daily-limit 429 (\`policyName: DAILY\`, no Retry-After, no reset
header) until the quota comes back ${sec(p.dailyBackMs)} after the first call; a call every ${sec(p.dailyEveryMs)} for ${sec(p.dailyCallsMs)}.
The node cannot know when the quota returns: it pauses the API to the day's end and probes it, one
request a minute after the pause began, then at doubling intervals; the calls in between wait for the
probe. *Stated*: the first call gets 429 + Retry-After: ${p.statedS}; a call every ${sec(p.statedEveryMs)} for ${sec(p.statedCallsMs)}.

${markdownTable(
	['Row', 'Calls', 'Executions succeeded', 'Requests', '429s', 'Measured'],
	[
		[daily.name, daily.calls, daily.succeeded, daily.requests, daily.status429, `first accepted request ${daily.resumedAfterReturnMs === null ? 'never' : sec(daily.resumedAfterReturnMs)} after the quota's return; ${daily.sentWhileSpent} request(s) while it was spent; ${daily.callsBeforeResume} calls waited for the probe`],
		[stated.name, stated.calls, stated.succeeded, stated.requests, stated.status429, `${stated.earlyRequests} request(s) before the stated end; the first after it +${stated.firstAfterEndMs ?? '-'} ms, the last +${stated.lastAfterEndMs ?? '-'} ms`],
	],
)}`;
}

/** The likely cause of each engine goal missed, read from the figures and the items' stories. */
export function missNotes(results: BenchResults, goals: readonly GoalVerdict[]): string[] {
	const notes: string[] = [];
	const missedOf = (row: string) => goals.filter((g) => g.status === 'not met' && g.row === row).map((g) => g.goal);
	const mostly = (waits: WaitTotals | undefined) => {
		const reason = waits ? dominantWait(waits) : undefined;
		return reason ? `, mostly ${reason}` : '';
	};
	const storm = results.storm.find((r) => r.row.slug === 'resilient');
	const stormMisses = missedOf('storm');
	if (storm && stormMisses.length > 0) {
		const during = storm.requestTimes.filter((t) => t < storm.recoveredAtMs).length;
		const peak = slidingPeakAt(storm.retryTimes, 100);
		const when = Number.isFinite(peak.at) ? `${Math.round(peak.at)} ms after the start, ${peak.at < storm.recoveredAtMs ? 'during the outage' : `${Math.round(peak.at - storm.recoveredAtMs)} ms after the recovery`}` : 'never';
		notes.push(
			`Outage storm (${stormMisses.join('; ')}): ${storm.requests} requests, ${during} during the outage and ${storm.requests - during} after it; the retry peak (${peak.peak}) came ${when}; ` +
				`failed executions: ${describeCounts(storm.failures)}; the succeeded items waited for ${waitCell(storm.waits)}${mostly(storm.waits)}.`,
		);
	}
	for (const row of results.sustained.filter((r) => r.slug === 'resilient')) {
		const rowMisses = missedOf(`sustained:${row.items}`);
		if (rowMisses.length === 0) continue;
		notes.push(
			`Sustained outage, ${row.items} items (${rowMisses.join('; ')}): ${row.requests} requests, ${row.neverSent ?? 0} items never sent; reasons: ${describeCounts(row.reasons ?? {})}; ` +
				`the latest item ended ${Math.round(row.latestEndVsDeadlineMs ?? NaN)} ms from its deadline (tolerance ${DEADLINE_TOLERANCE_MS} ms); waits before the attempts that went: ${waitCell(row.waits)}.`,
		);
	}
	for (const row of results.rate.filter((r) => r.row.resilient)) {
		const rowMisses = missedOf(`rate:${row.row.slug}`);
		if (rowMisses.length === 0) continue;
		const early = row.status429PerSecond.slice(0, 2).reduce((a, b) => a + b, 0);
		notes.push(
			`Rate limit, ${row.row.name}${row.row.upstream === 'quota-headers' ? ', headers' : ''} (${rowMisses.join('; ')}): ${row.status429} 429s, ${early} of them in the first 2 s; per second of the run: ${row.status429PerSecond.join(' ')}; ` +
				`the items waited for ${waitCell(row.waits)}${mostly(row.waits)}.`,
		);
	}
	for (const row of results.retryAfter.filter((r) => r.slug !== 'rof')) {
		const rowMisses = missedOf(`retry-after:${row.slug}`);
		if (rowMisses.length === 0) continue;
		notes.push(`Retry-After, ${row.name} (${rowMisses.join('; ')}): ${row.succeeded} of ${row.items} succeeded, ${row.early} early retries, in ${sec(row.durationMs)}; waits ${waitCell(row.waits)}.`);
	}
	return notes;
}

/** How long the Resilient rows of the Retry-After scenario took, and why the defaults take longer when they do. */
export function retryAfterNote(rows: readonly RetryAfterRow[], retryAfterSeconds: number): string {
	const defaults = rows.find((r) => r.slug === 'resilient');
	const all = rows.find((r) => r.slug === 'resilient-all');
	if (!defaults || !all) return '';
	const slow = defaults.durationMs > 3 * all.durationMs;
	return (
		`Resilient HTTP Request took ${sec(defaults.durationMs)} at its defaults and ${sec(all.durationMs)} with every item in flight at once.` +
		(slow
			? ` A 429 with Retry-After pauses the whole API (the controller's key): after each pause the requests of one window go, among them first requests that get their own 429 and pause everyone again for ${retryAfterSeconds} s, so the pauses follow one another (the items waited for ${waitCell(defaults.waits)}). This upstream limits each item on its own, which real APIs rarely do (a Retry-After is for the caller's key); it is the cost of pausing per API when they do.`
			: '')
	);
}

/** Why the healthy rows are measured in real n8n, not in the engine as they were (issue 24). */
const HEALTHY_ENGINE_NOTE = `Until issue 24 these rows ran in n8n's engine under Jest (as scenarios 1 to 3 still do) and said
1.58x HTTP Request's time in a first execution and 1.14x later (500 items), where a real n8n said
0.73x and 0.48x. The engine rows measured another node than users run: (1) the engine harness runs
executions in mode \`manual\`, where the node sends every attempt to the editor's console, which
reads the item's credential and parameters again to redact them (webhook, trigger and schedule
executions skip it; measured: the later execution's CPU ratio fell from 1.82x to 1.28x in mode
\`webhook\`); (2) the bench set *Retry Story: On Every Item*, not the default *On Failed Items*, so
every item carried and built its story; (3) it timed the whole workflow, engine and item source
included, not n8n's \`executionTime\` of the node; (4) Jest runs the code in a \`vm\` context with its
own module registry, where garbage collection took 11-14% of the profile, on Node 20 where n8n runs on
Node 24. The timed ratios moved with each of these, and with the load of the machine: a real
process, run as users run it, is the measure.`;

export function benchmarkReport(results: BenchResults, settings: BenchSettings, machine: Machine): string {
	const goals = evaluateGoals(results);
	const issueGoals = goals.filter((g) => g.issueGoal);
	const further = goals.filter((g) => !g.issueGoal);
	const count = (list: GoalVerdict[], status: GoalVerdict['status']) => list.filter((g) => g.status === status).length;
	const { storm, sustained, rate, retryAfter, duplicates, stateSize } = results;
	const rofStorm = storm.find((r) => r.row.slug === 'rof-default');
	const resilientSustained = sustained.filter((r) => r.slug === 'resilient');
	const computed = sustained.filter((r) => !r.measured);
	const notes = missNotes(results, goals);
	const slowStart = slowStartNote(results);
	return `# Benchmarks

Written by \`${machine.command}\` on ${machine.date}; the engine part took ${(machine.engineDurationMs / 60_000).toFixed(1)} min.

Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.os}. 1-minute load average
${machine.loadAtStart.toFixed(2)} at the start and ${machine.loadAtEnd.toFixed(2)} at the end: timings are only as quiet as the machine.

Scenarios 1 to 3 and 5 to 7 run the real node code in n8n's engine (n8n-core ${require('n8n-core/package.json').version} \`WorkflowExecute\`,
n8n-nodes-base ${require('n8n-nodes-base/package.json').version}), in real time (the real clock and sleeper, jitter from a random
source seeded with ${settings.seed}), side by side in one run: n8n's HTTP Request 4.2 with its node settings *Retry On
Fail* (default 3 tries, 1000 ms; max 5 tries, 5000 ms) against Resilient HTTP Request at its defaults
(Traffic Control on: hold during outages, a retry budget that waits, the window and pace learned
per API). The executions of one row run in one process and share one memory store, as the
executions of one n8n process do; each row gets a fresh store. The upstream is a local HTTP server on
127.0.0.1 in a child process, which logs every request with its time of arrival (its clock is not
delayed by the engine's work). Section 4 (the healthy API) and section 8 show the real-n8n part of \`npm run bench\`.

Sizes are environment variables (test/bench/config.ts): ${Object.values(BENCH_ENV).join(', ')}.

## Goals of issue 12

${count(issueGoals, 'met')} met, ${count(issueGoals, 'not met')} not met, ${count(issueGoals, 'not measured')} not measured, of ${issueGoals.length}.

${goalsTable(issueGoals)}

### Further checks of this benchmark

${count(further, 'met')} met, ${count(further, 'not met')} not met, of ${further.length}.

${goalsTable(further)}

### Misses and their likely cause

${notes.length === 0 ? 'No engine goal was missed.' : notes.map((n) => `- ${n}`).join('\n')}${slowStart ? `\n- ${slowStart}` : ''}${retryAfter.some((r) => r.slug === 'resilient') && retryAfterNote(retryAfter, settings.retryAfterSeconds).includes('pauses the whole API') ? `\n- Retry-After (no goal on time): ${retryAfterNote(retryAfter, settings.retryAfterSeconds)}` : ''}
${issueGoals.some((g) => g.status === 'not measured') ? '- Goals "not measured" have no figures in this run (see section 8): they count as not met.\n' : ''}
## How to read

- *Amplification*: upstream requests per logical request (one item).
- *Retry peak*: the most retries (an item's requests after its first) in any 100 ms window
  (sliding, not binned): the synchronized wave the storm goal is about.
- *Peak after recovery*: the most requests of any kind in a 100 ms window that starts once the
  upstream is back.
- *Completion*: from the row's start to each execution's end, succeeded or not.
- *Waited at the controller*: the items' \`_retry.history[].traffic.waitedFor\` summed over all
  items, by reason (paused by the API, held during an outage, a concurrency slot, the rate, the
  budget), with how many items waited for it. It covers the attempts that went; an item that left
  without being sent has no attempt in its story (its reason is in \`error.reason\`).
- Timings (time, wall time, completion) move with the machine's load; counts (requests, 429s,
  items) do not. A ratio of two timings in one run is fairer than a timing alone.

## 1. Outage storm (engine)

${settings.fleet} executions of one workflow start at once, one item each; the upstream answers 503 for the first
${settings.outageMs} ms, then 200. HTTP Request stops the workflow on error, as Retry On Fail needs; Resilient HTTP
Request too (an execution that succeeded got a 200).

${stormTable(storm)}

![Requests per 100 ms during the outage storm](${PLOT_PATH})

- Retry On Fail at its default tries at about 0, 1 and 2 s: with an outage of 3 s or more all its
  tries fall inside it (it then succeeds for 0% and its peak after recovery is 0).${rofStorm ? ` Here: ${pct(rofStorm.succeeded, rofStorm.fleet)}, retry peak ${rofStorm.retryPeak}.` : ''}
- With Traffic Control off, each item retries on its own (full jitter, 5 attempts): the contrast
  for what the shared hold and budget do.

## 2. Sustained outage

The upstream answers 503 to everything. One execution of N items, error output on (*On Error*:
continue using error output). The Resilient rows run at the defaults except the *Total Deadline*:
${settings.sustainedDeadlineMs / 1000} s (\`${BENCH_ENV.sustainedDeadlineMs}\`) instead of 300 s, which would make each row last 5 minutes; every
item counts its deadline from its first attempt (or its first turn at the gate), and Max Items in Flight
(200) items are in progress at once. The Retry On Fail rows run with the error output on too: n8n then
re-runs the whole node while the first item of its output is an error (WorkflowExecute checks
\`data[0][0].json.error\`), so every item is sent Max. Tries times.${computed.length > 0 ? ` Rows above ${settings.sustainedRofMeasuredUpTo} items (\`${BENCH_ENV.sustainedRofMeasuredUpTo}\`) are computed by that arithmetic (Max. Tries x items), not run: ${computed.map((r) => `${r.name}, ${r.items} items`).join('; ')}.` : ' Every row here was run (none computed).'}

${sustainedTable(sustained)}

- *Latest item vs its deadline*: the largest \`_retry.elapsedMs\` of the items minus the Total Deadline
  (negative: before it). Within means at most ${DEADLINE_TOLERANCE_MS} ms after it (a timer firing late on a loaded machine).
- *Reasons*: \`error.reason\` of the items on the error output; *never sent*: items whose story
  has no attempt (held from the start until their deadline could not be met).${resilientSustained.length > 0 ? `\n- Waits of the attempts that went: ${resilientSustained.map((r) => `${r.items} items: ${waitCell(r.waits)}`).join('; ')}.` : ''}

## 3. Rate limit

One execution of ${settings.rateItems} items against an upstream that admits ${settings.rateLimitRps} requests per second, shared by all:
a token bucket holding ${settings.rateLimitRps} tokens, refilled continuously at ${settings.rateLimitRps} per second (a burst of ${settings.rateLimitRps}, then ${settings.rateLimitRps} per
second on average; test/bench/upstream-child.js); beyond it, 429 with \`Retry-After: 1\`. The second
upstream variant also sends \`x-ratelimit-remaining\` (whole tokens left) and \`x-ratelimit-reset\`
(seconds until the bucket is full again, 3 decimals) on every answer. Ideal time: items / rate =
${sec((settings.rateItems / settings.rateLimitRps) * 1000)} (the full bucket at the start makes ${sec(((settings.rateItems - settings.rateLimitRps) / settings.rateLimitRps) * 1000)} possible). Resilient HTTP Request runs with the
error output on, to count the items it gives up on.

${rateTable(rate)}

- HTTP Request sends every item at once. With the error output on, n8n re-runs the node only when
  the first item failed: the first requests take the bucket's tokens, so the others go to the error
  output without a retry. Stopping on error, Retry On Fail re-runs the whole node (every item again)
  and the execution fails when the last try does.
- *Adapt Items in Flight off*: Resilient HTTP Request with every item in flight at once (up to Max
  Items in Flight, 1000), as HTTP Request sends them: no slow start. Its first burst's 429s are what
  the window's first rounds spare an API the node does not know yet.
- *429s per second* of each Resilient row's run, for where they came from: ${rate.filter((r) => r.row.resilient).map((r) => `${r.row.name}${r.row.upstream === 'quota-headers' ? ' (headers)' : ''}: ${r.status429PerSecond.join(' ')}`).join('; ')}.

## 4. Healthy API (real n8n)

${healthySection(results.realN8n)}

${HEALTHY_ENGINE_NOTE}

## 5. Retry-After

${settings.retryAfterItems} items in one execution; each item's first request gets 429 with \`Retry-After: ${settings.retryAfterSeconds}\`, its next one 200.
Lateness is measured on the upstream's clock: the second request's arrival minus the first's minus
the Retry-After (negative: early). Resilient HTTP Request continues on error (regular output), so
that an item it gave up on is counted.

${markdownTable(
	['Row', 'Items retried', 'Early retries', 'Lateness p50', 'p95', 'min', 'Items succeeded', 'Requests', 'Time', 'Waited at the controller'],
	retryAfter.map((r) => [r.name, `${r.retried} of ${r.items}`, r.early, ms(r.latenessMs.p50), ms(r.latenessMs.p95), ms(r.latenessMs.min), r.succeeded, r.requests, sec(r.durationMs), waitCell(r.waits)]),
)}

Retry On Fail ignores Retry-After: it re-runs the node after *Wait Between Tries* (early whenever
that is shorter than the Retry-After). ${retryAfterNote(retryAfter, settings.retryAfterSeconds)}

## 6. Duplicate side effects

${settings.duplicateItems} POST items to a payment-like endpoint; the first request of one item gets 503, every other
request succeeds and charges. A charge is a successful POST.

${markdownTable(
	['Row', 'Requests', 'Charges', 'Items charged twice', 'Requests per item', 'Same idempotency key on retry'],
	duplicates.map((r) => [r.name, r.requests, `${r.charges} for ${r.items} items`, r.chargedTwice, r.requestsPerItem.join(' '), r.slug === 'dup-rof' ? '-' : r.sameKeyOnRetry ? 'yes' : 'no']),
)}

Retry On Fail re-runs the whole node: every item that had succeeded is sent, and charged, again.
Resilient HTTP Request retries only the item that failed, and a POST only with an idempotency key
(here generated per item, the same on every attempt).

## 7. State size

The in-memory store of the traffic controllers (nodes/shared/state/memory-store.ts) meets
${settings.stateScopes} distinct APIs, each with a first request answered by a failure (a budget count, a hold
streak, a learned window), with keys as the node makes them. Heap growth is measured after a full
garbage collection, the store still alive.

${markdownTable(
	['Store', 'Keys offered', 'Bound', 'Keys kept', 'Evicted (least recently used)', 'Heap growth', 'Per key kept'],
	stateSize.map((r) => [r.name, r.keysOffered, r.maxKeys, r.keysKept, r.evicted, `${(r.heapGrowthBytes / 1e6).toFixed(1)} MB`, `${Math.round(r.heapGrowthBytes / Math.max(1, r.keysKept))} B`]),
)}

## 8. Real n8n

${realN8nSection(results)}

## 9. Polling a job

${pollingSection(results.polling)}
`;
}

/** Scenario 9: requests and time per job, Resilient HTTP Request against the fixed-wait loop, over the phases. */
function pollingSection({ rows, loopWaitSeconds }: BenchResults['polling']): string {
	if (rows.length === 0) return 'Not measured in this run.';
	const summaries = [...new Set(rows.map((r) => r.jobSeconds))].flatMap((jobSeconds) => (['resilient', 'loop'] as const).map((slug) => summarizePolling(rows, jobSeconds, slug)).filter((p) => p !== undefined));
	const lengths = (jobSeconds: number) => [...new Set(rows.filter((r) => r.jobSeconds === jobSeconds).map((r) => r.lengthSeconds))];
	return `Each duration is run as several jobs whose lengths are spread over one of the loop's intervals: where a
job ends between two looks decides how late any poller sees it, and a job of exactly 5 min would end on one
of a 5 s loop's looks. A job shorter than the loop's interval keeps its length (the loop sees it at its first
look whatever it is; each job has its own jitter). Every job and strategy runs at once, in real time
(the job API's clock is the upstream's; nothing is scaled or simulated): \`POST /jobs/<s>/<key>\` answers 202
with a \`Location\`, which answers 202 \`running\` until the job has run its seconds, then 200 \`done\`.
Resilient HTTP Request follows the 202 (*Follow Asynchronous Operations*, the default polling pace:
${sec(POLL_DEFAULTS.intervalMs)} growing by ${POLL_DEFAULTS.growth} to ${sec(POLL_DEFAULTS.maxIntervalMs)}); the loop is n8n's HTTP Request, a ${loopWaitSeconds} s Wait, HTTP Request and an IF
back to the Wait. "Late by" is from the job's end to the answer that said done, on the upstream's clock.

${markdownTable(
	['Job', 'Lengths (s)', 'Row', 'Jobs done', 'Requests (POST + status): mean (fewest to most)', 'Late by: mean', 'Late by: most'],
	summaries.map((p) => [sec(p.jobSeconds * 1000), lengths(p.jobSeconds).join(', '), p.name, `${p.succeeded} of ${p.jobs}`, `${p.meanRequests.toFixed(1)} (${p.fewestRequests} to ${p.mostRequests})`, sec(p.meanLateMs), sec(p.mostLateMs)]),
)}`;
}
