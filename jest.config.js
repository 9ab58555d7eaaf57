// Two projects. `unit`: the tests of one module each (test/unit mirrors src/: the test of
// src/a/b.ts is test/unit/a/b.test.ts) plus the integration tests that drive a whole command or
// workflow through the CLI (test/integration); both use temp dirs, openssl, the reference kubeadm
// and a real apiserver/etcd as oracles, never a machine. `e2e`: the real-component harness
// (test/e2e), which `npm test` runs two files at a time (--maxWorkers=2): each file has machines of
// its own, the heavy ones take a lock so that ha.e2e never runs beside another heavy file
// (test/e2e/heavy-files.ts), and scripts/jest-sequencer.mjs orders the files around that lock.
// tsconfig's isolatedModules makes ts-jest transpile only (fast); `npm run typecheck` checks types.
import { availableParallelism } from 'node:os';

const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};
export default {
  // Two workers even on 2 cores (jest's default there is one): most
  // of the unit project's time is spent waiting on real oracles (kube-apiserver and etcd start-up,
  // etcd's reconfiguration, child CLIs), not on CPU. Measured in BENCHMARKS.md, "Test suite duration".
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Time is never asserted (performance is a benchmark, not a test); jest's 5 s default failed
  // tests that were right but slow on a loaded 2-core machine.
  testTimeout: 30_000,
  // The default reporter, then a table of seconds per test file, slowest first (scripts/jest-file-times.mjs).
  reporters: ['default', '<rootDir>/scripts/jest-file-times.mjs'],
  // jest's own order, with the e2e files grouped by how heavy they are (scripts/jest-sequencer.mjs).
  testSequencer: '<rootDir>/scripts/jest-sequencer.mjs',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/integration/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
      // Nothing of the harness outlives the run, and a run that leaves something fails
      // (test/e2e/harness-lifecycle.mjs).
      globalSetup: '<rootDir>/test/e2e/global-setup.mjs',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.mjs',
    },
  ],
};
