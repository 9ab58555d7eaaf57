/**
 * Crash safety, phase by phase (issue 9 §1): for every phase command of the node-local init
 * (certs all, kubeconfig all, kubelet-start, control-plane all, etcd local — kubeadm v1.20's
 * order) and every N, start from the clean state before the phase, kill tsadm right after its
 * Nth write (SIGKILL via TSADM_FAULT_AFTER), check the debris, re-run the failing phase, and
 * compare with a clean run of it. The whole-init sweep with kills in the middle of a write is
 * crash-init.test.ts.
 */
import { jest } from '@jest/globals';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CRASH_CONFIG, runClean, sweep } from './crash-support.js';
import { describeBuilt, scratchDir, type Scratch } from '../../helpers/built-cli.js';

jest.setTimeout(15 * 60_000);

const PHASES = [['certs', 'all'], ['kubeconfig', 'all'], ['kubelet-start'], ['control-plane', 'all'], ['etcd', 'local']] as const;

let work: Scratch;
let config: string;
/** states[k] = the clean rootfs after the first k phases. */
const states: string[] = [];

const phaseArgs = (k: number, root: string): string[] => ['init', 'phase', ...(PHASES[k] ?? []), '--config', config, '--rootfs', root];

describeBuilt('kill at every write of each node-local init phase, re-run the phase', () => {
  beforeAll(() => {
    work = scratchDir('tsadm-crash-phases-');
    config = path.join(work.dir, 'config.yaml');
    writeFileSync(config, CRASH_CONFIG);
    const root = path.join(work.dir, 'state-0');
    mkdirSync(root);
    states.push(root);
    for (let k = 0; k < PHASES.length; k += 1) {
      const next = path.join(work.dir, `state-${k + 1}`);
      cpSync(states[k] as string, next, { recursive: true, preserveTimestamps: true });
      runClean(phaseArgs(k, next));
      states.push(next);
    }
  });
  afterAll(() => work?.cleanup());

  const totals: Record<string, number> = {};
  afterAll(() => {
    // The numbers docs/safety.md quotes.
    process.stdout.write(`crash-phases kill points: ${JSON.stringify(totals)}\n`);
  });

  test.each(PHASES.map((p, k) => [p.join(' '), k] as const))('init phase %s', (name, k) => {
    const base = states[k] as string;
    const result = sweep({
      base: readdirSync(base).length > 0 ? base : undefined,
      cleanRoot: states[k + 1] as string,
      args: (root) => phaseArgs(k, root),
      rerun: (root) => [phaseArgs(k, root)],
      stage: 'done',
      pki: k === 0 ? 'certs' : 'full',
    });
    totals[name] = result.killPoints;
    expect(result.problems).toEqual([]);
    // Every phase writes at least one file, so at least one kill point was exercised.
    expect(result.killPoints).toBeGreaterThanOrEqual(1);
  });
});
