import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { upgradeCtxFor } from '../../../helpers/upgrade-ctx.js';
import { jest } from '@jest/globals';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';
import { realSystem } from '../../../../src/host/system-probe.js';
import type { NodeObject } from '../../../../src/kube/types.js';
import { upgradePreflightPhase } from '../../../../src/phases/upgrade/preflight.js';
import type { UpgradeClusterView } from '../../../../src/upgrade-plan/cluster-view.js';

async function expectError(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const err = await tsadmErrorOf(p);
  expect(err.code).toBe(code);
  expect(err.message + (err.details ?? []).join('\n')).toMatch(message);
}

const MANIFESTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'];

function node(name: string, opts: { controlPlane?: boolean; ready?: boolean } = {}): NodeObject {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: opts.controlPlane ? { 'node-role.kubernetes.io/master': '' } : {} },
    status: { conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

function view(over: Partial<UpgradeClusterView> = {}): UpgradeClusterView {
  const nodes = [node('cp1', { controlPlane: true }), node('w1')];
  return {
    texts: { clusterConfigurationYaml: '', clusterStatusYaml: undefined, kubeletConfigurationYaml: '' },
    storedVersion: 'v1.20.2',
    serverVersion: 'v1.20.2',
    kubeletVersions: ['v1.20.2', 'v1.20.2'],
    nodes,
    nodeName: 'cp1',
    node: nodes[0],
    controlPlane: true,
    localAPIEndpoint: { advertiseAddress: '10.0.0.1', bindPort: 6443 },
    ...over,
  };
}

describe('upgrade preflight', () => {
  let root: TempRoot;
  beforeEach(() => {
    root = tempRoot(Object.fromEntries(MANIFESTS.map((m) => [`/etc/kubernetes/manifests/${m}.yaml`, 'kind: Pod\n'])));
  });
  afterEach(() => root.cleanup());

  /**
   * CreateJob needs a cluster that runs a Job (test/unit/phases/upgrade/health-job.test.ts has
   * it against a real one); here it fails for want of one and is ignored by name, as an operator would.
   */
  const run = async (o: Parameters<typeof upgradeCtxFor>[1]) => {
    const flags = { ...(o?.flags ?? {}) };
    const ignore = [...((flags['ignore-preflight-errors'] as string[] | undefined) ?? []), 'CreateJob'];
    const { ctx, reporter } = upgradeCtxFor(root.dir, { view: view(), ...o, flags: { ...flags, 'ignore-preflight-errors': ignore } });
    await upgradePreflightPhase.run!(ctx);
    return reporter.lines();
  };

  test('apply with --yes: kubeadm 1.20\'s lines, in its order, and no question', async () => {
    const asked = jest.fn(() => Promise.resolve('y'));
    const lines = await run({ version: 'v1.20.3', flags: { yes: true }, deps: { confirm: asked } });
    expect(asked).not.toHaveBeenCalled();
    const order = ['Making sure the configuration is correct:', 'Running pre-flight checks.', 'Running cluster health checks',
      'You have chosen to change the cluster version to "v1.20.3"', 'Cluster version: v1.20.2'];
    expect(order.map((l) => lines.indexOf(l))).toEqual([...order.map((l) => lines.indexOf(l))].sort((a, b) => a - b));
    for (const l of order) expect(lines).toContain(l);
  });

  test('without --yes it asks; "y" goes on, anything else or no input stops', async () => {
    await expect(run({ version: 'v1.20.3', deps: { confirm: () => Promise.resolve('Y') } })).resolves.toContain('Are you sure you want to proceed with the upgrade? [y/N]: ');
    await expectError(run({ version: 'v1.20.3', deps: { confirm: () => Promise.resolve('n') } }), 'E_PRECONDITION', /didn't answer \(Y\|y\)/);
    await expectError(run({ version: 'v1.20.3', deps: { confirm: () => Promise.resolve(undefined) } }), 'E_USAGE', /no input/);
    // --force and --dry-run imply non-interactive mode (kubeadm's sessionIsInteractive).
    const never = () => Promise.reject(new Error('asked'));
    await run({ version: 'v1.20.3', flags: { force: true }, deps: { confirm: never } });
    await run({ version: 'v1.20.3', dryRun: true, deps: { confirm: never } });
  });

  test('the version policy: a skipped minor is fatal, a downgrade needs --force', async () => {
    await expectError(run({ version: 'v1.22.0', flags: { yes: true } }), 'E_PRECONDITION', /version policy/);
    await expectError(run({ version: 'v1.22.0', flags: { force: true } }), 'E_PRECONDITION', /version policy/);
    await expectError(run({ version: 'v1.20.1', flags: { yes: true } }), 'E_PRECONDITION', /version policy/);
    const forced = await run({ version: 'v1.20.1', flags: { force: true } });
    expect(forced.some((l) => /skipping since the --force flag is set/.test(l))).toBe(true);
  });

  test('apply needs a version; "1.20.3" is normalised', async () => {
    await expectError(run({ flags: { yes: true } }), 'E_USAGE', /needs the version/);
    expect(await run({ version: '1.20.3', flags: { yes: true } })).toContain('You have chosen to change the cluster version to "v1.20.3"');
  });

  test('health: a missing manifest and a NotReady control plane are errors kubeadm names, ignorable by name', async () => {
    root.cleanup();
    root = tempRoot({ '/etc/kubernetes/manifests/kube-apiserver.yaml': 'kind: Pod\n' });
    await expectError(run({ version: 'v1.20.3', flags: { yes: true } }), 'E_PREFLIGHT', /\[ERROR StaticPodManifest\]/);
    await run({ version: 'v1.20.3', flags: { yes: true, 'ignore-preflight-errors': ['StaticPodManifest'] } });

    const notReady = view({ nodes: [node('cp1', { controlPlane: true, ready: false })] });
    const { ctx } = upgradeCtxFor(root.dir, { view: notReady, version: 'v1.20.3', flags: { yes: true, 'ignore-preflight-errors': ['staticpodmanifest', 'createjob'] } });
    await expectError(upgradePreflightPhase.run!(ctx), 'E_PREFLIGHT', /NotReady control-planes in the cluster: \[cp1\]/);
  });

  test('upgrade node on a worker: the root check only, no version question', async () => {
    const worker = view({ nodeName: 'w1', controlPlane: false, localAPIEndpoint: undefined });
    const { ctx, reporter } = upgradeCtxFor(root.dir, { command: 'node', view: worker, deps: { confirm: () => Promise.reject(new Error('asked')) } });
    await upgradePreflightPhase.run!(ctx);
    expect(reporter.lines()).toContain('Skipping prepull. Not a control plane node.');
    expect(reporter.lines()).not.toContain('Running cluster health checks');
  });

  test('--print-config prints the ClusterConfiguration used, tab-indented, before the checks', async () => {
    const { ctx, reporter } = upgradeCtxFor(root.dir, {
      view: view({ texts: { clusterConfigurationYaml: 'kind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n', clusterStatusYaml: undefined, kubeletConfigurationYaml: '' } }),
      version: 'v1.20.3', flags: { yes: true, 'print-config': true, 'ignore-preflight-errors': ['CreateJob'] },
    });
    await upgradePreflightPhase.run!(ctx);
    const lines = reporter.lines();
    const at = lines.indexOf('Configuration used:');
    expect(lines.slice(at, at + 3)).toEqual(['Configuration used:', '\tkind: ClusterConfiguration', '\tkubernetesVersion: v1.20.2']);
    expect(at).toBeLessThan(lines.indexOf('Running pre-flight checks.'));
  });

  test('CreateJob runs first among the health checks and fails by name without a cluster to run the Job', async () => {
    const { ctx } = upgradeCtxFor(root.dir, { view: view(), version: 'v1.20.3', flags: { yes: true } });
    await expectError(upgradePreflightPhase.run!(ctx), 'E_PREFLIGHT', /^\[preflight\] Some fatal errors occurred: \[ERROR CreateJob\]/);
  });

  test('1.35+ targets: ContainerRuntimeVersion and SystemVerification run (kubeadm\'s RunUpgradeChecks), cgroup v1 refused for the 1.35 kubelet; v1.20 targets: not run', async () => {
    const cgroupV1 = {
      ...realSystem, uid: () => 0,
      cgroupFsType: () => Promise.resolve('tmpfs'),
      kernelRelease: () => '6.1.0-13-amd64',
      kernelConfig: () => Promise.resolve({ text: ['NAMESPACES', 'NET_NS', 'PID_NS', 'IPC_NS', 'UTS_NS', 'CPUSETS', 'MEMCG', 'INET', 'EXT4_FS', 'PROC_FS', 'NETFILTER_XT_TARGET_REDIRECT', 'NETFILTER_XT_MATCH_COMMENT', 'FAIR_GROUP_SCHED', 'CGROUPS', 'CGROUP_CPUACCT', 'CGROUP_DEVICE', 'CGROUP_FREEZER', 'CGROUP_PIDS', 'CGROUP_SCHED'].map((c) => `CONFIG_${c}=y`).join('\n') }),
      readProc: (p: string) => Promise.resolve(p === '/proc/cgroups' ? '#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t1\t1\t1\ncpuacct\t2\t1\t1\ncpuset\t3\t1\t1\ndevices\t5\t1\t1\nfreezer\t6\t1\t1\nmemory\t4\t1\t1\npids\t8\t1\t1\nhugetlb\t0\t1\t1\nblkio\t7\t1\t1\n' : undefined),
    };
    const at134 = view({
      storedVersion: 'v1.34.1', serverVersion: 'v1.34.1', kubeletVersions: ['v1.34.1', 'v1.34.1'],
      texts: { clusterConfigurationYaml: 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.1\n', clusterStatusYaml: undefined, kubeletConfigurationYaml: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n' },
    });
    await expectError(run({ version: 'v1.35.0', view: at134, flags: { yes: true }, system: cgroupV1, deps: { connectRuntime: () => Promise.resolve({ runtimeConfig: () => Promise.resolve({}), close: () => undefined }) } }),
      'E_PREFLIGHT', /\[ERROR SystemVerification\]: cgroups v1 support is deprecated and will be removed in a future release\..*'FailCgroupV1' to 'false'/);
    const lines = await run({ version: 'v1.20.3', flags: { yes: true }, system: cgroupV1 });
    expect(lines.join('\n')).not.toMatch(/SystemVerification|ContainerRuntimeVersion/);
  });

  test('not root: IsPrivilegedUser fails as in init', async () => {
    await expectError(run({ version: 'v1.20.3', flags: { yes: true }, system: { ...realSystem, uid: () => 1000 } }), 'E_PREFLIGHT', /IsPrivilegedUser/);
  });
  // The steps of issue 26 (policy facts: kubeadm's policy.go, one minor at a time; kubelets at
  // most three minors behind, golden facts' skew.minKubelet 1.32/1.33/1.34 for 1.35/1.36/1.37).
  const at = (version: string, kubelet = version) => view({ serverVersion: version, storedVersion: version, kubeletVersions: [kubelet, kubelet] });

  test('issue 26: v1.34.1 → v1.35.4 passes the version policy; v1.34.1 → v1.36.0 is refused as a skipped minor', async () => {
    const lines = await run({ version: 'v1.35.4', flags: { yes: true }, view: at('v1.34.1', 'v1.32.9') });
    expect(lines).toContain('You have chosen to change the cluster version to "v1.35.4"');
    expect(lines).toContain('Cluster version: v1.34.1');
    await expectError(run({ version: 'v1.36.0', flags: { yes: true, force: true }, view: at('v1.34.1') }), 'E_PRECONDITION',
      /^version policy: the version to upgrade to v1\.36\.0 skips a minor: the cluster is at v1\.34\.1/);
  });

  test('issue 26: a 1.33 kubelet is too old for v1.37 (needs --force), fine for v1.36', async () => {
    await run({ version: 'v1.36.0', flags: { yes: true }, view: at('v1.35.4', 'v1.33.5') });
    await expectError(run({ version: 'v1.37.0', flags: { yes: true }, view: at('v1.36.0', 'v1.33.5') }), 'E_PRECONDITION', /kubelets too old for v1\.37\.0 \(more than 3 minors behind it\): v1\.33\.5/);
    const forced = await run({ version: 'v1.37.0', flags: { yes: true, force: true }, view: at('v1.36.0', 'v1.33.5') });
    expect(forced).toContain('Found 1 potential version compatibility errors but skipping since the --force flag is set:');
  });

  test('issue 36: v1.37.0 → a named v1.38 pre-release needs only kubeadm\'s unstable-version flag (1.38 preview row); v1.38.0 is stopped with the message about 1.38', async () => {
    await expectError(run({ version: 'v1.38.0-alpha.1', flags: { yes: true }, view: at('v1.37.0') }), 'E_PRECONDITION',
      /^version policy: v1\.38\.0-alpha\.1 is a pre-release: allow it with --allow-experimental-upgrades(?! \(and)/);
    const allowed = await run({ version: 'v1.38.0-alpha.1', flags: { yes: true, 'allow-experimental-upgrades': true }, view: at('v1.37.0') });
    expect(allowed).toContainEqual(expect.stringContaining('Kubernetes v1.38.0-alpha.1 is a pre-release of v1.38, which is not released yet'));
    expect((await run({ version: 'v1.37.1', flags: { yes: true }, view: at('v1.37.0') })).join('\n')).not.toContain('pre-release of');
    await expectError(run({ version: 'v1.38.0', flags: { yes: true }, view: at('v1.37.0') }), 'E_PRECONDITION',
      /^version policy: the version to upgrade to v1\.38\.0 is newer than v1\.37, the newest minor tsadm knows: v1\.38 is not released yet \(only pre-releases exist\)/);
  });
});
