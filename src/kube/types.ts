/**
 * The slice of the Kubernetes object model tsadm reads and writes. Objects stay plain JSON (as
 * the API server sends them), so "is the cluster already like this?" is a structural comparison.
 */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  /** Server-set. */
  readonly resourceVersion?: string;
  readonly uid?: string;
  /** null: the zero timestamp as kubeadm ≤1.33's MarshalToYaml prints an object it has not created. */
  readonly creationTimestamp?: string | null;
}

export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

export interface ConfigMapObject extends KubeObject {
  readonly kind: 'ConfigMap';
  readonly data?: Readonly<Record<string, string>>;
  readonly binaryData?: Readonly<Record<string, string>>;
}

export interface SecretObject extends KubeObject {
  readonly kind: 'Secret';
  readonly type?: string;
  /** Base64 values, as on the wire. */
  readonly data?: Readonly<Record<string, string>>;
}

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface Subject {
  readonly kind: 'Group' | 'User' | 'ServiceAccount';
  readonly name: string;
  /** The API server defaults it to rbac.authorization.k8s.io for Group/User; tsadm writes it explicitly. */
  readonly apiGroup?: string;
  readonly namespace?: string;
}

interface RoleRef {
  readonly apiGroup: 'rbac.authorization.k8s.io';
  readonly kind: 'Role' | 'ClusterRole';
  readonly name: string;
}

export interface RoleObject extends KubeObject {
  readonly kind: 'Role' | 'ClusterRole';
  readonly rules: readonly PolicyRule[];
}

export interface RoleBindingObject extends KubeObject {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
}

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

export interface NodeObject extends KubeObject {
  readonly kind: 'Node';
  readonly spec?: { readonly taints?: readonly Taint[]; readonly [field: string]: unknown };
}

/** Every kind tsadm touches (see resources.ts for where each lives in the API). */
export type KindName =
  | 'ConfigMap'
  | 'Secret'
  | 'ServiceAccount'
  | 'Service'
  | 'Node'
  | 'Pod'
  | 'Role'
  | 'RoleBinding'
  | 'ClusterRole'
  | 'ClusterRoleBinding'
  | 'Deployment'
  | 'DaemonSet'
  | 'Job'
  | 'CertificateSigningRequest'
  | 'Lease';

/**
 * What to do when the object exists and differs: kubeadm's CreateOrUpdate ("update") or
 * CreateOrRetain ("retain": the user's copy wins, e.g. an edited Corefile or a ServiceAccount).
 */
export type EnsureMode = 'update' | 'retain';

/** The desired object computed from the live one (undefined: it does not exist yet). */
export type Rebase<T extends KubeObject> = (live: T | undefined) => T;

type EnsureAction = 'created' | 'updated' | 'unchanged';

export interface EnsureResult<T extends KubeObject = KubeObject> {
  readonly action: EnsureAction;
  /** The object as stored (dry-run: as it would be). */
  readonly object: T;
}

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface DeleteOptions {
  /** What happens to dependents (a Job's Pods): the server's default for the kind when unset. */
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
}

export interface PatchNodeOptions {
  /** Give up after this long (kubeadm: 2 min). */
  readonly timeoutMs: number;
  /** Poll interval while the Node is missing or not ready (kubeadm: 500 ms). */
  readonly intervalMs?: number;
  /** The Node counts as present only when this holds (kubeadm waits for the hostname label). */
  readonly ready?: (node: NodeObject) => boolean;
}

/** A mutation of a Node; it edits the (deep-copied) object in place. */
export type NodeMutation = (node: MutableNode) => void;

export interface MutableNode {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string>; [field: string]: unknown };
  spec: { taints?: Taint[]; [field: string]: unknown };
}

/**
 * The API seam: only what tsadm needs. Implementations: RestKubeApi (real cluster),
 * DryRunKubeApi (reads pass through, writes are logged), and fakes in tests.
 */
export interface KubeApi {
  /** "https://host:port", for messages. */
  readonly server: string;
  /**
   * Create, or update when it differs. `rebase`, when given, computes the desired object again from
   * the live one on every try (an object several machines edit at once, like kubeadm-config's
   * ClusterStatus: a conflict re-reads it and re-applies this machine's change, never a stale copy).
   */
  ensure<T extends KubeObject>(desired: T, mode?: EnsureMode, rebase?: Rebase<T>): Promise<EnsureResult<T>>;
  /** Create only; fails with ApiError status 409 when it exists. */
  create<T extends KubeObject>(obj: T): Promise<T>;
  get<T extends KubeObject = KubeObject>(kind: KindName, name: string, namespace?: string): Promise<T | undefined>;
  list<T extends KubeObject = KubeObject>(kind: KindName, namespace: string | undefined, options?: ListOptions): Promise<T[]>;
  /** False when there was nothing to delete. */
  delete(kind: KindName, name: string, namespace?: string, options?: DeleteOptions): Promise<boolean>;
  /**
   * PUT of a subresource (a CSR's "approval"): OBJ as read, with its change, and its resourceVersion
   * (a conflict fails with ApiError 409: the object changed since it was read). The stored object.
   */
  updateSubresource<T extends KubeObject>(obj: T, subresource: 'approval'): Promise<T>;
  /** GET, mutate, strategic-merge PATCH of what changed; retried on conflict, waits for the Node. */
  patchNode(name: string, mutate: NodeMutation, options: PatchNodeOptions): Promise<'patched' | 'unchanged'>;
  /** GET /healthz answered "ok". Never throws. */
  healthz(): Promise<boolean>;
  /** The API server's gitVersion from GET /version (e.g. "v1.20.2"): what kubeadm calls the cluster version. */
  serverVersion(): Promise<string>;
  /** Releases connections (idle sockets never keep the process alive anyway). */
  close(): void;
}
