/**
 * The benchmark's sizes: environment variables with defaults that finish in a few minutes on 2
 * cores. E.g. `BENCH_FLEET=500 BENCH_HEALTHY_RUNS=9 npm run bench`.
 */
export interface BenchSettings {
	seed: number;
	/** Scenario 1: concurrent executions, and how long the upstream answers 503. */
	fleet: number;
	outageMs: number;
	/** Scenario 2: fleet sizes. */
	sustainedFleets: number[];
	/** Scenario 3: items per execution, and alternating runs per side. */
	healthyItems: number;
	healthyRuns: number;
	/** Scenario 3 against an upstream with latency: items, runs, and its latency per request. */
	latentItems: number;
	latentRuns: number;
	latencyMs: number;
	/** Scenario 4. */
	retryAfterItems: number;
	retryAfterSeconds: number;
	/** Scenario 5. */
	duplicateItems: number;
	/** Scenario 6. */
	stateScopes: number;
}

export const BENCH_ENV: Record<keyof BenchSettings, string> = {
	seed: 'BENCH_SEED',
	fleet: 'BENCH_FLEET',
	outageMs: 'BENCH_OUTAGE_MS',
	sustainedFleets: 'BENCH_SUSTAINED_FLEETS',
	healthyItems: 'BENCH_HEALTHY_ITEMS',
	healthyRuns: 'BENCH_HEALTHY_RUNS',
	latentItems: 'BENCH_LATENT_ITEMS',
	latentRuns: 'BENCH_LATENT_RUNS',
	latencyMs: 'BENCH_LATENCY_MS',
	retryAfterItems: 'BENCH_RETRY_AFTER_ITEMS',
	retryAfterSeconds: 'BENCH_RETRY_AFTER_S',
	duplicateItems: 'BENCH_DUPLICATE_ITEMS',
	stateScopes: 'BENCH_STATE_SCOPES',
};

function positiveInteger(name: string, fallback: number, max: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw.trim() === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be an integer from 1 to ${max}, not "${raw}"`);
	return value;
}

export function readBenchSettings(): BenchSettings {
	const fleetsRaw = process.env[BENCH_ENV.sustainedFleets];
	const sustainedFleets = fleetsRaw && fleetsRaw.trim() !== '' ? fleetsRaw.split(',').map((part) => Number(part.trim())) : [100, 200, 1000];
	if (sustainedFleets.some((f) => !Number.isInteger(f) || f < 1 || f > 5000)) throw new Error(`${BENCH_ENV.sustainedFleets} must list integers from 1 to 5000, comma-separated, not "${fleetsRaw}"`);
	return {
		seed: positiveInteger(BENCH_ENV.seed, 2026, 2 ** 31),
		fleet: positiveInteger(BENCH_ENV.fleet, 200, 5000),
		outageMs: positiveInteger(BENCH_ENV.outageMs, 3000, 60_000),
		sustainedFleets,
		healthyItems: positiveInteger(BENCH_ENV.healthyItems, 2000, 20_000),
		healthyRuns: positiveInteger(BENCH_ENV.healthyRuns, 7, 51),
		latentItems: positiveInteger(BENCH_ENV.latentItems, 500, 5000),
		latentRuns: positiveInteger(BENCH_ENV.latentRuns, 3, 21),
		latencyMs: positiveInteger(BENCH_ENV.latencyMs, 20, 1000),
		retryAfterItems: positiveInteger(BENCH_ENV.retryAfterItems, 100, 5000),
		retryAfterSeconds: positiveInteger(BENCH_ENV.retryAfterSeconds, 2, 30),
		duplicateItems: positiveInteger(BENCH_ENV.duplicateItems, 10, 1000),
		stateScopes: positiveInteger(BENCH_ENV.stateScopes, 100_000, 1_000_000),
	};
}
