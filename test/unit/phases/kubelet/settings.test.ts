/**
 * The kubelet-start core shared by init and join: the one NodeLocalCRISocket decision, the files
 * and modes it renders, and writing them between a stop and a restart of the kubelet.
 */
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import { prepareKubeletFiles, usesNodeLocalCriSocket, writeKubeletFilesAndRestart } from '../../../../src/phases/kubelet/settings.js';
import { profileFor } from '../../../../src/versions/resolve.js';
import { DEFAULT_PATCH, type SupportedMinor } from '../../../../src/versions/minors.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';

const CONTAINERD = 'unix:///run/containerd/containerd.sock';

function configFor(minor: SupportedMinor, gates: Record<string, boolean> = {}, criSocket = CONTAINERD): ResolvedInitConfig {
  const base = fixtureInitConfig({ cluster: { kubernetesVersion: DEFAULT_PATCH[minor], featureGates: gates } });
  return { ...base, init: { ...base.init, nodeRegistration: { ...base.init.nodeRegistration, criSocket, taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] } } };
}

let root: TempRoot;
beforeEach(() => {
  root = tempRoot({ '/patches/kubeletconfiguration+merge.yaml': 'maxPods: 50\n' });
});
afterEach(() => root.cleanup());

/** prepareKubeletFiles on a dry-run host over the temp root (no init system: systemd-resolved is unknown). */
async function prepare(cfg: ResolvedInitConfig, o: { registerTaints?: boolean; patchesDir?: string; probeDockerCgroupDriver?: boolean } = {}) {
  const { ctx } = initCtxFor(cfg, root.dir, { dryRun: true });
  return prepareKubeletFiles(ctx, {
    cluster: cfg.cluster,
    kubeletConfig: cfg.componentConfigs.kubelet,
    nodeRegistration: cfg.init.nodeRegistration,
    hostname: 'cp1',
    registerTaints: o.registerTaints ?? false,
    versions: profileFor(cfg.cluster.kubernetesVersion),
    patchesDir: o.patchesDir,
    probeDockerCgroupDriver: o.probeDockerCgroupDriver ?? true,
  });
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
    expect(decide('1.33', { NodeLocalCRISocket: true })).toBe(true);
    // Unknown to kubeadm 1.32 (alpha in 1.33): the gate changes nothing there.
    expect(decide('1.32', { NodeLocalCRISocket: true })).toBe(false);
  });
  test('never before unix:// CRI socket URLs (1.24), whatever the gate says', () => {
    expect(decide('1.20', { NodeLocalCRISocket: true })).toBe(false);
  });
});

describe('prepareKubeletFiles', () => {
  test('NodeLocalCRISocket: the endpoint moves from the flags file into config.yaml and instance-config.yaml', async () => {
    const on = await prepare(configFor('1.34'));
    expect(on.settings.nodeLocalCriSocket).toBe(true);
    expect(on.files.flagsEnv.content).not.toContain('--container-runtime-endpoint');
    expect(on.files.config.content).toContain(`\ncontainerRuntimeEndpoint: ${CONTAINERD}\n`);
    expect(on.files.instanceConfig?.content).toBe(`apiVersion: kubelet.config.k8s.io/v1beta1\ncontainerRuntimeEndpoint: ${CONTAINERD}\nkind: KubeletConfiguration\n`);

    const off = await prepare(configFor('1.34', { NodeLocalCRISocket: false }));
    expect(off.settings.nodeLocalCriSocket).toBe(false);
    expect(off.files.flagsEnv.content).toContain(`--container-runtime-endpoint=${CONTAINERD}`);
    expect(off.files.config.content).not.toContain('containerRuntimeEndpoint');
    expect(off.files.instanceConfig).toBeUndefined();
  });

  test('paths and modes 0644; --patches reach config.yaml', async () => {
    const { files } = await prepare(configFor('1.34'), { patchesDir: '/patches' });
    expect([files.flagsEnv.path, files.config.path, files.instanceConfig?.path]).toEqual(['/var/lib/kubelet/kubeadm-flags.env', '/var/lib/kubelet/config.yaml', '/var/lib/kubelet/instance-config.yaml']);
    expect([files.flagsEnv.mode, files.config.mode, files.instanceConfig?.mode]).toEqual([0o644, 0o644, 0o644]);
    expect(files.config.content).toContain('\nmaxPods: 50\n');
    expect((await prepare(configFor('1.34'))).files.config.content).not.toContain('maxPods');
  });

  test('only a joining worker registers with its taints', async () => {
    expect((await prepare(configFor('1.31'), { registerTaints: true })).files.flagsEnv.content).toContain('--register-with-taints=dedicated=infra:NoSchedule');
    expect((await prepare(configFor('1.31'))).files.flagsEnv.content).not.toContain('--register-with-taints');
  });

  test('docker\'s cgroup driver is probed only when asked (init), for dockershim', async () => {
    const cfg = configFor('1.20', {}, '/var/run/dockershim.sock');
    const { ctx } = initCtxFor(cfg, root.dir, { dryRun: true });
    const probed: string[] = [];
    const host = Object.assign(Object.create(ctx.host) as typeof ctx.host, {
      exec: (cmd: string, args: readonly string[]) => {
        probed.push([cmd, ...args].join(' '));
        return Promise.resolve({ exitCode: 0, stdout: 'systemd\n', stderr: '' });
      },
    });
    const input = {
      cluster: cfg.cluster, kubeletConfig: cfg.componentConfigs.kubelet, nodeRegistration: cfg.init.nodeRegistration, hostname: 'cp1',
      registerTaints: false, versions: profileFor(cfg.cluster.kubernetesVersion), patchesDir: undefined,
    };
    const probing = await prepareKubeletFiles({ ...ctx, host }, { ...input, probeDockerCgroupDriver: true });
    expect(probed).toEqual(['docker info -f {{.CgroupDriver}}']);
    expect(probing.files.config.content).toContain('\ncgroupDriver: systemd\n');
    const joining = await prepareKubeletFiles({ ...ctx, host }, { ...input, probeDockerCgroupDriver: false });
    expect(probed).toHaveLength(1);
    expect(joining.files.config.content).not.toContain('cgroupDriver');
  });
});

test('writeKubeletFilesAndRestart: the files in the order given, between a stop and a restart of the kubelet', async () => {
  const cfg = configFor('1.34');
  const { ctx, reporter } = initCtxFor(cfg, root.dir, { dryRun: true });
  const { files } = await prepare(cfg);
  const order = [files.config, files.instanceConfig!, files.flagsEnv];
  await writeKubeletFilesAndRestart(ctx, order);
  expect(ctx.host.writes.map((w) => [w.path, w.mode])).toEqual(order.map((f) => [f.path, 0o644]));
  expect(ctx.host.actions).toEqual(['stop kubelet', 'restart kubelet']);
  const info = reporter.events.flatMap((e) => (e.type === 'log' && e.level === 'info' ? [e.message] : []));
  expect(info).toEqual([...order.map((f) => f.announce), 'Would start the kubelet']);
});
