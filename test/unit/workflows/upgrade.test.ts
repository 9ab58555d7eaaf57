import { readFileSync, readdirSync } from 'node:fs';
import { flatten } from '../../../src/engine/phase.js';
import { upgradeApplyPhases, upgradeNodePhases } from '../../../src/workflows/upgrade.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { runCli } from '../../helpers/cli.js';
import { tempRoot } from '../../helpers/temp-root.js';

const paths = (tree: ReturnType<typeof upgradeApplyPhases>): string[] => flatten(tree).map((p) => p.path);

describe('upgrade workflows', () => {
  test('apply has kubeadm\'s phases in its order (kubeadm 1.30+ "kubeadm upgrade apply phase" reference)', () => {
    expect(paths(upgradeApplyPhases())).toEqual([
      'preflight', 'control-plane', 'upload-config', 'upload-config/kubeadm', 'upload-config/kubelet', 'kubelet-config',
      'bootstrap-token', 'addon', 'addon/coredns', 'addon/kube-proxy', 'post-upgrade',
    ]);
    // Every apply phase takes the command's [version] argument.
    expect(flatten(upgradeApplyPhases()).every((p) => p.phase.positional === '[version]')).toBe(true);
  });

  test('node: kubeadm 1.20\'s three phases; 1.28 adds the addons (inside kubeadm\'s control-plane step, hidden here); 1.32 addon and post-upgrade phases', () => {
    const visible = (minor: string): string[] => upgradeNodePhases(profileFor(minor)).filter((p) => !p.hidden).map((p) => p.name);
    // godocs of k8s.io/kubernetes/cmd/kubeadm/app/cmd/phases/upgrade/node at v1.20.0 and v1.29.6: preflight, controlplane, kubeletconfig.
    expect(visible('v1.20.2')).toEqual(['preflight', 'control-plane', 'kubelet-config']);
    expect(visible('v1.29.0')).toEqual(['preflight', 'control-plane', 'kubelet-config']);
    expect(paths(upgradeNodePhases(profileFor('v1.29.0')))).toContain('addon/coredns');
    expect(paths(upgradeNodePhases(profileFor('v1.27.0')))).not.toContain('addon');
    // The v1.34 reference of `kubeadm upgrade node` (PR #127242, v1.32).
    expect(visible('v1.34.0')).toEqual(['preflight', 'control-plane', 'kubelet-config', 'addon', 'post-upgrade']);
    expect(visible('v1.32.0')).toEqual(visible('v1.34.0'));
  });

  test('the CLI offers every leaf as `upgrade apply phase …` and `upgrade node phase …`', async () => {
    const apply = await runCli(['upgrade', 'apply', 'phase', '--help']);
    expect(apply.code).toBe(0);
    for (const p of ['preflight', 'control-plane', 'upload-config', 'kubelet-config', 'bootstrap-token', 'addon', 'post-upgrade']) expect(apply.stdout).toContain(p);
    const addon = await runCli(['upgrade', 'apply', 'phase', 'addon', '--help']);
    expect(addon.stdout).toMatch(/coredns/);
    expect(addon.stdout).toMatch(/kube-proxy/);
    const node = await runCli(['upgrade', 'node', 'phase', '--help']);
    expect(node.code).toBe(0);
    expect(node.stdout).toContain('kubelet-config');
    // The default version's tree (v1.34): addon and post-upgrade are phases of upgrade node there.
    expect(node.stdout).toContain('post-upgrade');
    expect(node.stdout).not.toContain('upload-config');
  });

  test('apply with no admin kubeconfig: one line naming it, exit 1, only the resume record written', async () => {
    const root = tempRoot();
    try {
      const r = await runCli(['upgrade', 'apply', 'v1.20.3', '-y', '--rootfs', root.dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/admin\.conf/);
      // Only the resume record (src/resume), saying where the run stopped.
      expect(readdirSync(root.dir, { recursive: true }).sort()).toEqual(['etc', 'etc/kubernetes', 'etc/kubernetes/tmp', 'etc/kubernetes/tmp/tsadm-state.json']);
      const state = JSON.parse(readFileSync(root.at('/etc/kubernetes/tmp/tsadm-state.json'), 'utf8')) as { command: string; status: string; failedPhase: string };
      expect(state).toMatchObject({ command: 'upgrade apply', status: 'failed', failedPhase: 'preflight' });
      expect(r.stderr).toContain('"tsadm upgrade apply --resume" continues from there');
    } finally {
      root.cleanup();
    }
  });

  test('an unknown phase is refused before anything runs', async () => {
    const r = await runCli(['upgrade', 'apply', 'v1.20.3', '--skip-phases', 'no-such-phase']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no-such-phase/);
  });
});
