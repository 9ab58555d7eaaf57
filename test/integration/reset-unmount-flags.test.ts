/**
 * ResetConfiguration.unmountFlags through the built CLI: MNT_EXPIRE is accepted as kubeadm accepts
 * it, MNT_DETACH and MNT_FORCE too, an unknown flag is refused naming the field before anything is
 * touched (dry runs; the umount options
 * themselves are proven in test/unit/phases/reset/cleanup-node.test.ts and on a real busy mount in
 * test/e2e/tsadm-init.e2e.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { describeBuilt, tsadm } from '../helpers/built-cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';

describeBuilt('reset --config unmountFlags through the built CLI', () => {
  let root: TempRoot;
  beforeAll(() => {
    root = tempRoot({ '/var/lib/kubelet/config.yaml': 'x' });
  });
  afterAll(() => root.cleanup());

  test('reset: an unknown flag is refused naming the field before anything is touched; MNT_EXPIRE, MNT_DETACH and MNT_FORCE accepted in a dry run', async () => {
    const bad = root.at('/reset-unknown.yaml');
    writeFileSync(bad, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\nunmountFlags: [MNT_EXPIRE, MNT_LAZY]\n');
    const r = await tsadm(['reset', '--rootfs', root.dir, '--config', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unmountFlags[1]: unsupported value "MNT_LAZY"');
    expect(r.stderr).not.toContain('unmountFlags[0]');
    mkdirSync(root.at('/var/lib/kubelet'), { recursive: true });
    const expire = root.at('/reset-expire.yaml');
    writeFileSync(expire, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ndryRun: true\ncriSocket: unix:///run/containerd/containerd.sock\nunmountFlags: [MNT_EXPIRE]\n');
    const e = await tsadm(['reset', '--rootfs', root.dir, '--config', expire]);
    expect(e.stderr).not.toContain('MNT_EXPIRE is not supported');
    expect(e.code).toBe(0);
    const good = root.at('/reset-detach.yaml');
    writeFileSync(good, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ndryRun: true\ncriSocket: unix:///run/containerd/containerd.sock\nunmountFlags: [MNT_DETACH, MNT_FORCE]\n');
    const d = await tsadm(['reset', '--rootfs', root.dir, '--config', good]);
    expect(d.stdout).toContain('Unmounting mounted directories in "/var/lib/kubelet"');
    expect(d.code).toBe(0);
  });
});
