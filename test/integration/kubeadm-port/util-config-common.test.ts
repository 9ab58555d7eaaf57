/**
 * kubeadm's own tests as the oracle (issue 36): the cases of kubernetes/kubernetes
 * cmd/kubeadm/app/util/config/common_test.go, the version the stored index holds (index id
 * 97320807; no commit named; v1beta4 is still experimental in it, so the kubeadm 1.30 cycle),
 * compared with tsadm's configuration defaulting and validation (src/config) on the 1.30 row.
 * Expected values copied literally.
 */
import type { APIEndpoint } from '../../../src/config/types.js';
import { resolveInitConfig } from '../../../src/config/load.js';
import { validateAPIEndpoint } from '../../../src/config/validate-fields.js';
import { DEFAULT_PATCH } from '../../../src/versions/minors.js';
import { caseKey, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/util/config/common_test.go';
const { minor } = ledgerFile(SOURCE);

/**
 * TestLowercaseSANs calls LowercaseSANs on ClusterConfiguration.APIServer.CertSANs; tsadm
 * lowercases them while defaulting, so the SANs go in through a configuration file.
 */
const sans = (name: string, input: readonly string[], out: readonly string[]): [string, () => void] =>
  [caseKey('TestLowercaseSANs', name), () => {
    const configText = [
      'apiVersion: kubeadm.k8s.io/v1beta3', 'kind: ClusterConfiguration', `kubernetesVersion: ${DEFAULT_PATCH[minor]}`,
      ...(input.length > 0 ? ['apiServer:', '  certSANs:', ...input.map((s) => `  - ${JSON.stringify(s)}`)] : []), '',
    ].join('\n');
    const resolved = resolveInitConfig({ configText, flags: {}, env: { hostname: 'node', defaultAdvertiseAddress: '10.0.0.5', now: new Date(0) } });
    expect(resolved.cluster.apiServer.certSANs).toEqual(out);
  }];

/** TestVerifyAPIServerBindAddress: an error or none for the advertise address. */
const bind = (name: string, address: string, expectedError: boolean): [string, () => void] =>
  [caseKey('TestVerifyAPIServerBindAddress', name), () => {
    const out: string[] = [];
    const endpoint: APIEndpoint = { advertiseAddress: address, bindPort: 6443 };
    validateAPIEndpoint(endpoint, 'localAPIEndpoint', out);
    expect(out.length > 0).toBe(expectedError);
  }];

portCases(SOURCE, Object.fromEntries([
  sans('empty struct', [], []),
  sans('already lowercase', ['example.k8s.io'], ['example.k8s.io']),
  sans('ip addresses and uppercase', ['EXAMPLE.k8s.io', '10.100.0.1'], ['example.k8s.io', '10.100.0.1']),
  sans('punycode and uppercase', ['xn--7gq663byk9a.xn--fiqz9s', 'ANOTHEREXAMPLE.k8s.io'], ['xn--7gq663byk9a.xn--fiqz9s', 'anotherexample.k8s.io']),
  bind('valid address: IPV4', '192.168.0.1', false),
  bind('valid address: IPV6', '2001:db8:85a3::8a2e:370:7334', false),
  bind('invalid address: not a global unicast 0.0.0.0', '0.0.0.0', true),
  bind('invalid address: not a global unicast ::', '::', true),
  bind('invalid address: cannot parse IPV4', '255.255.255.255.255', true),
  bind('invalid address: cannot parse IPV6', '2a00:800::2a00:800:10102a00', true),
]));
