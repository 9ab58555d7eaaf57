/**
 * kubeadm's own tests as the oracle (issue 36): TestGetKubeConfigSpecs of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/kubeconfig/kubeconfig_test.go, the newest of the three versions the
 * stored index holds (index id 19173823; its commit is not named by the index). It has
 * super-admin.conf (kubeadm 1.29+) and ClusterConfiguration.EncryptionAlgorithm (1.31+), so it
 * is compared with tsadm's 1.32 row (src/kubeconfig/kubeconfig-table.ts), where
 * ControlPlaneKubeletLocalMode is off by default as in the test's nil FeatureGates.
 * Expected client names and organizations are kubeadm's constants as the test names them:
 * ClusterAdminsGroupAndClusterRoleBinding "kubeadm:cluster-admins", SystemPrivilegedGroup
 * "system:masters", NodesUserPrefix "system:node:", NodesGroup "system:nodes",
 * ControllerManagerUser "system:kube-controller-manager", SchedulerUser "system:kube-scheduler";
 * the expected servers are what the test computes with GetControlPlaneEndpoint (admin,
 * super-admin, kubelet) and GetLocalAPIEndpoint (controller-manager, scheduler), written out.
 * Not compared: the CA loaded from disk and the per-spec EncryptionAlgorithm (tsadm has no
 * per-file algorithm: every kubeconfig key uses cluster.encryptionAlgorithm, src/kubeconfig/ensure.ts).
 */
import type { ResolvedInitConfig } from '../../../src/config/types.js';
import { controlPlaneEndpointURL, localAPIEndpointURL } from '../../../src/config/endpoint.js';
import { KUBECONFIG_ROWS } from '../../../src/kubeconfig/kubeconfig-table.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { caseKey, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/kubeconfig/kubeconfig_test.go';
const versions = VERSION_TABLE[ledgerFile(SOURCE).minor];

/** The five InitConfigurations of the test: controlPlaneEndpoint, the server kubeadm computes for it. */
const CFGS: ReadonlyArray<{ controlPlaneEndpoint: string; endpoint: string }> = [
  { controlPlaneEndpoint: '', endpoint: 'https://1.2.3.4:1234' },
  { controlPlaneEndpoint: 'api.k8s.io', endpoint: 'https://api.k8s.io:1234' },
  { controlPlaneEndpoint: 'api.k8s.io:4321', endpoint: 'https://api.k8s.io:4321' },
  { controlPlaneEndpoint: 'api.k8s.io', endpoint: 'https://api.k8s.io:1234' },
  { controlPlaneEndpoint: 'api.k8s.io:4321', endpoint: 'https://api.k8s.io:4321' },
];
const LOCAL = 'https://1.2.3.4:1234';

/** The assertions table: file, clientName, organizations (nil in Go = none), which server. */
const ASSERTIONS: ReadonlyArray<{ row: string; clientName: string; organizations: string[]; server: 'control-plane' | 'local' }> = [
  { row: 'admin', clientName: 'kubernetes-admin', organizations: ['kubeadm:cluster-admins'], server: 'control-plane' },
  { row: 'super-admin', clientName: 'kubernetes-super-admin', organizations: ['system:masters'], server: 'control-plane' },
  { row: 'kubelet', clientName: 'system:node:valid-node-name', organizations: ['system:nodes'], server: 'control-plane' },
  { row: 'controller-manager', clientName: 'system:kube-controller-manager', organizations: [], server: 'local' },
  { row: 'scheduler', clientName: 'system:kube-scheduler', organizations: [], server: 'local' },
];

function initConfig(controlPlaneEndpoint: string): ResolvedInitConfig {
  const base = fixtureInitConfig();
  return {
    ...base,
    cluster: { ...base.cluster, controlPlaneEndpoint, featureGates: {} },
    init: { ...base.init, localAPIEndpoint: { advertiseAddress: '1.2.3.4', bindPort: 1234 }, nodeRegistration: { ...base.init.nodeRegistration, name: 'valid-node-name' } },
  };
}

const bodies: Record<string, () => void> = {};
CFGS.forEach((c, i) => {
  for (const a of ASSERTIONS) {
    bodies[caseKey('TestGetKubeConfigSpecs', `${i}-${a.clientName}`)] = () => {
      const cfg = initConfig(c.controlPlaneEndpoint);
      const row = KUBECONFIG_ROWS.find((r) => r.name === a.row);
      expect(row && (row.exists?.(versions) ?? true)).toBe(true);
      if (!row) return;
      const id = row.identity(cfg, versions);
      const server = row.server(cfg, versions) === 'local' ? localAPIEndpointURL(cfg) : controlPlaneEndpointURL(cfg);
      expect({ clientName: id.commonName, organizations: [...id.organization], server })
        .toEqual({ clientName: a.clientName, organizations: a.organizations, server: a.server === 'local' ? LOCAL : c.endpoint });
    };
  }
});

portCases(SOURCE, bodies);
