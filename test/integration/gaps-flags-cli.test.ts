/**
 * The flags issue 16 item 6 changed, through the built CLI (bin/tsadm as a separate process):
 * the template output formats are refused by name with a usage error, the printer flags are
 * accepted, `init phase addon coredns` and `upgrade apply phase addon coredns` take --patches,
 * and a ResetConfiguration with MNT_EXPIRE is refused before anything is touched while one with
 * MNT_DETACH is accepted (a dry run; the umount options themselves are proven in
 * test/unit/phases/reset/cleanup-node.test.ts and on a real busy mount in test/e2e/tsadm-init.e2e.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { describeBuilt, tsadm } from '../helpers/built-cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';

describeBuilt('issue 16 gap flags through the built CLI', () => {
  let root: TempRoot;
  beforeAll(() => {
    root = tempRoot({ '/var/lib/kubelet/config.yaml': 'x' });
  });
  afterAll(() => root.cleanup());

  test('check-expiration and token list refuse the template formats naming the value', async () => {
    const c = await tsadm(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'go-template-file=/tmp/t.tmpl']);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toContain('output format "go-template-file=/tmp/t.tmpl" is not supported by tsadm');
    const t = await tsadm(['token', 'list', '-o', 'jsonpath-as-json={.token}']);
    expect(t.code).not.toBe(0);
    expect(t.stderr).toContain('output format "jsonpath-as-json={.token}" is not supported by tsadm');
    const ok = await tsadm(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'yaml', '--show-managed-fields', '--allow-missing-template-keys=false']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('kind: CertificateExpirationInfo');
  });

  test('the addon coredns phases take --patches', async () => {
    for (const args of [['init', 'phase', 'addon', 'coredns', '--help'], ['upgrade', 'apply', 'phase', 'addon', 'coredns', '--help']]) {
      const h = await tsadm(args);
      expect([args.join(' '), h.stdout.includes('--patches')]).toEqual([args.join(' '), true]);
    }
    const create = await tsadm(['token', 'create', '--help']);
    expect(create.stdout).toContain('--config');
  });

  test('reset: MNT_EXPIRE is refused naming the field before anything is touched; MNT_DETACH and MNT_FORCE accepted in a dry run', async () => {
    const bad = root.at('/reset-expire.yaml');
    writeFileSync(bad, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\nunmountFlags: [MNT_EXPIRE]\n');
    const r = await tsadm(['reset', '--rootfs', root.dir, '--config', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unmountFlags[0]: MNT_EXPIRE is not supported by tsadm');
    mkdirSync(root.at('/var/lib/kubelet'), { recursive: true });
    const good = root.at('/reset-detach.yaml');
    writeFileSync(good, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ndryRun: true\ncriSocket: unix:///run/containerd/containerd.sock\nunmountFlags: [MNT_DETACH, MNT_FORCE]\n');
    const d = await tsadm(['reset', '--rootfs', root.dir, '--config', good]);
    expect(d.stdout).toContain('Unmounting mounted directories in "/var/lib/kubelet"');
    expect(d.code).toBe(0);
  });
});
