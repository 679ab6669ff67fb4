/** BENCHMARKS.md: the figures of one `npm run bench`, the machine it ran on and the goals read against them. */
import { cpus, loadavg, release, type } from 'node:os';
import { budgetLimit, BUDGET_DEFAULTS } from '../../nodes/shared/state/budget';
import { markdownTable } from '../support/readme-section';
import { BENCH_ENV, type BenchSettings } from './config';
import { evaluateGoals, type BenchResults } from './goals';
import type { HealthyResult } from './scenarios/healthy-overhead';

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
}

export function describeMachine(loadAtStart: number): Machine {
	const overrides = Object.values(BENCH_ENV)
		.filter((name) => process.env[name] !== undefined)
		.map((name) => `${name}=${process.env[name]}`);
	return {
		cpu: cpus()[0]?.model.trim() ?? 'unknown',
		cores: cpus().length,
		node: process.version,
		os: `${type()} ${release()}`,
		loadAtStart,
		loadAtEnd: loadavg()[0],
		date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
		command: [...overrides, 'npm run bench'].join(' '),
	};
}

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '-');
const x = (value: number) => `${value.toFixed(2)}x`;
const pct = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

export const PLOT_PATH = 'docs/bench-outage-storm.svg';

function healthyTable(result: HealthyResult): string {
	const h = result.median;
	return markdownTable(
		['Variant', 'Wall time (median)', 'Ratio', 'CPU (median)', 'Ratio', 'Wall time of each run'],
		(
			[
				['HTTP Request 4.2 (all items at once)', h.core, result.samples.core],
				['Resilient HTTP Request, defaults (adaptive: from 10 up to 200 in flight)', h.resilientDefault, result.samples.resilientDefault],
				['Resilient HTTP Request, Adapt off, 10 in flight (the default before the adaptive window)', h.resilientFixed10, result.samples.resilientFixed10],
				[`Resilient HTTP Request, Adapt off, Max Items in Flight ${result.items} (all at once)`, h.resilientAll, result.samples.resilientAll],
			] as const
		).map(([name, m, samples]) => [name, ms(m.wallMs), x(m.wallMs / h.core.wallMs), ms(m.cpuMs), x(m.cpuMs / h.core.cpuMs), samples.map((sample) => Math.round(sample.wallMs)).join(', ')]),
	);
}

export function benchmarkReport(results: BenchResults, settings: BenchSettings, machine: Machine): string {
	const goals = evaluateGoals(results);
	const { storm, sustained, healthy, healthyLatent, retryAfter, duplicates, stateSize } = results;
	const rofDefault = storm.find((r) => r.strategy.slug === 'rof-default');
	const budgetRow = storm.find((r) => r.strategy.slug === 'full-budget');
	const stormTable = markdownTable(
		['Strategy', 'Requests', 'Amplification', 'Succeeded', 'Peak after recovery (/100 ms)', 'Retry peak (/100 ms)', 'Completion p50', 'p95', 'max'],
		storm.map((r) => [r.strategy.name, r.requests, x(r.amplification), pct(r.succeeded, r.fleet), r.peakAfterRecovery, r.retryPeak, ms(r.completionMs.p50), ms(r.completionMs.p95), ms(r.completionMs.max)]),
	);
	return `# Benchmarks

Written by \`${machine.command}\` (test/bench) on ${machine.date}.

Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.os}; 1-minute load
average ${machine.loadAtStart.toFixed(2)} at the start and ${machine.loadAtEnd.toFixed(2)} at the end (timings are only as quiet as the machine).

Every scenario runs the real node code in n8n's engine (n8n-core ${require('n8n-core/package.json').version} \`WorkflowExecute\`,
n8n-nodes-base ${require('n8n-nodes-base/package.json').version}), side by side in one run: n8n's HTTP Request 4.2 with its node
settings *Retry On Fail* / *Max. Tries* / *Wait Between Tries*, against Resilient HTTP Request. The
upstream is a local HTTP server on 127.0.0.1 in a child process, which logs every request with its
time of arrival: its timestamps are not delayed by the engine's work, and the engine's CPU
(\`process.cpuUsage()\`) holds no server work. Jitter comes from a seeded random source (seed ${settings.seed}).
Sizes are environment variables: ${Object.values(BENCH_ENV).join(', ')}.

## Goals

${markdownTable(
	['Goal', 'Measured', 'Met'],
	goals.map((g) => [g.goal, g.measured, g.met ? 'yes' : '**no**']),
)}

## 1. Outage storm

${settings.fleet} executions of one workflow start at once, one request each; the upstream answers 503
for the first ${settings.outageMs} ms, then 200. Real time: real sleeps, the real clock. Resilient HTTP
Request runs with its defaults (5 attempts, base delay 1 s, max delay 30 s), a fresh state store
per strategy, all executions of a strategy under one workflow id (one retry budget); the retry
budget is off except in the last row.

${stormTable}

![Requests per 100 ms during the outage storm](${PLOT_PATH})

- *Amplification*: upstream requests per logical request (one per execution).
- *Peak after recovery*, read literally: the most requests in any 100 ms window (sliding, not
  binned) that starts once the upstream is back. Retry On Fail at its default tries at about 0, 1
  and 2 s: when the outage lasts 3 s or more, all its tries fall inside it, so its literal peak is
  0 (and it succeeds for 0%), and the goal "at most a fifth of Retry On Fail's" cannot be met on
  this reading by any strategy that sends anything after the outage.${
		rofDefault ? ` Here: Retry On Fail's literal peak ${rofDefault.peakAfterRecovery}, success ${pct(rofDefault.succeeded, rofDefault.fleet)}.` : ''
	}
- *Retry peak*: the most retries (an execution's requests after its first) in any 100 ms window:
  the synchronized storm the goal is about. Retry On Fail's retries leave together, one wave per
  *Wait Between Tries*; jitter spreads them.
- *Completion*: from the fleet's start to each execution's end, succeeded or not.
- Why full jitter's retry peak is not lower: it draws an item's first retry from [0, 1 s] (the base
  delay), so ${settings.fleet} first retries land at about ${Math.round(settings.fleet / 10)} per 100 ms, and second retries ([0, 2 s])
  overlap them; Retry On Fail's wave is itself spread by the engine starting ${settings.fleet} executions on
  ${machine.cores} cores. Decorrelated jitter draws from [base, 3 x previous] and spreads further.${
		budgetRow
			? `
- With the retry budget, the ${settings.fleet} first attempts allow floor(0.1 x ${settings.fleet}) + 40 = ${budgetLimit(settings.fleet, BUDGET_DEFAULTS)} retries in the
  60 s window (${budgetRow.requests - settings.fleet} were sent), and full jitter spends them while the upstream is still down: ${pct(budgetRow.succeeded, budgetRow.fleet)} of the executions
  succeeded, at ${x(budgetRow.amplification)} the traffic. That is the budget's trade: a hard bound on the load an outage
  causes, paid for by items that go to the error output (with their retry story, for a Backoff
  Delay loop or a later run) instead of retrying into the outage.`
			: ''
	}

## 2. Sustained outage

The upstream answers 503 to everything. Upstream requests per logical request, one request per
execution, all executions of a fleet at once under one workflow id. Resilient HTTP Request runs
on a frozen virtual clock (its backoff takes no time), so a fleet's retries all fall into one
budget window: the budget's worst case, and what real time gives too, since one item's 4 retries
span at most 15 s of the 60 s window. Retry On Fail's waits are n8n's own sleeps (real time).

${markdownTable(
	['Executions', 'Resilient, budget on', 'Budget bound (F + floor(0.1 F) + 40) / F', 'Resilient, budget off', 'Retry On Fail, default (3 tries)', 'Retry On Fail, max (5 tries)'],
	sustained.map((r) => [r.fleet, x(r.resilientBudget), x(r.budgetBound), x(r.resilientNoBudget), x(r.retryOnFailDefault), x(r.retryOnFailMax)]),
)}

The budget allows 10% of the first attempts plus 40 retries per 60 s window (see
nodes/shared/state/budget.ts), so the bound is 1 + 0.1 + 40 / F: 1.2 or less from 400 executions
per window on, above it for smaller fleets, whose few retries the floor of 40 keeps on purpose
(a workflow with 10 failing items still retries them all).

## 3. Healthy upstream

One execution of ${healthy.items} items, one GET each, no failures; ${healthy.runs} alternating runs per variant
after one untimed warm-up run each; medians. CPU is the engine process's (user + system).
First on loopback (the upstream answers at once), then against an upstream that takes
${healthyLatent.latencyMs} ms to answer each request (${healthyLatent.items} items, ${healthyLatent.runs} runs), as a real API does.

${healthyTable(healthy)}

With ${healthyLatent.latencyMs} ms of latency per request:

${healthyTable(healthyLatent)}

Where the time goes (CPU profiles of the engine with node's inspector, 2,000 items on loopback):
with all items in flight, Resilient HTTP Request's CPU is within a few percent of HTTP Request's;
its own per-item code (parameters, retry loop, retry story) is a few percent of the profile; the
rest is what both nodes pay: n8n's evaluation of the URL expression, axios and the sockets. n8n's
HTTP helper builds a new \`http.Agent\` for every request (@n8n/backend-network, \`buildNodeAgents\`),
so every request opens a new connection; on loopback, where answers take no time, a burst of all
items amortizes that work better than a steady stream of a few at a time (the same connect and
axios functions take 2 to 4 times longer per call), so any limit below "all" costs wall time there
(an earlier sweep of a fixed limit: 1.5x to 1.8x from 10 to 200). Against an API with latency,
the limit is what matters: a fixed 10 in flight needs items / 10 round trips. The adaptive window
(the default: 10 in flight, doubling while the API answers well, up to 200, halved on 429, 503 or
a timeout) needs a few round trips more than HTTP Request's single burst, and keeps one execution
from sending thousands of requests at once to a rate-limited API (README, *Items in flight*).

## 4. Retry-After

${settings.retryAfterItems} items in one execution; each item's first request gets 429 with \`Retry-After: ${settings.retryAfterSeconds}\`,
the next one 200. Lateness is measured on the upstream's clock: the second request's arrival minus
the first's minus the Retry-After (negative: early). Resilient HTTP Request lets all items be in
flight, as HTTP Request does (Adapt Items in Flight off: the adaptive window would halve on the
429s and run the waits in series; this scenario measures the waits), and continues on
error so that the items it gave up on are counted.

${markdownTable(
	['Variant', 'Items retried', 'Early retries', 'Lateness p50', 'p95', 'min', 'Items succeeded'],
	retryAfter.map((r) => [r.name, `${r.retried} of ${r.items}`, r.early, ms(r.latenessMs.p50), ms(r.latenessMs.p95), ms(r.latenessMs.min), r.succeeded]),
)}

Retry On Fail ignores Retry-After: it re-runs the node after *Wait Between Tries*. With the retry
budget on (the default), a single execution of ${settings.retryAfterItems} items that all hit a rate limit may retry
floor(0.1 x ${settings.retryAfterItems}) + 40 of them in the window; the others go to the error output with their
retry story ("retry budget exhausted") and the server's requested wait, for a Backoff Delay loop.

## 5. Duplicate side effects

${settings.duplicateItems} POST items to a payment-like endpoint; the first request of one item gets 503, every other
request succeeds and charges. A charge is a successful POST.

${markdownTable(
	['Variant', 'Requests', 'Charges', 'Items charged twice', 'Requests per item', 'Same idempotency key on retry'],
	duplicates.map((r) => [r.name, r.requests, `${r.charges} for ${r.items} items`, r.chargedTwice, r.requestsPerItem.join(' '), r.name.startsWith('Retry On Fail') ? '-' : r.sameKeyOnRetry ? 'yes' : 'no']),
)}

Retry On Fail re-runs the whole node: every item that had succeeded is sent, and charged, again.
Resilient HTTP Request retries only the item that failed; a POST is retried at all only with an
idempotency key (here generated per item, the same on every attempt).

## 6. State size

The in-memory store of retry budgets and circuit breakers (nodes/shared/state/memory-store.ts)
meets ${settings.stateScopes} distinct scopes, one budget and one breaker each, with keys as the node makes them.
Heap growth is measured after a full garbage collection, the store still alive.

${markdownTable(
	['Store', 'Keys offered', 'Bound', 'Keys kept', 'Evicted (least recently used)', 'Heap growth', 'Per key kept'],
	stateSize.map((r) => [r.name, r.keysOffered, r.maxKeys, r.keysKept, r.evicted, `${(r.heapGrowthBytes / 1e6).toFixed(1)} MB`, `${Math.round(r.heapGrowthBytes / Math.max(1, r.keysKept))} B`]),
)}
`;
}
