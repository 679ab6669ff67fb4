/**
 * Scenario 3, rate limit: one execution of N items against an upstream that admits `rps`
 * requests per second shared by all (a token bucket of `rps`, refilled at `rps` per second:
 * upstream-child.js) and answers 429 with `Retry-After: 1` beyond. A second upstream variant also
 * advertises its quota on every answer (x-ratelimit-remaining, x-ratelimit-reset in seconds).
 * How many items get through, how many 429s does the API have to send, how long does it take
 * against the ideal (items / rps)?
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { MemoryStateStore } from '../../../nodes/shared/state/memory-store';
import { waitsOf, type WaitTotals } from '../stories';
import type { Upstream } from '../upstream';
import { benchWorkflow, coreHttp, items, perItemUrl, realTimeRuntime, resilientHttp, RETRY_ON_FAIL_DEFAULT, runOnce } from '../workflows';

export interface RateSettings {
	items: number;
	rps: number;
	seed: number;
}

export type RateUpstream = 'plain' | 'quota-headers';

export interface RateRowSpec {
	slug: string;
	name: string;
	upstream: RateUpstream;
	/** The goal applies (Resilient at its defaults). */
	atDefaults: boolean;
	node: (url: string, settings: RateSettings) => INode;
	resilient: boolean;
}

const resilient = (parameters: (settings: RateSettings) => IDataObject) => (url: string, settings: RateSettings) => resilientHttp(url, parameters(settings), 'continueErrorOutput');

export const RATE_ROWS: readonly RateRowSpec[] = [
	{ slug: 'rof-stop', name: 'HTTP Request + Retry On Fail default, stops on error', upstream: 'plain', atDefaults: false, resilient: false, node: (url) => coreHttp(url, RETRY_ON_FAIL_DEFAULT) },
	{ slug: 'rof-error-output', name: 'HTTP Request + Retry On Fail default, error output on', upstream: 'plain', atDefaults: false, resilient: false, node: (url) => coreHttp(url, RETRY_ON_FAIL_DEFAULT, 'GET', 'continueErrorOutput') },
	{ slug: 'resilient', name: 'Resilient HTTP Request, defaults', upstream: 'plain', atDefaults: true, resilient: true, node: resilient(() => ({})) },
	{ slug: 'resilient-rate', name: 'Resilient, Rate Limit set to the API\'s limit', upstream: 'plain', atDefaults: false, resilient: true, node: resilient((s) => ({ sharedLimits: { rateLimit: s.rps, rateLimitPer: 'second' } })) },
	// no slow start: every item in flight at once, as HTTP Request sends them (what the window's first rounds spare the API)
	{ slug: 'resilient-fixed', name: 'Resilient, Adapt Items in Flight off', upstream: 'plain', atDefaults: false, resilient: true, node: resilient(() => ({ options: { adaptConcurrency: false } })) },
	{ slug: 'rof-error-output-headers', name: 'HTTP Request + Retry On Fail default, error output on', upstream: 'quota-headers', atDefaults: false, resilient: false, node: (url) => coreHttp(url, RETRY_ON_FAIL_DEFAULT, 'GET', 'continueErrorOutput') },
	{ slug: 'resilient-headers', name: 'Resilient HTTP Request, defaults', upstream: 'quota-headers', atDefaults: true, resilient: true, node: resilient(() => ({})) },
];

export interface RateResult {
	row: RateRowSpec;
	items: number;
	rps: number;
	/** Items on the success output of an execution that succeeded. */
	succeeded: number;
	onErrorOutput: number;
	executionStatus: string;
	requests: number;
	status200: number;
	status429: number;
	/** The 429s in each second of the run (the first second first). */
	status429PerSecond: number[];
	durationMs: number;
	/** items / rps. */
	idealMs: number;
	waits?: WaitTotals;
}

let limiterSerial = 0;

export async function runRateRow(upstream: Upstream, row: RateRowSpec, settings: RateSettings): Promise<RateResult> {
	await upstream.take();
	// a limiter of its own per row: a fresh, full bucket
	const limiter = `${row.slug}-${process.pid}-${++limiterSerial}`;
	const url = perItemUrl(`${upstream.url}/limited/${limiter}/${settings.rps}/${row.upstream === 'quota-headers' ? 1 : 0}`, `rate-${row.slug}`);
	const started = Date.now();
	const run = await runOnce(benchWorkflow(`rate-${row.slug}`, row.node(url, settings)), items(0, settings.items), row.resilient ? { runtime: realTimeRuntime(settings.seed), store: new MemoryStateStore() } : undefined, 600_000);
	const durationMs = Date.now() - started;
	const log = await upstream.take();
	const ok = run.status === 'success';
	const succeededItems = ok ? run.outputOf('HTTP', 0) : [];
	const seconds = Math.max(1, Math.ceil(durationMs / 1000));
	const status429PerSecond = new Array<number>(seconds).fill(0);
	for (const r of log) if (r.status === 429) status429PerSecond[Math.min(seconds - 1, Math.max(0, Math.floor((r.time - started) / 1000)))]++;
	return {
		row,
		items: settings.items,
		rps: settings.rps,
		succeeded: succeededItems.length,
		onErrorOutput: ok ? run.outputOf('HTTP', 1).length : 0,
		executionStatus: run.status,
		requests: log.length,
		status200: log.filter((r) => r.status === 200).length,
		status429: log.filter((r) => r.status === 429).length,
		status429PerSecond,
		durationMs,
		idealMs: (settings.items / settings.rps) * 1000,
		...(row.resilient ? { waits: waitsOf([...succeededItems, ...(ok ? run.outputOf('HTTP', 1) : [])]) } : {}),
	};
}

export async function runRateLimit(upstream: Upstream, settings: RateSettings, rows: readonly RateRowSpec[] = RATE_ROWS): Promise<RateResult[]> {
	const results: RateResult[] = [];
	for (const row of rows) results.push(await runRateRow(upstream, row, settings));
	return results;
}
