/** Two projects: `unit` (pure policy core, no n8n) and `engine` (workflow JSON run in n8n-core). */
const base = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};
module.exports = {
  // engine tests run real HTTP against local servers; no test sleeps seconds, this is a safety net
  testTimeout: 30000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...base, displayName: 'engine', testMatch: ['<rootDir>/test/engine/**/*.test.ts'] },
  ],
};
