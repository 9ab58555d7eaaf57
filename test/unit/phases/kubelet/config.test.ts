import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import { toKubeYaml } from '../../../../src/yaml/write.js';
import * as yaml from 'js-yaml';
import { clusterKubeletConfigYaml, renderKubeletConfig, type KubeletConfigInput } from '../../../../src/phases/kubelet/config.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { kubeletScenario } from '../../../helpers/kubelet-scenario.js';
import { golden } from '../../controlplane/scenarios.js';

function configInput(cfg: ResolvedInitConfig, user: Record<string, unknown>, extra: Partial<KubeletConfigInput> = {}): KubeletConfigInput {
  // kubeadm ran without an init system: it could not tell whether systemd-resolved was active.
  return { cluster: cfg.cluster, user, criSocket: cfg.init.nodeRegistration.criSocket, systemdResolved: { error: 'no supported init system detected, skipping checking for services' }, ...extra };
}

describe('config.yaml (golden, kubeadm v1.20.2)', () => {
  test('user values kept with kubeadm\'s warnings, dual-stack gate copied, durations normalized', () => {
    const { cfg, user } = kubeletScenario();
    const r = renderKubeletConfig(configInput(cfg, user), VERSION_TABLE['1.20']);
    expect(toKubeYaml(r.config)).toBe(golden('kubelet', 'config.yaml'));
    const klog = golden('kubelet', 'kubeadm.out').split('\n').filter((l) => l.startsWith('W')).map((l) => l.replace(/^W\S+ \S+ +\d+ \S+\] /, ''));
    expect(r.warnings).toEqual(klog);
  });

  test('defaults', () => {
    const cfg = fixtureInitConfig();
    const r = renderKubeletConfig(configInput(cfg, {}), VERSION_TABLE['1.20']);
    expect(toKubeYaml(r.config)).toBe(golden('kubelet-default', 'config.yaml'));
  });

  test('dockershim without docker: a warning and no cgroupDriver', () => {
    const cfg = fixtureInitConfig();
    const r = renderKubeletConfig(configInput(cfg, {}, { criSocket: '/var/run/dockershim.sock', dockerCgroupDriver: { error: "cannot execute 'docker info -f {{.CgroupDriver}}': executable file not found in $PATH" } }), VERSION_TABLE['1.20']);
    expect(toKubeYaml(r.config)).toBe(golden('kubelet-docker', 'config.yaml'));
    const klog = golden('kubelet-docker', 'kubeadm.out').split('\n').filter((l) => l.startsWith('W')).map((l) => l.replace(/^W\S+ \S+ +\d+ \S+\] /, ''));
    expect(r.warnings).toEqual(klog);
  });
});

describe('config.yaml behaviour', () => {
  const cfg = fixtureInitConfig();

  test('docker\'s cgroup driver wins over the user\'s, with a warning', () => {
    const r = renderKubeletConfig(configInput(cfg, { cgroupDriver: 'cgroupfs' }, { criSocket: '/var/run/dockershim.sock', dockerCgroupDriver: { driver: 'systemd' }, systemdResolved: false }), VERSION_TABLE['1.20']);
    expect(r.config.cgroupDriver).toBe('systemd');
    expect(r.warnings).toEqual(['detected "systemd" as the Docker cgroup driver, the provided value "cgroupfs" in "KubeletConfiguration" will be overrided']);
  });

  test('1.22+: cgroupDriver defaults to systemd; the dual-stack gate is no longer copied from 1.23', () => {
    const c = { ...cfg, cluster: { ...cfg.cluster, featureGates: { IPv6DualStack: true } } };
    expect(renderKubeletConfig(configInput(c, {}), VERSION_TABLE['1.22']).config).toMatchObject({ cgroupDriver: 'systemd', featureGates: { IPv6DualStack: true } });
    expect(renderKubeletConfig(configInput(c, {}), VERSION_TABLE['1.23']).config.featureGates).toBeUndefined();
    expect(renderKubeletConfig(configInput(c, { cgroupDriver: 'cgroupfs' }), VERSION_TABLE['1.31']).config.cgroupDriver).toBe('cgroupfs');
  });

  test('systemd-resolved active: resolvConf points at its file unless the user chose another (warned)', () => {
    expect(renderKubeletConfig(configInput(cfg, {}, { systemdResolved: true }), VERSION_TABLE['1.20']).config.resolvConf).toBe('/run/systemd/resolve/resolv.conf');
    const r = renderKubeletConfig(configInput(cfg, { resolvConf: '/etc/resolv.conf' }, { systemdResolved: true }), VERSION_TABLE['1.20']);
    expect(r.config.resolvConf).toBe('/etc/resolv.conf');
    expect(r.warnings).toEqual(['The recommended value for "resolvConf" in "KubeletConfiguration" is: /run/systemd/resolve/resolv.conf; the provided value is: /etc/resolv.conf']);
    expect(renderKubeletConfig(configInput(cfg, {}, { systemdResolved: false }), VERSION_TABLE['1.20']).config.resolvConf).toBeUndefined();
  });

  test('1.38 (kubeadm PR #141337): the uploaded kubelet-config keeps no systemd-resolved resolvConf; the node\'s own file and a user\'s value keep theirs', () => {
    const nodeYaml = (minor: '1.37' | '1.38', user: Record<string, unknown> = {}): string => toKubeYaml(renderKubeletConfig(configInput(cfg, user, { systemdResolved: true }), VERSION_TABLE[minor]).config);
    const node138 = nodeYaml('1.38');
    expect(node138).toContain('\nresolvConf: /run/systemd/resolve/resolv.conf\n');
    const uploaded = clusterKubeletConfigYaml(node138, {}, VERSION_TABLE['1.38']);
    expect(uploaded).not.toContain('resolvConf');
    // Only that line goes: every other line is the node's, in order.
    expect(uploaded.split('\n')).toEqual(node138.split('\n').filter((l) => l !== 'resolvConf: /run/systemd/resolve/resolv.conf'));
    // A joining node renders the uploaded configuration on its own host and gets it back there.
    const joined = renderKubeletConfig(configInput(cfg, yaml.load(uploaded) as Record<string, unknown>, { systemdResolved: true }), VERSION_TABLE['1.38']);
    expect(joined.config.resolvConf).toBe('/run/systemd/resolve/resolv.conf');
    expect(renderKubeletConfig(configInput(cfg, yaml.load(uploaded) as Record<string, unknown>, { systemdResolved: false }), VERSION_TABLE['1.38']).config.resolvConf).toBeUndefined();
    // Before 1.38 the first control plane's choice is uploaded; a user's own value always is.
    expect(clusterKubeletConfigYaml(nodeYaml('1.37'), {}, VERSION_TABLE['1.37'])).toContain('\nresolvConf: /run/systemd/resolve/resolv.conf\n');
    const chosen = { resolvConf: '/run/systemd/resolve/resolv.conf' };
    expect(clusterKubeletConfigYaml(nodeYaml('1.38', chosen), chosen, VERSION_TABLE['1.38'])).toContain('\nresolvConf: /run/systemd/resolve/resolv.conf\n');
  });

  test('clusterDNS is the 10th address of the first service subnet (IPv6 too); rotateCertificates is forced', () => {
    const v6 = { ...cfg, cluster: { ...cfg.cluster, networking: { ...cfg.cluster.networking, serviceSubnet: 'fd00:96::/108' } } };
    const r = renderKubeletConfig(configInput(v6, { rotateCertificates: false, authorization: { mode: 'AlwaysAllow' } }, { systemdResolved: false }), VERSION_TABLE['1.20']);
    expect(r.config.clusterDNS).toEqual(['fd00:96::a']);
    expect(r.config.rotateCertificates).toBe(true);
    expect(r.warnings).toEqual(['The recommended value for "authorization.mode" in "KubeletConfiguration" is: Webhook; the provided value is: AlwaysAllow']);
  });
});
