/**
 * One row per certificate kubeadm creates (cmd/kubeadm/app/phases/certs/certlist.go), CAs
 * before the certificates they sign. The rows drive the `certs` phase tree, generation, the
 * reuse checks and the help text. Subjects that changed between versions come from versions.pki.
 */
import type { FlagName } from '../flags.js';
import type { ResolvedInitConfig } from '../config/types.js';
import type { DistinguishedName } from '../pki/name.js';
import type { ExtKeyUsage } from '../pki/oids.js';
import type { VersionProfile } from '../versions/table-types.js';
import { NO_ALT_NAMES, apiServerAltNames, etcdAltNames, type AltNames } from './alt-names.js';

export interface CertConfig {
  readonly subject: DistinguishedName;
  readonly usages: readonly ExtKeyUsage[];
  readonly altNames: AltNames;
}

export interface CertRow {
  /** Phase name (kubeadm's KubeadmCert.Name). */
  readonly name: string;
  readonly longName: string;
  /** File name under the certificate dir without extension: "etcd/server". */
  readonly baseName: string;
  /** Name of the row of the CA that signs it; undefined for CAs. */
  readonly caName?: string;
  /** Only for stacked etcd: skipped when etcd is external. */
  readonly etcd: boolean;
  readonly flags: readonly FlagName[];
  config(cfg: ResolvedInitConfig, versions: VersionProfile): CertConfig;
}

const COMMON_FLAGS: readonly FlagName[] = ['cert-dir', 'config', 'kubernetes-version'];
const LEAF_FLAGS: readonly FlagName[] = [...COMMON_FLAGS, 'csr-only', 'csr-dir'];

const subject = (commonName: string, organization?: string): DistinguishedName => ({ commonName, organization: organization ? [organization] : [] });
const plain = (commonName: string, usages: readonly ExtKeyUsage[] = [], organization?: string): CertConfig => ({
  subject: subject(commonName, organization),
  usages,
  altNames: NO_ALT_NAMES,
});

export const CERT_ROWS: readonly CertRow[] = [
  {
    name: 'ca',
    longName: 'self-signed Kubernetes CA to provision identities for other Kubernetes components',
    baseName: 'ca',
    etcd: false,
    flags: COMMON_FLAGS,
    config: () => plain('kubernetes'),
  },
  {
    name: 'apiserver',
    longName: 'certificate for serving the Kubernetes API',
    baseName: 'apiserver',
    caName: 'ca',
    etcd: false,
    flags: [...LEAF_FLAGS, 'apiserver-advertise-address', 'control-plane-endpoint', 'apiserver-cert-extra-sans', 'service-cidr', 'service-dns-domain', 'node-name'],
    config: (cfg) => ({ subject: subject('kube-apiserver'), usages: ['serverAuth'], altNames: apiServerAltNames(cfg) }),
  },
  {
    name: 'apiserver-kubelet-client',
    longName: 'certificate for the API server to connect to kubelet',
    baseName: 'apiserver-kubelet-client',
    caName: 'ca',
    etcd: false,
    flags: LEAF_FLAGS,
    config: (_cfg, v) => plain('kube-apiserver-kubelet-client', ['clientAuth'], v.pki.apiserverKubeletClientOrg),
  },
  {
    name: 'front-proxy-ca',
    longName: 'self-signed CA to provision identities for front proxy',
    baseName: 'front-proxy-ca',
    etcd: false,
    flags: COMMON_FLAGS,
    config: () => plain('front-proxy-ca'),
  },
  {
    name: 'front-proxy-client',
    longName: 'certificate for the front proxy client',
    baseName: 'front-proxy-client',
    caName: 'front-proxy-ca',
    etcd: false,
    flags: LEAF_FLAGS,
    config: () => plain('front-proxy-client', ['clientAuth']),
  },
  {
    name: 'etcd-ca',
    longName: 'self-signed CA to provision identities for etcd',
    baseName: 'etcd/ca',
    etcd: true,
    flags: COMMON_FLAGS,
    config: () => plain('etcd-ca'),
  },
  {
    name: 'etcd-server',
    longName: 'certificate for serving etcd',
    baseName: 'etcd/server',
    caName: 'etcd-ca',
    etcd: true,
    flags: [...LEAF_FLAGS, 'apiserver-advertise-address', 'node-name'],
    // etcd ≥ 3.2 wants clientAuth on its serving certificate too (kubeadm's TODO in certlist.go)
    config: (cfg) => ({ subject: subject(cfg.init.nodeRegistration.name), usages: ['serverAuth', 'clientAuth'], altNames: etcdAltNames(cfg, 'server') }),
  },
  {
    name: 'etcd-peer',
    longName: 'certificate for etcd nodes to communicate with each other',
    baseName: 'etcd/peer',
    caName: 'etcd-ca',
    etcd: true,
    flags: [...LEAF_FLAGS, 'apiserver-advertise-address', 'node-name'],
    config: (cfg) => ({ subject: subject(cfg.init.nodeRegistration.name), usages: ['serverAuth', 'clientAuth'], altNames: etcdAltNames(cfg, 'peer') }),
  },
  {
    name: 'etcd-healthcheck-client',
    longName: 'certificate for liveness probes to healthcheck etcd',
    baseName: 'etcd/healthcheck-client',
    caName: 'etcd-ca',
    etcd: true,
    flags: LEAF_FLAGS,
    config: (_cfg, v) => plain('kube-etcd-healthcheck-client', ['clientAuth'], v.pki.etcdClientOrg),
  },
  {
    name: 'apiserver-etcd-client',
    longName: 'certificate the apiserver uses to access etcd',
    baseName: 'apiserver-etcd-client',
    caName: 'etcd-ca',
    etcd: true,
    flags: LEAF_FLAGS,
    config: (_cfg, v) => plain('kube-apiserver-etcd-client', ['clientAuth'], v.pki.etcdClientOrg),
  },
];

export function certRow(name: string): CertRow {
  const row = CERT_ROWS.find((r) => r.name === name);
  if (!row) throw new Error(`unknown certificate "${name}"`);
  return row;
}

/** Base name of the service-account key pair (sa.key / sa.pub). */
export const SA_BASE_NAME = 'sa';
