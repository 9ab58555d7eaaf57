/**
 * Issue 9 on real machines (harness s1 = control plane, s2 = worker; real kubelet, containerd,
 * etcd and apiserver v1.20.2):
 *  - crash safety of a full `tsadm init` for a sample of kill points (file writes and API calls,
 *    TSADM_FAULT_AFTER=N, a real SIGKILL): re-running init ends with the same files and modes as
 *    a clean run, a consistent PKI, the same in-cluster objects, and a healthy control plane;
 *    the same for a worker `tsadm join` at a few kill points;
 *  - dry runs of init, token create, certs renew and reset on the live control plane, and of
 *    join on the worker, change neither machine nor the cluster;
 *  - the machine lock: a second init while one runs exits 1 naming the holder.
 * The rootfs-level sweeps over every kill point are in test/integration/safety.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  cacheDir, createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, nodeBin, nodeReadiness, provision, requireComponents, tsadmBin, waitFor,
  writeSharedFile, type ExecOptions, type ExecResult, type Machine,
} from './harness.js';
import { heavyFile } from './heavy-files.js';
import { verifyPki } from '../helpers/pki-check.js';
import { TEMP_NAME, fileModes, snapshot } from '../helpers/built-cli.js';

const CP: Machine = { name: 's1', ip: '10.250.0.41' };
const WORKER: Machine = { name: 's2', ip: '10.250.0.42' };
const MIN = 60_000;
const TOKEN = 'safe01.0123456789abcdef';

/**
 * Kill points are chosen by what they hit, from a clean run's trace (TSADM_FAULT_TRACE=1 prints
 * "tsadm: fault point write #N (/path)" / "api #N (create Secret …)" for every write and
 * mutating API call), so the sample keeps its meaning when phases add or move writes.
 */
const INIT_TARGETS: readonly [string, RegExp][] = [
  ['the first key', /^write .*\/pki\/ca\.key$/],
  ['a leaf certificate', /^write .*\/pki\/apiserver\.crt$/],
  ['the service-account public key', /^write .*\/pki\/sa\.pub$/],
  ['a kubeconfig', /^write .*\/admin\.conf$/],
  ['the kubelet configuration', /^write \/var\/lib\/kubelet\/config\.yaml$/],
  ['the apiserver manifest', /^write .*\/kube-apiserver\.yaml$/],
  ['the etcd manifest', /^write .*\/etcd\.yaml$/],
  ['the first API call', /^api /],
  ['the bootstrap token', /^api .*bootstrap-token/],
  ['the last API call', /^api /], // the last match: see pick()
];
/** A worker join has few kill points: every one of them is tried (the clean join lists them). */
const JOIN_MAX_POINTS = 12;

interface FaultPoint {
  readonly n: number;
  /** "write /path" or "api <what>". */
  readonly what: string;
}

/** The kill points a run passed, from its TSADM_FAULT_TRACE output. */
function tracePoints(stderr: string): FaultPoint[] {
  return [...stderr.matchAll(/^tsadm: fault point (write|api) #(\d+) \((.*)\)$/gm)].map((m) => ({ n: Number(m[2]), what: `${m[1]} ${m[3]}` }));
}

/** For each target, the first point it matches (the last-API target: the last API point). */
function pick(points: FaultPoint[], targets: readonly [string, RegExp][]): [string, FaultPoint][] {
  const out: [string, FaultPoint][] = [];
  for (const [label, re] of targets) {
    const p = label === 'the last API call' ? [...points].reverse().find((x) => x.what.startsWith('api ')) : points.find((x) => re.test(x.what));
    if (p) out.push([`${label} (#${p.n}, ${p.what})`, p]);
  }
  return out;
}

/**
 * tsadm inside a machine: bin/tsadm, or $TSADM_TEST_BIN (a build under the shared cache, which
 * machines see at the same path) to try a candidate build.
 */
function tsadm(machine: string, args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  return machineExec(machine, [nodeBin(), process.env.TSADM_TEST_BIN ?? tsadmBin(), ...args], opts);
}

let configPath: string;
let allConfigPath: string;
let initPoints: FaultPoint[] = [];
const report: string[] = [];

// Heavy (several control planes; may run beside the other such files, not beside ha): test/e2e/heavy-files.ts.
heavyFile('together');

beforeAll(async () => {
  await provision();
  requireComponents();
  for (const m of [CP, WORKER]) await destroyMachine(m.name).catch(() => undefined);
  await Promise.all([CP, WORKER].map((m) => createMachine(m.name, m.ip)));
  // A fixed bootstrap token: a re-run must end with the same objects as one clean run.
  const config = (await kubeadmConfig(CP.ip, CP.name)).replace('kind: InitConfiguration\n', `kind: InitConfiguration\nbootstrapTokens:\n- token: ${TOKEN}\n`);
  configPath = writeSharedFile(`safety-${CP.name}.yaml`, config);
  // --ignore-preflight-errors=all may not be combined with the file's individual ImagePull entry
  // (kubeadm's ValidateIgnorePreflightErrors): the runs that pass `all` use the file without it.
  const withoutImagePull = config.replace('  ignorePreflightErrors:\n  - ImagePull\n', '');
  if (withoutImagePull === config) throw new Error('scripts/e2e/kubeadm-config.sh no longer ignores ImagePull: update this test');
  allConfigPath = writeSharedFile(`safety-${CP.name}-all.yaml`, withoutImagePull);
}, 20 * MIN);

afterAll(async () => {
  for (const m of [CP, WORKER]) await destroyMachine(m.name).catch(() => undefined);
  if (report.length) process.stdout.write(`safety e2e kill points:\n${report.join('\n')}\n`);
}, 5 * MIN);

/** The node's tsadm-managed files, copied out of the machine (its /etc is a private overlay). */
function copyOut(machine: Machine): string {
  const dir = mkdtempSync(path.join(tmpdir(), `tsadm-safety-${machine.name}-`));
  const tar = path.join(cacheDir(), 'e2e-scratch', `safety-${machine.name}-${process.pid}.tar`);
  execFileSync('bash', [path.join(process.cwd(), 'scripts/e2e/machine.sh'), 'exec', machine.name, '--', 'sh', '-c',
    `cd / && tar -cf ${tar} etc/kubernetes var/lib/kubelet/config.yaml var/lib/kubelet/kubeadm-flags.env 2>/dev/null; true`]);
  execFileSync('tar', ['-xpf', tar, '-C', dir]);
  rmSync(tar, { force: true });
  // Not tsadm's output: the resume state of issue 10 and files a reference kubeadm left in tmp.
  rmSync(path.join(dir, 'etc/kubernetes/tmp'), { recursive: true, force: true });
  return dir;
}

/** Names of the objects init creates (kubeadm's upload-config, bootstrap-token, addons). */
const INIT_OBJECT = /^(kubeadm[:-]|kube-proxy|coredns|kube-dns|cluster-info|bootstrap-token-|kubelet-config-|system:coredns$)/;

/** Objects init creates (kind/namespace/name), tokens by id; the cluster's own objects left out. */
async function initObjects(machine: Machine): Promise<string[]> {
  const lists = [
    ['configmaps', 'kube-system'], ['configmaps', 'kube-public'], ['secrets', 'kube-system'], ['roles', 'kube-system'], ['roles', 'kube-public'],
    ['rolebindings', 'kube-system'], ['rolebindings', 'kube-public'], ['deployments', 'kube-system'], ['daemonsets', 'kube-system'],
    ['services', 'kube-system'], ['serviceaccounts', 'kube-system'], ['clusterroles', ''], ['clusterrolebindings', ''],
  ];
  const out: string[] = [];
  for (const [kind, ns] of lists) {
    const json = JSON.parse(await kubectl(machine.name, ['get', kind as string, '-o', 'json', ...(ns ? ['-n', ns] : [])])) as { items: unknown };
    for (const item of json.items as { metadata: { name: string } }[]) {
      const name = item.metadata.name;
      // Only what init creates: the controllers add service accounts and their token Secrets
      // (coredns-token-xxxxx) over time.
      if (!INIT_OBJECT.test(name) || /-token-[a-z0-9]{5}$/.test(name)) continue;
      out.push(`${kind}/${ns}/${name}`);
    }
  }
  const node = JSON.parse(await kubectl(machine.name, ['get', 'node', machine.name, '-o', 'json'])) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { taints?: { key: string; effect: string }[] } };
  out.push(...Object.keys(node.metadata.labels).filter((l) => l.startsWith('node-role')).map((l) => `node-label/${l}`));
  // The node-role taint is init's; condition taints (not-ready) come and go with the kubelet.
  out.push(...(node.spec.taints ?? []).filter((t) => t.key.startsWith('node-role.')).map((t) => `node-taint/${t.key}:${t.effect}`));
  return out.sort();
}

/** apiserver (with etcd), controller-manager and scheduler answer healthy. */
async function controlPlaneHealthy(machine: Machine): Promise<void> {
  await waitFor(async () => {
    const r = await machineExec(machine.name, ['sh', '-c',
      'kubectl --kubeconfig /etc/kubernetes/admin.conf get --raw /readyz && curl -sfk https://127.0.0.1:10257/healthz && curl -sfk https://127.0.0.1:10259/healthz'], { reject: false });
    return r.exitCode === 0 && r.stdout === 'okokok';
  }, 4 * MIN, `control plane of ${machine.name} healthy`);
}

async function reset(machine: Machine): Promise<void> {
  await tsadm(machine.name, ['reset', '--force'], { timeoutMs: 3 * MIN });
}

const killed = (r: ExecResult): boolean => r.exitCode === 137 || /fault injected after/.test(r.stderr);

/** sha256 pin of the control plane's current CA (it changes with every init after a reset). */
async function caHash(): Promise<string> {
  const pem = (await machineExec(CP.name, ['cat', '/etc/kubernetes/pki/ca.crt'])).stdout;
  return `sha256:${createHash('sha256').update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' })).digest('hex')}`;
}
const hit = (r: ExecResult): string => /fault injected after (.*)/.exec(r.stderr)?.[1] ?? 'not reached (the run completed)';

describe('crash safety of a full init on a real machine', () => {
  let cleanFiles: Record<string, string> = {};
  let cleanObjects: string[] = [];

  test('a clean init: the reference files, modes and objects', async () => {
    const r = await tsadm(CP.name, ['init', '--config', configPath], { timeoutMs: 8 * MIN, env: { TSADM_FAULT_TRACE: '1' } });
    expect(r.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
    initPoints = tracePoints(r.stderr);
    report.push(`a full init passes ${initPoints.length} kill points (${initPoints.filter((p) => p.what.startsWith('write')).length} writes, ${initPoints.filter((p) => p.what.startsWith('api')).length} API calls)`);
    expect(pick(initPoints, INIT_TARGETS).map(([label]) => label.split(' (')[0])).toEqual(INIT_TARGETS.map(([label]) => label));
    await controlPlaneHealthy(CP);
    const dir = copyOut(CP);
    try {
      cleanFiles = fileModes(snapshot(dir));
      expect(verifyPki(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    cleanObjects = await initObjects(CP);
    expect(cleanObjects).toEqual(expect.arrayContaining(['configmaps/kube-system/kubeadm-config', `secrets/kube-system/bootstrap-token-${TOKEN.slice(0, 6)}`, 'daemonsets/kube-system/kube-proxy']));
  }, 12 * MIN);

  test.each(INIT_TARGETS.map(([label]) => label))('killed right after %s, init re-run: same files, PKI, objects; healthy', async (label) => {
    const [, point] = pick(initPoints, INIT_TARGETS).find(([l]) => l.startsWith(label)) ?? [];
    expect(point).toBeDefined();
    const n = point?.n ?? 0;
    await reset(CP);
    const faulty = await tsadm(CP.name, ['init', '--config', configPath], { reject: false, timeoutMs: 8 * MIN, env: { TSADM_FAULT_AFTER: String(n) } });
    report.push(`init, ${label}: N=${n}, hit ${hit(faulty)}`);
    expect(killed(faulty)).toBe(true);
    // The re-run meets the debris of the first (running static pods, existing files): kubeadm's
    // answer is --ignore-preflight-errors, and every phase must then finish the job.
    const rerun = await tsadm(CP.name, ['init', '--config', allConfigPath, '--ignore-preflight-errors', 'all'], { reject: false, timeoutMs: 8 * MIN });
    expect({ code: rerun.exitCode, err: rerun.exitCode === 0 ? '' : rerun.all.slice(-3000) }).toEqual({ code: 0, err: '' });
    await controlPlaneHealthy(CP);
    const dir = copyOut(CP);
    try {
      expect(fileModes(snapshot(dir))).toEqual(cleanFiles);
      expect([...snapshot(dir).keys()].filter((p) => TEMP_NAME.test(p) || p.endsWith('/.tsadm.lock'))).toEqual([]);
      expect(verifyPki(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await initObjects(CP)).toEqual(cleanObjects);
  }, 20 * MIN);
});

describe('dry runs on the live machines', () => {
  /** sha256 of every tsadm-managed file (with modes) plus each object's resourceVersion. */
  async function state(machine: Machine, cp: Machine): Promise<{ files: Record<string, string>; objects: Record<string, string> }> {
    const dir = copyOut(machine);
    const files: Record<string, string> = {};
    try {
      for (const [p, e] of snapshot(dir)) files[p] = `${e.type} ${e.mode.toString(8)} ${e.content ?? ''}`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const objects: Record<string, string> = {};
    const all = JSON.parse(await kubectl(cp.name, ['get', 'configmaps,secrets,roles,rolebindings,serviceaccounts,services,deployments,daemonsets', '-A', '-o', 'json'])) as { items: unknown };
    for (const item of all.items as { kind: string; metadata: { namespace: string; name: string; resourceVersion: string; generation?: number } }[]) {
      // Controllers update workload status; only a spec change moves the generation.
      const v = item.kind === 'Deployment' || item.kind === 'DaemonSet' ? `gen ${item.metadata.generation}` : item.metadata.resourceVersion;
      objects[`${item.kind}/${item.metadata.namespace}/${item.metadata.name}`] = v;
    }
    for (const kind of ['clusterroles', 'clusterrolebindings', 'nodes']) {
      const list = JSON.parse(await kubectl(cp.name, ['get', kind, '-o', 'json'])) as { items: unknown };
      for (const item of list.items as { metadata: { name: string; resourceVersion: string; labels?: object }; spec?: object }[]) {
        // A Node's status (heartbeats) changes all the time: its labels and spec must not.
        objects[`${kind}/${item.metadata.name}`] = kind === 'nodes' ? createHash('sha256').update(JSON.stringify([item.metadata.labels, item.spec])).digest('hex') : item.metadata.resourceVersion;
      }
    }
    return { files, objects };
  }

  /**
   * The state once nothing changes it any more. A healthy control plane is not yet a settled one:
   * right after an init the controller-manager answers /healthz before its controllers have done
   * their start-up writes (default ServiceAccounts and their tokens, kube-root-ca.crt ConfigMaps,
   * aggregated ClusterRoles, cluster-info's JWS signatures, the Node's podCIDR), and those writes
   * must not be taken for changes made by a dry run. Two equal snapshots 10 s apart count as settled.
   */
  async function settledState(machine: Machine, cp: Machine): Promise<{ files: Record<string, string>; objects: Record<string, string> }> {
    let last = await state(machine, cp);
    const deadline = Date.now() + 3 * MIN;
    for (;;) {
      await new Promise((r) => setTimeout(r, 10_000));
      const next = await state(machine, cp);
      if (isDeepStrictEqual(next, last)) return next;
      if (Date.now() > deadline) throw new Error(`the cluster seen from ${machine.name} did not settle within 3 minutes`);
      last = next;
    }
  }

  test('init, token create, certs renew and reset --dry-run on the control plane; join --dry-run on the worker', async () => {
    await controlPlaneHealthy(CP);
    const before = await settledState(CP, CP);
    for (const args of [
      ['init', '--dry-run', '--config', allConfigPath, '--ignore-preflight-errors', 'all'],
      ['token', 'create', '--dry-run'],
      ['certs', 'renew', 'all', '--dry-run'],
      ['reset', '--dry-run', '--force'],
    ]) {
      const r = await tsadm(CP.name, args, { reject: false, timeoutMs: 5 * MIN });
      expect({ args, code: r.exitCode, err: r.exitCode === 0 ? '' : r.all.slice(-2000) }).toEqual({ args, code: 0, err: '' });
    }
    expect(await state(CP, CP)).toEqual(before);
    await controlPlaneHealthy(CP);

    const workerBefore = await settledState(WORKER, CP);
    const join = await tsadm(WORKER.name, ['join', `${CP.ip}:6443`, '--token', TOKEN, '--discovery-token-ca-cert-hash', await caHash(), '--dry-run'], { reject: false, timeoutMs: 5 * MIN });
    expect({ code: join.exitCode, err: join.exitCode === 0 ? '' : join.all.slice(-2000) }).toEqual({ code: 0, err: '' });
    expect(await state(WORKER, CP)).toEqual(workerBefore);
  }, 15 * MIN);
});

describe('crash safety of a worker join on a real machine', () => {
  let joinArgs: string[] = [];
  let joinPoints: FaultPoint[] = [];
  const resetWorker = async (): Promise<void> => {
    await tsadm(WORKER.name, ['reset', '--force'], { reject: false, timeoutMs: 3 * MIN });
    await kubectl(CP.name, ['delete', 'node', WORKER.name, '--ignore-not-found'], { reject: false });
  };

  test('a clean join: its kill points', async () => {
    joinArgs = ['join', `${CP.ip}:6443`, '--token', TOKEN, '--discovery-token-ca-cert-hash', await caHash()];
    const r = await tsadm(WORKER.name, joinArgs, { reject: false, timeoutMs: 8 * MIN, env: { TSADM_FAULT_TRACE: '1' } });
    expect({ code: r.exitCode, err: r.exitCode === 0 ? '' : r.all.slice(-3000) }).toEqual({ code: 0, err: '' });
    joinPoints = tracePoints(r.stderr);
    report.push(`a worker join passes ${joinPoints.length} kill points`);
    expect(joinPoints.length).toBeGreaterThanOrEqual(4);
    expect(joinPoints.length).toBeLessThanOrEqual(JOIN_MAX_POINTS);
    await waitFor(async () => (await nodeReadiness(CP.name))[WORKER.name] === 'True', 5 * MIN, `${WORKER.name} Ready`);
  }, 12 * MIN);

  test('killed at each of its kill points in turn, join re-run: the node turns Ready every time', async () => {
    expect(joinPoints.length).toBeGreaterThan(0);
    for (const { n, what } of joinPoints) {
      await resetWorker();
      const faulty = await tsadm(WORKER.name, joinArgs, { reject: false, timeoutMs: 8 * MIN, env: { TSADM_FAULT_AFTER: String(n) } });
      report.push(`join N=${n} (${what}): hit ${hit(faulty)}`);
      expect({ n, killed: killed(faulty) }).toEqual({ n, killed: true });
      const rerun = await tsadm(WORKER.name, [...joinArgs, '--ignore-preflight-errors', 'all'], { reject: false, timeoutMs: 8 * MIN });
      expect({ n, code: rerun.exitCode, err: rerun.exitCode === 0 ? '' : rerun.all.slice(-3000) }).toEqual({ n, code: 0, err: '' });
      await waitFor(async () => (await nodeReadiness(CP.name))[WORKER.name] === 'True', 5 * MIN, `${WORKER.name} Ready after a kill at #${n}`);
      const dir = copyOut(WORKER);
      try {
        const files = Object.keys(fileModes(snapshot(dir)));
        expect({ n, leftovers: files.filter((p) => TEMP_NAME.test(p) || p.endsWith('/.tsadm.lock')) }).toEqual({ n, leftovers: [] });
        expect(files).toEqual(expect.arrayContaining(['/etc/kubernetes/kubelet.conf', '/etc/kubernetes/pki/ca.crt', '/var/lib/kubelet/config.yaml']));
        expect(readFileSync(path.join(dir, 'etc/kubernetes/pki/ca.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }, 30 * MIN);
});

describe('one tsadm at a time on a real machine', () => {
  test('a second init while the first runs exits 1 naming the holder; the first completes', async () => {
    await reset(CP);
    const first = tsadm(CP.name, ['init', '--config', configPath], { reject: false, timeoutMs: 8 * MIN });
    await waitFor(async () => (await machineExec(CP.name, ['test', '-f', '/etc/kubernetes/.tsadm.lock'], { reject: false })).exitCode === 0, MIN, 'the first init to take the lock', 200);
    const second = await tsadm(CP.name, ['init', '--config', allConfigPath, '--ignore-preflight-errors', 'all'], { reject: false, timeoutMs: 2 * MIN });
    expect(second.exitCode).toBe(1);
    expect(second.stderr.split('\n').filter((l) => l.startsWith('error: '))).toEqual([expect.stringMatching(/^error: another tsadm is running on this machine \("init", pid \d+, since /)]);
    const done = await first;
    expect({ code: done.exitCode, err: done.exitCode === 0 ? '' : done.all.slice(-2000) }).toEqual({ code: 0, err: '' });
    expect((await machineExec(CP.name, ['test', '-e', '/etc/kubernetes/.tsadm.lock'], { reject: false })).exitCode).not.toBe(0);
    await controlPlaneHealthy(CP);
  }, 12 * MIN);
});
