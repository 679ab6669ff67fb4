/**
 * fast-check settings for the state tests: a fixed seed, so every run checks the same cases and a
 * failure reproduces. `FC_SEED=<n> FC_RUNS=<n> npx jest test/unit/state` explores other cases.
 */
export const FC_OPTIONS = {
	seed: Number(process.env.FC_SEED ?? 20260115),
	numRuns: Number(process.env.FC_RUNS ?? 200),
};

/** 2026-01-15T12:00:00.000Z: a whole minute, so a 60 s window's buckets start on it. */
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
