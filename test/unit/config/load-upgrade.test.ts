/**
 * resolveUpgradeConfig against kubeadm's v1beta4 UpgradeConfiguration (apis/kubeadm/v1beta4
 * types.go and defaults.go SetDefaults_UpgradeConfiguration, cmd/upgrade ValueFromFlagsOrConfig)
 * and kubeadm 1.20's --config with a ClusterConfiguration (cmd/upgrade/common.go loadConfig).
 */
import { resolveUpgradeConfig } from '../../../src/config/load-upgrade.js';
import type { ResolvedUpgradeConfig } from '../../../src/config/types.js';
import { configError, errorLines, withConfig } from './support.js';

const V4 = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\n';

describe('defaults without --config (SetDefaults_UpgradeConfiguration, flag defaults)', () => {
  test('apply: certificateRenewal and etcdUpgrade default to true, upgradeManifests to 5m', () => {
    expect(resolveUpgradeConfig({ flags: {}, version: 'v1.20.3' }, 'apply')).toEqual<ResolvedUpgradeConfig>({
      kind: 'upgrade',
      command: 'apply',
      upgrade: {
        kubernetesVersion: 'v1.20.3',
        allowExperimentalUpgrades: false,
        allowRCUpgrades: false,
        certificateRenewal: true,
        etcdUpgrade: true,
        force: false,
        yes: false,
        dryRun: false,
        ignorePreflightErrors: [],
        skipPhases: [],
        upgradeManifestsTimeoutMs: 300_000,
        kubernetesAPICallMs: 60_000,
        printConfig: false,
        diffContextLines: 3,
      },
      warnings: [],
    });
  });

  test('plan without a version asks for none; a bare minor or "1.20.3" is normalised like kubeadm', () => {
    expect(resolveUpgradeConfig({ flags: {} }, 'plan').upgrade.kubernetesVersion).toBeUndefined();
    expect(resolveUpgradeConfig({ flags: {}, version: '1.20.3' }, 'plan').upgrade.kubernetesVersion).toBe('v1.20.3');
  });

  test('diff: --context-lines defaults to 3 (kubeadm\'s flag default)', () => {
    expect(resolveUpgradeConfig({ flags: {} }, 'diff').upgrade.diffContextLines).toBe(3);
    expect(resolveUpgradeConfig({ flags: { 'context-lines': 7 } }, 'diff').upgrade.diffContextLines).toBe(7);
  });
});

describe('an UpgradeConfiguration file', () => {
  const file = `${V4}apply:
  kubernetesVersion: v1.31.2
  certificateRenewal: false
  etcdUpgrade: false
  forceUpgrade: true
  ignorePreflightErrors: [CoreDNSMigration]
  patches:
    directory: /etc/kubernetes/patches
  skipPhases: [addon/kube-proxy]
  printConfig: true
node:
  etcdUpgrade: false
plan:
  kubernetesVersion: v1.31.1
  allowRCUpgrades: true
diff:
  kubernetesVersion: v1.31.0
  contextLines: 10
timeouts:
  upgradeManifests: 2m30s
`;

  test('apply reads its own section and the timeouts', () => {
    const cfg = resolveUpgradeConfig(withConfig(file), 'apply');
    expect(cfg.upgrade).toMatchObject({
      kubernetesVersion: 'v1.31.2', certificateRenewal: false, etcdUpgrade: false, force: true,
      ignorePreflightErrors: ['corednsmigration'], patches: { directory: '/etc/kubernetes/patches' },
      skipPhases: ['addon/kube-proxy'], printConfig: true, allowRCUpgrades: false, upgradeManifestsTimeoutMs: 150_000,
    });
  });

  test('each command reads only its section', () => {
    const node = resolveUpgradeConfig(withConfig(file), 'node');
    expect(node.upgrade).toMatchObject({ etcdUpgrade: false, certificateRenewal: true, force: false, skipPhases: [], kubernetesVersion: undefined });
    const plan = resolveUpgradeConfig(withConfig(file), 'plan');
    expect(plan.upgrade).toMatchObject({ kubernetesVersion: 'v1.31.1', allowRCUpgrades: true, printConfig: false });
    const diff = resolveUpgradeConfig(withConfig(file), 'diff');
    expect(diff.upgrade).toMatchObject({ kubernetesVersion: 'v1.31.0', diffContextLines: 10 });
  });

  test('flags may be mixed with --config for apply/node/plan, and win over the file', () => {
    const cfg = resolveUpgradeConfig(withConfig(file, {
      'etcd-upgrade': true, 'certificate-renewal': true, force: false, 'skip-phases': ['preflight'],
      'ignore-preflight-errors': ['Swap'], patches: '/tmp/p', 'print-config': false,
    }), 'apply');
    expect(cfg.upgrade).toMatchObject({
      etcdUpgrade: true, certificateRenewal: true, force: false, skipPhases: ['preflight'],
      ignorePreflightErrors: ['corednsmigration', 'swap'], patches: { directory: '/tmp/p' }, printConfig: false,
    });
  });

  test('the positional version wins over the file\'s kubernetesVersion', () => {
    expect(resolveUpgradeConfig({ ...withConfig(file), version: 'v1.31.5' }, 'apply').upgrade.kubernetesVersion).toBe('v1.31.5');
  });

  test('diff keeps kubeadm\'s ValidateMixedArguments: config-bound flags next to --config are refused', () => {
    const e = configError(() => resolveUpgradeConfig(withConfig(file, { 'context-lines': 5 }), 'diff'));
    expect(e.message).toBe("can not mix '--config' with arguments [context-lines]");
  });

  test('unknown fields are errors, naming the section', () => {
    const lines = errorLines(() => resolveUpgradeConfig(withConfig(`${V4}apply:\n  etcdUpgrades: true\nnode:\n  kubernetesVersion: v1.31.0\n`), 'apply'));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringContaining('apply.etcdUpgrades: unknown field'),
      // UpgradeNodeConfiguration has no kubernetesVersion in kubeadm's types.go.
      expect.stringContaining('node.kubernetesVersion: unknown field'),
    ]));
  });

  test('wrong types are errors', () => {
    const lines = errorLines(() => resolveUpgradeConfig(withConfig(`${V4}diff:\n  contextLines: many\n`), 'diff'));
    expect(lines.join('\n')).toContain('diff.contextLines: expected an integer');
  });

  test('fields tsadm cannot honour are refused by name, not ignored', () => {
    const lines = errorLines(() => resolveUpgradeConfig(withConfig(`${V4}apply:\n  imagePullSerial: false\n  imagePullPolicy: Always\n`), 'apply'));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringMatching(/^apply\.imagePullSerial: false is not supported/),
      expect.stringMatching(/^apply\.imagePullPolicy: "Always" is not supported/),
    ]));
    // The defaults (serial pulls, IfNotPresent) are what tsadm does, so they are accepted.
    expect(() => resolveUpgradeConfig(withConfig(`${V4}node:\n  imagePullSerial: true\n  imagePullPolicy: IfNotPresent\n`), 'node')).not.toThrow();
  });

  test('plan.etcdUpgrade (kubeadm 1.33+, PR #130023): true by default; false is read for plan (it leaves etcd out of the plan) and --etcd-upgrade overrides it', () => {
    expect(resolveUpgradeConfig(withConfig(`${V4}plan:\n  etcdUpgrade: true\n`), 'plan').upgrade).toMatchObject({ etcdUpgrade: true });
    expect(resolveUpgradeConfig(withConfig(V4), 'plan').upgrade).toMatchObject({ etcdUpgrade: true });
    expect(resolveUpgradeConfig(withConfig(`${V4}plan:\n  etcdUpgrade: false\n`), 'plan').upgrade).toMatchObject({ etcdUpgrade: false });
    // The other subcommands read only their own section.
    expect(resolveUpgradeConfig(withConfig(`${V4}plan:\n  etcdUpgrade: false\n`), 'apply').upgrade).toMatchObject({ etcdUpgrade: true });
  });

  test('a file without an UpgradeConfiguration is refused', () => {
    const text = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
    expect(errorLines(() => resolveUpgradeConfig(withConfig(text), 'apply'))).toContain('config: no UpgradeConfiguration (kubeadm.k8s.io/v1beta4) was found in the supplied config');
  });

  test('timeouts.discovery and tlsBootstrap have no use in upgrade: warned about by name', () => {
    const cfg = resolveUpgradeConfig(withConfig(`${V4}timeouts:\n  discovery: 1m\n  tlsBootstrap: 1m\n  upgradeManifests: 2m\n`), 'apply');
    expect(cfg.warnings).toEqual([
      "UpgradeConfiguration timeouts.discovery has no effect on upgrade (kubeadm's upgrade does not use it either); remove it to silence this warning",
      "UpgradeConfiguration timeouts.tlsBootstrap has no effect on upgrade (kubeadm's upgrade does not use it either); remove it to silence this warning",
    ]);
    expect(cfg.upgrade.upgradeManifestsTimeoutMs).toBe(120_000);
  });

  test('an invalid timeouts.upgradeManifests duration is an error', () => {
    expect(errorLines(() => resolveUpgradeConfig(withConfig(`${V4}timeouts:\n  upgradeManifests: soon\n`), 'apply')).join('\n')).toContain('timeouts.upgradeManifests: invalid duration "soon"');
  });
});

describe('an old-style ClusterConfiguration (kubeadm ≤1.30 reconfiguration)', () => {
  const v1beta2 = `apiVersion: kubeadm.k8s.io/v1beta2
kind: ClusterConfiguration
kubernetesVersion: v1.20.3
networking:
  podSubnet: 10.244.0.0/16
apiServer:
  extraArgs:
    audit-log-maxage: "30"
`;

  test('v1beta2: the file is handed on to replace the cluster configuration, its version is the target', () => {
    const cfg = resolveUpgradeConfig(withConfig(v1beta2), 'apply');
    expect(cfg.upgrade.kubernetesVersion).toBe('v1.20.3');
    expect(cfg.clusterOverride).toEqual({ text: v1beta2, source: 'kubeadm.yaml' });
    expect(cfg.warnings.join('\n')).toContain('reconfigures the cluster');
  });

  test('the positional version wins over the file\'s kubernetesVersion', () => {
    const cfg = resolveUpgradeConfig({ ...withConfig(v1beta2), version: 'v1.20.4' }, 'plan');
    expect(cfg.upgrade.kubernetesVersion).toBe('v1.20.4');
  });

  test('it is schema-checked like any v1beta2 ClusterConfiguration', () => {
    expect(errorLines(() => resolveUpgradeConfig(withConfig(`${v1beta2}imageRepo: x\n`), 'apply')).join('\n')).toContain('imageRepo: unknown field');
  });

  test('upgrade node never took one', () => {
    expect(errorLines(() => resolveUpgradeConfig(withConfig(v1beta2), 'node')).join('\n')).toContain('"upgrade node" does not take a ClusterConfiguration');
  });

  test('a v1beta4 ClusterConfiguration is ignored with a warning (kubeadm 1.31+)', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.31.0\n---\n' + V4;
    const cfg = resolveUpgradeConfig(withConfig(text), 'apply');
    expect(cfg.clusterOverride).toBeUndefined();
    expect(cfg.warnings.join('\n')).toContain('ClusterConfiguration kubeadm.k8s.io/v1beta4 is ignored for upgrade');
  });

  test('mixing it with an UpgradeConfiguration is refused', () => {
    expect(errorLines(() => resolveUpgradeConfig(withConfig(`${v1beta2}---\n${V4}`), 'apply')).join('\n')).toContain('both given');
  });
});
