import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { reservedNamesOf, type ReservedName } from '../../../src/csr-approval/reserved-names.js';
import { parseClusterConfiguration } from '../../../src/kube/kubeadm-config.js';
import type { ConfigMapObject } from '../../../src/kube/types.js';

/**
 * The names no node may claim, read from ClusterConfigurations as they are stored: the one
 * kubeadm v1.20.2 itself uploaded (its dry run's kube-system/kubeadm-config), and variants of its
 * text. The oracle for what the API server's certificate holds is kubeadm's GetAPIServerAltNames
 * (kubernetes, kubernetes.default, kubernetes.default.svc, kubernetes.default.svc.<dnsDomain>, the
 * first address of the service CIDR, controlPlaneEndpoint's host, certSANs; plus the node's own
 * name and advertise address, which are not cluster-wide and so not here).
 */
const STORED = (() => {
  const docs = yaml.loadAll(readFileSync(path.join(process.cwd(), 'test/fixtures/kubeadm-dry-run/kubeadm-1.20-cluster-objects.yaml'), 'utf8')) as ConfigMapObject[];
  const text = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'kubeadm-config')?.data?.ClusterConfiguration;
  if (!text) throw new Error('the fixture has no kubeadm-config ClusterConfiguration');
  return text;
})();

const of = (text: string): ReservedName[] => reservedNamesOf(parseClusterConfiguration(text));
const values = (names: readonly ReservedName[], kind: ReservedName['kind']): string[] => names.filter((n) => n.kind === kind).map((n) => n.value);

test('kubeadm\'s own stored configuration: the in-cluster names, the Service IP and network, the endpoint\'s host', () => {
  const names = of(STORED);
  expect(values(names, 'DNS')).toEqual(['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'cp.example.com']);
  expect(values(names, 'IP')).toEqual(['10.96.0.1']);
  expect(values(names, 'CIDR')).toEqual(['10.96.0.0/12']);
  // Only the endpoint (and certSANs) may go to a control plane that lists them as its own.
  expect(names.filter((n) => n.controlPlaneMay).map((n) => n.value)).toEqual(['cp.example.com']);
});

test('certSANs (IPs canonical, DNS names lowercase), an IP endpoint, a DNS domain and a dual-stack service network', () => {
  const text = STORED
    .replace('apiServer:\n', 'apiServer:\n  certSANs:\n  - API.Example.com\n  - fd00:0:0:0::10\n  - 192.0.2.10\n')
    .replace('controlPlaneEndpoint: cp.example.com:6443', 'controlPlaneEndpoint: "[fd00::1]:6443"')
    .replace('dnsDomain: cluster.local', 'dnsDomain: corp.internal')
    .replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.96.0.0/12,fd00:10:96::/112');
  const names = of(text);
  expect(values(names, 'DNS')).toEqual(['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.corp.internal', 'api.example.com']);
  expect(values(names, 'IP')).toEqual(['10.96.0.1', 'fd00:10:96::1', 'fd00::1', 'fd00::10', '192.0.2.10']);
  expect(values(names, 'CIDR')).toEqual(['10.96.0.0/12', 'fd00:10:96::/112']);
});

test('absent fields take kubeadm\'s defaults (10.96.0.0/12, cluster.local); no endpoint, no certSANs', () => {
  const names = of('apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: v1.22.0\n');
  expect(values(names, 'DNS')).toEqual(['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']);
  expect(values(names, 'IP')).toEqual(['10.96.0.1']);
  expect(names.some((n) => n.controlPlaneMay)).toBe(false);
});

test.each([
  ['a serviceSubnet that is no CIDR', STORED.replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.96.0.0'), /networking.serviceSubnet "10.96.0.0" is not a list of CIDRs/],
  ['certSANs that are no list', STORED.replace('apiServer:\n', 'apiServer:\n  certSANs: api.example.com\n'), /apiServer.certSANs "\\"api.example.com\\"" is not a list of names/],
  ['networking that is no mapping', STORED.replace(/networking:\n( {2}.*\n)+/, 'networking: [1]\n'), /networking "\[1\]" is not a mapping/],
])('%s is an error, never a guess (the pass then decides nothing)', (_what, text, message) => {
  expect(() => of(text)).toThrow(message);
});
