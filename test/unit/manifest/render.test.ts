import { NO_HOST_FACTS } from '../../../src/manifest/inputs.js';
import { apiServerWarnings, authorizationModes } from '../../../src/manifest/apiserver.js';
import { externalEtcdCertMounts } from '../../../src/manifest/volumes.js';
import type { SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { fixtureConfigWith, renderControlPlanePod, firstContainer, commandFlags, fixtureCluster } from '../../helpers/control-plane-pod.js';

describe('kube-apiserver', () => {
  test('authorization-mode: Node,RBAC by default, unknown modes dropped with a warning', () => {
    expect(authorizationModes(undefined)).toEqual({ modes: 'Node,RBAC', warnings: [] });
    expect(authorizationModes('RBAC,Bogus')).toEqual({
      modes: 'RBAC',
      warnings: ['ignoring unknown kube-apiserver authorization-mode "Bogus"', 'the default kube-apiserver authorization-mode is "Node,RBAC"; using "RBAC"'],
    });
    expect(authorizationModes('Bogus').modes).toBe('Node,RBAC');
  });

  test('no authorization-mode when an authorization config file is used', () => {
    const apiServer = { ...fixtureCluster.apiServer, extraArgs: [{ name: 'authorization-config', value: '/etc/kubernetes/authz.yaml' }] };
    const pod = renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer }));
    expect(commandFlags(pod).some((f) => f.startsWith('--authorization-mode'))).toBe(false);
    expect(apiServerWarnings(fixtureConfigWith({ apiServer }).cluster)).toEqual([]);
  });

  test('advertise address 0.0.0.0: probes carry no host (the kubelet probes the pod IP)', () => {
    const cfg = { ...fixtureInitConfig(), init: { ...fixtureInitConfig().init, localAPIEndpoint: { advertiseAddress: '0.0.0.0', bindPort: 6443 } } };
    expect(firstContainer(renderControlPlanePod('kube-apiserver', cfg)).livenessProbe?.httpGet.host).toBeUndefined();
  });

  test('images: "+" in the version becomes "_" in the tag', () => {
    const pod = renderControlPlanePod('kube-apiserver', fixtureConfigWith({ kubernetesVersion: 'v1.20.2+k3s.1' }));
    expect(firstContainer(pod).image).toBe('k8s.gcr.io/kube-apiserver:v1.20.2_k3s.1');
  });

  test('IPv6DualStack is forwarded as --feature-gates on apiserver, controller-manager, scheduler up to 1.22 only', () => {
    // Minors where kubeadm knows the gate (alpha 1.20, beta 1.21–1.22, GA 1.23); 1.24+ refuse it
    // as an unrecognized key (test/unit/config/feature-gates.test.ts).
    for (const minor of ['1.20', '1.21', '1.22', '1.23'] as const) {
      const cfg = fixtureConfigWith({ featureGates: { IPv6DualStack: true, PublicKeysECDSA: true } }, minor);
      for (const comp of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const) {
        const gates = commandFlags(renderControlPlanePod(comp, cfg, NO_HOST_FACTS, minor)).filter((f) => f.startsWith('--feature-gates'));
        expect([minor, comp, gates]).toEqual([minor, comp, Number(minor.slice(2)) <= 22 ? ['--feature-gates=IPv6DualStack=true'] : []]);
      }
    }
  });

  test('conditional CA directories: /etc/pki up to 1.30, /etc/pki/ca-trust and /etc/pki/tls/certs from 1.31', () => {
    const facts = { ...NO_HOST_FACTS, existingHostDirs: new Set(['/etc/pki', '/etc/pki/ca-trust', '/etc/pki/tls/certs']) };
    const names = (minor: SupportedMinor): string[] => (renderControlPlanePod('kube-apiserver', fixtureConfigWith({}, minor), facts, minor).spec.volumes ?? []).map((v) => v.name);
    expect(names('1.30')).toEqual(['ca-certs', 'etc-pki', 'k8s-certs']);
    expect(names('1.31')).toEqual(['ca-certs', 'etc-pki-ca-trust', 'etc-pki-tls-certs', 'k8s-certs']);
  });

  test('external etcd: endpoints joined, certificate directories mounted read-only', () => {
    const cfg = fixtureConfigWith({
      etcd: { mode: 'external', endpoints: ['https://e1:2379', 'https://e2:2379'], caFile: '/etc/kubernetes/pki/etcd-ext/ca.crt', certFile: '/opt/etcd/client.crt', keyFile: '/opt/etcd/keys/client.key' },
    });
    const pod = renderControlPlanePod('kube-apiserver', cfg);
    expect(commandFlags(pod)).toEqual(expect.arrayContaining([
      '--etcd-servers=https://e1:2379,https://e2:2379', '--etcd-cafile=/etc/kubernetes/pki/etcd-ext/ca.crt',
      '--etcd-certfile=/opt/etcd/client.crt', '--etcd-keyfile=/opt/etcd/keys/client.key',
    ]));
    expect(firstContainer(pod).volumeMounts).toContainEqual({ mountPath: '/opt/etcd', name: 'etcd-certs-0', readOnly: true });
    expect((pod.spec.volumes ?? []).filter((v) => v.name.startsWith('etcd-certs')).map((v) => v.hostPath.path)).toEqual(['/opt/etcd']);
  });

  test('external etcd without client certificate: no --etcd-certfile/--etcd-keyfile', () => {
    const cfg = fixtureConfigWith({ etcd: { mode: 'external', endpoints: ['http://e1:2379'], caFile: '', certFile: '', keyFile: '' } });
    expect(commandFlags(renderControlPlanePod('kube-apiserver', cfg)).filter((f) => f.startsWith('--etcd'))).toEqual(['--etcd-servers=http://e1:2379']);
  });

  test('external etcd mounts skip covered directories and keep only the parent of nested ones', () => {
    const v = VERSION_TABLE['1.20'];
    const m = (ca: string, cert: string, key: string): string[] => externalEtcdCertMounts({ mode: 'external', endpoints: [], caFile: ca, certFile: cert, keyFile: key }, '/etc/kubernetes/pki', v).map((x) => `${x.name}=${x.hostPath}`);
    expect(m('/etc/etcd/sub/ca.crt', '/etc/etcd/c.crt', '/etc/kubernetes/pki/k.key')).toEqual(['etcd-certs-0=/etc/etcd']);
    expect(m('/etc/ssl/certs/ca.crt', '/etc/pki/etcd/c.crt', 'relative.key')).toEqual([]);
    expect(m('/b/ca.crt', '/a/c.crt', '/c/k.key')).toEqual(['etcd-certs-0=/a', 'etcd-certs-1=/b', 'etcd-certs-2=/c']);
  });
});

describe('controller-manager', () => {
  test('external CA: the cluster signer gets empty paths', () => {
    const f = commandFlags(renderControlPlanePod('kube-controller-manager', fixtureConfigWith({}), { ...NO_HOST_FACTS, externalCA: true }));
    expect(f).toContain('--cluster-signing-cert-file=');
    expect(f).toContain('--cluster-signing-key-file=');
  });

  test('node CIDR allocation only with a pod subnet', () => {
    expect(commandFlags(renderControlPlanePod('kube-controller-manager', fixtureConfigWith({}))).some((f) => f.startsWith('--allocate-node-cidrs'))).toBe(false);
    const f = commandFlags(renderControlPlanePod('kube-controller-manager', fixtureConfigWith({ networking: { ...fixtureCluster.networking, podSubnet: '10.244.0.0/16' } })));
    expect(f).toEqual(expect.arrayContaining(['--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/16', '--service-cluster-ip-range=10.96.0.0/12']));
  });
});
