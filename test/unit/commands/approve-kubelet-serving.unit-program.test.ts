/**
 * `tsadm certs approve-kubelet-serving enable` names in ExecStart= the program its service runs as
 * root, on this machine (the command has no --rootfs): --tsadm-path when given, checked by
 * src/host/unit-program.ts on the real files. A dry run (and so a plan) refuses as a real run does,
 * with nothing written; the plan of an accepted one holds the unit running exactly that program.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FileStep, Plan } from '../../../src/plan/types.js';
import { runCli } from '../../helpers/run-cli.js';

const UNIT = '/etc/systemd/system/tsadm-kubelet-serving-approver.service';
let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'tsadm-approver-program-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a --tsadm-path under /tmp (1777: any user can swap it) is refused naming /tmp, before any write, in a dry run and a plan', async () => {
  // Under /tmp itself, whatever TMPDIR says: the directory every user may write to.
  const tmp = mkdtempSync('/tmp/tsadm-approver-program-');
  try {
    chmodSync(tmp, 0o755);
    writeFileSync(path.join(tmp, 'tsadm'), 'tsadm', { mode: 0o755 });
    const plan = path.join(dir, 'plan.json');
    for (const extra of [['--dry-run'], ['--plan', plan]]) {
      const r = await runCli(['certs', 'approve-kubelet-serving', 'enable', '--tsadm-path', path.join(tmp, 'tsadm'), ...extra]);
      expect([r.code, r.stderr]).toEqual([1, expect.stringContaining(`refusing to write ${UNIT}: it would run ${tmp}/tsadm as root, and /tmp is writable by others (mode 1777)`)]);
      expect(r.stderr).toContain('install the package (/usr/bin/tsadm) or pass --tsadm-path with a root-owned copy');
    }
    expect(() => readFileSync(plan)).toThrow(/ENOENT/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a root-owned --tsadm-path in root-owned directories: the planned unit runs exactly it', async () => {
  const plan = path.join(dir, 'plan.json');
  const r = await runCli(['certs', 'approve-kubelet-serving', 'enable', '--tsadm-path', '/usr/bin/true', '--plan', plan]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  const step = (JSON.parse(readFileSync(plan, 'utf8')) as Plan).steps.find((s): s is FileStep => s.type === 'file' && s.path === UNIT);
  expect(step?.text).toContain('\nExecStart=/usr/bin/true certs approve-kubelet-serving --watch --kubeconfig /etc/kubernetes/admin.conf --interval 10s\n');
});
