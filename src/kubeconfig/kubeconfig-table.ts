/**
 * One row per kubeconfig file `init` writes (kubeadm's getKubeConfigSpecsBase): the client
 * identity (certificate CN/O, per version) and which API endpoint it talks to.
 */
import { featureEnabled } from '../config/feature-gates.js';
import type { FlagName } from '../flags.js';
import type { ResolvedInitConfig } from '../config/types.js';
import { KUBECONFIG_FILES } from '../constants.js';
import type { DistinguishedName } from '../pki/name.js';
import type { VersionProfile } from '../versions/table-types.js';

type ServerKind = 'control-plane-endpoint' | 'local';

export interface KubeconfigRow {
  /** Phase name. */
  readonly name: string;
  readonly file: string;
  readonly summary: string;
  readonly description: string;
  readonly flags: readonly FlagName[];
  /** Which API server the file points at, for the target version. */
  server(cfg: ResolvedInitConfig, versions: VersionProfile): ServerKind;
  /** The client certificate subject; the CN is also the kubeconfig user name. */
  identity(cfg: ResolvedInitConfig, versions: VersionProfile): DistinguishedName;
  /** Versions without this file (super-admin.conf before 1.29). */
  readonly exists?: (versions: VersionProfile) => boolean;
}

const FLAGS: readonly FlagName[] = [
  'apiserver-advertise-address', 'control-plane-endpoint', 'apiserver-bind-port', 'cert-dir', 'config', 'kubeconfig-dir', 'kubernetes-version',
];

export const KUBECONFIG_ROWS: readonly KubeconfigRow[] = [
  {
    name: 'admin',
    file: KUBECONFIG_FILES.admin,
    summary: 'Generate a kubeconfig file for the admin to use and for tsadm itself',
    description: `Generate the kubeconfig file for the admin and for tsadm itself, and save it to ${KUBECONFIG_FILES.admin} file.`,
    flags: FLAGS,
    server: () => 'control-plane-endpoint',
    identity: (_cfg, v) => ({ commonName: 'kubernetes-admin', organization: [v.pki.adminOrg] }),
  },
  {
    name: 'super-admin',
    file: KUBECONFIG_FILES.superAdmin,
    summary: 'Generate a kubeconfig file for the super-admin',
    description: `Generate a kubeconfig file for the super-admin, and save it to ${KUBECONFIG_FILES.superAdmin} file.`,
    flags: FLAGS,
    server: () => 'control-plane-endpoint',
    identity: () => ({ commonName: 'kubernetes-super-admin', organization: ['system:masters'] }),
    exists: (v) => v.kubeconfig.superAdmin,
  },
  {
    name: 'kubelet',
    file: KUBECONFIG_FILES.kubelet,
    summary: 'Generate a kubeconfig file for the kubelet to use *only* for cluster bootstrapping purposes',
    description: `Generate the kubeconfig file for the kubelet to use and save it to ${KUBECONFIG_FILES.kubelet} file.\n\n`
      + 'Please note that this should *only* be used for cluster bootstrapping purposes. After your control plane is up, '
      + 'you should request all kubelet credentials from the CSR API.',
    flags: [...FLAGS, 'node-name'],
    // ControlPlaneKubeletLocalMode (gate from 1.31, on by default from 1.33): a control-plane kubelet talks to its own kube-apiserver.
    server: (cfg, v) => (featureEnabled(cfg.cluster.featureGates, v, 'ControlPlaneKubeletLocalMode') ? 'local' : 'control-plane-endpoint'),
    identity: (cfg) => ({ commonName: `system:node:${cfg.init.nodeRegistration.name}`, organization: ['system:nodes'] }),
  },
  {
    name: 'controller-manager',
    file: KUBECONFIG_FILES.controllerManager,
    summary: 'Generate a kubeconfig file for the controller manager to use',
    description: `Generate the kubeconfig file for the controller manager to use and save it to ${KUBECONFIG_FILES.controllerManager} file`,
    flags: FLAGS,
    server: () => 'local',
    identity: () => ({ commonName: 'system:kube-controller-manager', organization: [] }),
  },
  {
    name: 'scheduler',
    file: KUBECONFIG_FILES.scheduler,
    summary: 'Generate a kubeconfig file for the scheduler to use',
    description: `Generate the kubeconfig file for the scheduler to use and save it to ${KUBECONFIG_FILES.scheduler} file.`,
    flags: FLAGS,
    server: () => 'local',
    identity: () => ({ commonName: 'system:kube-scheduler', organization: [] }),
  },
];
