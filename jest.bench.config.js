/** `npm run bench`: the benchmarks in test/bench, one at a time (timings need the cores). */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/bench/**/*.bench.ts'],
  testTimeout: 600000,
};
