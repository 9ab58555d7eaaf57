import { TsadmError } from '../errors.js';
import { toKubeYaml } from '../yaml/write.js';
import type { ApiJournal } from '../host/journal.js';
import { emitObject, type ApiLog } from './api-log.js';
import { cloneJson } from './clone.js';
import { comparableView, isSubset, mergePatch } from './compare.js';
import { ApiError, isApiError } from './errors.js';
import { describeObject, groupVersionLabel, pluralOf } from './resources.js';
import type {
  EnsureMode, EnsureResult, KindName, KubeApi, KubeObject, ListOptions, MutableNode, NodeMutation, NodeObject, PatchNodeOptions, Rebase,
} from './types.js';

/**
 * --dry-run: reads go to the real cluster when it answers (else nothing exists), writes are
 * logged the way kubeadm's dry-run client logs them and kept in an overlay so later reads in
 * the same run see them — never sent.
 */
/** Kinds whose status (and so resourceVersion) moves on its own: a plan holds them by generation. */
const STATUS_CHURN: ReadonlySet<string> = new Set(['Deployment', 'DaemonSet']);

export class DryRunKubeApi implements KubeApi {
  readonly server: string;
  private readonly overlay = new Map<string, KubeObject>();
  private reachable: boolean;
  private serial = 0;

  /** `plan`: where the planned writes and the first-seen objects are recorded (host/journal.ts). */
  constructor(
    private readonly inner: KubeApi | undefined,
    private readonly log: ApiLog,
    private readonly plan?: { readonly journal: ApiJournal; readonly kubeconfig: string; readonly server?: string },
    /** The server the kubeconfig names when there is no reader (src/kube/open.ts). */
    server?: string,
  ) {
    this.server = inner?.server ?? plan?.server ?? server ?? 'https://dry-run.invalid';
    this.reachable = inner !== undefined;
    plan?.journal.noteCluster(plan.kubeconfig, this.server, this.reachable);
  }

  async get<T extends KubeObject = KubeObject>(kind: KindName, name: string, namespace?: string): Promise<T | undefined> {
    this.action('GET', kind, 1);
    this.log.info(`Resource name: "${name}"`, { prefix: 'dryrun', verbosity: 1 });
    const local = this.overlay.get(key(kind, name, namespace));
    if (local) return cloneJson(local) as T;
    const remote = await this.read(() => this.inner!.get<T>(kind, name, namespace), undefined);
    // A Node's resourceVersion moves with every heartbeat (its patches carry their own
    // before-state), a Pod's with every status update: what they were is no precondition.
    if (this.plan && kind !== 'Node' && kind !== 'Pod') {
      this.plan.journal.noteObject({
        kubeconfig: this.plan.kubeconfig, kind, name, ...(namespace ? { namespace } : {}), resourceVersion: remote?.metadata.resourceVersion ?? null,
        ...(remote && STATUS_CHURN.has(kind) ? { generation: (remote.metadata as { generation?: number }).generation ?? 0 } : {}),
      });
    }
    return remote;
  }

  async list<T extends KubeObject = KubeObject>(kind: KindName, namespace: string | undefined, options: ListOptions = {}): Promise<T[]> {
    this.action('LIST', kind, 1);
    const remote = await this.read(() => this.inner!.list<T>(kind, namespace, options), [] as T[]);
    const byName = new Map(remote.map((o) => [o.metadata.name, o]));
    for (const obj of this.overlay.values()) {
      if (obj.kind === kind && (namespace === undefined || obj.metadata.namespace === namespace) && matches(obj, options)) {
        byName.set(obj.metadata.name, cloneJson(obj) as T);
      }
    }
    return [...byName.values()];
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    const existing = await this.get<T>(obj.kind as KindName, obj.metadata.name, obj.metadata.namespace);
    if (existing) {
      throw new ApiError(`create ${describeObject(obj.kind, obj.metadata.name, obj.metadata.namespace)}: already exists`, 409, 'AlreadyExists');
    }
    const stored = this.write('CREATE', 'would-create', obj);
    this.journal({ type: 'object', verb: 'create', kubeconfig: '', object: obj, ...placeholder(stored) });
    return stored;
  }

  async ensure<T extends KubeObject>(first: T, mode: EnsureMode = 'update', rebase?: Rebase<T>): Promise<EnsureResult<T>> {
    const existing = await this.get<T>(first.kind as KindName, first.metadata.name, first.metadata.namespace);
    const desired = rebase ? rebase(existing) : first;
    if (!existing) {
      const stored = this.write('CREATE', 'would-create', desired);
      this.journal({ type: 'object', verb: 'create', kubeconfig: '', object: desired, ...placeholder(stored) });
      return { action: 'created', object: stored };
    }
    if (mode === 'retain' || isSubset(comparableView(desired), existing)) {
      emitObject(this.log, 'unchanged', desired);
      return { action: 'unchanged', object: existing };
    }
    const merged = { ...desired, metadata: { ...desired.metadata, uid: existing.metadata.uid, resourceVersion: existing.metadata.resourceVersion } };
    this.journal({ type: 'object', verb: 'update', kubeconfig: '', object: desired, existing });
    return { action: 'updated', object: this.write('UPDATE', 'would-update', merged) };
  }

  async delete(kind: KindName, name: string, namespace?: string): Promise<boolean> {
    const existing = await this.get(kind, name, namespace);
    this.action('DELETE', kind, 0);
    this.log.info(`Resource name: "${name}"`, { prefix: 'dryrun' });
    this.overlay.delete(key(kind, name, namespace));
    if (existing) this.journal({ type: 'object', verb: 'delete', kubeconfig: '', kind, name, ...(namespace ? { namespace } : {}), existing });
    return existing !== undefined;
  }

  /** Listed, never sent; later reads in the run see the change. */
  updateSubresource<T extends KubeObject>(obj: T, subresource: 'approval'): Promise<T> {
    this.log.info(`Would perform action UPDATE on resource "${pluralOf(obj.kind)}/${subresource}" in API group "${groupVersionLabel(obj.kind)}"`, { prefix: 'dryrun' });
    this.log.info(`Resource name: "${obj.metadata.name}"`, { prefix: 'dryrun' });
    const stored = cloneJson(obj);
    this.overlay.set(key(obj.kind, obj.metadata.name, obj.metadata.namespace), stored);
    emitObject(this.log, 'would-update', obj);
    // A plan holds the decision against the object as it was read: the write carries that
    // resourceVersion, and the plan's precondition is the same one.
    if (this.plan) {
      this.plan.journal.noteObject({
        kubeconfig: this.plan.kubeconfig, kind: obj.kind, name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
        resourceVersion: obj.metadata.resourceVersion ?? null,
      });
    }
    this.journal({ type: 'object', verb: 'approval', kubeconfig: '', object: stored });
    return Promise.resolve(cloneJson(stored));
  }

  async patchNode(name: string, mutate: NodeMutation, _options: PatchNodeOptions): Promise<'patched' | 'unchanged'> {
    // Like kubeadm's dry-run getter, a missing Node is faked so the patch can still be shown.
    const node = (await this.get<NodeObject>('Node', name)) ?? { apiVersion: 'v1', kind: 'Node', metadata: { name } };
    const before: MutableNode = {
      metadata: { name, labels: { ...(node.metadata.labels ?? {}) }, annotations: { ...(node.metadata.annotations ?? {}) } },
      spec: { ...(node.spec?.taints ? { taints: cloneJson([...node.spec.taints]) } : {}) },
    };
    const after = cloneJson(before);
    mutate(after);
    const patch = mergePatch(before, after);
    if (Object.keys(patch).length === 0) {
      emitObject(this.log, 'unchanged', node);
      return 'unchanged';
    }
    this.action('PATCH', 'Node', 0);
    this.log.info(`Resource name: "${name}"`, { prefix: 'dryrun' });
    this.log.info(`Attached patch:\n\t${JSON.stringify(patch)}`, { prefix: 'dryrun' });
    this.overlay.set(key('Node', name), { ...node, metadata: { ...node.metadata, ...after.metadata }, spec: { ...(node.spec ?? {}), ...after.spec } });
    this.journal({ type: 'object', verb: 'patch', kubeconfig: '', kind: 'Node', name, before, after });
    emitObject(this.log, 'would-update', node);
    return 'patched';
  }

  healthz(): Promise<boolean> {
    // kubeadm's dry-run waiter never waits: the control plane is assumed healthy.
    return Promise.resolve(true);
  }

  /** A dry run reads the version of the cluster it plans against; without one there is no version to read. */
  serverVersion(): Promise<string> {
    if (!this.inner) {
      return Promise.reject(new TsadmError('E_PRECONDITION', `the API server version is not known: the dry run has no cluster to ask (${this.server})`, {
        hint: 'run the dry run where the cluster answers (upgrade reads the cluster\'s version)',
      }));
    }
    return this.inner.serverVersion();
  }

  close(): void {
    this.inner?.close();
  }

  private write<T extends KubeObject>(verb: 'CREATE' | 'UPDATE', event: 'would-create' | 'would-update', obj: T): T {
    this.action(verb, obj.kind, 0);
    this.log.info(`Attached object:\n${indentTab(dumpRedacted(obj))}`, { prefix: 'dryrun' });
    const stored = cloneJson(obj) as T & { metadata: { uid?: string } };
    if (!stored.metadata.uid) (stored.metadata as { uid?: string }).uid = `dry-run-${++this.serial}`;
    this.overlay.set(key(obj.kind, obj.metadata.name, obj.metadata.namespace), stored);
    emitObject(this.log, event, obj);
    return cloneJson(stored);
  }

  private journal(step: Parameters<ApiJournal['record']>[0]): void {
    if (!this.plan) return;
    this.plan.journal.record({ ...step, kubeconfig: this.plan.kubeconfig }, this.log.phase);
  }

  private action(verb: string, kind: string, verbosity: number): void {
    this.log.info(`Would perform action ${verb} on resource "${pluralOf(kind)}" in API group "${groupVersionLabel(kind)}"`, { prefix: 'dryrun', verbosity });
  }

  /** A read from the real cluster; the first network failure turns reads off for the run. */
  private async read<R>(fn: () => Promise<R>, fallback: R): Promise<R> {
    if (!this.reachable) return fallback;
    try {
      return await fn();
    } catch (err) {
      if (isApiError(err) && err.status === 0) {
        this.reachable = false;
        if (this.plan) this.plan.journal.noteCluster(this.plan.kubeconfig, this.server, false);
        this.log.info(`the API server at ${this.server} is not reachable; dry-run assumes an empty cluster`, { prefix: 'dryrun', verbosity: 1 });
        return fallback;
      }
      throw err;
    }
  }
}

/** The uid the dry run made up for an object it would create (later objects may point at it). */
function placeholder(stored: KubeObject): { placeholderUid?: string } {
  const uid = stored.metadata.uid;
  return uid?.startsWith('dry-run-') ? { placeholderUid: uid } : {};
}

function key(kind: string, name: string, namespace?: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/** Equality selectors only ("k=v,k2=v2"): what tsadm itself uses. */
function matches(obj: KubeObject, options: ListOptions): boolean {
  const check = (selector: string | undefined, get: (k: string) => string | undefined): boolean =>
    !selector || selector.split(',').every((term) => {
      const [k, v] = term.split('=');
      return get((k ?? '').trim()) === (v ?? '').trim();
    });
  return check(options.labelSelector, (k) => obj.metadata.labels?.[k])
    && check(options.fieldSelector, (k) => (k === 'type' ? (obj as { type?: string }).type : k === 'metadata.name' ? obj.metadata.name : undefined));
}

/** Secret values never reach the log, not even in dry-run. */
function dumpRedacted(obj: KubeObject): string {
  const data = (obj as { data?: Record<string, unknown> }).data;
  const shown = obj.kind === 'Secret' && data ? { ...obj, data: Object.fromEntries(Object.keys(data).map((k) => [k, '<redacted>'])) } : obj;
  return toKubeYaml(shown);
}

function indentTab(text: string): string {
  return text.replace(/\n$/, '').split('\n').map((l) => `\t${l}`).join('\n');
}
