/** Section 4 of BENCHMARKS.md: the healthy rows, measured in real n8n (test/bench/real-n8n-healthy.mjs). */
import { markdownTable } from '../support/doc-section';
import { phaseFigures, type HealthyPhase, type ResilientSide } from './healthy-figures';
import { isSkipped, type HealthyRun, type HealthySample, type RealN8nReading } from './real-n8n-results';
import { median } from './stats';

const ms = (value: number) => `${Math.round(value)} ms`;
const x = (value: number) => `${value.toFixed(2)}x`;
/** The TCP counters over a row's rounds; '-' for a run from before they were kept. */
function dropped(samples: HealthySample[]): string {
	if (!samples.every((s) => s.tcp)) return '-';
	const sum = (field: 'listenDrops' | 'synRetrans') => samples.reduce((total, s) => total + s.tcp![field], 0);
	return `${sum('listenDrops')}, ${sum('synRetrans')}`;
}

function sizeTable(run: HealthyRun, index: number): string {
	const size = run.sizes[index];
	const baseline = median(size.samples.baseline.map((s) => s.cpuMs));
	const rows: string[][] = [];
	for (const phase of ['first', 'later'] as HealthyPhase[]) {
		const f = phaseFigures(size, phase);
		const when = phase === 'first' ? 'first execution (an API new to it)' : 'later execution (the same API)';
		const each = (side: 'core' | ResilientSide) => (size.samples[side]?.[phase] ?? []).map((s) => Math.round(s.nodeMs ?? NaN)).join(', ');
		rows.push([`HTTP Request 4.2, ${when}`, ms(f.coreNodeMs), '1.00x', ms(f.coreCpuMs), '1.00x', each('core'), dropped(size.samples.core[phase])]);
		rows.push([`Resilient HTTP Request, defaults, ${when}`, ms(f.resilientNodeMs), x(f.timeRatio), ms(f.resilientCpuMs), x(f.cpuRatio), each('resilient'), dropped(size.samples.resilient[phase])]);
		if (size.samples.fixed) {
			const fixed = phaseFigures(size, phase, 'fixed');
			rows.push([`Resilient, Adapt Items in Flight off, ${when}`, ms(fixed.resilientNodeMs), x(fixed.timeRatio), ms(fixed.resilientCpuMs), x(fixed.cpuRatio), each('fixed'), dropped(size.samples.fixed[phase])]);
		}
	}
	return (
		`${size.items} items (the execution without a request node: ${ms(baseline)} of CPU, median):\n\n` +
		markdownTable(['Row', "n8n's time of the node (median)", 'Ratio', 'CPU of the node (median)', 'Ratio', "Node's time in each round", 'Handshakes dropped, SYNs sent again (all rounds)'], rows)
	);
}

/** The section's tables, or why this run has none. */
export function healthySection(reading: RealN8nReading): string {
	const healthy = reading.measured ? reading.results.healthy : undefined;
	if (!reading.measured) return `Not measured in this run: ${reading.why}.`;
	if (healthy === undefined) return `Not measured in this run: ${reading.path} has no healthy rows.`;
	if (isSkipped(healthy)) return `Not measured in this run: the real-n8n part skipped it (${healthy.skipped}).`;
	return `One execution of N items per row in one real n8n ${reading.results.n8nVersion} (Node ${reading.results.nodeVersion}, regular mode, SQLite): a
webhook's body split into N items (Split Out), one GET each to an upstream answering in ${healthy.latencyMs} ms, no failures.
${healthy.runs} rounds after an untimed one; in each, HTTP Request 4.2, Resilient HTTP Request at its defaults and
Resilient HTTP Request with Adapt Items in Flight off run in turn (which goes first rotates), each a
first execution against a new API origin (for Resilient HTTP Request an API its controller has never
seen: at its defaults 10 requests in flight, then slow start; with Adapt Items in Flight off every
item at once up to Max Items in Flight, 1000, as HTTP Request sends them) and a later one against
the same origin, then an execution without a request node. Time:
n8n's own \`executionTime\` of the request node in the stored execution. CPU: the n8n process's
(user + system, /proc) from the webhook call to the execution stored, less the median of the
executions without a request node. Ratios: the median of the rounds' ratios (the sides of a round
ran back to back). The upstream listens with a queue of 4,096 (net.core.somaxconn), as a healthy API
takes every connection: with Node's default of 511, the kernel dropped handshakes of the requests
sent all at once and their clients sent the SYN again a second later. The last column counts such
drops on the machine during the row's executions (from /proc/net/netstat).

${healthy.sizes.map((_, index) => sizeTable(healthy, index)).join('\n\n')}`;
}
