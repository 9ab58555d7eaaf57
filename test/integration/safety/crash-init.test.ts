/**
 * Crash safety of a whole node-local `init` (certs, kubeconfig, kubelet-start, control-plane,
 * etcd in one process) killed in the middle of its Nth write — the temp file complete, not yet
 * renamed (TSADM_FAULT_STAGE=before-rename) — for every N: the target is either absent or its
 * old self, never partial; the one temp file left is already at the final mode (0600 for keys
 * and kubeconfigs); the re-run removes it and ends equal to a clean run.
 */
import { jest } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CRASH_CONFIG, runClean, sweep } from './crash-support.js';
import { CLUSTER_PHASES, describeBuilt, scratchDir, type Scratch } from '../../helpers/built-cli.js';

jest.setTimeout(15 * 60_000);

let work: Scratch;
let config: string;
let cleanRoot: string;

const initArgs = (root: string): string[] => ['init', '--config', config, '--rootfs', root, '--skip-phases', CLUSTER_PHASES.join(',')];

describeBuilt('kill in the middle of every write of a node-local init, re-run init', () => {
  beforeAll(() => {
    work = scratchDir('tsadm-crash-init-');
    config = path.join(work.dir, 'config.yaml');
    writeFileSync(config, CRASH_CONFIG);
    cleanRoot = path.join(work.dir, 'clean');
    mkdirSync(cleanRoot);
    runClean(initArgs(cleanRoot));
  });
  afterAll(() => work?.cleanup());

  test('every kill point before a rename', () => {
    const result = sweep({ base: undefined, cleanRoot, args: initArgs, rerun: (root) => [initArgs(root)], stage: 'before-rename', pki: 'full' });
    process.stdout.write(`crash-init kill points (before rename): ${result.killPoints}\n`);
    expect(result.problems).toEqual([]);
    // At least the 32 files (22 PKI, 4 kubeconfigs, 2 kubelet files, 4 manifests); the resume
    // state file (issue 10) adds its own writes.
    expect(result.killPoints).toBeGreaterThanOrEqual(32);
  });
});
