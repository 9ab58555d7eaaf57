/**
 * The loader and the kubeadm API versions of Kubernetes 1.35–1.37 (issue 26): a file's versions
 * are judged by its target, known only once the ClusterConfiguration is read (its
 * kubernetesVersion, or the default v1.37.0); v1beta4's etcd.external.httpEndpoints exists from
 * kubeadm 1.35 (PR #134890). Facts: v1beta3 deprecated in 1.35/1.36 and removed in 1.37
 * (PR #136016); the field and its meaning from the PR's release note.
 */
import { expect } from '@jest/globals';
import { resolveInitConfig, resolveJoinConfig } from '../../../src/config/load.js';
import { serializeClusterConfiguration } from '../../../src/config/print.js';
import { errorLines, withConfig } from './support.js';

const V3_INIT = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n';
const v3Cluster = (version?: string): string => `---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n${version ? `kubernetesVersion: ${version}\n` : ''}`;
const deprecated = (kind: string): string =>
  `your configuration file uses a deprecated API spec: "kubeadm.k8s.io/v1beta3" (kind: "${kind}"). Please use 'tsadm config migrate --old-config old-config-file --new-config new-config-file', which will write the new, similar spec using a newer API version.`;

describe('init: the file\'s API versions against its target', () => {
  test('v1beta3 without kubernetesVersion targets v1.37.0, which no longer reads it: one line naming tsadm config migrate', () => {
    expect(errorLines(() => resolveInitConfig(withConfig(V3_INIT + v3Cluster())))).toEqual([
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (InitConfiguration, ClusterConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config kubeadm.yaml --new-config NEW'",
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (InitConfiguration, ClusterConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config kubeadm.yaml --new-config NEW'",
    ]);
  });

  test('an InitConfiguration alone has the default target too', () => {
    expect(errorLines(() => resolveInitConfig(withConfig(V3_INIT)))[0]).toBe(
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (InitConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config kubeadm.yaml --new-config NEW'",
    );
  });

  test.each(['v1.35.0', 'v1.36.0'])('the same file for %s is read, with kubeadm\'s deprecation warning per document', (version) => {
    const cfg = resolveInitConfig(withConfig(V3_INIT + v3Cluster(version)));
    expect(cfg.cluster.kubernetesVersion).toBe(version);
    expect(cfg.warnings).toEqual([deprecated('InitConfiguration'), deprecated('ClusterConfiguration')]);
  });

  test('older targets read v1beta3 silently, as tsadm did before', () => {
    expect(resolveInitConfig(withConfig(V3_INIT + v3Cluster('v1.30.14'))).warnings).toEqual([]);
  });

  test('a v1beta3 JoinConfiguration in an init file is judged by the file\'s target too (kubeadm checks every document)', () => {
    const text = `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery: {}\n`;
    expect(errorLines(() => resolveInitConfig(withConfig(text)))[0]).toBe(
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (JoinConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config kubeadm.yaml --new-config NEW'",
    );
  });

  test('kubeadm.k8s.io/v1 is refused as the disabled placeholder it is in kubeadm 1.37', () => {
    expect(errorLines(() => resolveInitConfig(withConfig('apiVersion: kubeadm.k8s.io/v1\nkind: InitConfiguration\n')))[0]).toBe(
      'apiVersion: kubeadm.k8s.io/v1 is not usable yet (kind InitConfiguration, document 1, line 1): kubeadm 1.37 registers it as an experimental placeholder and keeps it disabled; use kubeadm.k8s.io/v1beta4',
    );
  });
});

describe('join: the target is the cluster\'s version, known after discovery', () => {
  test('the loader accepts a v1beta3 JoinConfiguration and records its version for the check after discovery', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    token: abcdef.0123456789abcdef\n    apiServerEndpoint: 10.0.0.1:6443\n    unsafeSkipCAVerification: true\n';
    const cfg = resolveJoinConfig(withConfig(text));
    expect(cfg.apiVersions).toEqual([{ kind: 'JoinConfiguration', version: 'v1beta3' }]);
    expect(cfg.warnings).toEqual([]);
  });

  test('without --config nothing is recorded', () => {
    const cfg = resolveJoinConfig({ flags: { token: 'abcdef.0123456789abcdef', 'discovery-token-unsafe-skip-ca-verification': true }, apiServerEndpoint: '10.0.0.1:6443', env: withConfig('').env });
    expect(cfg.apiVersions).toBeUndefined();
  });
});

describe('etcd.external.httpEndpoints (v1beta4, kubeadm 1.35+)', () => {
  const external = (version: string, extra = ''): string => `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${version}
etcd:
  external:
    endpoints: [https://10.0.0.1:2379]
    httpEndpoints: [https://10.0.0.1:2381, https://10.0.0.2:2381]
    caFile: /etc/etcd/ca.crt
    certFile: /etc/etcd/c.crt
    keyFile: /etc/etcd/c.key
${extra}`;

  test.each(['v1.35.0', 'v1.36.0', 'v1.37.0'])('%s reads it; the API server keeps the gRPC endpoints; kubeadm-config stores both', (version) => {
    const cfg = resolveInitConfig(withConfig(external(version)));
    expect(cfg.cluster.etcd).toEqual({
      mode: 'external', endpoints: ['https://10.0.0.1:2379'], httpEndpoints: ['https://10.0.0.1:2381', 'https://10.0.0.2:2381'],
      caFile: '/etc/etcd/ca.crt', certFile: '/etc/etcd/c.crt', keyFile: '/etc/etcd/c.key',
    });
    // types.go's json tags: httpEndpoints,omitempty; keys sorted as sigs.k8s.io/yaml writes them.
    expect(serializeClusterConfiguration(cfg.cluster, 'kubeadm.k8s.io/v1beta4')).toContain(`etcd:
  external:
    caFile: /etc/etcd/ca.crt
    certFile: /etc/etcd/c.crt
    endpoints:
    - https://10.0.0.1:2379
    httpEndpoints:
    - https://10.0.0.1:2381
    - https://10.0.0.2:2381
    keyFile: /etc/etcd/c.key
`);
  });

  test('unset, it stays out of the stored document (omitempty)', () => {
    const cfg = resolveInitConfig(withConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\netcd:\n  external:\n    endpoints: [http://10.0.0.1:2379]\n'));
    expect(cfg.cluster.etcd).toEqual({ mode: 'external', endpoints: ['http://10.0.0.1:2379'], caFile: '', certFile: '', keyFile: '' });
    expect(serializeClusterConfiguration(cfg.cluster, 'kubeadm.k8s.io/v1beta4')).toContain('etcd:\n  external:\n    caFile: ""\n    certFile: ""\n    endpoints:\n    - http://10.0.0.1:2379\n    keyFile: ""\n');
  });

  test.each(['v1.31.2', 'v1.34.1'])('for %s it is an unknown field, like any field of a later kubeadm', (version) => {
    expect(errorLines(() => resolveInitConfig(withConfig(external(version))))).toEqual([
      `etcd.external.httpEndpoints: unknown field (ClusterConfiguration kubeadm.k8s.io/v1beta4 of Kubernetes ${version}; the field exists from Kubernetes 1.35 on, kubeadm PR #134890)`,
      `etcd.external.httpEndpoints: unknown field (ClusterConfiguration kubeadm.k8s.io/v1beta4 of Kubernetes ${version}; the field exists from Kubernetes 1.35 on, kubeadm PR #134890)`,
    ]);
  });

  test('v1beta3 has no such field: the error names the version that has it', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: v1.30.14\netcd:\n  external:\n    endpoints: [http://10.0.0.1:2379]\n    httpEndpoints: [http://10.0.0.1:2381]\n';
    expect(errorLines(() => resolveInitConfig(withConfig(text)))[1]).toBe(
      'etcd.external.httpEndpoints: unknown field (ClusterConfiguration kubeadm.k8s.io/v1beta3; the field exists in kubeadm.k8s.io/v1beta4)',
    );
  });

  test('its URLs follow the rules of endpoints: plain http only without client certificates', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\netcd:\n  external:\n    endpoints: [http://10.0.0.1:2379]\n    httpEndpoints: [http://10.0.0.1:2381, 10.0.0.1:2382]\n';
    expect(errorLines(() => resolveInitConfig(withConfig(text)))).toEqual([
      'etcd.external.httpEndpoints[1]: invalid value "10.0.0.1:2382": the URL without scheme is not allowed',
      'etcd.external.httpEndpoints[1]: invalid value "10.0.0.1:2382": the URL without scheme is not allowed',
    ]);
  });
});
