import path from 'node:path';
import { TsadmError } from '../errors.js';
import { loadYaml } from '../yaml/read.js';

/**
 * The pure half of `tsadm etcd snapshot restore`: what the restore needs from the etcd static Pod
 * manifest, the restore command line for the etcd image's own tool, and the paths tsadm uses.
 */
export const MANIFESTS_DIR = '/etc/kubernetes/manifests';
/** Where the control plane's manifests wait while etcd is restored (tsadm's; not watched by the kubelet). */
export const ASIDE_DIR = '/etc/kubernetes/tsadm-restore-aside';
/** The restore's progress, so a run after a crash continues where the last one stopped. */
export const RESTORE_STATE_FILE = '/var/lib/tsadm/etcd-restore-state.json';
/**
 * What the last restore on this machine restored, and when (written when a restore ends). A plan of
 * a restore holds it as a precondition, so a plan applied once cannot roll the cluster back again.
 */
export const RESTORE_RECORD_FILE = '/var/lib/tsadm/etcd-restore-last.json';
/** The static Pods stopped for a restore, in the order they come back (etcd first). */
export const CONTROL_PLANE_MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'] as const;
/** The container names of those Pods (what the CRI lists). */
export const CONTROL_PLANE_CONTAINERS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
/** The one-off static Pod that runs the restore tool. */
export const RESTORE_POD_MANIFEST = 'tsadm-etcd-restore.yaml';
export const RESTORE_CONTAINER = 'etcd-restore';

export interface EtcdPodFacts {
  readonly image: string;
  readonly name: string;
  /** The member's own peer URL (--initial-advertise-peer-urls, first). */
  readonly peerURL: string;
  readonly dataDir: string;
  /** --initial-cluster-token when the manifest sets one (kubeadm's does not: etcd's default). */
  readonly clusterToken?: string;
  /** First --listen-client-urls entry (the loopback one in kubeadm's manifest). */
  readonly clientURL?: string;
}

interface PodDoc {
  spec?: {
    containers?: Array<{ image?: string; command?: string[] }>;
    volumes?: Array<{ name?: string; hostPath?: { path?: string } }>;
  };
}

/** The facts of an etcd.yaml written by kubeadm or tsadm; a one-line refusal when one is missing. */
export function parseEtcdPod(text: string, file: string): EtcdPodFacts {
  let doc: PodDoc;
  try {
    doc = (loadYaml(text) ?? {});
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `cannot read ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const container = doc.spec?.containers?.[0];
  const command = container?.command ?? [];
  const flag = (name: string): string | undefined => {
    const hit = command.find((a) => a.startsWith(`--${name}=`));
    return hit === undefined ? undefined : hit.slice(name.length + 3);
  };
  const first = (name: string): string | undefined => flag(name)?.split(',').map((s) => s.trim()).find(Boolean);
  const dataDir = doc.spec?.volumes?.find((v) => v.name === 'etcd-data')?.hostPath?.path ?? flag('data-dir');
  const facts = { image: container?.image, name: flag('name'), peerURL: first('initial-advertise-peer-urls'), dataDir };
  const missing = Object.entries(facts).filter(([, v]) => v === undefined || v === '').map(([k]) => k);
  if (missing.length > 0) {
    throw new TsadmError('E_PRECONDITION', `${file} is not an etcd static Pod manifest tsadm can restore from (no ${missing.join(', ')})`, {
      hint: 'restore runs on a control plane with stacked etcd set up by tsadm or kubeadm',
    });
  }
  const token = flag('initial-cluster-token');
  const client = first('listen-client-urls');
  return {
    image: facts.image!, name: facts.name!, peerURL: facts.peerURL!, dataDir: path.posix.normalize(facts.dataDir!),
    ...(token ? { clusterToken: token } : {}),
    ...(client ? { clientURL: client } : {}),
  };
}

/** etcd 3.5 moved `snapshot restore` to etcdutl (etcdctl's is deprecated there and gone in 3.6). */
export function restoreTool(image: string): 'etcdutl' | 'etcdctl' {
  const tag = /:([^:/@]+)(@.*)?$/.exec(image)?.[1] ?? '';
  const m = /^v?(\d+)\.(\d+)/.exec(tag);
  if (!m) return 'etcdutl'; // a tag tsadm cannot read: the current tool
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 3 || (major === 3 && minor >= 5) ? 'etcdutl' : 'etcdctl';
}

/**
 * The restore command: a new one-member cluster made of this member alone (its name and peer URL
 * from the manifest), so the restored etcd starts without waiting for members that still carry
 * the old cluster's data. `dataDir` must not exist yet (the tools refuse otherwise).
 */
export function restoreCommand(tool: 'etcdutl' | 'etcdctl', snapshot: string, dataDir: string, facts: Pick<EtcdPodFacts, 'name' | 'peerURL' | 'clusterToken'>): string[] {
  return [
    tool, 'snapshot', 'restore', snapshot,
    `--data-dir=${dataDir}`,
    `--name=${facts.name}`,
    `--initial-cluster=${facts.name}=${facts.peerURL}`,
    `--initial-advertise-peer-urls=${facts.peerURL}`,
    ...(facts.clusterToken ? [`--initial-cluster-token=${facts.clusterToken}`] : []),
  ];
}

/**
 * tsadm's directory inside the data directory — the only writable directory the restore Pod gets.
 * Inside, not beside: the data directory is often a mount point of its own (a dedicated disk; the
 * e2e machines bind-mount it), and renames do not cross mount points.
 */
export function stagingParent(dataDir: string): string {
  return `${dataDir}/tsadm-restoring`;
}

/** Where the restore tool writes its data directory (the tools refuse one that exists). */
export function stagingDir(dataDir: string): string {
  return `${stagingParent(dataDir)}/data`;
}

/**
 * The checked copy of the snapshot the restore tool reads: written by tsadm from the one descriptor
 * it judged, in the staging directory (0700, inside etcd's own 0700 data directory), so nobody can
 * swap it between the check and the restore.
 */
export function stagedSnapshot(dataDir: string): string {
  return `${stagingParent(dataDir)}/snapshot.db`;
}

/** Where the old data directory is kept: /var/lib/etcd.tsadm-20261127T115500Z. */
export function oldDataDir(dataDir: string, at: Date): string {
  return `${dataDir}.tsadm-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

/**
 * The one-off static Pod that runs the restore tool from the etcd image (pure): host network, the
 * host directories mounted at the same paths, `restartPolicy: Never` so the kubelet runs it once.
 */
export function restorePod(podName: string, image: string, command: readonly string[], mounts: ReadonlyArray<{ hostPath: string; readOnly: boolean }>): Record<string, unknown> {
  const vols = mounts.map((m, i) => ({ name: `dir-${i}`, ...m }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace: 'kube-system', labels: { component: 'tsadm-etcd-restore', tier: 'control-plane' } },
    spec: {
      hostNetwork: true,
      restartPolicy: 'Never',
      priorityClassName: 'system-node-critical',
      containers: [{
        name: RESTORE_CONTAINER,
        image,
        imagePullPolicy: 'IfNotPresent',
        command: [...command],
        env: [{ name: 'ETCDCTL_API', value: '3' }],
        volumeMounts: vols.map((v) => ({ name: v.name, mountPath: v.hostPath, readOnly: v.readOnly })),
      }],
      volumes: vols.map((v) => ({ name: v.name, hostPath: { path: v.hostPath, type: 'DirectoryOrCreate' } })),
    },
  };
}

/** --advertise-address and --secure-port of kube-apiserver.yaml: where to ask /readyz. */
export function apiServerEndpoint(text: string): { host: string; port: number } | undefined {
  const doc = (loadYaml(text) ?? {}) as PodDoc;
  const command = doc.spec?.containers?.[0]?.command ?? [];
  const flag = (name: string): string | undefined => command.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const host = flag('advertise-address');
  if (!host) return undefined;
  return { host, port: Number(flag('secure-port') ?? 6443) };
}
