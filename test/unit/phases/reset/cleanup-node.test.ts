/**
 * cleanup-node's unmounts with ResetConfiguration unmountFlags, on a dry-run host over a temp
 * root: the listed umount commands carry the flags' options, UMOUNT_NOFOLLOW leaves a mount point
 * that is a symbolic link, and MNT_EXPIRE (accepted, as kubeadm accepts it) unmounts nothing: every
 * mount point is reported as kubeadm's one unmount2 call would fail on it.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DryRunHost } from '../../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { realSystem } from '../../../../src/host/system-probe.js';
import { cleanupNodePhase } from '../../../../src/phases/reset/cleanup-node.js';
import { realResetDeps } from '../../../../src/phases/reset/deps.js';
import { buildResetContext } from '../../../../src/workflows/reset.js';
import { MemoryReporter, testRuntime } from '../../../helpers/phase-ctx.js';

describe('reset cleanup-node with unmountFlags', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-reset-umount-'));
    mkdirSync(path.join(root, 'var/lib/kubelet/pods/a/volumes/v1'), { recursive: true });
    mkdirSync(path.join(root, 'elsewhere'), { recursive: true });
    symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'var/lib/kubelet/pods/a/volumes/link'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  async function dryUnmounts(unmountFlags: string | undefined): Promise<{ commands: string[]; lines: string[] }> {
    const configPath = path.join(root, 'reset.yaml');
    writeFileSync(configPath, `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ncriSocket: unix:///run/containerd/containerd.sock\n${unmountFlags ? `unmountFlags: ${unmountFlags}\n` : ''}`);
    const mounts = [
      `tmpfs ${root}/var/lib/kubelet/pods/a/volumes/v1 tmpfs rw 0 0`,
      `tmpfs ${root}/var/lib/kubelet/pods/a/volumes/link tmpfs rw 0 0`,
      'proc /proc proc rw 0 0',
    ].join('\n');
    const reporter = new MemoryReporter();
    const host = new DryRunHost(new RootedHost(root));
    // The machine's /proc/mounts, as the probe reads it (the other probe readings are the real machine's).
    const system = { ...realSystem, readProc: (p: string) => Promise.resolve(p === '/proc/mounts' ? mounts : undefined) };
    const rt = testRuntime(host, { reporter, dryRun: true, system });
    const deps = realResetDeps(Readable.from([]), {
      connectCri: () => Promise.reject(new Error('no CRI in this test')),
    });
    const ctx = await buildResetContext({ config: configPath }, rt, deps);
    try {
      await cleanupNodePhase.run!(ctx);
    } finally {
      rt.api.close();
    }
    return { commands: host.actions.filter((a) => a.startsWith('umount')), lines: reporter.lines() };
  }

  test('no unmountFlags: plain umount of every mount point under the kubelet directory (unmount2 with no flags)', async () => {
    const { commands } = await dryUnmounts(undefined);
    expect(commands).toEqual([`umount ${root}/var/lib/kubelet/pods/a/volumes/v1`, `umount ${root}/var/lib/kubelet/pods/a/volumes/link`]);
  });

  test('MNT_FORCE and MNT_DETACH become umount -f -l', async () => {
    const { commands } = await dryUnmounts('[MNT_DETACH, MNT_FORCE]');
    expect(commands).toEqual([`umount -f -l ${root}/var/lib/kubelet/pods/a/volumes/v1`, `umount -f -l ${root}/var/lib/kubelet/pods/a/volumes/link`]);
  });

  test('UMOUNT_NOFOLLOW: a mount point that is a symbolic link is not unmounted, and that is reported', async () => {
    const { commands, lines } = await dryUnmounts('[UMOUNT_NOFOLLOW]');
    expect(commands).toEqual([`umount ${root}/var/lib/kubelet/pods/a/volumes/v1`]);
    expect(lines.join('\n')).toContain(`failed to unmount ${root}/var/lib/kubelet/pods/a/volumes/link: it is a symbolic link and unmountFlags has UMOUNT_NOFOLLOW`);
  });

  test('MNT_EXPIRE is accepted; no umount runs and every mount point is reported (unmount2 fails with EAGAIN on a first call)', async () => {
    const { commands, lines } = await dryUnmounts('[MNT_EXPIRE]');
    expect(commands).toEqual([]);
    const text = lines.join('\n');
    for (const p of ['v1', 'link']) expect(text).toContain(`failed to unmount ${root}/var/lib/kubelet/pods/a/volumes/${p}: resource temporarily unavailable (unmountFlags has MNT_EXPIRE`);
  });

  test('MNT_EXPIRE with MNT_FORCE: no umount runs, each mount point reported as unmount2\'s EINVAL', async () => {
    const { commands, lines } = await dryUnmounts('[MNT_FORCE, MNT_EXPIRE]');
    expect(commands).toEqual([]);
    expect(lines.join('\n')).toContain(`failed to unmount ${root}/var/lib/kubelet/pods/a/volumes/v1: invalid argument (unmountFlags combines MNT_EXPIRE with MNT_FORCE or MNT_DETACH`);
  });
});
