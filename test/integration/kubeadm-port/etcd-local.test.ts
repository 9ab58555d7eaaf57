/**
 * kubeadm's own tests as the oracle (issue 36): the cases of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/etcd/local_test.go at revision 6bb6c9934294d8265197c9dfc4c9dd3adaca147a,
 * the newest version of that file the stored index holds. It still writes
 * --experimental-initial-corrupt-check and probes /livez and /readyz, so it belongs to the
 * kubeadm 1.31–1.33 line (1.34 picks etcd 3.6's spelling, 1.36 only that one); the cases are
 * compared with tsadm's 1.33 row (src/manifest/etcd.ts). Expected lists are copied
 * literally; Go constants resolved as kubeadm defines them: EtcdListenClientPort 2379,
 * EtcdListenPeerPort 2380, EtcdMetricsPort 2381, EtcdServerCertName "etcd/server.crt",
 * EtcdServerKeyName "etcd/server.key", EtcdCACertName "etcd/ca.crt", EtcdPeerCertName
 * "etcd/peer.crt", EtcdPeerKeyName "etcd/peer.key".
 */
import type { Arg, ClusterConfiguration, LocalEtcd } from '../../../src/config/types.js';
import type { Container } from '../../../src/manifest/pod.js';
import { renderEtcdPod } from '../../../src/manifest/etcd.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { caseKey, goSorted, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/etcd/local_test.go';
const versions = VERSION_TABLE[ledgerFile(SOURCE).minor];

/** ClusterConfiguration{Etcd: {Local: {DataDir: "/var/lib/etcd", ExtraArgs}}}, certificatesDir zero as in the Go test. */
function cluster(local: Partial<LocalEtcd>): ClusterConfiguration {
  const base = fixtureInitConfig().cluster;
  return { ...base, certificatesDir: '', etcd: { ...(base.etcd as LocalEtcd), dataDir: '/var/lib/etcd', ...local } };
}

function etcdCommand(advertiseAddress: string, nodeName: string, extraArgs: Arg[], initialCluster?: Array<{ name: string; peerURL: string }>): string[] {
  const pod = renderEtcdPod({ cluster: cluster({ extraArgs }), endpoint: { advertiseAddress, bindPort: 0 }, nodeName }, versions, initialCluster ? { initialCluster } : {});
  return (pod.spec.containers[0] as Container).command;
}

/** The flags common to every TestGetEtcdCommand case (their order as in kubeadm's test). */
const common = [
  '--experimental-initial-corrupt-check=true',
  '--experimental-watch-progress-notify-interval=5s',
  '--data-dir=/var/lib/etcd',
  '--cert-file=etcd/server.crt',
  '--key-file=etcd/server.key',
  '--trusted-ca-file=etcd/ca.crt',
  '--client-cert-auth=true',
  '--peer-cert-file=etcd/peer.crt',
  '--peer-key-file=etcd/peer.key',
  '--peer-trusted-ca-file=etcd/ca.crt',
  '--snapshot-count=10000',
  '--peer-client-cert-auth=true',
];

portCases(SOURCE, {
  [caseKey('TestGetEtcdPodSpec', '[single case]')]: () => {
    const c = cluster({ extraEnvs: [{ name: 'Foo', value: 'Bar' }] });
    const c0 = renderEtcdPod({ cluster: { ...c, kubernetesVersion: 'v1.7.0' }, endpoint: { advertiseAddress: '', bindPort: 0 }, nodeName: '' }, versions, { initialCluster: [] }).spec.containers[0] as Container;
    expect(c0.name).toBe('etcd');
    expect(c0.env).toEqual([{ name: 'Foo', value: 'Bar' }]);
  },
  [caseKey('TestCreateLocalEtcdStaticPodManifestFile', '[external etcd]')]: () => {
    const base = fixtureInitConfig().cluster;
    const c: ClusterConfiguration = {
      ...base,
      kubernetesVersion: 'v1.7.0',
      etcd: { mode: 'external', endpoints: ['https://etcd-instance:2379'], caFile: '/etc/kubernetes/pki/etcd/ca.crt', certFile: '/etc/kubernetes/pki/etcd/apiserver-etcd-client.crt', keyFile: '/etc/kubernetes/pki/etcd/apiserver-etcd-client.key' },
    };
    // testutil.AssertError compares the whole message.
    expect(() => renderEtcdPod({ cluster: c, endpoint: { advertiseAddress: '', bindPort: 0 }, nodeName: '' }, versions, {}))
      .toThrow(new Error('etcd static pod manifest cannot be generated for cluster using external etcd'));
  },
  [caseKey('TestGetEtcdCommand', 'Default args - with empty etcd initial cluster')]: () => {
    expect(goSorted(etcdCommand('1.2.3.4', 'foo', []))).toEqual(goSorted([
      'etcd', '--name=foo',
      '--listen-client-urls=https://127.0.0.1:2379,https://1.2.3.4:2379',
      '--listen-metrics-urls=http://127.0.0.1:2381',
      '--advertise-client-urls=https://1.2.3.4:2379',
      '--listen-peer-urls=https://1.2.3.4:2380',
      '--initial-advertise-peer-urls=https://1.2.3.4:2380',
      ...common,
      '--initial-cluster=foo=https://1.2.3.4:2380',
    ]));
  },
  [caseKey('TestGetEtcdCommand', 'Default args - With an existing etcd cluster')]: () => {
    const members = [{ name: 'foo', peerURL: 'https://1.2.3.4:2380' }, { name: 'bar', peerURL: 'https://5.6.7.8:2380' }];
    expect(goSorted(etcdCommand('1.2.3.4', 'foo', [], members))).toEqual(goSorted([
      'etcd', '--name=foo',
      '--listen-client-urls=https://127.0.0.1:2379,https://1.2.3.4:2379',
      '--listen-metrics-urls=http://127.0.0.1:2381',
      '--advertise-client-urls=https://1.2.3.4:2379',
      '--listen-peer-urls=https://1.2.3.4:2380',
      '--initial-advertise-peer-urls=https://1.2.3.4:2380',
      ...common,
      '--initial-cluster-state=existing',
      '--initial-cluster=foo=https://1.2.3.4:2380,bar=https://5.6.7.8:2380',
    ]));
  },
  [caseKey('TestGetEtcdCommand', 'Extra args')]: () => {
    const extra = [{ name: 'listen-client-urls', value: 'https://10.0.1.10:2379' }, { name: 'advertise-client-urls', value: 'https://10.0.1.10:2379' }];
    expect(goSorted(etcdCommand('1.2.3.4', 'bar', extra))).toEqual(goSorted([
      'etcd', '--name=bar',
      '--listen-client-urls=https://10.0.1.10:2379',
      '--listen-metrics-urls=http://127.0.0.1:2381',
      '--advertise-client-urls=https://10.0.1.10:2379',
      '--listen-peer-urls=https://1.2.3.4:2380',
      '--initial-advertise-peer-urls=https://1.2.3.4:2380',
      ...common,
      '--initial-cluster=bar=https://1.2.3.4:2380',
    ]));
  },
  [caseKey('TestGetEtcdCommand', 'IPv6 advertise address')]: () => {
    expect(goSorted(etcdCommand('2001:db8::3', 'foo', []))).toEqual(goSorted([
      'etcd', '--name=foo',
      '--listen-client-urls=https://[::1]:2379,https://[2001:db8::3]:2379',
      '--listen-metrics-urls=http://[::1]:2381',
      '--advertise-client-urls=https://[2001:db8::3]:2379',
      '--listen-peer-urls=https://[2001:db8::3]:2380',
      '--initial-advertise-peer-urls=https://[2001:db8::3]:2380',
      ...common,
      '--initial-cluster=foo=https://[2001:db8::3]:2380',
    ]));
  },
});
