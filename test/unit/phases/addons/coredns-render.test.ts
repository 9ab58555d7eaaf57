import type { RoleObject } from '../../../../src/kube/types.js';
import { corefile, corednsDeployment, corednsObjects, dnsService, isDefaultCorefile } from '../../../../src/phases/addons/coredns-render.js';
import type { SupportedMinor } from '../../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { findObject, firstContainer as container, kubeadmObjects, normalize, type WorkloadView } from '../../../helpers/kubeadm-fixtures.js';
const fixture = kubeadmObjects('kubeadm-1.20-addon-objects.yaml');
const input = (minor: SupportedMinor = '1.20') => ({ versions: VERSION_TABLE[minor], image: 'k8s.gcr.io/coredns:1.7.0', dnsDomain: 'cluster.local', dnsIp: '10.96.0.10', replicas: 2 });

describe('CoreDNS objects equal kubeadm v1.20.2\'s', () => {
  test('all six, in kubeadm\'s creation order', () => {
    const ours = corednsObjects(input());
    expect(ours.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/coredns', 'ClusterRole/system:coredns', 'ClusterRoleBinding/system:coredns', 'ServiceAccount/coredns', 'Deployment/coredns', 'Service/kube-dns']);
    for (const o of ours) expect(normalize(o)).toEqual(normalize(findObject(fixture, o.kind, o.metadata.name)));
  });

  test('Corefile: domain substituted; default variants recognised, edits not', () => {
    expect(corefile('example.internal', false)).toContain('    kubernetes example.internal in-addr.arpa ip6.arpa {\n');
    expect(isDefaultCorefile(corefile('example.internal', false))).toBe(true);
    expect(isDefaultCorefile(corefile('cluster.local', true))).toBe(true);
    expect(isDefaultCorefile(corefile('cluster.local', false).replace('cache 30', 'cache 60'))).toBe(false);
    expect(isDefaultCorefile('')).toBe(false);
  });
});

describe('CoreDNS per minor (version table facts)', () => {
  test('1.25: preferred anti-affinity; 1.26: no master toleration', () => {
    const d25 = corednsDeployment(input('1.25')) as WorkloadView;
    expect(d25.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]).toEqual({
      weight: 100,
      podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] }, topologyKey: 'kubernetes.io/hostname' },
    });
    expect(d25.spec.template.spec.tolerations.map((t) => t.key)).toEqual(['CriticalAddonsOnly', 'node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane']);
    expect((corednsDeployment(input('1.26')) as WorkloadView).spec.template.spec.tolerations.map((t) => t.key)).toEqual(['CriticalAddonsOnly', 'node-role.kubernetes.io/control-plane']);
    expect((corednsDeployment(input('1.24')) as WorkloadView).spec.template.spec.affinity).toBeUndefined();
  });

  test('1.29: drop ALL; 1.32: cluster domain not cached; 1.33: named probe ports', () => {
    expect(container(corednsDeployment(input('1.28'))).securityContext.capabilities.drop).toEqual(['all']);
    expect(container(corednsDeployment(input('1.29'))).securityContext.capabilities.drop).toEqual(['ALL']);
    expect(corefile('cluster.local', VERSION_TABLE['1.32'].addons.corednsCacheDisableClusterDomain)).toContain('    cache 30 {\n       disable success cluster.local\n       disable denial cluster.local\n    }\n    loop\n');
    expect(corefile('cluster.local', VERSION_TABLE['1.31'].addons.corednsCacheDisableClusterDomain)).toContain('    cache 30\n    loop\n');
    const c33 = container(corednsDeployment(input('1.33')));
    expect(c33.livenessProbe.httpGet.port).toBe('liveness-probe');
    expect(c33.readinessProbe.httpGet.port).toBe('readiness-probe');
    expect(c33.ports.map((p) => p.name)).toEqual(['dns', 'dns-tcp', 'metrics', 'liveness-probe', 'readiness-probe']);
    expect(container(corednsDeployment(input('1.32'))).livenessProbe.httpGet.port).toBe(8080);
  });

  test('1.21+: EndpointSlice RBAC and the CoreDNS service label', () => {
    const objs = corednsObjects(input('1.21'));
    expect((objs[1] as RoleObject).rules.at(-1)).toEqual({ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] });
    expect(dnsService(input('1.21')).metadata.labels?.['kubernetes.io/name']).toBe('CoreDNS');
  });

  // Oracle: kubeadm's DNS manifests (cmd/kubeadm/app/phases/addons/dns/manifests.go): 1.20.2's
  // ClusterRole has `nodes: get` (the golden objects above); PR #117521 (merged for 1.28) removed it,
  // and the 1.36-cycle revision's ClusterRole has the two list/watch rules only.
  test('1.27 and older: nodes get; 1.28+: only the list/watch rules, as kubeadm\'s manifests', () => {
    const rules = (minor: SupportedMinor): readonly unknown[] => (corednsObjects(input(minor))[1] as RoleObject).rules;
    expect(rules('1.27')).toContainEqual({ apiGroups: [''], resources: ['nodes'], verbs: ['get'] });
    for (const minor of ['1.28', '1.35', '1.36', '1.37'] as const) {
      expect(rules(minor)).toEqual([
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ]);
    }
  });

  test('every supported minor renders', () => {
    for (const minor of Object.keys(VERSION_TABLE) as SupportedMinor[]) expect(corednsObjects(input(minor))).toHaveLength(6);
  });
});
