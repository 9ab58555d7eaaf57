// Two projects: fast unit tests (pure logic, temp dirs, openssl, the reference kubeadm and a real
// apiserver as oracles) and end-to-end tests on the real-component harness (test/e2e), which
// `npm test` runs with --runInBand because its tests share machines.
// tsconfig's isolatedModules makes ts-jest transpile only (fast); `npm run typecheck` checks types.
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
    },
  ],
};
