import { readFileSync, statSync, existsSync } from 'node:fs';
import { DryRunHost } from '../../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { cleanKubeletFlagsEnv, unwantedKubeletFlags } from '../../../../src/phases/upgrade/kubelet-flags-env.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { tempRoot } from '../../../helpers/temp-root.js';

/**
 * Oracle: kubeadm 1.35 removes --pod-infra-container-image from /var/lib/kubelet/kubeadm-flags.env
 * during upgrade (PR #133778, release note "During upgrade, kubeadm will attempt to remove the
 * flag"); kubeadm 1.36 no longer does (PR #135807); before 1.35 the file is not touched.
 * kubeadm 1.37 removes --container-runtime-endpoint (PR #138645: NodeLocalCRISocket removed,
 * `unwantedFlags := []string{"container-runtime-endpoint"}`), and needs instance-config.yaml.
 */
const FILE = '/var/lib/kubelet/kubeadm-flags.env';
const WITH_FLAG = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n';
const WITHOUT = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n';

function logger(): { lines: string[]; info: (m: string, o?: { prefix?: string }) => void } {
  const lines: string[] = [];
  return { lines, info: (m, o) => lines.push(`[${o?.prefix ?? ''}] ${m}`) };
}

describe('kubeadm-flags.env on upgrade', () => {
  test('which minors strip which flag: --pod-infra-container-image at 1.35, --container-runtime-endpoint at 1.37', () => {
    expect(unwantedKubeletFlags(VERSION_TABLE['1.34'])).toEqual([]);
    expect(unwantedKubeletFlags(VERSION_TABLE['1.35'])).toEqual(['pod-infra-container-image']);
    expect(unwantedKubeletFlags(VERSION_TABLE['1.36'])).toEqual([]);
    expect(unwantedKubeletFlags(VERSION_TABLE['1.37'])).toEqual(['container-runtime-endpoint']);
  });

  test('to 1.26: --container-runtime=remote is removed (PR #112000), --container-runtime-endpoint kept; 1.25 and 1.27 leave the file as it is', async () => {
    expect(unwantedKubeletFlags(VERSION_TABLE['1.25'])).toEqual([]);
    expect(unwantedKubeletFlags(VERSION_TABLE['1.26'])).toEqual(['container-runtime']);
    expect(unwantedKubeletFlags(VERSION_TABLE['1.27'])).toEqual([]);
    const root = tempRoot({ [FILE]: 'KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.8"\n' });
    try {
      const log = logger();
      expect(await cleanKubeletFlagsEnv(new RootedHost(root.dir), VERSION_TABLE['1.26'], log, 'upgrade')).toBe(true);
      expect(readFileSync(root.at(FILE), 'utf8')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.8"\n');
      expect(log.lines).toEqual([`[upgrade] Removing the flags --container-runtime from "${FILE}": the kubelet of this version no longer accepts them`]);
    } finally {
      root.cleanup();
    }
  });

  test('to 1.37: --container-runtime-endpoint is removed when instance-config.yaml holds the endpoint; refused without it, nothing written', async () => {
    const OLD = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --node-ip=10.0.0.5"\n';
    const INSTANCE = '/var/lib/kubelet/instance-config.yaml';
    const ok = tempRoot({ [FILE]: { content: OLD, mode: 0o644 }, [INSTANCE]: { content: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\n', mode: 0o644 } });
    const bare = tempRoot({ [FILE]: { content: OLD, mode: 0o644 } });
    try {
      expect(await cleanKubeletFlagsEnv(new RootedHost(ok.dir), VERSION_TABLE['1.37'], logger(), 'p')).toBe(true);
      expect(readFileSync(ok.at(FILE), 'utf8')).toBe('KUBELET_KUBEADM_ARGS="--node-ip=10.0.0.5"\n');
      await expect(cleanKubeletFlagsEnv(new RootedHost(bare.dir), VERSION_TABLE['1.37'], logger(), 'p')).rejects.toMatchObject({
        code: 'E_PRECONDITION',
        message: `cannot remove --container-runtime-endpoint from "${FILE}": "${INSTANCE}" does not exist, so the kubelet would lose its container runtime endpoint`,
      });
      expect(readFileSync(bare.at(FILE), 'utf8')).toBe(OLD);
    } finally {
      ok.cleanup();
      bare.cleanup();
    }
  });

  test('to 1.35: the flag is removed, the file keeps mode 0644; a second run writes nothing', async () => {
    const root = tempRoot({ [FILE]: { content: WITH_FLAG, mode: 0o644 } });
    try {
      const host = new RootedHost(root.dir);
      const log = logger();
      expect(await cleanKubeletFlagsEnv(host, VERSION_TABLE['1.35'], log, 'upgrade/postupgrade')).toBe(true);
      expect(readFileSync(root.at(FILE), 'utf8')).toBe(WITHOUT);
      expect(statSync(root.at(FILE)).mode & 0o777).toBe(0o644);
      expect(log.lines).toEqual([`[upgrade/postupgrade] Removing the flags --pod-infra-container-image from "${FILE}": the kubelet of this version no longer accepts them`]);
      const inode = statSync(root.at(FILE)).ino;
      const mtime = statSync(root.at(FILE)).mtimeMs;
      expect(await cleanKubeletFlagsEnv(host, VERSION_TABLE['1.35'], logger(), 'upgrade/postupgrade')).toBe(false);
      expect(statSync(root.at(FILE)).ino).toBe(inode);
      expect(statSync(root.at(FILE)).mtimeMs).toBe(mtime);
    } finally {
      root.cleanup();
    }
  });

  test('the rewrite is atomic: a new file replaces the old one (rename), no temp file is left behind', async () => {
    const root = tempRoot({ [FILE]: { content: WITH_FLAG, mode: 0o644 } });
    try {
      const before = statSync(root.at(FILE)).ino;
      await cleanKubeletFlagsEnv(new RootedHost(root.dir), VERSION_TABLE['1.35'], logger(), 'upgrade/postupgrade');
      expect(statSync(root.at(FILE)).ino).not.toBe(before);
      const { readdirSync } = await import('node:fs');
      expect(readdirSync(root.at('/var/lib/kubelet'))).toEqual(['kubeadm-flags.env']);
    } finally {
      root.cleanup();
    }
  });

  test('to 1.34 and 1.36 the file is left as it is', async () => {
    for (const minor of ['1.34', '1.36'] as const) {
      const root = tempRoot({ [FILE]: { content: WITH_FLAG, mode: 0o644 } });
      try {
        expect(await cleanKubeletFlagsEnv(new RootedHost(root.dir), VERSION_TABLE[minor], logger(), 'p')).toBe(false);
        expect(readFileSync(root.at(FILE), 'utf8')).toBe(WITH_FLAG);
      } finally {
        root.cleanup();
      }
    }
  });

  test('an absent file stays absent; a dry run changes nothing on disk', async () => {
    const empty = tempRoot();
    try {
      expect(await cleanKubeletFlagsEnv(new RootedHost(empty.dir), VERSION_TABLE['1.35'], logger(), 'p')).toBe(false);
      expect(existsSync(empty.at(FILE))).toBe(false);
    } finally {
      empty.cleanup();
    }
    const root = tempRoot({ [FILE]: { content: WITH_FLAG, mode: 0o644 } });
    try {
      const dry = new DryRunHost(new RootedHost(root.dir));
      expect(await cleanKubeletFlagsEnv(dry, VERSION_TABLE['1.35'], logger(), 'p')).toBe(true);
      expect(readFileSync(root.at(FILE), 'utf8')).toBe(WITH_FLAG);
      expect((await dry.readFile(FILE))?.toString('utf8')).toBe(WITHOUT);
    } finally {
      root.cleanup();
    }
  });
});
