/**
 * Keeps `npm run bench` from rotting: runs the benchmark's scenario functions with tiny sizes and
 * asserts only what must hold whatever the machine and its load: counts and structure, never
 * timing. The figures themselves belong to BENCHMARKS.md.
 */
import path from 'node:path';
import { MEMORY_STORE_DEFAULTS } from '../../nodes/shared/state/memory-store';
import type { BenchSettings } from '../bench/config';
import { evaluateGoals, type BenchResults, type GoalVerdict } from '../bench/goals';
import { stormPlotSvg } from '../bench/plot';
import { readRealN8nResults, type LlmRun, type PausesRun, type RealN8nReading, type TenantsRun } from '../bench/real-n8n-results';
import { benchmarkReport, describeMachine } from '../bench/report';
import { runDuplicates } from '../bench/scenarios/duplicates';
import { runOutageStorm, STORM_ROWS } from '../bench/scenarios/outage-storm';
import { RATE_ROWS, runRateLimit } from '../bench/scenarios/rate-limit';
import { runRetryAfter } from '../bench/scenarios/retry-after';
import { runPolling } from '../bench/scenarios/polling';
import { runStateSize } from '../bench/scenarios/state-size';
import { computedRofRow, measureResilient, measureRof, SUSTAINED_ROF } from '../bench/scenarios/sustained-outage';
import { startUpstream, type Upstream } from '../bench/upstream';

const FLEET = 10;
const SEED = 7;
const FIXTURE = path.join(__dirname, '../bench/fixtures/real-n8n.json');
const results: Partial<BenchResults> = {};
let upstream: Upstream;

beforeAll(async () => {
	upstream = await startUpstream();
});
afterAll(async () => {
	await upstream.close();
});

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

it('outage storm: every execution sends its first request; retries stay within each row\'s limits; Resilient loses no execution', async () => {
	// the 5 s waits of Retry On Fail at its max only in npm run bench
	const rows = STORM_ROWS.filter((r) => r.slug !== 'rof-max');
	const storm = await runOutageStorm(upstream, { fleet: FLEET, outageMs: 300, seed: SEED }, rows);
	results.storm = storm;
	const [rof, resilient, off] = storm;
	expect(storm.map((r) => r.row.slug)).toEqual(['rof-default', 'resilient', 'resilient-tc-off']);
	// how many tries fall inside the outage depends on the machine's speed: only the bounds hold
	expect(rof.requests).toBeGreaterThanOrEqual(FLEET);
	expect(rof.requests).toBeLessThanOrEqual(3 * FLEET);
	expect(rof.succeeded).toBe(FLEET);
	// held during the outage, each execution succeeds after it (its deadline is 300 s)
	expect(resilient.succeeded).toBe(FLEET);
	expect(resilient.waits?.stories).toBe(FLEET);
	for (const r of [resilient, off]) {
		expect(r.requests).toBeGreaterThanOrEqual(FLEET);
		expect(r.requests).toBeLessThanOrEqual(5 * FLEET);
	}
	for (const r of storm) {
		expect(r.requestTimes).toHaveLength(r.requests);
		expect(r.retryTimes).toHaveLength(r.requests - FLEET);
		expect(r.amplification).toBeCloseTo(r.requests / FLEET);
		expect(r.retryPeak).toBeLessThanOrEqual(r.requests - FLEET);
		expect(r.peakAfterRecovery).toBeLessThanOrEqual(r.requests);
		expect(r.completionMs.p50).toBeLessThanOrEqual(r.completionMs.p95);
		expect(r.completionMs.p95).toBeLessThanOrEqual(r.completionMs.max);
		expect(sum(Object.values(r.failures))).toBe(FLEET - r.succeeded);
	}
	const svg = stormPlotSvg(storm);
	expect(svg.startsWith('<svg')).toBe(true);
	expect(svg.match(/<path /g)).toHaveLength(2 * storm.length);
});

it('sustained outage: every item leaves on the error output with a reason; Retry On Fail with the error output on sends each item Max. Tries times, as the computed rows assume', async () => {
	const items = 20;
	const [rofDefault] = SUSTAINED_ROF;
	const [measured] = await measureRof(upstream, rofDefault, [items]);
	const computed = computedRofRow(rofDefault.slug, rofDefault.name, rofDefault.retry, items);
	expect(measured.requests).toBe(computed.requests);
	expect(measured.onErrorOutput).toBe(items);
	expect(measured.onSuccessOutput).toBe(0);
	const ours = await measureResilient(upstream, items, { deadlineMs: 1500, seed: SEED });
	expect(ours.onErrorOutput).toBe(items);
	expect(ours.onSuccessOutput).toBe(0);
	expect(sum(Object.values(ours.reasons ?? {}))).toBe(items);
	expect(ours.requests).toBeGreaterThanOrEqual(1);
	expect(ours.requests).toBeLessThanOrEqual(5 * items);
	expect(ours.neverSent).toBeLessThanOrEqual(items);
	expect(Number.isFinite(ours.latestEndVsDeadlineMs)).toBe(true);
	results.sustained = [measured, computedRofRow('rof-max', SUSTAINED_ROF[1].name, SUSTAINED_ROF[1].retry, items), ours];
});

it('rate limit: every Resilient item succeeds with exactly one 200; with the Rate Limit set to the API\'s, no 429 at all', async () => {
	const items = 20;
	const rows = RATE_ROWS.filter((r) => ['rof-error-output', 'resilient', 'resilient-rate', 'resilient-fixed', 'resilient-headers'].includes(r.slug));
	const rate = await runRateLimit(upstream, { items, rps: 10, seed: SEED }, rows);
	results.rate = rate;
	for (const r of rate) {
		expect(r.requests).toBe(r.status200 + r.status429);
		expect(sum(r.status429PerSecond)).toBe(r.status429);
		expect(r.succeeded + r.onErrorOutput).toBe(items);
		expect(r.idealMs).toBe(2000);
	}
	const [rof, ...ours] = rate;
	expect(rof.succeeded).toBe(rof.status200);
	for (const r of ours) {
		expect(r.succeeded).toBe(items);
		expect(r.status200).toBe(items);
		expect(r.waits?.stories).toBe(items);
	}
	// a pace of 10/s never empties a bucket of 10 refilled at 10/s
	expect(rate.find((r) => r.row.slug === 'resilient-rate')?.status429).toBe(0);
	// without the window's slow start the 20 items go at once: a bucket of 10 refuses about half
	expect(rate.find((r) => r.row.slug === 'resilient-fixed')?.status429).toBeGreaterThanOrEqual(5);
});

it('Retry-After: Resilient HTTP Request never retries before the server said so; Retry On Fail re-sends every item', async () => {
	const rows = await runRetryAfter(upstream, { items: 10, retryAfterSeconds: 1, seed: SEED });
	results.retryAfter = rows;
	const [rof, ...ours] = rows;
	expect(rof.retried).toBe(10);
	expect(ours.map((r) => r.slug)).toEqual(['resilient', 'resilient-all']);
	for (const row of ours) {
		expect(row.retried).toBe(10);
		expect(row.early).toBe(0);
		expect(row.latenessMs.min).toBeGreaterThanOrEqual(0);
		expect(row.succeeded).toBe(10);
		expect(row.requests).toBe(20);
	}
});

it('duplicates: Retry On Fail charges every other item twice; Resilient HTTP Request sends each successful POST once, retrying with the same key', async () => {
	const rows = await runDuplicates(upstream, { items: 10, failingItem: 3, seed: SEED });
	results.duplicates = rows;
	const [rof, ours] = rows;
	expect(rof.charges).toBe(19);
	expect(rof.chargedTwice).toBe(9);
	expect(ours.requestsPerItem).toEqual([1, 1, 1, 2, 1, 1, 1, 1, 1, 1]);
	expect(ours.charges).toBe(10);
	expect(ours.chargedTwice).toBe(0);
	expect(ours.sameKeyOnRetry).toBe(true);
});

it('state size: the memory store keeps at most its bound and evicts the rest', async () => {
	const scopes = 2 * MEMORY_STORE_DEFAULTS.maxKeys; // one controller per scope
	const [bounded, unbounded] = await runStateSize({ scopes });
	results.stateSize = [bounded, unbounded];
	expect(bounded.keysOffered).toBe(scopes);
	expect(bounded.keysKept).toBe(MEMORY_STORE_DEFAULTS.maxKeys);
	expect(bounded.evicted).toBe(scopes - MEMORY_STORE_DEFAULTS.maxKeys);
	expect(unbounded.keysKept).toBe(scopes);
});

it('polling: a job of 2 s in two phases of the 1 s loop, polled by the node and by the Wait + IF loop, each to its end', async () => {
	const rows = await runPolling(upstream, { jobSeconds: [2], loopWaitSeconds: 1, phases: 2, seed: SEED });
	results.polling = { rows, loopWaitSeconds: 1 };
	// the phases spread over one of the loop's intervals: 2 s and 2.5 s
	expect(rows.map((r) => [r.slug, r.lengthSeconds, r.succeeded])).toEqual([
		['resilient', 2, true],
		['loop', 2, true],
		['resilient', 2.5, true],
		['loop', 2.5, true],
	]);
	for (const r of rows) {
		// the POST, at least one status request, the last one seeing it done after the job's end
		expect(r.requests).toBeGreaterThanOrEqual(2);
		expect(r.doneAfterMs).toBeGreaterThanOrEqual(r.lengthSeconds * 1000);
	}
});

describe('the real-n8n figures', () => {
	it('are read only when this run wrote them (runId = BENCH_RUN_ID) and of the expected shape', () => {
		const reading = readRealN8nResults(FIXTURE, 'fixture-run');
		expect(reading.measured).toBe(true);
		const other = readRealN8nResults(FIXTURE, 'another-run');
		expect(other).toMatchObject({ measured: false, why: expect.stringContaining('from another run (fixture-run') });
		expect(readRealN8nResults(FIXTURE, undefined)).toMatchObject({ measured: false, why: expect.stringContaining('no BENCH_RUN_ID') });
		expect(readRealN8nResults(path.join(__dirname, 'no-such-file.json'), 'fixture-run')).toMatchObject({ measured: false, why: expect.stringContaining('is absent') });
		// a file of another shape is "not measured", not a crash
		expect(readRealN8nResults(path.join(__dirname, '../../package.json'), 'fixture-run')).toMatchObject({ measured: false, why: expect.stringContaining('not of the expected shape') });
	});
});

const SETTINGS: BenchSettings = {
	seed: SEED,
	fleet: FLEET,
	outageMs: 300,
	sustainedItems: [20],
	sustainedDeadlineMs: 1500,
	sustainedRofMeasuredUpTo: 20,
	rateItems: 20,
	rateLimitRps: 10,
	retryAfterItems: 10,
	retryAfterSeconds: 1,
	duplicateItems: 10,
	stateScopes: 2 * MEMORY_STORE_DEFAULTS.maxKeys,
	pollJobSeconds: [2],
	pollLoopWaitSeconds: 1,
	pollPhases: 2,
};

const verdict = (goals: GoalVerdict[], scenario: string, goal: string) => {
	const found = goals.filter((g) => g.scenario.startsWith(scenario) && g.goal.startsWith(goal));
	expect(found).toHaveLength(1);
	return found[0].status;
};

/** The fixture's pauses rows (it has them). */
function fixturePauses(results: BenchResults): PausesRun {
	const reading = results.realN8n;
	if (!reading.measured || reading.results.pauses === undefined || 'skipped' in reading.results.pauses) throw new Error('the fixture has no pauses rows');
	return reading.results.pauses;
}

/** The fixture's tenants rows (it has them). */
function fixtureTenants(results: BenchResults): TenantsRun {
	const reading = results.realN8n;
	if (!reading.measured || reading.results.tenants === undefined || 'skipped' in reading.results.tenants) throw new Error('the fixture has no tenants rows');
	return reading.results.tenants;
}

/** The fixture's LLM rows (it has them). */
function fixtureLlm(results: BenchResults): LlmRun {
	const reading = results.realN8n;
	if (!reading.measured || reading.results.llm === undefined || 'skipped' in reading.results.llm) throw new Error('the fixture has no LLM rows');
	return reading.results.llm;
}

describe('the report', () => {
	const withReading = (realN8n: RealN8nReading) => ({ ...(results as BenchResults), realN8n });

	it('every section, a verdict per goal, the real-n8n goals read from the figures', () => {
		const complete = withReading(readRealN8nResults(FIXTURE, 'fixture-run'));
		const report = benchmarkReport(complete, SETTINGS, describeMachine(0));
		for (const heading of ['## Goals of issue 12', '### Further checks', '### Misses and their likely cause', '## How to read', '## 1. Outage storm', '## 2. Sustained outage', '## 3. Rate limit', '## 4. Healthy API (real n8n)', '## 5. Retry-After', '## 6. Duplicate side effects', '## 7. State size', '## 8. Real n8n', '### Webhook fleet', '### Queue mode', '## 9. Polling a job']) {
			expect(report).toContain(heading);
		}
		const goals = evaluateGoals(complete);
		// engine: 3 storm, 2 per sustained size, 3 + 3 rate; real n8n: 2 healthy per size and phase (one size), 2 + 3 + 3 + 3, 1 + 2 pauses;
		// issue 39: 3 + 3 outage (regular and queue mode), 1 rate, 2 + 1 tenants, 2 Rate Limit Per Key; issue 36: 3 tokens, 3 OpenAI node, 3 quota, 1 queue mode
		expect(goals.filter((g) => g.issueGoal)).toHaveLength(3 + 2 + 6 + 4 + 11 + 3 + 12 + 10);
		expect(goals.every((g) => ['met', 'not met', 'not measured'].includes(g.status))).toBe(true);
		// the fixture's figures: 2.05x and 100% met; 2.3x in queue mode not; 6 429s of 306 with headers not
		expect(verdict(goals, 'real n8n: 200 webhook', '>= 99%')).toBe('met');
		expect(verdict(goals, 'real n8n: 200 webhook', 'amplification')).toBe('met');
		expect(verdict(goals, 'real n8n, queue mode: outage storm', '>= 99%')).toBe('met');
		expect(verdict(goals, 'real n8n, queue mode: outage storm', 'amplification')).toBe('not met');
		expect(verdict(goals, 'real n8n, queue mode: outage storm', 'retry peak')).toBe('met');
		expect(verdict(goals, 'real n8n, queue mode: rate limit across', '429s')).toBe('met');
		expect(verdict(goals, 'real n8n, queue mode: rate limit with', '429s')).toBe('not met');
		expect(verdict(goals, 'real n8n, queue mode: rate limit with', 'time')).toBe('met');
		// the fixture's pauses: resumed 40.4 s after the quota's return, nothing early after a stated wait
		expect(verdict(goals, "real n8n: HubSpot's daily-limit", 'traffic resumes')).toBe('met');
		expect(verdict(goals, 'real n8n: 429 + Retry-After', 'no request before')).toBe('met');
		expect(verdict(goals, 'real n8n: 429 + Retry-After', 'every item')).toBe('met');
		expect(report).toContain('### Pauses: stated and guessed');
		// the fixture's issue-39 figures: the small tenants at 3.46x and 3.35x their time alone, not met; no 429; urgent waits <= 16 ms; the last execution 2.6 s after the outage's end in queue mode
		// (10 429s of 310 in the queue-mode rate row: under issue 12's 5 %, over issue 39's 2 %)
		const issue39: Array<[string, string, string]> = [
			['real n8n: three tenants', 'each small tenant', 'not met'],
			['real n8n: three tenants', "the API's limit", 'met'],
			['real n8n: 5 urgent items', 'each urgent item', 'met'],
			['real n8n, queue mode: 200 executions across the workers', 'the last execution', 'met'],
			['real n8n, queue mode: 200 executions across the workers', 'amplification', 'met'],
			['real n8n, queue mode: rate limit without headers', '429s', 'not met'],
			['real n8n: Rate Limit Per Key', 'no tenant over', 'met'],
			['real n8n: Rate Limit Per Key', 'each small tenant', 'met'],
		];
		for (const [scenario, goal, status] of issue39) expect([scenario, goal, verdict(goals, `issue 39, ${scenario}`, goal)]).toEqual([scenario, goal, status]);
		expect(report).toContain('### Tenants: fair shares and urgent items');
		expect(report).toContain('small tenants 4.66 s, 4.51 s');
		const slowUrgent = withReading({ ...(complete.realN8n as Extract<RealN8nReading, { measured: true }>), results: { ...(complete.realN8n as Extract<RealN8nReading, { measured: true }>).results, tenants: { ...fixtureTenants(complete), urgent: { ...fixtureTenants(complete).urgent, urgentWaitedMs: [7, 14, 61, 16, 2] } } } });
		expect(verdict(evaluateGoals(slowUrgent), 'issue 39, real n8n: 5 urgent items', 'each urgent item')).toBe('not met');
		// a tenant with 6 in 980 ms is over its 5 a second; a run without the row says so, not met or met
		const tenantsOf = (keyed: TenantsRun['keyed']) => withReading({ ...(complete.realN8n as Extract<RealN8nReading, { measured: true }>), results: { ...(complete.realN8n as Extract<RealN8nReading, { measured: true }>).results, tenants: { ...fixtureTenants(complete), keyed } } });
		const overKey = tenantsOf({ ...fixtureTenants(complete).keyed!, tenantBusiest980Ms: [5, 6, 5] });
		expect(verdict(evaluateGoals(overKey), 'issue 39, real n8n: Rate Limit Per Key', 'no tenant over')).toBe('not met');
		expect(verdict(evaluateGoals(tenantsOf(undefined)), 'issue 39, real n8n: Rate Limit Per Key', 'each small tenant')).toBe('not measured');
		expect(report).toContain('busiest second per tenant (big, small, small) 5, 6, 5, within 980 ms 5, 5, 5');
		expect(report).toContain('first accepted request 40.4 s after the quota');
		// the fixture's issue-36 figures: 200 of 200 in 0.94x the ideal, but 3 429s of 203 (1.5%) over the 1%; the quota item sent once, the others never paused
		const issue36: Array<[string, string, string]> = [
			['200 chat requests', 'every item succeeds', 'met'],
			['200 chat requests', '429s <= 1%', 'not met'],
			['200 chat requests', 'time <= 1.15x', 'met'],
			['an insufficient_quota 429', '0 retries', 'met'],
			['an insufficient_quota 429', 'the reason in the item', 'met'],
			['an insufficient_quota 429', 'other calls to the API not paused', 'met'],
		];
		for (const [scenario, goal, status] of issue36) expect([scenario, goal, verdict(goals, `issue 36, real n8n: ${scenario}`, goal)]).toEqual([scenario, goal, status]);
		expect(report).toContain('### Token budgets: an LLM API (issue 36)');
		expect(report).toContain('| Resilient HTTP Request, defaults (no Token Limit) | 200 of 200 | 0 (-) | 203 | 3 | 1.5% | 2 | 812345 (812345) | 59950 | 762.0 s | 812.3 s | 0.94x |');
		expect(report).toContain('| HTTP Request + Retry On Fail, max (5 tries, 5000 ms) | 14 of 200 | 186 (429 186) | 200 | 186 | 93% |');
		// a retried quota item, and others that waited for a pause, are misses
		const llm = fixtureLlm(complete);
		const measured = complete.realN8n as Extract<RealN8nReading, { measured: true }>;
		const retried = withReading({ ...measured, results: { ...measured.results, llm: { ...llm, quota: { ...llm.quota, quotaRequests: 2, othersWaitedMs: { window: 15503, paused: 1200 } } } } });
		expect(verdict(evaluateGoals(retried), 'issue 36, real n8n: an insufficient_quota 429', '0 retries')).toBe('not met');
		expect(verdict(evaluateGoals(retried), 'issue 36, real n8n: an insufficient_quota 429', 'other calls')).toBe('not met');
		// the fixture has no OpenAI node rows and no queue-mode rows: not measured; with them, judged
		expect(verdict(goals, "issue 36, real n8n: the same 200 items through n8n's OpenAI node", 'every item')).toBe('not measured');
		expect(verdict(goals, 'issue 36, real n8n, queue mode', '429s')).toBe('not measured');
		const guarded = { ...llm.resilient, slug: 'openai-guarded' as const, durationMs: 1.19 * llm.resilient.idealMs };
		const withOpenAi = withReading({ ...measured, results: { ...measured.results, llm: { ...llm, openaiGuarded: guarded }, llmQueue: { settings: llm.settings, resilient: llm.resilient, openai: guarded, api: { requests: 400, status429: 9, busiestMinuteTokens: 59_000, offeredTokens: 812_345, durationMs: 900_000, idealMs: 812_345 } } } });
		expect(verdict(evaluateGoals(withOpenAi), "issue 36, real n8n: the same 200 items through n8n's OpenAI node", 'every item')).toBe('met');
		expect(verdict(evaluateGoals(withOpenAi), "issue 36, real n8n: the same 200 items through n8n's OpenAI node", 'time')).toBe('met');
		expect(verdict(evaluateGoals(withOpenAi), 'issue 36, real n8n, queue mode', '429s')).toBe('not met');
		expect(benchmarkReport(withOpenAi, SETTINGS, describeMachine(0))).toContain('*Queue mode* (2 workers, the state in Redis)');
		const slow = withReading({ ...measured, results: { ...measured.results, llm: { ...llm, resilient: { ...llm.resilient, durationMs: 1.16 * llm.resilient.idealMs } } } });
		expect(verdict(evaluateGoals(slow), 'issue 36, real n8n: 200 chat requests', 'time')).toBe('not met');
		// items given up on end a run early: its time is no match for the ideal's
		const dropped = withReading({ ...measured, results: { ...measured.results, llm: { ...llm, resilient: { ...llm.resilient, succeeded: 79, errorOutput: 121, durationMs: 250_078 } } } });
		expect(verdict(evaluateGoals(dropped), 'issue 36, real n8n: 200 chat requests', 'every item')).toBe('not met');
		expect(verdict(evaluateGoals(dropped), 'issue 36, real n8n: 200 chat requests', 'time')).toBe('not met');
		const late = withReading({ ...(complete.realN8n as Extract<RealN8nReading, { measured: true }>), results: { ...(complete.realN8n as Extract<RealN8nReading, { measured: true }>).results, pauses: { ...fixturePauses(complete), daily: { ...fixturePauses(complete).daily, resumedAfterReturnMs: 300_001 } } } });
		expect(verdict(evaluateGoals(late), "real n8n: HubSpot's daily-limit", 'traffic resumes')).toBe('not met');
		// the fixture's healthy rounds (medians of the rounds' ratios): a first execution 1.20x, CPU 1.29x beyond the baseline's 100 ms, not met; the later one 0.91x and 0.85x met
		expect(verdict(goals, 'real n8n: healthy API (20 ms), 500 items, first', 'time')).toBe('not met');
		expect(verdict(goals, 'real n8n: healthy API (20 ms), 500 items, first', 'CPU')).toBe('not met');
		expect(verdict(goals, 'real n8n: healthy API (20 ms), 500 items, later', 'time')).toBe('met');
		expect(verdict(goals, 'real n8n: healthy API (20 ms), 500 items, later', 'CPU')).toBe('met');
		expect(report).toContain('| Resilient HTTP Request, defaults, first execution (an API new to it) | 1100 ms | 1.20x | 800 ms | 1.29x | 1100, 1200, 1000 |');
		// the same with Adapt Items in Flight off, and what the slow start costs by the two
		expect(report).toContain('| Resilient, Adapt Items in Flight off, first execution (an API new to it) | 950 ms | 1.00x | 620 ms | 1.00x | 945, 1000, 950 |');
		expect(report).toContain("real n8n, healthy API, 500 items: 1.20x HTTP Request's time in a first execution at the defaults, 1.00x off (later executions 0.91x and 1.00x)");
		expect(report).toMatch(/rate limit \(20 items, 10\/s\): \d+ 429s \([\d.]+%\) in [\d.]+ s at the defaults, \d+ \([\d.]+%\) in [\d.]+ s off/);
		// what holds at any size and speed
		expect(verdict(goals, 'duplicate side effects', 'each successful')).toBe('met');
		expect(verdict(goals, 'state size', 'the memory store')).toBe('met');
		expect(goals.filter((g) => g.scenario.startsWith('Retry-After')).every((g) => g.status === 'met')).toBe(true);
		expect(verdict(goals, 'sustained outage, one execution of 20 items', 'every item on the error output')).not.toBe('not measured');
		expect(report).toContain('| HTTP Request + Retry On Fail, max (5 tries, 5000 ms) | 200 | 100% | 916 | 4.58x');
	});

	it('without this run\'s figures, the real-n8n goals are not measured, and say why', () => {
		const complete = withReading(readRealN8nResults(path.join(__dirname, 'no-such-file.json'), 'some-run'));
		const report = benchmarkReport(complete, SETTINGS, describeMachine(0));
		const all = evaluateGoals(complete);
		const healthy = all.filter((g) => g.scenario.startsWith('real n8n: healthy'));
		expect(healthy.map((g) => [g.status, g.measured])).toEqual([
			['not measured', 'not measured in this run: no figures (section 4)'],
			['not measured', 'not measured in this run: no figures (section 4)'],
		]);
		const real = all.filter((g) => (g.scenario.startsWith('real n8n') || g.scenario.startsWith('issue 39, real n8n') || g.scenario.startsWith('issue 36, real n8n')) && !healthy.includes(g));
		expect(real).toHaveLength(14 + 12 + 10);
		for (const g of real) {
			expect(g.status).toBe('not measured');
			expect(g.measured).toBe('not measured in this run: no figures (section 8)');
		}
		expect(report).toContain('## 8. Real n8n\n\nNot measured in this run: .bench/real-n8n.json is absent');
		expect(report).not.toContain('### Webhook fleet');
		expect(report).toContain('## 4. Healthy API (real n8n)\n\nNot measured in this run: .bench/real-n8n.json is absent');
	});
});
