/**
 * Three projects: `unit` (pure policy core, no n8n) and `engine` (workflow JSON run in n8n-core), on
 * injected clocks; `realtime` (test/realtime), the few tests that time something real (a Redis's
 * TTLs, pub/sub, a refused socket) with bounds generous enough for a loaded CI machine.
 */
const base = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};
module.exports = {
  // engine tests run real HTTP against local servers; no test sleeps seconds, so this only catches
  // a hang: it is no bound on time (in CI the engine tests share the 2 cores with the n8n install)
  testTimeout: 120000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...base, displayName: 'engine', testMatch: ['<rootDir>/test/engine/**/*.test.ts'] },
    { ...base, displayName: 'realtime', testMatch: ['<rootDir>/test/realtime/**/*.test.ts'] },
  ],
};
