/** BENCHMARKS.md's tenants section (section 8): Fair Share Key and Urgent in a real n8n (test/bench/real-n8n-tenants.mjs). */
import { markdownTable } from '../support/doc-section';
import { isSkipped, type RealN8nResults } from './real-n8n-results';

const sec = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(2)} s`);
const list = (values: Array<number | null>, unit: (v: number | null) => string) => values.map(unit).join(', ');
const ms = (v: number | null) => (v === null ? '-' : `${v} ms`);

export function tenantsSection(run: RealN8nResults['tenants']): string {
	if (run === undefined) return "Not in this run's figures.";
	if (isSkipped(run)) return `Skipped: ${run.skipped}.`;
	const p = run.settings;
	const interval = 1000 / p.limitRps;
	return `One n8n (regular mode). Each row's API takes ${p.limitRps} requests a second (429 + Retry-After: 1 beyond, by epoch
second) and its node sets *Rate Limit* ${p.limitRps} per second. A webhook call brings a tenant's items (a Code node makes
them: one call, one execution). *Fair* and *FIFO*: ${p.big} items of a big tenant, and ${sec(p.startGapMs)} later ${p.small} of
each of two small tenants, with and without *Fair Share Key* = the tenant; a tenant's time runs from its call to
its last request reaching the API. *Urgent*: a bulk of ${p.bulk} items, and from ${sec(p.startGapMs)} on ${p.urgentCalls} calls of one
urgent item, one every ${sec(p.urgentEveryMs)}; an urgent item's wait is the one its story tells (at the controller; one
interval of the pace is ${interval} ms).${run.keyed ? ` *Rate Limit Per Key*: ${run.settings.keyRps} a second per tenant beside the API's *Rate Limit*, ${run.settings.keyedBig} items of a big tenant and ${p.small} of each of two small ones called at once.` : ''}

${markdownTable(
	['Row', 'Requests', '429s', 'Busiest second', 'Executions succeeded', 'Measured'],
	[
		[run.alone.name, run.alone.requests, run.alone.status429, run.alone.busiestSecond, `${run.alone.succeeded} of ${run.alone.executions}`, `${sec(run.alone.smallMs[0])} for its ${p.small} items (the first request ${sec(run.alone.smallFirstMs[0])} after the call)`],
		[run.fair.name, run.fair.requests, run.fair.status429, run.fair.busiestSecond, `${run.fair.succeeded} of ${run.fair.executions}`, `small tenants ${list(run.fair.smallMs, sec)} (the first request ${list(run.fair.smallFirstMs, sec)} after the call, of which ${list(run.fair.smallFirstWaitedMs, ms)} at the controller); big ${sec(run.fair.bigMs)}`],
		[run.fifo.name, run.fifo.requests, run.fifo.status429, run.fifo.busiestSecond, `${run.fifo.succeeded} of ${run.fifo.executions}`, `small tenants ${list(run.fifo.smallMs, sec)} (the first request ${list(run.fifo.smallFirstMs, sec)} after the call); big ${sec(run.fifo.bigMs)}`],
		[run.urgentAlone.name, run.urgentAlone.requests, run.urgentAlone.status429, run.urgentAlone.busiestSecond, `${run.urgentAlone.succeeded} of ${run.urgentAlone.executions}`, `from call to request ${list(run.urgentAlone.urgentMs, ms)}; waited ${list(run.urgentAlone.urgentWaitedMs, ms)}`],
		[run.urgent.name, run.urgent.requests, run.urgent.status429, run.urgent.busiestSecond, `${run.urgent.succeeded} of ${run.urgent.executions}`, `from call to request ${list(run.urgent.urgentMs, ms)}; waited ${list(run.urgent.urgentWaitedMs, ms)}`],
		...(run.keyed ? [[run.keyed.name, run.keyed.requests, run.keyed.status429, run.keyed.busiestSecond, `${run.keyed.succeeded} of ${run.keyed.executions}`, `busiest second per tenant (big, small, small) ${run.keyed.tenantBusiestSecond.join(', ')}, within 980 ms ${run.keyed.tenantBusiest980Ms.join(', ')}; small tenants ${list(run.keyed.smallMs, sec)}; big ${sec(run.keyed.bigMs)}`]] : []),
	],
)}

The busiest second is a sliding second on the API's clock: requests spaced ${interval} ms apart by the node can arrive a
few ms closer together, so a sliding second may hold one more than an epoch second; the API counted none over
its limit where it shows no 429.`;
}
