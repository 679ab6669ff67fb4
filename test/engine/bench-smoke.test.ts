/**
 * Keeps `npm run bench` from rotting: runs the benchmark's scenario functions with tiny sizes and
 * asserts only what must hold whatever the machine and its load: counts and structure, never
 * timing. The figures themselves belong to BENCHMARKS.md.
 */
import { BUDGET_DEFAULTS, budgetLimit } from '../../nodes/shared/state/budget';
import { MEMORY_STORE_DEFAULTS } from '../../nodes/shared/state/memory-store';
import { evaluateGoals, type BenchResults } from '../bench/goals';
import { stormPlotSvg } from '../bench/plot';
import { benchmarkReport, describeMachine } from '../bench/report';
import { runDuplicates } from '../bench/scenarios/duplicates';
import { runHealthyOverhead } from '../bench/scenarios/healthy-overhead';
import { runOutageStorm, STORM_STRATEGIES } from '../bench/scenarios/outage-storm';
import { runRetryAfter } from '../bench/scenarios/retry-after';
import { runStateSize } from '../bench/scenarios/state-size';
import { resilientAmplification, retryOnFailAmplification, type SustainedRow } from '../bench/scenarios/sustained-outage';
import { startUpstream, type Upstream } from '../bench/upstream';
import { RETRY_ON_FAIL_DEFAULT } from '../bench/workflows';

const FLEET = 10;
const SEED = 7;
const results: Partial<BenchResults> = {};
let upstream: Upstream;

beforeAll(async () => {
	upstream = await startUpstream();
});
afterAll(async () => {
	await upstream.close();
});

it('outage storm: every execution sends its first request; retries stay within each strategy\'s limits', async () => {
	// Retry On Fail at its default, full jitter with and without the budget (the slower strategies only in npm run bench)
	const strategies = STORM_STRATEGIES.filter((s) => ['rof-default', 'full', 'full-budget'].includes(s.slug));
	const storm = await runOutageStorm(upstream, { fleet: FLEET, outageMs: 300, seed: SEED }, strategies);
	results.storm = storm;
	const [rof, full, budget] = storm;
	// how many tries fall inside the outage depends on the machine's speed: only the bounds hold
	expect(rof.requests).toBeGreaterThanOrEqual(FLEET);
	expect(rof.requests).toBeLessThanOrEqual(3 * FLEET);
	expect(rof.succeeded).toBe(FLEET);
	expect(full.requests).toBeGreaterThanOrEqual(FLEET);
	expect(full.requests).toBeLessThanOrEqual(5 * FLEET);
	expect(budget.requests).toBeLessThanOrEqual(FLEET + budgetLimit(FLEET, BUDGET_DEFAULTS));
	for (const r of storm) {
		expect(r.requestTimes).toHaveLength(r.requests);
		expect(r.retryTimes).toHaveLength(r.requests - FLEET);
		expect(r.amplification).toBeCloseTo(r.requests / FLEET);
		expect(r.retryPeak).toBeLessThanOrEqual(r.requests - FLEET);
		expect(r.peakAfterRecovery).toBeLessThanOrEqual(r.requests);
		expect(r.completionMs.p50).toBeLessThanOrEqual(r.completionMs.p95);
		expect(r.completionMs.p95).toBeLessThanOrEqual(r.completionMs.max);
	}
	const svg = stormPlotSvg(storm);
	expect(svg.startsWith('<svg')).toBe(true);
	expect(svg.match(/<path /g)).toHaveLength(2 * storm.length);
});

it('sustained outage: the budget holds amplification to 1 + ratio + floor / fleet; without it every item tries 5 times, Retry On Fail 3', async () => {
	const fleet = 60;
	const withBudget = await resilientAmplification(upstream, fleet, true, SEED);
	const withoutBudget = await resilientAmplification(upstream, fleet, false, SEED);
	const rof = (await retryOnFailAmplification(upstream, [fleet], RETRY_ON_FAIL_DEFAULT, 'smoke')).get(fleet) ?? NaN;
	expect(withBudget).toBeLessThanOrEqual(1 + BUDGET_DEFAULTS.ratio + BUDGET_DEFAULTS.minRetriesPerWindow / fleet);
	expect(withBudget).toBeGreaterThan(1);
	expect(withoutBudget).toBe(5);
	expect(rof).toBe(3);
	const row: SustainedRow = { fleet, resilientBudget: withBudget, resilientNoBudget: withoutBudget, retryOnFailDefault: rof, retryOnFailMax: NaN, budgetBound: (fleet + budgetLimit(fleet, BUDGET_DEFAULTS)) / fleet };
	results.sustained = [row];
});

it('healthy upstream: every variant sends each item once, in every run', async () => {
	// measure() throws when a run fails or sends a number of requests other than the items
	const healthy = await runHealthyOverhead(upstream, { items: 50, runs: 1, seed: SEED, latencyMs: 0 });
	results.healthy = healthy;
	for (const samples of Object.values(healthy.samples)) expect(samples).toHaveLength(1);
	expect(healthy.median.core.cpuMs).toBeGreaterThan(0);
	const latent = await runHealthyOverhead(upstream, { items: 30, runs: 1, seed: SEED, latencyMs: 5 });
	results.healthyLatent = latent;
	expect(latent.latencyMs).toBe(5);
	for (const samples of Object.values(latent.samples)) expect(samples).toHaveLength(1);
});

it('Retry-After: Resilient HTTP Request never retries before the server said so; Retry On Fail re-sends every item', async () => {
	const rows = await runRetryAfter(upstream, { items: 10, retryAfterSeconds: 1, seed: SEED });
	results.retryAfter = rows;
	const [rof, ...ours] = rows;
	expect(rof.retried).toBe(10);
	for (const row of ours) {
		expect(row.retried).toBe(10);
		expect(row.early).toBe(0);
		expect(row.latenessMs.min).toBeGreaterThanOrEqual(0);
		expect(row.succeeded).toBe(10);
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
	const scopes = MEMORY_STORE_DEFAULTS.maxKeys; // 2 keys per scope: twice the bound
	const [bounded, unbounded] = await runStateSize({ scopes });
	results.stateSize = [bounded, unbounded];
	expect(bounded.keysOffered).toBe(2 * scopes);
	expect(bounded.keysKept).toBe(MEMORY_STORE_DEFAULTS.maxKeys);
	expect(bounded.evicted).toBe(2 * scopes - MEMORY_STORE_DEFAULTS.maxKeys);
	expect(unbounded.keysKept).toBe(2 * scopes);
});

it('the report: every section and a verdict per goal', () => {
	const complete = results as BenchResults;
	const settings = { seed: SEED, fleet: FLEET, outageMs: 300, sustainedFleets: [60], healthyItems: 50, healthyRuns: 1, latentItems: 30, latentRuns: 1, latencyMs: 5, retryAfterItems: 10, retryAfterSeconds: 1, duplicateItems: 10, stateScopes: MEMORY_STORE_DEFAULTS.maxKeys };
	const report = benchmarkReport(complete, settings, describeMachine(0));
	for (const heading of ['## Goals', '## 1. Outage storm', '## 2. Sustained outage', '## 3. Healthy upstream', '## 4. Retry-After', '## 5. Duplicate side effects', '## 6. State size']) {
		expect(report).toContain(heading);
	}
	const goals = evaluateGoals(complete);
	expect(goals.find((g) => g.goal.startsWith('Duplicates'))?.met).toBe(true);
	expect(goals.find((g) => g.goal.startsWith('State memory'))?.met).toBe(true);
	expect(goals.filter((g) => g.goal.startsWith('Retry-After')).every((g) => g.met)).toBe(true);
});
