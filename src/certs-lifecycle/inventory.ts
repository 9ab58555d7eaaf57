/**
 * What `certs check-expiration` lists and `certs renew` can renew (kubeadm's renewal.Manager),
 * derived from the certificate table and the kubeconfig table, pure: every leaf certificate
 * (etcd ones only with local etcd), the client certificates embedded in admin.conf,
 * controller-manager.conf, scheduler.conf (and super-admin.conf where it exists), and the CAs.
 * kubelet.conf is left out as kubeadm does: the kubelet rotates its own client certificate.
 */
import { KUBECONFIG_FILES } from '../constants.js';
import { CERT_ROWS, certRow, type CertRow } from '../certs/cert-table.js';

/** Static pods that read a certificate and only pick up a new one when restarted. */
export type Component = 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'etcd';

const COMPONENTS: readonly Component[] = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

interface EntryBase {
  /** kubeadm's name: the cert row name ("apiserver") or the kubeconfig file ("admin.conf"). */
  readonly name: string;
  readonly longName: string;
  /** Row name of the signing CA ("ca", "front-proxy-ca", "etcd-ca"). */
  readonly caName: string;
  /** Base name of the CA files under the certificate dir ("ca", "etcd/ca"). */
  readonly caBaseName: string;
  /** Components that must restart to use a renewed certificate. */
  readonly restart: readonly Component[];
}

interface PkiEntry extends EntryBase {
  readonly kind: 'pki';
  /** "etcd/server": <certDir>/etcd/server.crt and .key. */
  readonly baseName: string;
}

export interface KubeconfigEntry extends EntryBase {
  readonly kind: 'kubeconfig';
  /** "admin.conf" under the kubeconfig dir. */
  readonly file: string;
  /** Listed only when the file exists (super-admin.conf is written on the first control plane only). */
  readonly onlyIfPresent: boolean;
}

export type CertEntry = PkiEntry | KubeconfigEntry;

interface CAEntry {
  readonly name: string;
  readonly longName: string;
  readonly baseName: string;
}

/** Which running component reads which certificate (the static pod flags of docs/kubeadm-reference.md §4). */
const PKI_RESTART: Readonly<Record<string, readonly Component[]>> = {
  apiserver: ['kube-apiserver'],
  'apiserver-kubelet-client': ['kube-apiserver'],
  'apiserver-etcd-client': ['kube-apiserver'],
  'front-proxy-client': ['kube-apiserver'],
  'etcd-server': ['etcd'],
  'etcd-peer': ['etcd'],
  // used by health checks run by hand (etcdctl); no static pod reads it
  'etcd-healthcheck-client': [],
};

const KUBECONFIGS: readonly { file: string; longName: string; restart: readonly Component[]; onlyIfPresent: boolean }[] = [
  { file: KUBECONFIG_FILES.admin, longName: 'certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself', restart: [], onlyIfPresent: false },
  { file: KUBECONFIG_FILES.superAdmin, longName: 'certificate embedded in the kubeconfig file for the super-admin', restart: [], onlyIfPresent: true },
  { file: KUBECONFIG_FILES.controllerManager, longName: 'certificate embedded in the kubeconfig file for the controller manager to use', restart: ['kube-controller-manager'], onlyIfPresent: false },
  { file: KUBECONFIG_FILES.scheduler, longName: 'certificate embedded in the kubeconfig file for the scheduler manager to use', restart: ['kube-scheduler'], onlyIfPresent: false },
];

export interface Inventory {
  /** Sorted by name, as kubeadm lists them. */
  readonly certificates: readonly CertEntry[];
  /** Sorted by name. */
  readonly cas: readonly CAEntry[];
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function inventory(opts: { readonly externalEtcd: boolean }): Inventory {
  const rows = CERT_ROWS.filter((r) => !(r.etcd && opts.externalEtcd));
  const leaves = rows.filter((r): r is CertRow & { caName: string } => r.caName !== undefined);
  const pki: PkiEntry[] = leaves.map((r) => ({
    kind: 'pki',
    name: r.name,
    longName: r.longName,
    baseName: r.baseName,
    caName: r.caName,
    caBaseName: certRow(r.caName).baseName,
    restart: PKI_RESTART[r.name] ?? [],
  }));
  const kubeconfigs: KubeconfigEntry[] = KUBECONFIGS.map((k) => ({
    kind: 'kubeconfig',
    name: k.file,
    longName: k.longName,
    file: k.file,
    caName: 'ca',
    caBaseName: 'ca',
    restart: k.restart,
    onlyIfPresent: k.onlyIfPresent,
  }));
  // kubeadm lists only the CAs that sign something on this node's list
  const cas = rows.filter((r) => r.caName === undefined && leaves.some((l) => l.caName === r.name))
    .map((r) => ({ name: r.name, longName: r.longName, baseName: r.baseName }));
  return { certificates: [...pki, ...kubeconfigs].sort(byName), cas: [...cas].sort(byName) };
}

/** The names `certs renew` accepts (besides "all"), for help and validation. */
export function renewableNames(): string[] {
  return inventory({ externalEtcd: false }).certificates.map((c) => c.name);
}

/** Components to restart after renewing `entries`, in a stable order. */
export function componentsToRestart(entries: readonly CertEntry[]): Component[] {
  const wanted = new Set(entries.flatMap((e) => e.restart));
  return COMPONENTS.filter((c) => wanted.has(c));
}
