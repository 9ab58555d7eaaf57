import type { FileKind } from './host.js';
import type { KubeObject, MutableNode } from '../kube/types.js';

/**
 * What a dry run would do, recorded by the dry-run seams (DryRunHost, DryRunKubeApi) as it
 * happens, plus what the machine and the cluster looked like when each thing was first looked
 * at. A plan (plan/build.ts) is made from it; no workflow knows about it, so init, join, reset
 * and every single phase get plans for free.
 */

/** A host path as the dry run first saw it on the real machine (before any planned write). */
export type FileState =
  | { readonly state: 'absent' }
  | { readonly state: 'file'; readonly sha256: string; readonly mode: number }
  | { readonly state: 'directory' }
  | { readonly state: 'other' };

/** An API object as the dry run first read it from the cluster (null = it did not exist). */
export interface ObjectState {
  readonly kubeconfig: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly resourceVersion: string | null;
  /**
   * Deployments and DaemonSets: metadata.generation, which moves only when their spec does; their
   * resourceVersion also moves with every status update of their Pods, which is no change to a plan.
   */
  readonly generation?: number;
}

/** A cluster the dry run talked to, by the kubeconfig it was reached through. */
export interface ClusterState {
  readonly kubeconfig: string;
  readonly server: string;
  /** False when it did not answer (the dry run then assumed an empty cluster). */
  reachable: boolean;
}

export type ObjectStep =
  | { readonly type: 'object'; readonly verb: 'create' | 'update'; readonly kubeconfig: string; readonly object: KubeObject; readonly existing?: KubeObject; readonly placeholderUid?: string }
  | { readonly type: 'object'; readonly verb: 'delete'; readonly kubeconfig: string; readonly kind: string; readonly namespace?: string; readonly name: string; readonly existing?: KubeObject }
  | { readonly type: 'object'; readonly verb: 'patch'; readonly kubeconfig: string; readonly kind: 'Node'; readonly name: string; readonly before: MutableNode; readonly after: MutableNode }
  /** A write of a subresource (a CSR's approval): the object as read, with the change, carrying the resourceVersion it was read at. */
  | { readonly type: 'object'; readonly verb: 'approval'; readonly kubeconfig: string; readonly object: KubeObject };

export type HostStep =
  | { readonly type: 'file'; readonly path: string; readonly mode: number; readonly kind: FileKind; readonly description: string; readonly sha256: string; readonly content: Buffer; readonly unchanged: boolean }
  | { readonly type: 'mkdir'; readonly path: string; readonly mode: number }
  | { readonly type: 'remove'; readonly path: string }
  /** PATH made a symbolic link to TARGET (the link's text), atomically. */
  | { readonly type: 'symlink'; readonly path: string; readonly target: string }
  | { readonly type: 'exec'; readonly command: string; readonly args: readonly string[] }
  | { readonly type: 'service'; readonly action: 'start' | 'stop' | 'restart' | 'enable' | 'disable' | 'daemon-reload'; readonly unit: string }
  | StaticPodWait
  | EtcdSnapshotSave
  | EtcdSnapshotRestore
  | CertsRenewAuto
  | CertsRotateCaNode;

/**
 * `certs rotate-ca node`: one node step reads the rotation's state, restarts components one at a
 * time and records its progress in the cluster as it goes, none of which a list of file steps
 * could say; so the step names the rotation (`id`) and the phase it was at (`rotationPhase`), and apply runs the
 * node step then (src/certs-lifecycle/rotate-ca/run.ts), refusing if the rotation has moved on.
 * No key: a control plane that still needs the new keys names the rotation key's file.
 */
export interface CertsRotateCaNode {
  readonly type: 'certs-rotate-ca-node';
  readonly id: string;
  /** The rotation's phase when the plan was made (`phase` is the plan's own field: the workflow phase). */
  readonly rotationPhase: string;
  readonly nodeName: string;
  readonly rotationKeyFile?: string;
  readonly config?: string;
  readonly certDir?: string;
  readonly kubeconfigDir?: string;
  readonly kubeconfig?: string;
}

/**
 * `certs renew --auto`: the renewal must hold the cluster-wide Lease while it writes and restarts,
 * so the step names what is due and how to reach the cluster, and apply runs the renewal then
 * (src/certs-lifecycle/auto-run.ts), refusing if what is due has changed. No key material: the
 * certificates are signed when apply runs.
 */
export interface CertsRenewAuto {
  readonly type: 'certs-renew-auto';
  readonly windowSeconds: number;
  readonly restart: boolean;
  /** The inventory names due at plan time (apply refuses if another set is due then). */
  readonly due: readonly string[];
  /** Restarts an interrupted run left (renewed files not yet in use). */
  readonly pending: readonly string[];
  readonly config?: string;
  readonly certDir?: string;
  readonly kubeconfigDir?: string;
  readonly kubeconfig?: string;
}

/**
 * `etcd snapshot save`: the file's bytes exist only when etcd streams them, so the step names where
 * they come from and apply streams and verifies them then (src/etcd-snapshot/save.ts).
 */
interface EtcdSnapshotSave {
  readonly type: 'etcd-snapshot';
  /** The snapshot file (written 0600, atomically). */
  readonly path: string;
  /** etcd's client URL. */
  readonly endpoint: string;
  /** The certificate directory whose etcd/ca.crt and etcd/healthcheck-client.{crt,key} reach it. */
  readonly certDir: string;
}

/**
 * `etcd snapshot restore`: the control plane is stopped, etcd's own tool restores and the data
 * directories are swapped only when apply runs (src/etcd-snapshot/restore.ts), so the step names
 * the snapshot by its SHA-256 (apply refuses another file's bytes before changing anything) and how
 * to reach the machine's container runtime and etcd. etcd.yaml and the restore's progress file, as
 * the dry run read them, are the plan's preconditions.
 */
export interface EtcdSnapshotRestore {
  readonly type: 'etcd-snapshot-restore';
  readonly snapshot: string;
  readonly sha256: string;
  /** The cluster CA and the etcd client pair (etcd/ under it) the health wait uses. */
  readonly certDir: string;
  /** --cri-socket when it was given; else apply detects the runtime as the command does. */
  readonly criSocket?: string;
  readonly timeoutSeconds: number;
}

/**
 * An upgrade's "wait until the kubelet runs the manifest just written" (src/phases/upgrade): apply
 * waits for a new mirror Pod hash, the Pods Running and the health endpoint, and on failure puts
 * the backup back and waits for the old component, as the upgrade itself does.
 */
interface StaticPodWait {
  readonly type: 'wait-static-pod';
  readonly component: string;
  readonly node: string;
  readonly kubeconfig: string;
  readonly manifest: string;
  readonly backup: string;
  readonly healthUrl: string;
  readonly timeoutSeconds: number;
}

export type JournalStep = (HostStep | ObjectStep) & { readonly phase?: string };

/** What DryRunKubeApi reports to (kept narrow so the API layer does not depend on plans). */
export interface ApiJournal {
  noteCluster(kubeconfig: string, server: string, reachable: boolean): void;
  noteObject(state: ObjectState): void;
  record(step: ObjectStep, phase?: string): void;
}

/** Paths whose content is the kernel's, not the machine's configuration: never preconditions. */
const VOLATILE = ['/proc/', '/sys/', '/dev/', '/run/'];

export class PlanJournal implements ApiJournal {
  readonly steps: JournalStep[] = [];
  readonly files = new Map<string, FileState>();
  readonly objects = new Map<string, ObjectState>();
  readonly clusters = new Map<string, ClusterState>();
  /** The phase running now (the runtime points it at the logger's current phase). */
  currentPhase: () => string | undefined = () => undefined;

  /** Whether a host path still needs its first-sight state (volatile kernel paths never do). */
  wantsFile(path: string): boolean {
    return !this.files.has(path) && !VOLATILE.some((v) => path.startsWith(v));
  }

  /** First sight of a host path wins: later looks would see the dry run's own writes. */
  noteFile(path: string, state: FileState): void {
    if (this.wantsFile(path)) this.files.set(path, state);
  }

  noteCluster(kubeconfig: string, server: string, reachable: boolean): void {
    const known = this.clusters.get(kubeconfig);
    if (known) known.reachable = known.reachable && reachable;
    else this.clusters.set(kubeconfig, { kubeconfig, server, reachable });
  }

  noteObject(state: ObjectState): void {
    const key = objectKey(state.kubeconfig, state.kind, state.name, state.namespace);
    if (!this.objects.has(key)) this.objects.set(key, state);
  }

  record(step: HostStep | ObjectStep, phase: string | undefined = this.currentPhase()): void {
    this.steps.push({ ...step, ...(phase !== undefined ? { phase } : {}) });
  }
}

function objectKey(kubeconfig: string, kind: string, name: string, namespace?: string): string {
  return `${kubeconfig}|${kind}|${namespace ?? ''}|${name}`;
}

/** The journal of a dry-run host (any other host has none). */
export function journalOf(host: object): PlanJournal | undefined {
  const journal = (host as { journal?: unknown }).journal;
  return journal instanceof PlanJournal ? journal : undefined;
}
