/** Two projects: `unit` (pure policy core, no n8n) and `engine` (workflow JSON run in n8n-core). */
const base = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
};
module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...base, displayName: 'engine', testMatch: ['<rootDir>/test/engine/**/*.test.ts'], testTimeout: 30000 },
  ],
};
