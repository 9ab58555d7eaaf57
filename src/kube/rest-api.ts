import { TsadmError } from '../errors.js';
import { checkFault } from '../host/fault.js';
import { emitObject, type ApiLog } from './api-log.js';
import { cloneJson } from './clone.js';
import { comparableView, isSubset, mergePatch } from './compare.js';
import { errorFromNetwork, errorFromResponse, isAlreadyExists, isConflict } from './errors.js';
import { describeObject, resourceInfo, resourcePath } from './resources.js';
import { DEFAULT_RETRY, realSleep, withRetry, type RetryPolicy, type Sleep } from './retry.js';
import type { RestRequest, RestTransport } from './transport.js';
import type {
  DeleteOptions, EnsureMode, EnsureResult, KindName, KubeApi, KubeObject, ListOptions, MutableNode, NodeMutation, NodeObject, PatchNodeOptions, Rebase,
} from './types.js';

export interface RestKubeApiOptions {
  readonly log?: ApiLog;
  readonly retry?: RetryPolicy;
  readonly sleep?: Sleep;
  readonly now?: () => number;
}

/** How often ensure() re-reads and retries after losing a race (conflict, already exists). */
const MAX_RACES = 5;

/** KubeApi against a real API server (kubeadm's apiclient idempotency helpers, as one generic path). */
export class RestKubeApi implements KubeApi {
  readonly server: string;
  private readonly retry: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly now: () => number;

  constructor(private readonly transport: RestTransport, private readonly opts: RestKubeApiOptions = {}) {
    this.server = transport.server;
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
  }

  async get<T extends KubeObject = KubeObject>(kind: KindName, name: string, namespace?: string): Promise<T | undefined> {
    const res = await this.call(`get ${describeObject(kind, name, namespace)}`, { method: 'GET', path: resourcePath(kind, namespace, name) }, { allow404: true });
    return res === undefined ? undefined : withTypeMeta(res as T, kind);
  }

  async list<T extends KubeObject = KubeObject>(kind: KindName, namespace: string | undefined, options: ListOptions = {}): Promise<T[]> {
    const query: Record<string, string> = {};
    if (options.labelSelector) query.labelSelector = options.labelSelector;
    if (options.fieldSelector) query.fieldSelector = options.fieldSelector;
    const path = resourcePath(kind, resourceInfo(kind).namespaced ? namespace : undefined);
    const res = (await this.call(`list ${resourceInfo(kind).plural}`, { method: 'GET', path, query })) as { items?: T[] } | undefined;
    return (res?.items ?? []).map((item) => withTypeMeta(item, kind));
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    const { kind, metadata } = obj;
    const created = await this.call(`create ${describeObject(kind, metadata.name, metadata.namespace)}`, {
      method: 'POST',
      path: resourcePath(kind, metadata.namespace),
      body: obj,
    }, { mutating: true });
    emitObject(this.opts.log, 'created', obj);
    return withTypeMeta(created as T, kind as KindName);
  }

  async ensure<T extends KubeObject>(first: T, mode: EnsureMode = 'update', rebase?: Rebase<T>): Promise<EnsureResult<T>> {
    const { kind, metadata } = first;
    const what = describeObject(kind, metadata.name, metadata.namespace);
    for (let race = 0; race < MAX_RACES; race++) {
      const existing = await this.get<T>(kind as KindName, metadata.name, metadata.namespace);
      const desired = rebase ? rebase(existing) : first;
      if (!existing) {
        try {
          return { action: 'created', object: await this.create(desired) };
        } catch (err) {
          if (isAlreadyExists(err)) continue; // someone else created it: compare with theirs
          throw err;
        }
      }
      if (mode === 'retain' || isSubset(comparableView(desired), existing)) {
        emitObject(this.opts.log, 'unchanged', desired);
        return { action: 'unchanged', object: existing };
      }
      try {
        const updated = await this.call(`update ${what}`, {
          method: 'PUT',
          path: resourcePath(kind, metadata.namespace, metadata.name),
          body: updateBody(desired, existing),
        }, { mutating: true });
        emitObject(this.opts.log, 'updated', desired);
        return { action: 'updated', object: withTypeMeta(updated as T, kind as KindName) };
      } catch (err) {
        if (isConflict(err)) continue; // changed under us: re-read and compare again
        throw err;
      }
    }
    throw new TsadmError('E_API', `${what} kept changing while tsadm updated it`, { hint: 'another client is writing the same object; stop it or run the command again' });
  }

  async delete(kind: KindName, name: string, namespace?: string, options: DeleteOptions = {}): Promise<boolean> {
    const body = options.propagationPolicy ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: options.propagationPolicy } } : {};
    const res = await this.call(`delete ${describeObject(kind, name, namespace)}`, { method: 'DELETE', path: resourcePath(kind, namespace, name), ...body }, { mutating: true, allow404: true });
    if (res === undefined) return false;
    emitObject(this.opts.log, 'deleted', { kind, metadata: { name, ...(namespace ? { namespace } : {}) } });
    return true;
  }

  async updateSubresource<T extends KubeObject>(obj: T, subresource: 'approval'): Promise<T> {
    const { kind, metadata } = obj;
    const what = `update ${describeObject(kind, metadata.name, metadata.namespace)} (${subresource})`;
    const stored = await this.call(what, { method: 'PUT', path: `${resourcePath(kind, metadata.namespace, metadata.name)}/${subresource}`, body: obj }, { mutating: true });
    emitObject(this.opts.log, 'updated', obj);
    return withTypeMeta(stored as T, kind as KindName);
  }

  async patchNode(name: string, mutate: NodeMutation, options: PatchNodeOptions): Promise<'patched' | 'unchanged'> {
    const start = this.now();
    const interval = options.intervalMs ?? 500;
    let lastProblem = 'it was not found';
    for (;;) {
      const node = await this.get<NodeObject>('Node', name);
      if (node && (!options.ready || options.ready(node))) {
        const before = editableNode(node);
        const after = cloneJson(before);
        mutate(after);
        const patch = mergePatch(before, after);
        if (Object.keys(patch).length === 0) {
          emitObject(this.opts.log, 'unchanged', node);
          return 'unchanged';
        }
        // resourceVersion makes the server refuse the patch if the Node changed since the GET.
        const body = { ...patch, metadata: { ...(patch.metadata as object | undefined), resourceVersion: node.metadata.resourceVersion } };
        try {
          await this.call(`patch Node ${name}`, {
            method: 'PATCH',
            path: resourcePath('Node', undefined, name),
            body,
            contentType: 'application/strategic-merge-patch+json',
          }, { mutating: true });
          emitObject(this.opts.log, 'updated', node);
          return 'patched';
        } catch (err) {
          if (!isConflict(err)) throw err;
          lastProblem = 'it kept changing (conflict)';
        }
      } else if (node) {
        lastProblem = 'it was not ready (no kubernetes.io/hostname label yet)';
      }
      if (this.now() - start + interval > options.timeoutMs) {
        throw new TsadmError('E_TIMEOUT', `timed out after ${Math.round(options.timeoutMs / 1000)}s patching Node "${name}": ${lastProblem}`, {
          hint: 'the kubelet registers the Node; check that it runs and uses this node name (kubectl get nodes, journalctl -u kubelet)',
        });
      }
      await this.sleep(interval);
    }
  }

  async healthz(): Promise<boolean> {
    try {
      const res = await this.transport.request({ method: 'GET', path: '/healthz', timeoutMs: 5000 });
      return res.status === 200 && res.text.trim() === 'ok';
    } catch {
      return false;
    }
  }

  async serverVersion(): Promise<string> {
    const body = await this.call('get the API server version', { method: 'GET', path: '/version' });
    const gitVersion = (body as { gitVersion?: unknown } | undefined)?.gitVersion;
    if (typeof gitVersion !== 'string' || gitVersion === '') {
      throw new TsadmError('E_API', `the API server at ${this.server} answered /version without a gitVersion`, { hint: 'is this a Kubernetes API server?' });
    }
    return gitVersion;
  }

  close(): void {
    this.transport.close();
  }

  /** One request with retries on transient failures; 404 → undefined when allowed. */
  private async call(what: string, req: RestRequest, flags: { mutating?: boolean; allow404?: boolean } = {}): Promise<unknown> {
    const body = await withRetry(async () => {
      this.opts.log?.debug(`${req.method} ${req.path}`, { prefix: 'api', verbosity: 2 });
      let res;
      try {
        res = await this.transport.request(req);
      } catch (err) {
        throw errorFromNetwork(what, err, this.server);
      }
      if (res.status === 404 && flags.allow404) return undefined;
      if (res.status < 200 || res.status > 299) throw errorFromResponse(what, res.status, res.body, this.server);
      return res.body ?? {};
    }, this.retry, {
      sleep: this.sleep,
      now: this.now,
      onRetry: (err, delay) => this.opts.log?.debug(`${(err as Error).message}; retrying in ${delay} ms`, { prefix: 'api', verbosity: 1 }),
    });
    if (flags.mutating && body !== undefined) checkFault('api', what);
    return body;
  }
}

/** PUT body: ours, with the live resourceVersion; a Service keeps its allocated clusterIP(s). */
function updateBody(desired: KubeObject, existing: KubeObject): KubeObject {
  const body: Record<string, unknown> = { ...desired, metadata: { ...desired.metadata, resourceVersion: existing.metadata.resourceVersion } };
  if (desired.kind === 'Service') {
    const spec = { ...((desired as { spec?: object }).spec ?? {}) } as Record<string, unknown>;
    const live = ((existing as { spec?: Record<string, unknown> }).spec ?? {});
    if (!spec.clusterIP && live.clusterIP) spec.clusterIP = live.clusterIP;
    if (!spec.clusterIPs && live.clusterIPs && spec.clusterIP === live.clusterIP) spec.clusterIPs = live.clusterIPs;
    body.spec = spec;
  }
  return body as KubeObject;
}

/** The parts of a Node a mutation may touch, with the maps always present. */
function editableNode(node: NodeObject): MutableNode {
  return {
    metadata: { name: node.metadata.name, labels: { ...(node.metadata.labels ?? {}) }, annotations: { ...(node.metadata.annotations ?? {}) } },
    spec: { ...(node.spec?.taints ? { taints: cloneJson([...node.spec.taints]) } : {}) },
  };
}

/** List items and some answers lack apiVersion/kind; callers rely on them. */
function withTypeMeta<T extends KubeObject>(obj: T, kind: KindName): T {
  if (obj.kind && obj.apiVersion) return obj;
  const r = resourceInfo(kind);
  return { ...obj, kind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version };
}

