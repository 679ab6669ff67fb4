/**
 * `npm run bench`: every scenario of the benchmark in one run (see BENCHMARKS.md for what each
 * measures). Writes BENCHMARKS.md and the outage storm's plot, prints the goals.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { readBenchSettings } from './config';
import { evaluateGoals, type BenchResults } from './goals';
import { stormPlotSvg } from './plot';
import { benchmarkReport, describeMachine, PLOT_PATH } from './report';
import { runDuplicates } from './scenarios/duplicates';
import { runHealthyOverhead } from './scenarios/healthy-overhead';
import { runOutageStorm } from './scenarios/outage-storm';
import { runRetryAfter } from './scenarios/retry-after';
import { runStateSize } from './scenarios/state-size';
import { runSustainedOutage } from './scenarios/sustained-outage';
import { startUpstream } from './upstream';

const ROOT = path.join(__dirname, '../..');

it('benchmarks: Retry On Fail against Resilient HTTP Request', async () => {
	const settings = readBenchSettings();
	const loadAtStart = loadavg()[0];
	const log = (text: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
	const upstream = await startUpstream();
	try {
		// state size first, while the heap holds little else; the timed healthy runs next
		log('6. state size');
		const stateSize = await runStateSize({ scopes: settings.stateScopes });
		log('3. healthy upstream');
		const healthy = await runHealthyOverhead(upstream, { items: settings.healthyItems, runs: settings.healthyRuns, seed: settings.seed, latencyMs: 0 });
		log(`3. healthy upstream, ${settings.latencyMs} ms latency`);
		const healthyLatent = await runHealthyOverhead(upstream, { items: settings.latentItems, runs: settings.latentRuns, seed: settings.seed, latencyMs: settings.latencyMs });
		log('1. outage storm');
		const storm = await runOutageStorm(upstream, { fleet: settings.fleet, outageMs: settings.outageMs, seed: settings.seed });
		log('2. sustained outage');
		const sustained = await runSustainedOutage(upstream, { fleets: settings.sustainedFleets, seed: settings.seed });
		log('4. Retry-After');
		const retryAfter = await runRetryAfter(upstream, { items: settings.retryAfterItems, retryAfterSeconds: settings.retryAfterSeconds, seed: settings.seed });
		log('5. duplicate side effects');
		const duplicates = await runDuplicates(upstream, { items: settings.duplicateItems, failingItem: Math.min(3, settings.duplicateItems - 1), seed: settings.seed });

		const results: BenchResults = { storm, sustained, healthy, healthyLatent, retryAfter, duplicates, stateSize };
		const report = benchmarkReport(results, settings, describeMachine(loadAtStart));
		mkdirSync(path.join(ROOT, path.dirname(PLOT_PATH)), { recursive: true });
		writeFileSync(path.join(ROOT, PLOT_PATH), stormPlotSvg(storm));
		writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), report);
		process.stdout.write(`\n${report}\n`);
		const goals = evaluateGoals(results);
		log(`goals met: ${goals.filter((g) => g.met).length} of ${goals.length} (BENCHMARKS.md, ${PLOT_PATH})`);
		// the benchmark reports goals, it does not fail on them; it fails only when a run broke
		expect(storm).toHaveLength(7);
	} finally {
		await upstream.close();
	}
});
