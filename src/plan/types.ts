/**
 * The plan file (`--plan plan.json`, read by `tsadm apply`): plain JSON, documented in
 * docs/plan.md. Steps run in order; preconditions say what the machine and the cluster looked
 * like when the plan was made, so apply can refuse when they changed.
 */
import type { CertsRenewAuto, CertsRotateCaNode, EtcdSnapshotRestore, ObjectState } from '../host/journal.js';

export const PLAN_API_VERSION = 'tsadm/v1alpha1';
export const PLAN_KIND = 'Plan';

export type PlanFileState =
  | { readonly path: string; readonly state: 'absent' | 'directory' | 'other' }
  | { readonly path: string; readonly state: 'file'; readonly sha256: string; readonly mode: string };

interface PlanCluster {
  readonly kubeconfig: string;
  readonly server: string;
  readonly reachable: boolean;
}


/** One change of an object: a JSON pointer into it, with the old and the new value. */
export interface DiffOp {
  readonly op: 'add' | 'replace' | 'remove';
  readonly path: string;
  readonly from?: unknown;
  readonly to?: unknown;
}

/** The parts of a Node tsadm patches. */
export interface NodeView {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly { readonly key: string; readonly value?: string; readonly effect: string }[];
}

interface Base {
  readonly phase?: string;
}

export interface FileStep extends Base {
  readonly type: 'file';
  readonly path: string;
  /** Octal, e.g. "0600". */
  readonly mode: string;
  readonly kind: string;
  readonly description: string;
  readonly size: number;
  readonly sha256: string;
  /** The target already had these bytes and this mode at plan time. */
  readonly unchanged: boolean;
  /** Content as UTF-8 text, or as base64 when it is not text; neither when redacted. */
  readonly text?: string;
  readonly base64?: string;
  readonly redacted?: true;
}

export type PlanStep =
  | FileStep
  | (Base & { readonly type: 'mkdir'; readonly path: string; readonly mode: string })
  | (Base & { readonly type: 'remove'; readonly path: string })
  | (Base & { readonly type: 'symlink'; readonly path: string; readonly target: string })
  | (Base & { readonly type: 'exec'; readonly command: string; readonly args: readonly string[] })
  | (Base & { readonly type: 'service'; readonly action: 'start' | 'stop' | 'restart' | 'enable' | 'disable' | 'daemon-reload'; readonly unit: string })
  | (Base & { readonly type: 'wait'; readonly for: 'api-server'; readonly kubeconfig: string; readonly server: string; readonly timeoutSeconds: number })
  | StaticPodWaitStep
  | EtcdSnapshotStep
  | EtcdSnapshotRestoreStep
  | CertsRenewAutoStep
  | CertsRotateCaNodeStep
  | ObjectPlanStep;

/** `certs renew --auto`: apply runs the renewal (under the Lease) for exactly the certificates named in `due`. */
export type CertsRenewAutoStep = Base & Omit<CertsRenewAuto, 'type'> & { readonly type: 'certs-renew-auto' };

/** `certs rotate-ca node`: apply runs the node step of rotation `id`, refusing unless it is still at `rotationPhase`. */
export type CertsRotateCaNodeStep = Base & Omit<CertsRotateCaNode, 'type'> & { readonly type: 'certs-rotate-ca-node' };

/** `etcd snapshot save`: apply streams the snapshot from `endpoint` into `path` (0600), verified as it arrives. */
type EtcdSnapshotStep = Base & { readonly type: 'etcd-snapshot'; readonly path: string; readonly mode: '0600'; readonly endpoint: string; readonly certDir: string };

/** `etcd snapshot restore`: apply restores `snapshot` (which must still have `sha256`) as the command does. */
export type EtcdSnapshotRestoreStep = Base & Omit<EtcdSnapshotRestore, 'type'> & { readonly type: 'etcd-snapshot-restore' };

/** After an upgraded static Pod manifest: wait for the kubelet to run it (src/plan/static-pod-wait.ts). */
export type StaticPodWaitStep = Base & {
  readonly type: 'wait'; readonly for: 'static-pod'; readonly kubeconfig: string;
  readonly component: string; readonly node: string; readonly manifest: string; readonly backup: string;
  readonly healthUrl: string; readonly timeoutSeconds: number;
};

export type ObjectPlanStep =
  | (Base & {
    readonly type: 'object'; readonly verb: 'create' | 'update'; readonly kubeconfig: string;
    readonly kind: string; readonly namespace?: string; readonly name: string;
    /** Changes against the object as it existed (update only). */
    readonly diff?: readonly DiffOp[];
    /** The object to send. A uid "dry-run-N" stands for the uid the server gives an object this plan creates. */
    readonly object: Readonly<Record<string, unknown>>;
    readonly placeholderUid?: string;
  })
  | (Base & { readonly type: 'object'; readonly verb: 'delete'; readonly kubeconfig: string; readonly kind: string; readonly namespace?: string; readonly name: string })
  | (Base & {
    readonly type: 'object'; readonly verb: 'patch'; readonly kubeconfig: string; readonly kind: 'Node'; readonly name: string;
    readonly before: NodeView; readonly after: NodeView; readonly diff: readonly DiffOp[];
  })
  | ApprovalPlanStep;

/**
 * A write of a CertificateSigningRequest's `approval` subresource: the request as read at plan
 * time with one condition added. `object` carries the resourceVersion it was read at, so the API
 * server itself refuses the write (409) if the request changed in between.
 */
export type ApprovalPlanStep = Base & {
  readonly type: 'object'; readonly verb: 'approval'; readonly kubeconfig: string; readonly kind: string; readonly name: string;
  /** The condition the write adds, for review: Approved or Denied, with the rule behind it. */
  readonly decision: ApprovalDecision;
  readonly object: Readonly<Record<string, unknown>>;
};

export interface ApprovalDecision {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

export interface Plan {
  /** First key on purpose: says whether the file holds key material. */
  readonly note: string;
  readonly apiVersion: typeof PLAN_API_VERSION;
  readonly kind: typeof PLAN_KIND;
  /** True when private keys, kubeconfigs, tokens and Secret data are in the plan (apply needs them). */
  readonly keyMaterial: boolean;
  readonly createdAt: string;
  readonly tsadmVersion: string;
  /** The command that made it, e.g. "init" or "init phase certs all". */
  readonly command: string;
  /** The phases the dry run ran, in order. */
  readonly phases: readonly string[];
  /** --rootfs at plan time ("/" for the machine itself). */
  readonly rootfs: string;
  readonly preconditions: {
    readonly files: readonly PlanFileState[];
    readonly clusters: readonly PlanCluster[];
    readonly objects: readonly ObjectState[];
  };
  readonly steps: readonly PlanStep[];
  /** The command's result (e.g. the join commands), shown again by apply; absent without key material. */
  readonly result?: Readonly<Record<string, unknown>>;
}

export const NOTE_WITH_KEYS =
  'CONTAINS PRIVATE KEYS AND SECRETS: this plan holds the private keys, kubeconfigs, tokens and Secret data it would write, '
  + 'so that `tsadm apply` writes exactly them. Keep it as you keep /etc/kubernetes/pki (mode 0600, root only) and delete it after applying.';
export const NOTE_NO_SECRETS =
  'HOLDS NO PRIVATE KEYS OR SECRETS: its steps write no key, kubeconfig, token or Secret data (what they need is signed or read when `tsadm apply` runs). '
  + 'apply runs it as root, so keep it root-only (mode 0600) and delete it after applying.';
export const NOTE_WITHOUT_KEYS =
  'Review copy: private keys, kubeconfigs, tokens and Secret data are replaced by their sha256; `tsadm apply` refuses it. '
  + 'Make the plan without --plan-without-keys to apply it.';

export function modeString(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

export function parseMode(mode: string): number {
  return Number.parseInt(mode, 8);
}
