/**
 * The parts of a CA rotation that go through the API seam: the state ConfigMap (read, and changed
 * with a re-read on every conflict so two nodes finishing at once both count), the Nodes at start,
 * the key hand-off Secret, the read access workers get, and the cluster-wide actions of the node
 * that closes a step (cluster-info, waiting for the controller-manager's kube-root-ca.crt, rolling
 * kube-proxy and CoreDNS, re-issuing legacy token Secrets, deleting the key Secrets).
 *
 * Against a real kube-apiserver v1.20.2 (test/integration/rotate-ca-cluster.test.ts): the state
 * with its Nodes, its conflicts and the kubelet's access to it, the key hand-off and its expiring
 * owner. NOT YET EXERCISED AGAINST A REAL CLUSTER: the cluster actions (cluster-info, the wait for
 * kube-root-ca.crt, the add-on rollouts, legacy tokens; the e2e on the HA harness is to drive them).
 * The pure decisions it acts on (state.ts, handoff.ts) are unit-tested.
 */
import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { DEFAULTS, KUBE_SYSTEM } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { ConfigMapObject, KubeApi, KubeObject, NodeObject, SecretObject } from '../../kube/types.js';
import type { Logger } from '../../log/events.js';
import { secretControllerRef } from '../../certs/kubeadm-certs-secret.js';
import { group, role, roleBinding } from '../../kube/rbac.js';
import { parsePublicKeyPem } from '../../pki/keys.js';
import { generateToken } from '../../token/bootstrap-token.js';
import { tokenToSecret } from '../../token/secret.js';
import { withClusterCA } from '../kubeconfig-credentials.js';
import { bundlePem, samePemBlocks } from './bundle.js';
import { KEYS_SECRET, KEYS_TOKEN_DESCRIPTION, keysFromSecret, keysSecret } from './handoff.js';
import type { NewKeys } from './plan.js';
import { decodeState, encodeState, STATE_CONFIGMAP, STATE_KEY, type ClusterAction, type NodeRole, type RotationState } from './state.js';

const KUBE_PUBLIC = 'kube-public';
const NODES_GROUP = 'system:nodes';
const STATE_READER = 'tsadm:rotate-ca-state';

function stateOf(cm: ConfigMapObject | undefined): RotationState | undefined {
  const text = cm?.data?.[STATE_KEY];
  return text === undefined ? undefined : decodeState(text);
}

export async function readRotation(api: KubeApi): Promise<RotationState | undefined> {
  return stateOf(await api.get<ConfigMapObject>('ConfigMap', STATE_CONFIGMAP, KUBE_SYSTEM));
}

/** Applies FN to the live state and stores the result; on a conflict FN runs again on what is stored then. */
export async function updateRotation(api: KubeApi, fn: (live: RotationState | undefined) => RotationState): Promise<RotationState> {
  const build = (live: ConfigMapObject | undefined): ConfigMapObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: STATE_CONFIGMAP, namespace: KUBE_SYSTEM, ...(live?.metadata.resourceVersion ? { resourceVersion: live.metadata.resourceVersion } : {}) },
    data: { [STATE_KEY]: encodeState(fn(stateOf(live))) },
  });
  const live = await api.get<ConfigMapObject>('ConfigMap', STATE_CONFIGMAP, KUBE_SYSTEM);
  const { object } = await api.ensure(build(live), 'update', build);
  return stateOf(object) as RotationState;
}

/** Every Node and its role (the control-plane label of 1.20+, or the master label of older clusters). */
export async function clusterNodes(api: KubeApi): Promise<Record<string, NodeRole>> {
  const out: Record<string, NodeRole> = {};
  for (const n of await api.list<NodeObject>('Node', undefined)) {
    const labels = n.metadata.labels ?? {};
    const cp = 'node-role.kubernetes.io/control-plane' in labels || 'node-role.kubernetes.io/master' in labels;
    out[n.metadata.name] = cp ? 'control-plane' : 'worker';
  }
  return out;
}

/**
 * Workers read and record their progress in the state with their own credentials (kubelet.conf):
 * a Role for system:nodes on that one ConfigMap. The state holds public material only.
 */
export async function grantNodesState(api: KubeApi): Promise<void> {
  await api.ensure(role(STATE_READER, KUBE_SYSTEM, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [STATE_CONFIGMAP], verbs: ['get', 'update'] }]));
  await api.ensure(roleBinding(STATE_READER, KUBE_SYSTEM, STATE_READER, [group(NODES_GROUP)]));
}

/** The new keys, encrypted, owned by a bootstrap token that expires after TTL_MS (upload-certs' way). */
export async function uploadKeys(api: KubeApi, id: string, keys: NewKeys, rotationKey: string, now: Date, ttlMs = DEFAULTS.uploadCertsTokenTtlMs): Promise<void> {
  // the token authenticates nobody (no usages, no groups): it exists for its expiry
  const proxy = tokenToSecret({ token: generateToken(), description: KEYS_TOKEN_DESCRIPTION, ttlMs, usages: [], groups: [] }, now);
  const { object: stored } = await api.ensure(proxy);
  await api.ensure(keysSecret(id, keys, rotationKey, secretControllerRef(stored)));
}

export async function fetchKeys(api: KubeApi, id: string, rotationKey: string): Promise<NewKeys> {
  const secret = await api.get<SecretObject>('Secret', KEYS_SECRET, KUBE_SYSTEM);
  if (!secret) {
    throw new TsadmError('E_PRECONDITION', `Secret ${KUBE_SYSTEM}/${KEYS_SECRET} is gone (it expires ${DEFAULTS.uploadCertsTokenTtlMs / 3_600_000} hours after start)`, {
      hint: 'run "tsadm certs rotate-ca start --upload-keys" on a control plane that already staged the keys, then use the rotation key it prints',
    });
  }
  return keysFromSecret(secret, id, rotationKey);
}

export interface ActionDeps {
  readonly api: KubeApi;
  readonly log: Pick<Logger, 'info' | 'warn'>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly timeoutMs?: number;
}

/** The trust a cluster-wide action spreads: both CAs, the new alone, or the old alone. */
function trustPem(s: RotationState, trust: 'both' | 'new' | 'old'): string | undefined {
  const m = s.items.cluster;
  if (!m) return undefined;
  return trust === 'both' ? bundlePem(m.old, m.new) : trust === 'new' ? m.new : m.old;
}

/** Runs one cluster action of the step S closes. Each is idempotent: a re-run after a kill repeats it harmlessly. */
export async function runClusterAction(d: ActionDeps, s: RotationState, action: ClusterAction): Promise<void> {
  // what ca.crt (the controller-manager's --root-ca-file) holds once every node has done the step S closes
  const trust = s.phase === 'trust-both' ? 'both' : s.phase === 'rollback' ? 'old' : 'new';
  switch (action.kind) {
    case 'cluster-info':
      return updateClusterInfo(d, trustPem(s, action.trust));
    case 'wait-root-ca-published':
      return waitRootCaPublished(d, trustPem(s, trust));
    case 'restart-addons':
      return restartAddons(d, `${s.id}-${s.phase}`);
    case 'reissue-legacy-sa-tokens':
      return reissueLegacyTokens(d, s.items['service-account']?.old);
    case 'delete-key-secrets':
      await d.api.delete('Secret', KEYS_SECRET, KUBE_SYSTEM);
      // the CAs uploaded for `join --control-plane` are the old ones: a join now would bring them back
      await d.api.delete('Secret', 'kubeadm-certs', KUBE_SYSTEM);
      return;
  }
}

async function updateClusterInfo(d: ActionDeps, trust: string | undefined): Promise<void> {
  if (trust === undefined) return;
  const rebase = (live: ConfigMapObject | undefined): ConfigMapObject => {
    const text = live?.data?.kubeconfig;
    if (!live || text === undefined) throw new TsadmError('E_PRECONDITION', `ConfigMap ${KUBE_PUBLIC}/cluster-info has no kubeconfig`, { hint: 'run "tsadm init phase bootstrap-token" to create it' });
    return { ...live, data: { ...live.data, kubeconfig: withClusterCA(text, 'cluster-info', trust) } };
  };
  const live = await d.api.get<ConfigMapObject>('ConfigMap', 'cluster-info', KUBE_PUBLIC);
  await d.api.ensure(rebase(live), 'update', rebase);
  d.log.info(`cluster-info (${KUBE_PUBLIC}) now carries ${certCount(trust)} CA certificate(s); join commands print the hash of ca.crt's first`);
}

const certCount = (pem: string): number => (pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;

async function poll(d: ActionDeps, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + (d.timeoutMs ?? 300_000);
  const sleep = d.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new TsadmError('E_TIMEOUT', `timed out waiting for ${what}`, { hint: 'check kube-controller-manager\'s log; run "tsadm certs rotate-ca node" again to retry' });
    await sleep(2000);
  }
}

/** The controller-manager's root-ca-cert-publisher copies --root-ca-file (ca.crt) into kube-root-ca.crt of every namespace. */
async function waitRootCaPublished(d: ActionDeps, trust: string | undefined): Promise<void> {
  if (trust === undefined) return;
  d.log.info('Waiting for the controller-manager to publish the new trust in kube-root-ca.crt');
  await poll(d, 'kube-system/kube-root-ca.crt to carry the rotation\'s trust', async () => {
    const cm = await d.api.get<ConfigMapObject>('ConfigMap', 'kube-root-ca.crt', KUBE_SYSTEM);
    const ca = cm?.data?.['ca.crt'];
    return ca !== undefined && samePemBlocks(ca, trust);
  });
}

/** kube-proxy and CoreDNS read the CA of their service account once, at start: roll them, then wait for the rollout. */
async function restartAddons(d: ActionDeps, stamp: string): Promise<void> {
  for (const [kind, name] of [['DaemonSet', 'kube-proxy'], ['Deployment', 'coredns']] as const) {
    const annotate = (live: KubeObject | undefined): KubeObject => {
      if (!live) throw new TsadmError('E_INTERNAL', `${kind} ${name} vanished`);
      const spec = live.spec as { template?: { metadata?: { annotations?: Record<string, string> } } };
      const template = spec.template ?? {};
      const metadata = template.metadata ?? {};
      return { ...live, spec: { ...spec, template: { ...template, metadata: { ...metadata, annotations: { ...metadata.annotations, 'tsadm.io/rotate-ca': stamp } } } } };
    };
    const live = await d.api.get(kind, name, KUBE_SYSTEM);
    if (!live) {
      d.log.warn(`${kind} ${KUBE_SYSTEM}/${name} not found: not restarted`);
      continue;
    }
    await d.api.ensure(annotate(live), 'update', annotate);
    d.log.info(`Restarting ${kind} ${KUBE_SYSTEM}/${name} so its pods read the new trust`);
    await poll(d, `${kind} ${name} to roll out`, async () => rolledOut(await d.api.get(kind, name, KUBE_SYSTEM)));
  }
}

function rolledOut(o: KubeObject | undefined): boolean {
  if (!o) return false;
  const generation = (o.metadata as { generation?: number }).generation;
  const st = (o.status ?? {}) as Record<string, number | undefined>;
  if (generation !== undefined && (st.observedGeneration ?? 0) < generation) return false;
  if (o.kind === 'DaemonSet') return st.updatedNumberScheduled === st.desiredNumberScheduled && st.numberAvailable === st.desiredNumberScheduled;
  const replicas = (o.spec as { replicas?: number } | undefined)?.replicas ?? 1;
  return st.updatedReplicas === replicas && st.availableReplicas === replicas;
}

/**
 * Legacy token Secrets (kubernetes.io/service-account-token, one per ServiceAccount in 1.20) are
 * signed once and never expire; the tokens controller signs a new token only for a Secret whose
 * token is empty (its secretUpdateNeeded). So every such token the old key signed is emptied, and
 * the controller-manager, which signs with the new key since sign-new, fills it again.
 */
async function reissueLegacyTokens(d: ActionDeps, oldPub: string | undefined): Promise<void> {
  if (oldPub === undefined) return;
  const key = parsePublicKeyPem(oldPub, 'old service-account public key');
  const secrets = await d.api.list<SecretObject>('Secret', undefined, { fieldSelector: 'type=kubernetes.io/service-account-token' });
  let n = 0;
  for (const s of secrets) {
    const token = s.data?.token === undefined ? undefined : Buffer.from(s.data.token, 'base64').toString('utf8');
    if (token === undefined || !signedBy(token, key)) continue;
    const empty = (live: SecretObject | undefined): SecretObject => {
      const base = live ?? s;
      const { token: _old, ...data } = base.data ?? {};
      return { ...base, data };
    };
    await d.api.ensure(empty(s), 'update', empty);
    n++;
  }
  d.log.info(`${n} legacy service-account token Secret(s) signed with the old key emptied for the tokens controller to sign anew`);
}

/** Whether a JWS compact token (RS256/ES256/ES384) was signed by KEY. */
export function signedBy(token: string, key: KeyObject): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [h, p, sig] = parts as [string, string, string];
  let alg: unknown;
  try {
    alg = (JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  } catch {
    return false;
  }
  const hash = alg === 'RS256' || alg === 'ES256' ? 'sha256' : alg === 'ES384' ? 'sha384' : undefined;
  if (!hash) return false;
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return verifySignature(hash, Buffer.from(`${h}.${p}`), { key: pub, ...(String(alg).startsWith('ES') ? { dsaEncoding: 'ieee-p1363' as const } : {}) }, Buffer.from(sig, 'base64url'));
}
