/**
 * kubeadm's own tests as the oracle (issue 36): the cases of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/addons/dns/dns_test.go at revision
 * 898b9f800267a757615ecfb71fc377d04d996c6b (a 1.36-cycle revision), compared with tsadm's pure
 * functions on the 1.36 row: the DNS service IP (clusterDnsIp, src/config/component-defaults.ts),
 * the CoreDNS Deployment (src/phases/addons/coredns-render.ts), the tag of a deployed CoreDNS
 * image (imageTag, src/phases/upgrade/corefile-migration.ts) and the --print-manifest text
 * (src/phases/addons/coredns.ts). Expected values copied literally; the printout, long, is kept
 * verbatim in test/fixtures/coredns/kubeadm-dns_test-898b9f80-print.txt.
 */
import { readFileSync } from 'node:fs';
import { clusterDnsIp } from '../../../src/config/component-defaults.js';
import { corednsTemplates } from '../../../src/phases/addons/coredns-template.js';
import { corednsImage } from '../../../src/phases/addons/images.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { DEFAULT_COREDNS_REPLICAS, corednsDeployment } from '../../../src/phases/addons/coredns-render.js';
import { imageTag } from '../../../src/phases/upgrade/corefile-migration.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { caseKey, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/addons/dns/dns_test.go';
const versions = VERSION_TABLE[ledgerFile(SOURCE).minor];
/**
 * kubeadmconstants.CoreDNSVersion: only the image tag the deployed-version cases parse back, so
 * any tag shows whether parsing works; this row's tag stands in for it.
 */
const CoreDNSVersion = versions.images.corednsTag;

const dnsIp = (name: string, svcSubnet: string, expectedDNSIP: string): [string, () => void] =>
  [caseKey('TestGetDNSIP', name), () => expect(clusterDnsIp(svcSubnet)).toBe(expectedDNSIP)];

/** DeployedDNSAddon with one kube-dns Deployment: the tag of its image, "" without one. */
const deployed = (name: string, image: string, wantVersion: string): [string, () => void] =>
  [caseKey('TestDeployedDNSAddon', name), () => expect(imageTag(image) ?? '').toBe(wantVersion)];

/**
 * Both print cases' wantOut: dedent.Dedent(fmt.Sprintf(`---…`, kubeadmconstants.CoreDNSVersion)),
 * Dedent a no-op (no line is indented in common). The TestEnsureDNSAddon case's text has
 * `replicas: 2` (EnsureDNSAddon prints with coreDNSReplicas); TestCoreDNSAddon passes replicas 3.
 */
const wantOut = (replicas: number): string => readFileSync(new URL('../../fixtures/coredns/kubeadm-dns_test-898b9f80-print.txt', import.meta.url), 'utf8')
  .replace('foo.bar.io/coredns:%s', `foo.bar.io/coredns:${CoreDNSVersion}`)
  .replace('\n  replicas: 2\n', `\n  replicas: ${replicas}\n`);

/** The cases' ClusterConfiguration: DNS.ImageRepository foo.bar.io, ServiceSubnet 10.0.0.0/16, no DNSDomain. */
const printInput = () => {
  const { cluster } = fixtureInitConfig({ cluster: { dns: { disabled: false, imageRepository: 'foo.bar.io', imageTag: '' } } });
  return { versions, image: corednsImage(cluster, versions), dnsDomain: '', dnsIp: clusterDnsIp('10.0.0.0/16') ?? '' };
};

portCases(SOURCE, {
  // coreDNSAddon(cfg, client, &replicas /* 3 */, "", out, true): the six templates after `---` each.
  [caseKey('TestCoreDNSAddon', 'cfg is valid and print Manifest')]: () => {
    expect(`---${corednsTemplates({ ...printInput(), replicas: 3 }).join('---')}`).toBe(wantOut(3));
  },
  // EnsureDNSAddon(cfg, client, "", out, true): kubeadm's default replicas, no cluster asked.
  // (The phase prints exactly these templates: test/unit/phases/addons/coredns-template.test.ts.)
  [caseKey('TestEnsureDNSAddon', 'not print Manifest [printManifest: true]')]: () => {
    expect(`---${corednsTemplates({ ...printInput(), replicas: DEFAULT_COREDNS_REPLICAS }).join('---')}`).toBe(wantOut(2));
  },
  ...Object.fromEntries([
    dnsIp('subnet mask 12', '10.96.0.0/12', '10.96.0.10'),
    dnsIp('subnet mask 26', '10.87.116.64/26', '10.87.116.74'),
    dnsIp('dual-stack ipv4 primary, subnet mask 26', '10.87.116.64/26,fd03::/112', '10.87.116.74'),
    dnsIp('dual-stack ipv6 primary, subnet mask 112', 'fd03::/112,10.87.116.64/26', 'fd03::a'),
    deployed('default', `registry.k8s.io/coredns/coredns:${CoreDNSVersion}`, CoreDNSVersion),
    deployed('with digest', `registry.k8s.io/coredns/coredns:${CoreDNSVersion}@sha256:1391544c978029fcddc65068f6ad67f396e55585b664ecccd7fefba029b9b706`, CoreDNSVersion),
    deployed('without registry', 'coredns/coredns:coredns-s390x', 'coredns-s390x'),
    deployed('without registry and tag', 'coredns/coredns', ''),
    deployed('with explicit port', 'localhost:4711/coredns/coredns:v1.11.2-pre.1', 'v1.11.2-pre.1'),
    deployed('with explicit port but without tag', 'localhost:4711/coredns/coredns@sha256:a0ead06651cf580044aeb0a0feba63591858fb2e43ade8c9dea45a6a89ae7e5e', ''),
  ]),
  [caseKey('TestDeploymentsHaveSystemClusterCriticalPriorityClassName', 'CoreDNSDeployment')]: () => {
    const deployment = corednsDeployment({ versions, image: 'foo', dnsDomain: 'cluster.local', dnsIp: '10.96.0.10', replicas: 2 }) as unknown as { spec: { template: { spec: { priorityClassName?: string } } } };
    expect(deployment.spec.template.spec.priorityClassName).toBe('system-cluster-critical');
  },
});
