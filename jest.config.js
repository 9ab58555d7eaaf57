// Two projects: fast unit tests (pure logic, temp dirs, openssl, the reference kubeadm as an
// oracle when built) and end-to-end tests on the real-component harness (test/e2e).
const tsJest = ['ts-jest', { useESM: true, isolatedModules: true, tsconfig: 'tsconfig.json' }];
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
      maxWorkers: 1,
    },
  ],
};
