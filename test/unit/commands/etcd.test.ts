/**
 * The `tsadm etcd remove-member` command line: help, argument checks, the missing-kubeconfig
 * error, JSON output. The removal itself runs on real etcd in test/unit/membership/remove-member.test.ts
 * and on harness machines in test/e2e/ha.e2e.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../helpers/run-cli.js';

describe('tsadm etcd remove-member', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-etcd-cmd-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('help names what it removes and when to use reset instead', async () => {
    const r = await runCli(['etcd', 'remove-member', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tsadm etcd remove-member <node-name>');
    expect(r.stdout).toContain('--delete-node');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('(`tsadm reset` removes its own member)');
  });

  test('no subcommand, no node name, a bad node name: usage errors (exit 3)', async () => {
    expect((await runCli(['etcd'])).code).toBe(3);
    expect((await runCli(['etcd', 'remove-member'])).code).toBe(3);
    const bad = await runCli(['etcd', 'remove-member', 'Bad_Name', '--rootfs', root]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('"Bad_Name" is not a node name');
  });

  test('on a machine without admin.conf: one error line saying where to run it (exit 1); -o json ends with the result event', async () => {
    const r = await runCli(['etcd', 'remove-member', 'cp2', '--rootfs', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: no /etc/kubernetes/admin.conf: this command runs on a healthy control-plane node');
    const json = await runCli(['etcd', 'remove-member', 'cp2', '--rootfs', root, '-o', 'json']);
    expect(json.code).toBe(1);
    const last = JSON.parse(json.stdout.trim().split('\n').pop() as string) as { type: string; command: string; ok: boolean; error: { code: string } };
    expect(last).toMatchObject({ type: 'result', command: 'etcd remove-member', ok: false, error: { code: 'E_PRECONDITION' } });
  });
});
