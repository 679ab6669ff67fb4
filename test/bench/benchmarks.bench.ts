/**
 * The engine part of `npm run bench`: every in-process scenario in one run (see BENCHMARKS.md for
 * what each measures), then the real-n8n part's figures read from .bench/real-n8n.json when this
 * same bench run wrote it. Writes BENCHMARKS.md and the outage storm's plot, prints the goals.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { readBenchSettings } from './config';
import { evaluateGoals, type BenchResults } from './goals';
import { stormPlotSvg } from './plot';
import { readRealN8nResults, REAL_N8N_JSON } from './real-n8n-results';
import { benchmarkReport, describeMachine, PLOT_PATH } from './report';
import { runDuplicates } from './scenarios/duplicates';
import { runOutageStorm } from './scenarios/outage-storm';
import { runPolling } from './scenarios/polling';
import { runRateLimit } from './scenarios/rate-limit';
import { runRetryAfter } from './scenarios/retry-after';
import { runStateSize } from './scenarios/state-size';
import { runSustainedOutage } from './scenarios/sustained-outage';
import { startUpstream } from './upstream';

const ROOT = path.join(__dirname, '../..');

/**
 * The Redis cost part of this run (test/bench/redis-cost.mjs, run by test/bench/run.sh), when it
 * ran in this run: its table and goals, as a section of BENCHMARKS.md.
 */
function redisCostSection(): string {
	const file = path.join(ROOT, '.bench', 'redis-cost.md');
	if (!existsSync(file)) return '';
	const text = readFileSync(file, 'utf8');
	const runId = process.env.BENCH_RUN_ID;
	if (!runId || !text.startsWith(`<!-- run ${runId} -->`)) return '';
	return `\n## Redis state store: cost per request (issue 24)\n\nOne API shared by 1 or 4 worker processes through the node's traffic gate and stores, on a Redis of its own (test/bench/redis-cost.mjs); wall time against the memory store in the same run (each worker then has its own controller).\n\n${text.slice(text.indexOf('\n') + 1)}`;
}

it('benchmarks: Retry On Fail against Resilient HTTP Request', async () => {
	const settings = readBenchSettings();
	const startedAt = Date.now();
	const loadAtStart = loadavg()[0];
	const log = (text: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}, ${Math.round((Date.now() - startedAt) / 1000)} s] ${text}\n`);
	const upstream = await startUpstream();
	try {
		// state size first, while the heap holds little else (the healthy rows run in real n8n: section 4)
		log('7. state size');
		const stateSize = await runStateSize({ scopes: settings.stateScopes });
		log('1. outage storm');
		const storm = await runOutageStorm(upstream, { fleet: settings.fleet, outageMs: settings.outageMs, seed: settings.seed });
		log('2. sustained outage');
		const sustained = await runSustainedOutage(upstream, { sizes: settings.sustainedItems, deadlineMs: settings.sustainedDeadlineMs, rofMeasuredUpTo: settings.sustainedRofMeasuredUpTo, seed: settings.seed });
		log('3. rate limit');
		const rate = await runRateLimit(upstream, { items: settings.rateItems, rps: settings.rateLimitRps, seed: settings.seed });
		log('5. Retry-After');
		const retryAfter = await runRetryAfter(upstream, { items: settings.retryAfterItems, retryAfterSeconds: settings.retryAfterSeconds, seed: settings.seed });
		log('6. duplicate side effects');
		const duplicates = await runDuplicates(upstream, { items: settings.duplicateItems, failingItem: Math.min(3, settings.duplicateItems - 1), seed: settings.seed });
		log(`9. polling jobs of ${settings.pollJobSeconds.join(', ')} s, ${settings.pollPhases} phase(s) each`);
		const polling = { rows: await runPolling(upstream, { jobSeconds: settings.pollJobSeconds, loopWaitSeconds: settings.pollLoopWaitSeconds, phases: settings.pollPhases, seed: settings.seed }), loopWaitSeconds: settings.pollLoopWaitSeconds };
		log(`8. real n8n: ${REAL_N8N_JSON}`);
		const realN8n = readRealN8nResults(path.join(ROOT, REAL_N8N_JSON), process.env.BENCH_RUN_ID);

		const results: BenchResults = { storm, sustained, rate, retryAfter, duplicates, stateSize, realN8n, polling };
		const report = benchmarkReport(results, settings, describeMachine(loadAtStart, startedAt));
		mkdirSync(path.join(ROOT, path.dirname(PLOT_PATH)), { recursive: true });
		writeFileSync(path.join(ROOT, PLOT_PATH), stormPlotSvg(storm));
		writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), report + redisCostSection());
		process.stdout.write(`\n${report}\n`);
		const goals = evaluateGoals(results).filter((g) => g.issueGoal);
		log(`issue goals: ${goals.filter((g) => g.status === 'met').length} met, ${goals.filter((g) => g.status === 'not met').length} not met, ${goals.filter((g) => g.status === 'not measured').length} not measured (BENCHMARKS.md, ${PLOT_PATH})`);
		// the benchmark reports goals, it does not fail on them; it fails only when a run broke
		expect(storm).toHaveLength(4);
	} finally {
		await upstream.close();
	}
});
