/**
 * The kubelet-start core shared by init and join: the one NodeLocalCRISocket decision, the files
 * and modes it renders, and writing them between a stop and a restart of the kubelet.
 */
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import {
  KUBELET_INSTANCE_CONFIG_FILE, kubeletFiles, prepareKubeletFiles, renderKubeletSettings, usesNodeLocalCriSocket, writeKubeletFilesAndRestart,
  type KubeletSettingsInput,
} from '../../../../src/phases/kubelet/settings.js';
import { profileFor } from '../../../../src/versions/resolve.js';
import { DEFAULT_PATCH, type SupportedMinor } from '../../../../src/versions/table.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot } from '../../../helpers/temp-root.js';

const CONTAINERD = 'unix:///run/containerd/containerd.sock';

function configFor(minor: SupportedMinor, gates: Record<string, boolean> = {}): ResolvedInitConfig {
  const base = fixtureInitConfig({ cluster: { kubernetesVersion: DEFAULT_PATCH[minor], featureGates: gates } });
  return { ...base, init: { ...base.init, nodeRegistration: { ...base.init.nodeRegistration, criSocket: CONTAINERD, taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] } } };
}

function inputFor(cfg: ResolvedInitConfig, registerTaints = false): KubeletSettingsInput {
  return {
    cluster: cfg.cluster,
    kubeletConfig: cfg.componentConfigs.kubelet,
    nodeRegistration: cfg.init.nodeRegistration,
    hostname: 'cp1',
    registerTaints,
    versions: profileFor(cfg.cluster.kubernetesVersion),
    hostFacts: { systemdResolved: false },
  };
}

describe('usesNodeLocalCriSocket', () => {
  const decide = (minor: SupportedMinor, gates: Record<string, boolean> = {}) => {
    const cfg = configFor(minor, gates);
    return usesNodeLocalCriSocket(cfg.cluster, profileFor(cfg.cluster.kubernetesVersion));
  };
  test('on by default from 1.34 only', () => {
    expect(decide('1.34')).toBe(true);
    expect(decide('1.31')).toBe(false);
  });
  test('the feature gate wins over the default', () => {
    expect(decide('1.34', { NodeLocalCRISocket: false })).toBe(false);
    expect(decide('1.31', { NodeLocalCRISocket: true })).toBe(true);
  });
  test('never before unix:// CRI socket URLs (1.24), whatever the gate says', () => {
    expect(decide('1.20', { NodeLocalCRISocket: true })).toBe(false);
  });
});

describe('renderKubeletSettings', () => {
  test('NodeLocalCRISocket: the endpoint moves from the flags file into config.yaml and instance-config.yaml', () => {
    const on = renderKubeletSettings(inputFor(configFor('1.34')));
    expect(on.nodeLocalCriSocket).toBe(true);
    expect(on.flagsEnv).not.toContain('--container-runtime-endpoint');
    expect(on.config.containerRuntimeEndpoint).toBe(CONTAINERD);
    expect(on.instanceConfig).toEqual({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', containerRuntimeEndpoint: CONTAINERD });

    const off = renderKubeletSettings(inputFor(configFor('1.34', { NodeLocalCRISocket: false })));
    expect(off.nodeLocalCriSocket).toBe(false);
    expect(off.flagsEnv).toContain(`--container-runtime-endpoint=${CONTAINERD}`);
    expect(off.config.containerRuntimeEndpoint).toBeUndefined();
    expect(off.instanceConfig).toBeUndefined();
  });

  test('only a joining worker registers with its taints', () => {
    expect(renderKubeletSettings(inputFor(configFor('1.31'), true)).flagsEnv).toContain('--register-with-taints=dedicated=infra:NoSchedule');
    expect(renderKubeletSettings(inputFor(configFor('1.31'), false)).flagsEnv).not.toContain('--register-with-taints');
  });
});

describe('kubeletFiles', () => {
  test('paths, modes 0644 and contents', () => {
    const settings = renderKubeletSettings(inputFor(configFor('1.34')));
    const files = kubeletFiles(settings, { ...settings.config, maxPods: 50 });
    expect([files.flagsEnv.path, files.config.path, files.instanceConfig?.path]).toEqual(['/var/lib/kubelet/kubeadm-flags.env', '/var/lib/kubelet/config.yaml', KUBELET_INSTANCE_CONFIG_FILE]);
    expect([files.flagsEnv.mode, files.config.mode, files.instanceConfig?.mode]).toEqual([0o644, 0o644, 0o644]);
    expect(files.flagsEnv.content).toBe(settings.flagsEnv);
    expect(files.config.content).toContain('\nmaxPods: 50\n');
    expect(files.instanceConfig?.content).toBe(`apiVersion: kubelet.config.k8s.io/v1beta1\ncontainerRuntimeEndpoint: ${CONTAINERD}\nkind: KubeletConfiguration\n`);
  });
});

describe('prepareKubeletFiles and writeKubeletFilesAndRestart', () => {
  test('the files are written in the order given, between a stop and a restart of the kubelet', async () => {
    const root = tempRoot();
    try {
      const cfg = configFor('1.34');
      const { ctx, reporter } = initCtxFor(cfg, root.dir, { dryRun: true });
      const { files } = await prepareKubeletFiles(ctx, { ...inputFor(cfg), patchesDir: undefined, probeDockerCgroupDriver: true });
      const order = [files.config, files.instanceConfig!, files.flagsEnv];
      await writeKubeletFilesAndRestart(ctx, order);
      expect(ctx.host.writes.map((w) => [w.path, w.mode])).toEqual(order.map((f) => [f.path, 0o644]));
      expect(ctx.host.actions).toEqual(['stop kubelet', 'restart kubelet']);
      const info = reporter.events.flatMap((e) => (e.type === 'log' && e.level === 'info' ? [e.message] : []));
      expect(info).toEqual([...order.map((f) => f.announce), 'Would start the kubelet']);
    } finally {
      root.cleanup();
    }
  });

  test('docker\'s cgroup driver is probed only when asked (init), for dockershim', async () => {
    const root = tempRoot();
    try {
      const base = fixtureInitConfig(); // v1.20.2
      const cfg = { ...base, init: { ...base.init, nodeRegistration: { ...base.init.nodeRegistration, criSocket: '/var/run/dockershim.sock' } } };
      const { ctx } = initCtxFor(cfg, root.dir, { dryRun: true });
      const probed: string[] = [];
      const host = Object.assign(Object.create(ctx.host) as typeof ctx.host, {
        exec: async (cmd: string, args: readonly string[]) => {
          probed.push([cmd, ...args].join(' '));
          return { exitCode: 0, stdout: 'systemd\n', stderr: '' };
        },
      });
      const probing = await prepareKubeletFiles({ ...ctx, host }, { ...inputFor(cfg), patchesDir: undefined, probeDockerCgroupDriver: true });
      expect(probed).toEqual(['docker info -f {{.CgroupDriver}}']);
      expect(probing.files.config.content).toContain('\ncgroupDriver: systemd\n');
      const joining = await prepareKubeletFiles({ ...ctx, host }, { ...inputFor(cfg), patchesDir: undefined, probeDockerCgroupDriver: false });
      expect(probed).toHaveLength(1);
      expect(joining.files.config.content).not.toContain('cgroupDriver');
    } finally {
      root.cleanup();
    }
  });
});
