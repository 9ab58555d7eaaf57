/**
 * The pure end of `rotate-ca status`: the text report and the exit status of a rotation that is
 * not complete (4, apart from the command's own failures 1–3); and `start` over a --rootfs and an
 * in-memory cluster (below), `node --plan`, and `node` on a worker at sign-new in a dry run (its
 * kubelet's CSRs only announced). The API half against a real cluster is the e2e's.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatStatus, RotationPendingError, runNode, runStart } from '../../../../src/certs-lifecycle/rotate-ca/run.js';
import { decodeState } from '../../../../src/certs-lifecycle/rotate-ca/state.js';
import { KEYS_SECRET, keysFromSecret } from '../../../../src/certs-lifecycle/rotate-ca/handoff.js';
import { DryRunHost } from '../../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { DryRunKubeApi } from '../../../../src/kube/dry-run-api.js';
import type { ConfigMapObject, EnsureMode, KubeApi, KubeObject, NodeObject, Rebase, SecretObject } from '../../../../src/kube/types.js';
import { PhaseLogger } from '../../../../src/log/logger.js';
import type { Runtime } from '../../../../src/run/runtime.js';
import { MemoryReporter } from '../../../helpers/phase-ctx.js';
import { openssl } from '../../../helpers/pki-test-utils.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';
import { markDone, markStarted, startRotation, statusOf, type RotationState } from '../../../../src/certs-lifecycle/rotate-ca/state.js';
import { updateRotation } from '../../../../src/certs-lifecycle/rotate-ca/cluster.js';
import { realSystem } from '../../../../src/host/system-probe.js';

const T0 = new Date('2026-11-29T10:00:00Z');

test('one row per node with its done and interrupted steps, what to run next, and whether abort is possible', () => {
  let s = startRotation(undefined, { id: 'ab12cd34', now: T0, startedOn: 'cp1', items: { cluster: { old: 'o', new: 'n' } }, nodes: { cp1: 'control-plane', 'worker-long-name': 'worker' }, saGraceSeconds: 0 });
  s = markStarted(markDone(s, 'cp1', T0), 'worker-long-name');
  expect(formatStatus(statusOf(s, T0)).split('\n')).toEqual([
    'CA rotation ab12cd34: trust-both (cluster)',
    '',
    'NODE              ROLE           DONE         IN PROGRESS',
    'cp1               control-plane  trust-both   -',
    'worker-long-name  worker         -            trust-both',
    '',
    'next: run "tsadm certs rotate-ca node" on worker-long-name (worker, interrupted during trust-both: run it again)',
    'abort: possible ("tsadm certs rotate-ca abort")',
  ]);
});

test('a pending rotation exits 4', () => {
  const e = new RotationPendingError('CA rotation x is at sign-new', 'run node on cp2');
  expect([e.exitCode, e.code, e.message, e.hint]).toEqual([4, 'E_PRECONDITION', 'CA rotation x is at sign-new', 'run node on cp2']);
});

/**
 * `start` over a --rootfs control plane (a cluster CA made by openssl, a kube-apiserver manifest)
 * and an in-memory cluster (the dry-run API with no server behind it, which keeps what it is sent):
 * the order of its effects, and --rotation-key-file on the real filesystem.
 */
describe('start', () => {
  const roots: TempRoot[] = [];
  afterAll(() => {
    for (const r of roots) r.cleanup();
  });

  function controlPlane(): TempRoot {
    const r = tempRoot({ '/etc/kubernetes/manifests/kube-apiserver.yaml': 'kind: Pod\n', '/elsewhere/.keep': '' });
    roots.push(r);
    mkdirSync(r.at('/etc/kubernetes/pki'), { recursive: true });
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', r.at('/etc/kubernetes/pki/ca.key'), '-out', r.at('/etc/kubernetes/pki/ca.crt'), '-subj', '/CN=kubernetes', '-days', '1']);
    return r;
  }

  /** A runtime over ROOT whose cluster records every write, with ON_WRITE called before each is kept. */
  async function runtimeOver(root: TempRoot, dryRun: boolean, onWrite: (what: string) => void, now = T0, cluster?: KubeApi): Promise<{ rt: Runtime; reporter: MemoryReporter; api: KubeApi }> {
    const reporter = new MemoryReporter();
    const log = new PhaseLogger(reporter);
    const rooted = new RootedHost(root.dir);
    const store = cluster ?? new DryRunKubeApi(undefined, { info: () => undefined, debug: () => undefined, event: () => undefined });
    if (!cluster) {
      await store.create<NodeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp1', labels: { 'node-role.kubernetes.io/control-plane': '' } } });
      await store.create<NodeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp2', labels: { 'node-role.kubernetes.io/control-plane': '' } } });
      await store.create<NodeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } });
    }
    const api: KubeApi = Object.assign(Object.create(store) as KubeApi, {
      ensure: <T extends KubeObject>(o: T, mode?: EnsureMode, rebase?: Rebase<T>) => {
        onWrite(`${o.kind}/${o.metadata.name}`);
        return store.ensure(o, mode, rebase);
      },
    });
    const rt: Runtime = {
      host: dryRun ? new DryRunHost(rooted) : rooted,
      api: { dryRun, open: () => Promise.resolve(api), close: () => undefined },
      log, reporter, verbosity: 0, json: false, dryRun, system: realSystem, startTime: now,
    };
    return { rt, reporter, api };
  }

  test('--rotation-key-file is written on the real filesystem (0600) before the new keys reach the cluster, and decrypts them', async () => {
    const root = controlPlane();
    const keyFile = path.join(root.dir, 'elsewhere', 'rotation.key');
    const seen: { write: string; keyFile: boolean; staged: boolean }[] = [];
    const stagedDir = (): boolean => existsSync(root.at('/etc/kubernetes/tmp'));
    const { rt, api } = await runtimeOver(root, false, (write) => seen.push({ write, keyFile: existsSync(keyFile), staged: stagedDir() }));
    const out = await runStart(rt, { items: ['cluster'], saGraceSeconds: 0, rotationKeyFile: keyFile, nodeName: 'cp1' });
    // Every write to the cluster came after the key file and the staged keys existed.
    expect(seen.map((s) => s.write)).toEqual(expect.arrayContaining([`Secret/${KEYS_SECRET}`, 'ConfigMap/tsadm-rotate-ca']));
    expect(seen.filter((s) => !s.keyFile || !s.staged)).toEqual([]);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    // Not under the rootfs: the path as given.
    expect(existsSync(root.at(keyFile))).toBe(false);
    const key = readFileSync(keyFile, 'utf8').trim();
    const secret = await api.get<SecretObject>('Secret', KEYS_SECRET, 'kube-system');
    const keys = keysFromSecret(secret!, out.id, key);
    expect(keys.cluster).toBe(readFileSync(root.at(`/etc/kubernetes/tmp/tsadm-rotate-ca-${out.id}/new/cluster.key`), 'utf8'));
  });

  test('a dry run writes no --rotation-key-file and says where it would', async () => {
    const root = controlPlane();
    const keyFile = path.join(root.dir, 'elsewhere', 'rotation.key');
    const { rt, reporter } = await runtimeOver(root, true, () => undefined);
    await runStart(rt, { items: ['cluster'], saGraceSeconds: 0, rotationKeyFile: keyFile, nodeName: 'cp1' });
    expect(existsSync(keyFile)).toBe(false);
    expect(existsSync(root.at('/etc/kubernetes/tmp'))).toBe(false);
    expect(reporter.lines()).toContain(`Would write the rotation key to ${keyFile} (0600)`);
  });

  test('an unwritable --rotation-key-file fails before anything reaches the cluster', async () => {
    const root = controlPlane();
    const writes: string[] = [];
    const { rt } = await runtimeOver(root, false, (w) => writes.push(w));
    const err = await tsadmErrorOf(runStart(rt, { items: ['cluster'], saGraceSeconds: 0, rotationKeyFile: path.join(root.dir, 'missing-dir', 'k'), nodeName: 'cp1' }));
    expect([err.code, err.message]).toEqual(['E_PRECONDITION', expect.stringMatching(/^cannot write --rotation-key-file .*missing-dir\/k: /)]);
    expect([writes, existsSync(root.at('/etc/kubernetes/tmp'))]).toEqual([[], false]);
  });

  test('--from: the new CA is the one given (its key staged), and a pair that is no CA is refused before anything is written', async () => {
    const root = controlPlane();
    const from = path.join(root.dir, 'elsewhere', 'new-pki');
    mkdirSync(from, { recursive: true });
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(from, 'ca.key'), '-out', path.join(from, 'ca.crt'), '-subj', '/CN=external-ca', '-days', '30']);
    // openssl's pair starts now: the run starts a little later
    const later = new Date(Date.now() + 2000);
    const { rt, api } = await runtimeOver(root, false, () => undefined, later);
    const out = await runStart(rt, { items: ['cluster'], saGraceSeconds: 0, nodeName: 'cp1', fromDir: from });
    const state = decodeState((await api.get<ConfigMapObject>('ConfigMap', 'tsadm-rotate-ca', 'kube-system'))!.data!['state.json']!);
    expect(state.items.cluster?.new).toBe(readFileSync(path.join(from, 'ca.crt'), 'utf8'));
    expect(openssl(['pkey', '-in', root.at(`/etc/kubernetes/tmp/tsadm-rotate-ca-${out.id}/new/cluster.key`), '-pubout'])).toBe(openssl(['pkey', '-in', path.join(from, 'ca.key'), '-pubout']));

    const refused = controlPlane();
    const leafDir = path.join(refused.dir, 'elsewhere', 'leaf');
    mkdirSync(leafDir, { recursive: true });
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(leafDir, 'ca.key'), '-out', path.join(leafDir, 'ca.crt'), '-subj', '/CN=leaf', '-days', '30', '-addext', 'basicConstraints=critical,CA:FALSE']);
    const writes: string[] = [];
    const second = await runtimeOver(refused, false, (w) => writes.push(w), later);
    const err = await tsadmErrorOf(runStart(second.rt, { items: ['cluster'], saGraceSeconds: 0, nodeName: 'cp1', fromDir: leafDir }));
    expect([err.code, err.message]).toEqual(['E_USAGE', `--from: ${leafDir}/ca.crt is not a CA certificate (no basicConstraints CA:TRUE)`]);
    expect([writes, existsSync(refused.at('/etc/kubernetes/tmp'))]).toEqual([[], false]);
  });

  test('--plan: the rotation key file is written (the planned Secret is sealed with it), the staged keys only planned', async () => {
    const root = controlPlane();
    const keyFile = path.join(root.dir, 'elsewhere', 'rotation.key');
    const { rt } = await runtimeOver(root, true, () => undefined);
    const out = await runStart(rt, { items: ['cluster'], saGraceSeconds: 0, rotationKeyFile: keyFile, nodeName: 'cp1', planWithKeys: true });
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(existsSync(root.at('/etc/kubernetes/tmp'))).toBe(false);
    expect(rt.host.writes.map((w) => w.path)).toContain(`/etc/kubernetes/tmp/tsadm-rotate-ca-${out.id}/new/cluster.key`);
  });
});

describe('node --plan', () => {
  const roots: TempRoot[] = [];
  afterAll(() => {
    for (const r of roots) r.cleanup();
  });

  /** A rotation started on cp1 (for real, over an in-memory cluster), and a dry-run runtime over the same cluster. */
  async function started(): Promise<{ id: string; root: TempRoot; plan: Runtime; cluster: KubeApi }> {
    const root = tempRoot({ '/etc/kubernetes/manifests/kube-apiserver.yaml': 'kind: Pod\n' });
    roots.push(root);
    mkdirSync(root.at('/etc/kubernetes/pki'), { recursive: true });
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', root.at('/etc/kubernetes/pki/ca.key'), '-out', root.at('/etc/kubernetes/pki/ca.crt'), '-subj', '/CN=kubernetes', '-days', '1']);
    const reporter = new MemoryReporter();
    const store = new DryRunKubeApi(undefined, { info: () => undefined, debug: () => undefined, event: () => undefined });
    await store.create<NodeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp1', labels: { 'node-role.kubernetes.io/control-plane': '' } } });
    await store.create<NodeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp2', labels: { 'node-role.kubernetes.io/control-plane': '' } } });
    const seam = { dryRun: false, open: () => Promise.resolve(store as KubeApi), close: () => undefined };
    const real: Runtime = { host: new RootedHost(root.dir), api: seam, log: new PhaseLogger(reporter), reporter, verbosity: 0, json: false, dryRun: false, system: realSystem, startTime: T0 };
    const { id } = await runStart(real, { items: ['cluster'], saGraceSeconds: 0, nodeName: 'cp1' });
    const plan: Runtime = { ...real, host: new DryRunHost(new RootedHost(root.dir)), api: { ...seam, dryRun: true }, dryRun: true };
    return { id, root, plan, cluster: store };
  }

  test('records one node step naming the rotation and its phase, and changes nothing', async () => {
    const { id, root, plan } = await started();
    const before = readFileSync(root.at('/etc/kubernetes/pki/ca.crt'), 'utf8');
    const out = await runNode(plan, { nodeName: 'cp1', planning: true, kubeconfig: '/etc/kubernetes/admin.conf' });
    expect(out).toEqual({ id, step: 'trust-both', changed: 0, reissued: [], phase: 'trust-both' });
    const journal = (plan.host as DryRunHost).journal;
    expect(journal.steps.map((s) => s.type)).toEqual(['certs-rotate-ca-node']);
    expect(journal.steps[0]).toEqual(expect.objectContaining({ type: 'certs-rotate-ca-node', id, rotationPhase: 'trust-both', nodeName: 'cp1', kubeconfig: '/etc/kubernetes/admin.conf' }));
    expect(readFileSync(root.at('/etc/kubernetes/pki/ca.crt'), 'utf8')).toBe(before);
  });

  test('a control plane without the staged keys needs --rotation-key-file; applying refuses a rotation that moved on', async () => {
    const { id, plan } = await started();
    // cp2: another machine, without the keys cp1 staged
    const cp2 = tempRoot({ '/etc/kubernetes/manifests/kube-apiserver.yaml': 'kind: Pod\n' });
    roots.push(cp2);
    const e = await tsadmErrorOf(runNode({ ...plan, host: new DryRunHost(new RootedHost(cp2.dir)) }, { nodeName: 'cp2', planning: true }));
    expect([e.code, e.message]).toEqual(['E_USAGE', expect.stringMatching(/with --plan, give the rotation key as --rotation-key-file/)]);
    const applied: Runtime = { ...plan, host: new RootedHost(plan.host.root), api: { ...plan.api, dryRun: false }, dryRun: false };
    const moved = await tsadmErrorOf(runNode(applied, { nodeName: 'cp1', expectRotation: { id, phase: 'sign-new' } }));
    expect([moved.code, moved.message]).toEqual(['E_CONFLICT', `CA rotation ${id} is at trust-both, not ${id} at sign-new as when the plan was made`]);
  });
});

describe('node on a worker at sign-new', () => {
  const roots: TempRoot[] = [];
  afterAll(() => {
    for (const r of roots) r.cleanup();
  });

  test('a dry run says which CSR it would make for the kubelet, makes none, and changes no file', async () => {
    const root = tempRoot({ '/s/.keep': '' });
    roots.push(root);
    const ca = (name: string): string => {
      openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', root.at(`/s/${name}.key`), '-out', root.at(`/s/${name}.crt`), '-subj', `/CN=${name}`, '-days', '1']);
      return readFileSync(root.at(`/s/${name}.crt`), 'utf8');
    };
    const [oldCa, newCa] = [ca('old'), ca('new')];
    // The worker as trust-both left it: ca.crt and kubelet.conf trust both, the kubelet's client certificate from the old CA.
    mkdirSync(root.at('/etc/kubernetes/pki'), { recursive: true });
    writeFileSync(root.at('/etc/kubernetes/pki/ca.crt'), oldCa + newCa);
    writeFileSync(root.at('/etc/kubernetes/kubelet.conf'), [
      'apiVersion: v1', 'kind: Config', 'clusters:', '- name: kubernetes', '  cluster:', `    certificate-authority-data: ${Buffer.from(oldCa + newCa).toString('base64')}`, '    server: https://10.0.0.1:6443',
      'contexts:', '- name: default', '  context:', '    cluster: kubernetes', '    user: default', 'current-context: default',
      'users:', '- name: default', '  user:', '    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem', '    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem', '',
    ].join('\n'));
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', root.at('/s/k.pem'), '-subj', '/O=system:nodes/CN=system:node:w1', '-out', root.at('/s/k.csr')]);
    openssl(['x509', '-req', '-in', root.at('/s/k.csr'), '-CA', root.at('/s/old.crt'), '-CAkey', root.at('/s/old.key'), '-set_serial', '7', '-days', '1', '-out', root.at('/s/k.crt')]);
    mkdirSync(root.at('/var/lib/kubelet/pki'), { recursive: true });
    const pair = readFileSync(root.at('/s/k.crt'), 'utf8') + readFileSync(root.at('/s/k.pem'), 'utf8');
    writeFileSync(root.at('/var/lib/kubelet/pki/kubelet-client-current.pem'), pair, { mode: 0o600 });

    const store = new DryRunKubeApi(undefined, { info: () => undefined, debug: () => undefined, event: () => undefined });
    const started = startRotation(undefined, { id: 'ab12cd34', now: T0, startedOn: 'cp1', items: { cluster: { old: oldCa, new: newCa } }, nodes: { cp1: 'control-plane', w1: 'worker' }, saGraceSeconds: 0 });
    const atSignNew: RotationState = { ...started, phase: 'sign-new', nodes: { cp1: { role: 'control-plane', done: 'sign-new' }, w1: { role: 'worker', done: 'trust-both' } } };
    await updateRotation(store, () => atSignNew);
    const reporter = new MemoryReporter();
    const rt: Runtime = {
      host: new DryRunHost(new RootedHost(root.dir)), api: { dryRun: true, open: () => Promise.resolve(store as KubeApi), close: () => undefined },
      log: new PhaseLogger(reporter), reporter, verbosity: 0, json: false, dryRun: true, system: realSystem, startTime: T0,
    };
    const out = await runNode(rt, { nodeName: 'w1' });
    expect([out.step, out.reissued]).toEqual(['sign-new', []]);
    expect(reporter.lines()).toContainEqual(expect.stringMatching(/^Would request the kubelet's kubelet client certificate from kubernetes\.io\/kube-apiserver-client-kubelet for "system:node:w1"/));
    expect(await store.list('CertificateSigningRequest', undefined)).toEqual([]);
    expect(readFileSync(root.at('/var/lib/kubelet/pki/kubelet-client-current.pem'), 'utf8')).toBe(pair);
    expect(existsSync(root.at('/etc/kubernetes/tmp'))).toBe(false);
  });
});
