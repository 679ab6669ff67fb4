/**
 * `npm run bench`: the benchmarks in test/bench, one at a time (timings need the cores). Sizes are
 * environment variables (BENCH_FLEET, BENCH_HEALTHY_ITEMS, ...: test/bench/config.ts).
 */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/bench/**/*.bench.ts'],
  // every run inside is bounded (test/bench/workflows.ts RUN_LIMIT_MS); this bounds the whole
  testTimeout: 900000,
};
