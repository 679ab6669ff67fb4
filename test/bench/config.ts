/**
 * The benchmark's sizes: environment variables with defaults that keep the engine part within
 * about 8 minutes on 2 cores. E.g. `BENCH_FLEET=500 npm run bench` (the healthy rows' sizes are the
 * real-n8n part's: BENCH_REAL_HEALTHY_ITEMS, test/bench/real-n8n-lib.mjs).
 */
export interface BenchSettings {
	seed: number;
	/** Scenario 1: concurrent executions, and how long the upstream answers 503. */
	fleet: number;
	outageMs: number;
	/** Scenario 2: items of each one-execution row, and the Total Deadline of the Resilient rows. */
	sustainedItems: number[];
	sustainedDeadlineMs: number;
	/** Scenario 2: Retry On Fail rows up to this many items are run; larger ones are computed. */
	sustainedRofMeasuredUpTo: number;
	/** Scenario 3: items of the one execution, and the upstream's shared limit per second. */
	rateItems: number;
	rateLimitRps: number;
	/** Scenario 5. */
	retryAfterItems: number;
	retryAfterSeconds: number;
	/** Scenario 6. */
	duplicateItems: number;
	/** Scenario 7. */
	stateScopes: number;
	/** Scenario 9: the jobs' durations (s), polled in real time, and the hand-built loop's fixed Wait (s). */
	pollJobSeconds: number[];
	pollLoopWaitSeconds: number;
	/** Scenario 9: jobs per duration, their lengths spread over one of the loop's intervals (the phases). */
	pollPhases: number;
}

export const BENCH_ENV: Record<keyof BenchSettings, string> = {
	seed: 'BENCH_SEED',
	fleet: 'BENCH_FLEET',
	outageMs: 'BENCH_OUTAGE_MS',
	sustainedItems: 'BENCH_SUSTAINED_ITEMS',
	sustainedDeadlineMs: 'BENCH_SUSTAINED_DEADLINE_MS',
	sustainedRofMeasuredUpTo: 'BENCH_SUSTAINED_ROF_MEASURED_UP_TO',
	rateItems: 'BENCH_RATE_ITEMS',
	rateLimitRps: 'BENCH_RATE_LIMIT_RPS',
	retryAfterItems: 'BENCH_RETRY_AFTER_ITEMS',
	retryAfterSeconds: 'BENCH_RETRY_AFTER_S',
	duplicateItems: 'BENCH_DUPLICATE_ITEMS',
	stateScopes: 'BENCH_STATE_SCOPES',
	pollJobSeconds: 'BENCH_POLL_JOBS_S',
	pollLoopWaitSeconds: 'BENCH_POLL_LOOP_WAIT_S',
	pollPhases: 'BENCH_POLL_PHASES',
};

/** Not sizes, but read by the benchmark: the bench script's run id, and whether part 1 ran. */
export const BENCH_RUN_ENV = ['BENCH_RUN_ID', 'BENCH_REAL_N8N'] as const;

function integer(name: string, fallback: number, min: number, max: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw.trim() === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
	return value;
}

function integerList(name: string, fallback: number[], max: number): number[] {
	const raw = process.env[name];
	if (raw === undefined || raw.trim() === '') return fallback;
	const values = raw.split(',').map((part) => Number(part.trim()));
	if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 1 || v > max)) throw new Error(`${name} must list integers from 1 to ${max}, comma-separated, not "${raw}"`);
	return values;
}

export function readBenchSettings(): BenchSettings {
	return {
		seed: integer(BENCH_ENV.seed, 2026, 1, 2 ** 31),
		fleet: integer(BENCH_ENV.fleet, 200, 1, 5000),
		outageMs: integer(BENCH_ENV.outageMs, 3000, 1, 60_000),
		sustainedItems: integerList(BENCH_ENV.sustainedItems, [100, 1000], 10_000),
		sustainedDeadlineMs: integer(BENCH_ENV.sustainedDeadlineMs, 20_000, 1000, 300_000),
		sustainedRofMeasuredUpTo: integer(BENCH_ENV.sustainedRofMeasuredUpTo, 1000, 0, 10_000),
		rateItems: integer(BENCH_ENV.rateItems, 300, 1, 10_000),
		rateLimitRps: integer(BENCH_ENV.rateLimitRps, 20, 1, 1000),
		retryAfterItems: integer(BENCH_ENV.retryAfterItems, 100, 1, 5000),
		retryAfterSeconds: integer(BENCH_ENV.retryAfterSeconds, 2, 1, 30),
		duplicateItems: integer(BENCH_ENV.duplicateItems, 10, 2, 1000),
		stateScopes: integer(BENCH_ENV.stateScopes, 100_000, 1, 1_000_000),
		pollJobSeconds: integerList(BENCH_ENV.pollJobSeconds, [2, 30, 300], 3600),
		pollLoopWaitSeconds: integer(BENCH_ENV.pollLoopWaitSeconds, 5, 1, 600),
		pollPhases: integer(BENCH_ENV.pollPhases, 5, 1, 20),
	};
}
