/**
 * Upgrades on harness machines u1..u6 (10.250.0.81–86), issue 15.
 *
 * "v1.20.3" here is NOT Kubernetes v1.20.3: it is the same v1.20.2 source rebuilt under the version
 * label v1.20.3 (scripts/e2e/README.md, "v1.20.3: the same code, relabelled"), the only second
 * version obtainable on this machine. Every step of an upgrade runs for real (versions read from the
 * cluster, version policy, new manifests, certificate renewal, ConfigMaps, addons, the kubelet swap);
 * what differs between real releases is for unit tests.
 *
 * The reference kubeadm v1.20.3 upgrades a cluster made by tsadm v1.20.2 (`tsadm init` on u1,
 * `tsadm join` of worker u2): `upgrade apply` on u1, the kubelet swapped on u1, `upgrade node` and
 * the kubelet swap on u2. Proof that tsadm leaves a cluster kubeadm can take over, and the baseline
 * tsadm's own upgrade follows. Everything kubeadm writes anew (manifests, the kubelet's config,
 * ConfigMaps, addon templates) is compared with what tsadm had written: equal but for the version
 * (and kube-proxy's config.conf, equal as a configuration; see the test).
 *
 * tsadm's own upgrade, on the same relabelled v1.20.3:
 * - a cluster made by tsadm (u3 control plane, u4 worker): plan/diff, apply --dry-run (changes
 *   nothing), apply -o json, a re-run that changes nothing, `upgrade node` on the worker (it has
 *   kubelet.conf only), the kubelet swaps, `tsadm check` at the new version;
 * - a cluster made by the reference kubeadm v1.20.2 (u5): an apply whose new kube-apiserver exits
 *   (a --patches flag it does not know) is rolled back, then `--resume` finishes it; a second
 *   failure and a plain re-run.
 * Each block destroys its machines when it ends (2 cores: blocks do not overlap).
 * Needs `npm run build` (machines run bin/tsadm). Only these machines are created and destroyed
 * (never destroyAll: other suites share the host).
 */
import { expect } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import {
  UPGRADE_RENEWED_CERTIFICATES, cacheDir, certificateNotAfter, createMachine, destroyMachine, expectClusterAt, importCoreDNSStandIn, importImages,
  installCrictlShim, kubeadmAt, kubeadmConfig, kubectl, machineExec, machineImages, nodeKubeletVersion,
  nodeReadiness, provision, referenceInit, requireComponents, tsadm, useNodeBinaries, waitClusterReady, waitFor, writeSharedFile,
  type Machine,
  commandFailure,
} from './harness.js';
import { heavyFile } from './heavy-files.js';

const U1: Machine = { name: 'u1', ip: '10.250.0.81' };
const U2: Machine = { name: 'u2', ip: '10.250.0.82' };
const MACHINES = [U1, U2];
/** tsadm upgrades a cluster made by tsadm: control plane u3, worker u4. */
const U3: Machine = { name: 'u3', ip: '10.250.0.83' };
const U4: Machine = { name: 'u4', ip: '10.250.0.84' };
/** tsadm upgrades a cluster made by the reference kubeadm v1.20.2: single control plane u5. */
const U5: Machine = { name: 'u5', ip: '10.250.0.85' };
const OWN_MACHINES = [U3, U4, U5];
const CRI = '/run/containerd/containerd.sock';
const MIN = 60_000;
const FROM = 'v1.20.2';
/** The relabelled build of v1.20.2's source (see the header), not Kubernetes v1.20.3. */
const TO = 'v1.20.3';

/** A workload that must live through the upgrade untouched: a pause container on NODE. */
const witnessPod = (node: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: upgrade-witness-${node}
  namespace: default
spec:
  nodeName: ${node}
  tolerations:
  - key: node-role.kubernetes.io/master
    operator: Exists
    effect: NoSchedule
  containers:
  - name: pause
    image: registry.local/k8s/pause:3.2
    imagePullPolicy: Never
`;

interface Witness { uid: string; phase: string; containerID: string; restartCount: number }

async function witness(cp: Machine, node: Machine): Promise<Witness> {
  const p = JSON.parse(await kubectl(cp.name, ['-n', 'default', 'get', 'pod', `upgrade-witness-${node.name}`, '-o', 'json'])) as {
    metadata: { uid: string };
    status: { phase: string; containerStatuses?: { containerID?: string; restartCount: number }[] };
  };
  const c = p.status.containerStatuses?.[0];
  return { uid: p.metadata.uid, phase: p.status.phase, containerID: c?.containerID ?? '', restartCount: c?.restartCount ?? -1 };
}

// Heavy (several control planes; may run beside the other such files, not beside ha): test/e2e/heavy-files.ts.
heavyFile('together');

beforeAll(async () => {
  await provision();
  requireComponents();
  kubeadmAt(TO);
  for (const m of [...MACHINES, ...OWN_MACHINES]) await destroyMachine(m.name).catch(() => undefined);
}, 20 * MIN);

afterAll(async () => {
  for (const m of [...MACHINES, ...OWN_MACHINES]) await destroyMachine(m.name).catch(() => undefined);
}, 5 * MIN);

/**
 * What `upgrade apply` writes on a control plane and in the cluster, as it is now: the static pod
 * manifests, the kubelet's config.yaml on u1, the data of the ConfigMaps kubeadm uploads again,
 * and the pod templates (and CoreDNS's replicas) of the addons it applies again.
 */
async function writtenByUpgrade(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
    out[`manifest ${c}`] = (await machineExec(U1.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`])).stdout;
  }
  out['u1 /var/lib/kubelet/config.yaml'] = (await machineExec(U1.name, ['cat', '/var/lib/kubelet/config.yaml'])).stdout;
  const get = async (kind: string, name: string, path: string) =>
    kubectl(U1.name, ['-n', 'kube-system', 'get', kind, name, '-o', `jsonpath={${path}}`]);
  for (const cm of ['kubeadm-config', 'kubelet-config-1.20', 'kube-proxy', 'coredns']) out[`configmap ${cm}`] = await get('configmap', cm, '.data');
  out['deployment coredns'] = `${await get('deployment', 'coredns', '.spec.replicas')} ${await get('deployment', 'coredns', '.spec.template')}`;
  out['daemonset kube-proxy'] = await get('daemonset', 'kube-proxy', '.spec.template');
  return out;
}

/** A Go zero value as YAML shows it (null, "", false, 0, 0s), or an object of nothing else. */
function isZero(v: unknown): boolean {
  if (v === null || v === '' || v === false || v === 0 || v === '0s') return true;
  return typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isZero);
}

/** THEIRS without the fields OURS lacks whose values are zero values (recursively). */
function withoutZerosAbsentIn(theirs: unknown, ours: unknown): unknown {
  if (typeof theirs !== 'object' || theirs === null || Array.isArray(theirs) || typeof ours !== 'object' || ours === null) return theirs;
  const o = ours as Record<string, unknown>;
  return Object.fromEntries(Object.entries(theirs as Record<string, unknown>)
    .filter(([k, v]) => k in o || !isZero(v))
    .map(([k, v]) => [k, withoutZerosAbsentIn(v, o[k])]));
}

/** The witnesses of every machine, by node name. */
async function witnesses(): Promise<Record<string, Witness>> {
  const out: Record<string, Witness> = {};
  for (const m of MACHINES) out[m.name] = await witness(U1, m);
  return out;
}

/** Node → image tag of its kube-proxy pod, for Running pods. */
async function kubeProxyTags(): Promise<Record<string, string>> {
  const pods = (JSON.parse(await kubectl(U1.name, ['-n', 'kube-system', 'get', 'pods', '-l', 'k8s-app=kube-proxy', '-o', 'json'])) as {
    items: { spec: { nodeName: string; containers: { image: string }[] }; status: { phase: string } }[];
  }).items;
  return Object.fromEntries(pods.filter((p) => p.status.phase === 'Running').map((p) => [p.spec.nodeName, (p.spec.containers[0]?.image ?? '').split(':').pop() ?? '']));
}

describe('the reference kubeadm v1.20.3 upgrades a cluster made by tsadm', () => {
  let certsBefore: Record<string, number>;
  let before: Record<string, Witness>;

  // 2 cores: the next blocks' machines should not share them with these.
  afterAll(async () => {
    for (const m of MACHINES) await destroyMachine(m.name).catch(() => undefined);
  }, 5 * MIN);

  test('tsadm init v1.20.2 on u1, tsadm join of u2; CoreDNS and a witness pod per node run; the v1.20.3 images are imported', async () => {
    for (const m of MACHINES) {
      await createMachine(m.name, m.ip);
      // upgrade apply waits for a ready CoreDNS replica; this environment has no CoreDNS image.
      expect(await importCoreDNSStandIn(m.name)).toEqual(['registry.local/k8s/coredns:1.7.0']);
    }
    const config = writeSharedFile(`tsadm-${U1.name}.yaml`, await kubeadmConfig(U1.ip, U1.name));
    const init = await tsadm(U1.name, ['init', '--config', config], { timeoutMs: 8 * MIN });
    expect(init.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
    const joinLine = init.stdout.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim())
      .filter((l) => l.startsWith('tsadm join') && !l.includes('--control-plane')).pop();
    expect(joinLine).toBeDefined();
    const join = await tsadm(U2.name, [...(joinLine as string).split(/\s+/).slice(1), '--cri-socket', CRI], { timeoutMs: 8 * MIN });
    expect(join.stdout).toContain('This node has joined the cluster');
    await waitClusterReady(U1, MACHINES);
    await waitFor(async () => Number(await kubectl(U1.name, ['-n', 'kube-system', 'get', 'deployment', 'coredns', '-o', 'jsonpath={.status.readyReplicas}'])) > 0,
      3 * MIN, 'a ready CoreDNS replica');
    await expectClusterAt(U1, FROM);
    for (const m of MACHINES) expect(await nodeKubeletVersion(U1, m.name)).toBe(FROM);
    expect(await kubeProxyTags()).toEqual({ [U1.name]: FROM, [U2.name]: FROM });

    for (const m of MACHINES) {
      // The default ServiceAccount appears shortly after the controller-manager starts.
      await waitFor(async () => (await kubectl(U1.name, ['apply', '-f', '-'], { input: witnessPod(m.name), reject: false })).includes('upgrade-witness'),
        2 * MIN, `the witness pod on ${m.name} created`);
    }
    before = await waitFor(async () => {
      const w = await witnesses();
      return Object.values(w).every((x) => x.phase === 'Running' && x.containerID) ? w : undefined;
    }, 2 * MIN, 'the witness pods Running');

    // Every node gets the new images (kube-proxy runs on each); the worker needs no control-plane
    // images, but a node operator pre-loads one set everywhere.
    for (const m of MACHINES) {
      expect((await machineImages(m.name)).filter((i) => i.endsWith(`:${TO}`))).toEqual([]);
      const imported = await importImages(m.name, TO);
      expect(imported).toEqual(expect.arrayContaining(
        ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'].map((c) => `registry.local/k8s/${c}:${TO}`),
      ));
      expect(await machineImages(m.name)).toEqual(expect.arrayContaining(imported));
      // Idempotent: a second import finds everything present.
      expect(await importImages(m.name, TO)).toEqual(imported);
    }

    certsBefore = await certificateNotAfter(U1.name);
    expect(Object.keys(certsBefore).sort()).toEqual([...UPGRADE_RENEWED_CERTIFICATES].sort());
  }, 15 * MIN);

  test('kubeadm v1.20.3 `upgrade apply v1.20.3 -y`: control plane, kube-proxy and kubeadm-config at v1.20.3, certificates renewed, the witnesses untouched', async () => {
    // kubeadm 1.20's `upgrade apply` always runs its image prepull, which needs a crictl on PATH
    // (not an ignorable preflight error): the harness's stand-in answers from containerd's store.
    await installCrictlShim(U1.name);
    const crictl = async (...args: string[]) => (await machineExec(U1.name, ['crictl', '-r', `unix://${CRI}`, ...args], { reject: false })).exitCode;
    expect(await crictl('inspecti', `registry.local/k8s/kube-apiserver:${TO}`)).toBe(0);
    expect(await crictl('inspecti', 'registry.local/k8s/kube-apiserver:v0.0.0')).toBe(1);
    expect(await crictl('pull', 'registry.local/k8s/kube-apiserver:v0.0.0')).toBe(1);
    expect(await crictl('ps')).toBe(64);
    const written = await writtenByUpgrade();
    // NotAfter has a resolution of one second: let renewed certificates end later than the old ones.
    await new Promise((r) => setTimeout(r, 1500));
    // No --ignore-preflight-errors: with the crictl stand-in the prepull finds every image it wants
    // (v1.20.3's imported above, pause and etcd unchanged, CoreDNS's stand-in), and the health checks
    // (CreateJob, ControlPlaneNodesReady, StaticPodManifest) pass on a cluster made by tsadm.
    const r = await machineExec(U1.name, [kubeadmAt(TO), 'upgrade', 'apply', TO, '-y'], { reject: false, timeoutMs: 15 * MIN });
    if (r.exitCode !== 0) throw commandFailure('kubeadm upgrade apply', r, U1.name);
    expect(r.stdout).toContain(`[upgrade/successful] SUCCESS! Your cluster was upgraded to "${TO}". Enjoy!`);
    for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      expect(r.stdout).toContain(`[upgrade/staticpods] Component "${c}" upgraded successfully!`);
    }
    // etcd's image (3.4.13-0) is the same in both versions: kubeadm leaves it alone.
    expect(r.stdout).toContain('[upgrade/staticpods] Current and new manifests of etcd are equal, skipping upgrade');
    expect(r.all).not.toMatch(/\[WARNING/);

    await expectClusterAt(U1, TO);
    // What kubeadm wrote anew is what tsadm had written, but for the version: tsadm's init output
    // is kubeadm's (a difference here is a difference between tsadm init and kubeadm). kube-proxy's
    // config.conf is compared as a configuration: tsadm now writes Go's full serialization too
    // (test/unit/versions/kube-proxy-config.test.ts, byte-identical to kubeadm v1.20.2's), and the
    // configuration comparison keeps the check meaningful however the text is laid out.
    const rewritten = await writtenByUpgrade();
    const proxyConf = (data: string | undefined): unknown => yaml.load((JSON.parse(data ?? '{}') as Record<string, string>)['config.conf'] ?? '');
    const ours = proxyConf(written['configmap kube-proxy']);
    expect(withoutZerosAbsentIn(proxyConf(rewritten['configmap kube-proxy']), ours)).toEqual(ours);
    const kubeconfigOf = (data: string | undefined): unknown => (JSON.parse(data ?? '{}') as Record<string, string>)['kubeconfig.conf'];
    expect(kubeconfigOf(rewritten['configmap kube-proxy'])).toBe(kubeconfigOf(written['configmap kube-proxy']));
    delete rewritten['configmap kube-proxy'];
    expect(rewritten).toEqual(Object.fromEntries(Object.entries(written).filter(([k]) => k !== 'configmap kube-proxy').map(([k, v]) => [k, v.replaceAll(FROM, TO)])));
    // The kube-proxy DaemonSet rolls out to every node, the worker's included.
    await waitFor(async () => Object.values(await kubeProxyTags()).filter((t) => t === TO).length === MACHINES.length, 3 * MIN,
      `kube-proxy ${TO} Running on every node`);
    expect(await kubeProxyTags()).toEqual({ [U1.name]: TO, [U2.name]: TO });

    const certsAfter = await certificateNotAfter(U1.name);
    for (const c of UPGRADE_RENEWED_CERTIFICATES) {
      expect({ [c]: (certsAfter[c] ?? 0) > (certsBefore[c] ?? Infinity) }).toEqual({ [c]: true });
    }

    expect(await witnesses()).toEqual(before);
  }, 20 * MIN);

  test('the kubelet binary swapped to v1.20.3: u1 reports kubelet v1.20.3 and is Ready; the witnesses untouched', async () => {
    // A single control plane needs no `kubeadm upgrade node` after `upgrade apply`: apply already
    // wrote the kubelet's configuration; only the kubelet itself is left.
    expect(await nodeKubeletVersion(U1, U1.name)).toBe(FROM);
    await useNodeBinaries(U1.name, TO);
    expect((await machineExec(U1.name, ['kubeadm', 'version', '-o', 'short'])).stdout.trim()).toBe(TO);
    await waitFor(async () => (await nodeKubeletVersion(U1, U1.name)) === TO, 3 * MIN, `the Node reporting kubelet ${TO}`);
    await waitFor(async () => (await nodeReadiness(U1.name))[U1.name] === 'True', 3 * MIN, 'the Node Ready');
    await expectClusterAt(U1, TO);
    expect(await nodeKubeletVersion(U1, U2.name)).toBe(FROM);
    expect(await witnesses()).toEqual(before);
  }, 10 * MIN);

  test('worker u2: kubeadm v1.20.3 `upgrade node`, then its kubelet swapped: kubelet v1.20.3, Ready; the witnesses untouched', async () => {
    const config = () => machineExec(U2.name, ['cat', '/var/lib/kubelet/config.yaml']);
    const r = await machineExec(U2.name, [kubeadmAt(TO), 'upgrade', 'node'], { reject: false, timeoutMs: 5 * MIN });
    if (r.exitCode !== 0) throw commandFailure('kubeadm upgrade node', r);
    // A worker: no prepull (so no crictl needed), no control plane; the kubelet's configuration is
    // downloaded from kubelet-config-1.20 (written by tsadm init, rewritten by upgrade apply).
    expect(r.stdout).toContain('[preflight] Skipping prepull. Not a control plane node.');
    expect(r.stdout).toContain('[upgrade] The configuration for this node was successfully updated!');
    expect((await config()).stdout).toContain('kind: KubeletConfiguration');
    expect(await nodeKubeletVersion(U1, U2.name)).toBe(FROM);
    await useNodeBinaries(U2.name, TO);
    await waitFor(async () => (await nodeKubeletVersion(U1, U2.name)) === TO, 3 * MIN, `u2 reporting kubelet ${TO}`);
    await waitFor(async () => Object.values(await nodeReadiness(U1.name)).every((x) => x === 'True'), 3 * MIN, 'both nodes Ready');
    expect(await nodeReadiness(U1.name)).toEqual({ [U1.name]: 'True', [U2.name]: 'True' });
    expect(await witnesses()).toEqual(before);
  }, 10 * MIN);
});

/** tsadm init (--config CONFIG) of CP with the CoreDNS stand-in, tsadm join of WORKERS; the join lines parsed from init's output. */
async function tsadmCluster(cp: Machine, workers: Machine[]): Promise<void> {
  for (const m of [cp, ...workers]) {
    await createMachine(m.name, m.ip);
    // upgrade apply waits for a ready CoreDNS replica; this environment has no CoreDNS image.
    expect(await importCoreDNSStandIn(m.name)).toEqual(['registry.local/k8s/coredns:1.7.0']);
  }
  const config = writeSharedFile(`tsadm-${cp.name}.yaml`, await kubeadmConfig(cp.ip, cp.name));
  const init = await tsadm(cp.name, ['init', '--config', config], { timeoutMs: 8 * MIN });
  expect(init.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
  const joinLine = init.stdout.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim())
    .filter((l) => l.startsWith('tsadm join') && !l.includes('--control-plane')).pop();
  expect(joinLine).toBeDefined();
  for (const w of workers) {
    const join = await tsadm(w.name, [...(joinLine as string).split(/\s+/).slice(1), '--cri-socket', CRI], { timeoutMs: 8 * MIN });
    expect(join.stdout).toContain('This node has joined the cluster');
  }
}

/** A ready CoreDNS replica (the stand-in), as `upgrade apply` wants one. */
async function waitCoreDNSReady(cp: Machine): Promise<void> {
  await waitFor(async () => Number(await kubectl(cp.name, ['-n', 'kube-system', 'get', 'deployment', 'coredns', '-o', 'jsonpath={.status.readyReplicas}'], { reject: false })) > 0,
    3 * MIN, 'a ready CoreDNS replica');
}

/** The witness pods of NODES created through CP, once Running. */
async function startWitnesses(cp: Machine, nodes: Machine[]): Promise<Record<string, Witness>> {
  for (const m of nodes) {
    // The default ServiceAccount appears shortly after the controller-manager starts.
    await waitFor(async () => (await kubectl(cp.name, ['apply', '-f', '-'], { input: witnessPod(m.name), reject: false })).includes('upgrade-witness'),
      2 * MIN, `the witness pod on ${m.name} created`);
  }
  return waitFor(async () => {
    const w: Record<string, Witness> = {};
    for (const m of nodes) w[m.name] = await witness(cp, m);
    return Object.values(w).every((x) => x.phase === 'Running' && x.containerID) ? w : undefined;
  }, 2 * MIN, 'the witness pods Running');
}

let jobCount = 0;
/**
 * Until a throwaway Job on a control-plane node completes: after the controller-manager restarts
 * it waits for its leader lease (up to 15 s) before it runs Jobs, and `upgrade apply`'s CreateJob
 * health check (kubeadm's, 15 s limit) fails meanwhile, in kubeadm as in tsadm. The Job is kubeadm's
 * own check: the pause image with `-v` (prints its version, exits 0), needing the scheduler too.
 */
async function waitJobsRun(cp: Machine): Promise<void> {
  const name = `upgrade-e2e-probe-${++jobCount}`;
  await kubectl(cp.name, ['apply', '-f', '-'], {
    input: `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  namespace: default
spec:
  backoffLimit: 0
  ttlSecondsAfterFinished: 0
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        node-role.kubernetes.io/master: ""
      tolerations:
      - key: node-role.kubernetes.io/master
        operator: Exists
        effect: NoSchedule
      containers:
      - name: probe
        image: registry.local/k8s/pause:3.2
        imagePullPolicy: Never
        args: ["-v"]
`,
  });
  await waitFor(async () => (await kubectl(cp.name, ['-n', 'default', 'get', 'job', name, '-o', 'jsonpath={.status.succeeded}'], { reject: false })).trim() === '1',
    3 * MIN, `the Job ${name} completed`);
  await kubectl(cp.name, ['-n', 'default', 'delete', 'job', name, '--wait=false'], { reject: false });
}

const STATIC_PODS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

/** sha256 and mtime (ns) of each static pod manifest on MACHINE. */
async function manifestStamps(machine: string): Promise<Record<string, string>> {
  const sh = 'cd /etc/kubernetes/manifests && for f in *.yaml; do echo "$f $(sha256sum < "$f" | cut -d" " -f1) $(stat -c %y "$f")"; done';
  const out: Record<string, string> = {};
  for (const line of (await machineExec(machine, ['sh', '-c', sh])).stdout.split('\n').filter(Boolean)) {
    const sp = line.indexOf(' ');
    out[line.slice(0, sp)] = line.slice(sp + 1);
  }
  expect(Object.keys(out).sort()).toEqual(STATIC_PODS.map((c) => `${c}.yaml`));
  return out;
}

/** What a no-op upgrade must leave alone in the cluster: ConfigMaps' resourceVersions, the addons' generations. */
async function objectStamps(cp: Machine): Promise<Record<string, string>> {
  const get = async (kind: string, name: string, path: string) =>
    (await kubectl(cp.name, ['-n', 'kube-system', 'get', kind, name, '-o', `jsonpath={${path}}`])).trim();
  const out: Record<string, string> = {};
  for (const cm of ['kubeadm-config', 'kubelet-config-1.20', 'kube-proxy', 'coredns']) out[`configmap ${cm}`] = await get('configmap', cm, '.metadata.resourceVersion');
  out['daemonset kube-proxy'] = await get('daemonset', 'kube-proxy', '.metadata.generation');
  out['deployment coredns'] = await get('deployment', 'coredns', '.metadata.generation');
  out['clusterrolebinding kubeadm:get-nodes'] = (await kubectl(cp.name, ['get', 'clusterrolebinding', 'kubeadm:get-nodes', '-o', 'jsonpath={.metadata.resourceVersion}'])).trim();
  return out;
}

/** The tsadm/kubeadm backup folders of old manifests on MACHINE. */
async function backupDirs(machine: string): Promise<string[]> {
  const r = await machineExec(machine, ['sh', '-c', 'ls -d /etc/kubernetes/tmp/kubeadm-backup-manifests-* 2>/dev/null || true']);
  return r.stdout.split('\n').filter(Boolean).sort();
}

/** The NDJSON events of a `-o json` run (every non-empty stdout line must parse). */
function events(stdout: string): { type: string; ok?: boolean; data?: Record<string, unknown>; error?: { message: string } }[] {
  return stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { type: string });
}

describe('tsadm upgrades a cluster made by tsadm (v1.20.2 → v1.20.3; u3 control plane, u4 worker)', () => {
  const NODES = [U3, U4];
  let before: Record<string, Witness>;
  let certsBefore: Record<string, number>;
  let manifestsBefore: Record<string, string>;
  const witnessesNow = async (): Promise<Record<string, Witness>> => {
    const w: Record<string, Witness> = {};
    for (const m of NODES) w[m.name] = await witness(U3, m);
    return w;
  };

  afterAll(async () => {
    for (const m of NODES) await destroyMachine(m.name).catch(() => undefined);
  }, 5 * MIN);

  test('tsadm init v1.20.2 on u3, tsadm join of u4; CoreDNS (stand-in) ready, a witness per node; v1.20.3 images imported', async () => {
    await tsadmCluster(U3, [U4]);
    await waitClusterReady(U3, NODES);
    await waitCoreDNSReady(U3);
    await expectClusterAt(U3, FROM);
    before = await startWitnesses(U3, NODES);
    for (const m of NODES) {
      const imported = await importImages(m.name, TO);
      expect(imported).toEqual(expect.arrayContaining(
        ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'].map((c) => `registry.local/k8s/${c}:${TO}`),
      ));
    }
    certsBefore = await certificateNotAfter(U3.name);
    manifestsBefore = Object.fromEntries(await Promise.all(STATIC_PODS.map(async (c) =>
      [c, (await machineExec(U3.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`])).stdout] as const)));
    expect(await backupDirs(U3.name)).toEqual([]);
  }, 15 * MIN);

  test('`tsadm upgrade plan v1.20.3` (text and -o json) lists every component v1.20.2 → v1.20.3; `upgrade diff` shows only image tags', async () => {
    const text = await tsadm(U3.name, ['upgrade', 'plan', TO], { timeoutMs: 2 * MIN });
    for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy']) {
      expect(text.stdout).toMatch(new RegExp(`^${c}\\s+${FROM}\\s+${TO}\\s*$`, 'm'));
    }
    // Both nodes' kubelets, counted as kubeadm does; CoreDNS and etcd listed at their (unchanged) 1.20 versions.
    expect(text.stdout).toMatch(new RegExp(`^kubelet\\s+2 x ${FROM}\\s+${TO}\\s*$`, 'm'));
    expect(text.stdout).toMatch(/^CoreDNS\s+1\.7\.0\s+1\.7\.0\s*$/m);
    expect(text.stdout).toMatch(/^etcd\s+3\.4\.13-0\s+3\.4\.13-0\s*$/m);
    expect(text.stdout).toContain(`tsadm upgrade apply ${TO}`);

    const json = await tsadm(U3.name, ['upgrade', 'plan', TO, '-o', 'json'], { timeoutMs: 2 * MIN });
    const plan = JSON.parse(json.stdout) as {
      kind: string;
      availableUpgrades: { targetVersion: string; verdict: string; components: { name: string; currentVersion: string; newVersion: string }[] }[];
    };
    expect(plan.kind).toBe('UpgradePlan');
    expect(plan.availableUpgrades).toHaveLength(1);
    const up = plan.availableUpgrades[0]!;
    expect({ targetVersion: up.targetVersion, verdict: up.verdict }).toEqual({ targetVersion: TO, verdict: 'allowed' });
    expect(Object.fromEntries(up.components.map((c) => [c.name, `${c.currentVersion} → ${c.newVersion}`]))).toEqual({
      'kubelet': `2 x ${FROM} → ${TO}`,
      'kube-apiserver': `${FROM} → ${TO}`,
      'kube-controller-manager': `${FROM} → ${TO}`,
      'kube-scheduler': `${FROM} → ${TO}`,
      'kube-proxy': `${FROM} → ${TO}`,
      'CoreDNS': '1.7.0 → 1.7.0',
      'etcd': '3.4.13-0 → 3.4.13-0',
    });

    const diff = await tsadm(U3.name, ['upgrade', 'diff', TO], { timeoutMs: 2 * MIN });
    const changed = diff.stdout.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
    expect(changed.sort()).toEqual(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].flatMap((c) => [
      `-    image: registry.local/k8s/${c}:${FROM}`, `+    image: registry.local/k8s/${c}:${TO}`,
    ]).sort());
  }, 5 * MIN);

  test('`tsadm upgrade apply v1.20.3 --dry-run` changes nothing', async () => {
    const manifests = await manifestStamps(U3.name);
    const objects = await objectStamps(U3);
    const r = await tsadm(U3.name, ['upgrade', 'apply', TO, '--dry-run', '-y'], { reject: false, timeoutMs: 5 * MIN });
    if (r.exitCode !== 0) throw commandFailure('tsadm upgrade apply --dry-run', r);
    expect(r.stdout).toContain('Finished dryrunning successfully!');
    expect(await manifestStamps(U3.name)).toEqual(manifests);
    expect(await objectStamps(U3)).toEqual(objects);
    expect(await backupDirs(U3.name)).toEqual([]);
    await expectClusterAt(U3, FROM, 10_000);
  }, 10 * MIN);

  test('`tsadm upgrade apply v1.20.3 -y -o json`: control plane, kube-proxy, kubeadm-config at v1.20.3, certificates renewed, old manifests backed up, witnesses untouched', async () => {
    await waitJobsRun(U3);
    // NotAfter has a resolution of one second: let renewed certificates end later than the old ones.
    await new Promise((r) => setTimeout(r, 1500));
    const started = Date.now();
    const r = await tsadm(U3.name, ['upgrade', 'apply', TO, '-y', '-o', 'json'], { reject: false, timeoutMs: 10 * MIN });
    if (r.exitCode !== 0) throw commandFailure('tsadm upgrade apply', r, U3.name);
    process.stderr.write(`tsadm upgrade apply ${TO} on u3: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const evs = events(r.stdout);
    const results = evs.filter((e) => e.type === 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ ok: true, data: { kubernetesVersion: TO, dryRun: false } });
    expect([...((results[0]!.data?.upgraded ?? []) as string[])].sort()).toEqual(expect.arrayContaining(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']));

    await expectClusterAt(U3, TO);
    await waitFor(async () => (await kubectl(U3.name, ['-n', 'kube-system', 'rollout', 'status', 'daemonset/kube-proxy', '--timeout=5s'], { reject: false })).includes('successfully rolled out'),
      3 * MIN, 'kube-proxy rolled out');

    const certsAfter = await certificateNotAfter(U3.name);
    for (const c of UPGRADE_RENEWED_CERTIFICATES) {
      expect({ [c]: (certsAfter[c] ?? 0) > (certsBefore[c] ?? Infinity) }).toEqual({ [c]: true });
    }
    // One backup folder, holding the manifests this run replaced, as they were (v1.20.2 images).
    const dirs = await backupDirs(U3.name);
    expect(dirs).toHaveLength(1);
    for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      const old = (await machineExec(U3.name, ['cat', `${dirs[0]}/${c}.yaml`])).stdout;
      expect({ [c]: old }).toEqual({ [c]: manifestsBefore[c] });
      expect(old).toContain(`image: registry.local/k8s/${c}:${FROM}`);
    }
    // etcd's image is the same in both versions: its manifest is left alone.
    expect((await machineExec(U3.name, ['cat', '/etc/kubernetes/manifests/etcd.yaml'])).stdout).toBe(manifestsBefore.etcd);
    expect(await witnessesNow()).toEqual(before);
  }, 15 * MIN);

  test('re-running `tsadm upgrade apply v1.20.3 -y` changes nothing (manifests, ConfigMaps, addons)', async () => {
    await waitJobsRun(U3);
    const manifests = await manifestStamps(U3.name);
    const objects = await objectStamps(U3);
    const dirs = await backupDirs(U3.name);
    const r = await tsadm(U3.name, ['upgrade', 'apply', TO, '-y'], { reject: false, timeoutMs: 10 * MIN });
    if (r.exitCode !== 0) throw commandFailure('second tsadm upgrade apply', r);
    expect(r.stdout).toContain(`SUCCESS! Your cluster was upgraded to "${TO}"`);
    expect(await manifestStamps(U3.name)).toEqual(manifests);
    expect(await objectStamps(U3)).toEqual(objects);
    expect(await backupDirs(U3.name)).toEqual(dirs);
    await expectClusterAt(U3, TO, 10_000);
    expect(await witnessesNow()).toEqual(before);
  }, 10 * MIN);

  test('kubelets: u3 swapped to v1.20.3; worker u4 `tsadm upgrade node` (kubelet.conf, no admin.conf) then swapped; every Node v1.20.3 and Ready', async () => {
    await useNodeBinaries(U3.name, TO);
    await waitFor(async () => (await nodeKubeletVersion(U3, U3.name)) === TO, 3 * MIN, `u3 reporting kubelet ${TO}`);

    expect((await machineExec(U4.name, ['test', '-e', '/etc/kubernetes/admin.conf'], { reject: false })).exitCode).toBe(1);
    const kubeletConfig = async () => (await machineExec(U4.name, ['cat', '/var/lib/kubelet/config.yaml'])).stdout;
    const r = await tsadm(U4.name, ['upgrade', 'node'], { reject: false, timeoutMs: 5 * MIN });
    if (r.exitCode !== 0) throw commandFailure('tsadm upgrade node on u4', r);
    expect(r.stdout).toContain('The configuration for this node was successfully updated!');
    expect(await kubeletConfig()).toContain('kind: KubeletConfiguration');
    expect(await nodeKubeletVersion(U3, U4.name)).toBe(FROM);
    await useNodeBinaries(U4.name, TO);
    await waitFor(async () => (await nodeKubeletVersion(U3, U4.name)) === TO, 3 * MIN, `u4 reporting kubelet ${TO}`);
    await waitFor(async () => Object.values(await nodeReadiness(U3.name)).every((x) => x === 'True'), 3 * MIN, 'both nodes Ready');
    expect(await nodeReadiness(U3.name)).toEqual({ [U3.name]: 'True', [U4.name]: 'True' });
    for (const m of NODES) expect(await nodeKubeletVersion(U3, m.name)).toBe(TO);
    expect(await witnessesNow()).toEqual(before);
  }, 10 * MIN);

  test('`tsadm check` on u3 passes for the init configuration at kubernetesVersion v1.20.3', async () => {
    const config = writeSharedFile(`tsadm-${U3.name}-${TO}.yaml`,
      (await kubeadmConfig(U3.ip, U3.name)).replace(/^kubernetesVersion: v1\.20\.2$/m, `kubernetesVersion: ${TO}`));
    type Finding = { phase: string; ok: boolean; check: string; detail?: string };
    const check = async (file: string): Promise<{ exitCode: number; checks: Finding[]; all: string }> => {
      const r = await tsadm(U3.name, ['check', '--config', file, '-o', 'json'], { reject: false, timeoutMs: 5 * MIN });
      const result = events(r.stdout).find((e) => e.type === 'result');
      return { exitCode: r.exitCode, checks: (result?.data?.checks ?? []) as Finding[], all: r.all };
    };
    const r = await check(config);
    if (r.exitCode !== 0) throw commandFailure('tsadm check', r);
    expect(r.checks.filter((c) => !c.ok)).toEqual([]);
    // It did check what an upgrade rewrites: the static pods, the kubelet's files, the ConfigMaps, the addons.
    const phases = new Set(r.checks.map((c) => c.phase.split('/')[0]));
    for (const p of ['certs', 'kubeconfig', 'kubelet-start', 'control-plane', 'etcd', 'upload-config', 'addon']) expect([p, phases.has(p)]).toEqual([p, true]);
    // And can fail: the same configuration at the old version no longer describes this control plane.
    const old = await check(writeSharedFile(`tsadm-${U3.name}.yaml`, await kubeadmConfig(U3.ip, U3.name)));
    expect(old.exitCode).not.toBe(0);
    expect(old.checks.filter((c) => !c.ok).map((c) => c.phase)).toEqual(expect.arrayContaining(['control-plane/apiserver']));
  }, 5 * MIN);
});

describe('tsadm upgrades a cluster made by the reference kubeadm v1.20.2 (u5)', () => {
  let manifestsBefore: Record<string, string>;

  afterAll(async () => {
    await destroyMachine(U5.name).catch(() => undefined);
  }, 5 * MIN);

  test('kubeadm init v1.20.2 on u5 (CoreDNS stand-in); v1.20.3 images imported', async () => {
    await createMachine(U5.name, U5.ip);
    expect(await importCoreDNSStandIn(U5.name)).toEqual(['registry.local/k8s/coredns:1.7.0']);
    const init = await referenceInit(U5);
    expect(init.output).toContain('Your Kubernetes control-plane has initialized successfully!');
    await waitClusterReady(U5, [U5]);
    await waitCoreDNSReady(U5);
    await expectClusterAt(U5, FROM);
    await importImages(U5.name, TO);
    manifestsBefore = Object.fromEntries(await Promise.all(STATIC_PODS.map(async (c) =>
      [c, (await machineExec(U5.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`])).stdout] as const)));
  }, 10 * MIN);

  /**
   * `tsadm upgrade apply TO` with a patch that makes the new kube-apiserver exit (an unknown flag) and
   * timeouts.upgradeManifests 40s: it must fail, roll kube-apiserver back (every manifest as before),
   * name kube-apiserver and the backup folder in its error, and leave a healthy API server.
   */
  async function failingUpgrade(): Promise<void> {
    await waitJobsRun(U5);
    const manifests = Object.fromEntries(await Promise.all(STATIC_PODS.map(async (c) =>
      [c, (await machineExec(U5.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`])).stdout] as const)));
    const dirsBefore = await backupDirs(U5.name);
    const patches = path.join(cacheDir(), 'e2e-scratch', `patches-${U5.name}`);
    mkdirSync(patches, { recursive: true });
    writeFileSync(path.join(patches, 'kube-apiserver+json.json'), JSON.stringify([{ op: 'add', path: '/spec/containers/0/command/-', value: '--no-such-flag=1' }]));
    const config = writeSharedFile(`upgrade-${U5.name}.yaml`, [
      'apiVersion: kubeadm.k8s.io/v1beta4',
      'kind: UpgradeConfiguration',
      'timeouts:',
      '  upgradeManifests: 40s',
      '',
    ].join('\n'));
    const r = await tsadm(U5.name, ['upgrade', 'apply', TO, '-y', '--config', config, '--patches', patches], { reject: false, timeoutMs: 8 * MIN });
    expect(r.exitCode).not.toBe(0);
    const dirs = (await backupDirs(U5.name)).filter((d) => !dirsBefore.includes(d));
    expect(dirs).toHaveLength(1);
    const errorLine = r.stderr.split('\n').find((l) => l.startsWith('error: '));
    if (!errorLine?.includes('kube-apiserver') || !errorLine.includes(dirs[0]!)) throw new Error(`the error line does not name kube-apiserver and ${dirs[0]}:\n${r.all}`);
    // Rolled back: every manifest as before (the others were never touched: kube-apiserver comes first after etcd).
    for (const c of STATIC_PODS) {
      expect({ [c]: (await machineExec(U5.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`])).stdout }).toEqual({ [c]: manifests[c] });
    }
    await waitFor(async () => (await kubectl(U5.name, ['get', '--raw', '/healthz'], { reject: false })).trim() === 'ok', 3 * MIN, 'the API server healthy');
    expect((await kubectl(U5.name, ['get', 'nodes', '-o', 'name'])).trim()).toBe(`node/${U5.name}`);
  }

  test('a failing upgrade (the new kube-apiserver exits): rolled back after timeouts.upgradeManifests, the error names it and the backup folder, the API server healthy', async () => {
    await failingUpgrade();
    expect(Object.fromEntries(await Promise.all(STATIC_PODS.map(async (c) =>
      [c, (await machineExec(U5.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`])).stdout] as const)))).toEqual(manifestsBefore);
    await expectClusterAt(U5, FROM);
  }, 10 * MIN);

  test('`tsadm upgrade apply --resume v1.20.3 -y` finishes it: the cluster at v1.20.3', async () => {
    await waitJobsRun(U5);
    const r = await tsadm(U5.name, ['upgrade', 'apply', '--resume', TO, '-y'], { reject: false, timeoutMs: 10 * MIN });
    if (r.exitCode !== 0) throw commandFailure('tsadm upgrade apply --resume', r, U5.name);
    expect(r.stdout).toContain(`SUCCESS! Your cluster was upgraded to "${TO}"`);
    await expectClusterAt(U5, TO);
    expect((await kubectl(U5.name, ['get', '--raw', '/healthz'])).trim()).toBe('ok');
  }, 10 * MIN);

  /** A --patches folder on the shared scratch area holding one JSON patch for COMPONENT. */
  function patchDir(name: string, component: string, value: string): string {
    const dir = path.join(cacheDir(), 'e2e-scratch', `patches-${U5.name}-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${component}+json.json`), JSON.stringify([{ op: 'add', path: '/spec/containers/0/command/-', value }]));
    return dir;
  }

  test('an upgrade as a plan: `--dry-run --plan` changes nothing, `tsadm apply` writes the new kube-scheduler manifest and waits until the kubelet runs it', async () => {
    await waitJobsRun(U5);
    const before = await manifestStamps(U5.name);
    const planFile = `/tmp/upgrade-plan-${U5.name}.json`;
    const planned = await tsadm(U5.name, ['upgrade', 'apply', TO, '--dry-run', '--plan', planFile, '--patches', patchDir('good', 'kube-scheduler', '--v=2')], { reject: false, timeoutMs: 5 * MIN });
    if (planned.exitCode !== 0) throw commandFailure('planning', planned);
    expect(await manifestStamps(U5.name)).toEqual(before);
    const steps = (JSON.parse((await machineExec(U5.name, ['cat', planFile])).stdout) as { steps: { type: string; for?: string; component?: string }[] }).steps;
    // Only kube-scheduler's manifest changes: one wait, for it.
    expect(steps.filter((st) => st.type === 'wait').map((st) => [st.for, st.component])).toEqual([['static-pod', 'kube-scheduler']]);
    const hashBefore = await kubectl(U5.name, ['-n', 'kube-system', 'get', 'pod', `kube-scheduler-${U5.name}`, '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/config\\.hash}']);
    const applied = await tsadm(U5.name, ['apply', planFile], { reject: false, timeoutMs: 8 * MIN });
    if (applied.exitCode !== 0) throw commandFailure('tsadm apply', applied);
    expect(applied.stdout).toContain('Component "kube-scheduler" upgraded successfully!');
    expect((await machineExec(U5.name, ['cat', '/etc/kubernetes/manifests/kube-scheduler.yaml'])).stdout).toContain('- --v=2');
    const hashAfter = await kubectl(U5.name, ['-n', 'kube-system', 'get', 'pod', `kube-scheduler-${U5.name}`, '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/config\\.hash}']);
    expect(hashAfter).not.toBe(hashBefore);
    await machineExec(U5.name, ['rm', '-f', planFile]);
  }, 10 * MIN);

  test('a plan whose kube-apiserver does not come back: `tsadm apply` puts the backup back and names the component and the backup', async () => {
    await waitJobsRun(U5);
    const before = await manifestStamps(U5.name);
    const sha = (stamps: Record<string, string>) => Object.fromEntries(Object.entries(stamps).map(([k, v]) => [k, v.split(' ')[0]]));
    const planFile = `/tmp/upgrade-plan-bad-${U5.name}.json`;
    const config = writeSharedFile(`upgrade-plan-${U5.name}.yaml`, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\ntimeouts:\n  upgradeManifests: 40s\n');
    const planned = await tsadm(U5.name, ['upgrade', 'apply', TO, '--dry-run', '--plan', planFile, '--config', config, '--patches', patchDir('bad', 'kube-apiserver', '--no-such-flag=1')], { reject: false, timeoutMs: 5 * MIN });
    if (planned.exitCode !== 0) throw commandFailure('planning', planned);
    const applied = await tsadm(U5.name, ['apply', planFile], { reject: false, timeoutMs: 8 * MIN });
    expect(applied.exitCode).toBe(1);
    const errorLine = applied.stderr.split('\n').find((l) => l.startsWith('error: ')) ?? '';
    expect(errorLine).toMatch(/upgrading kube-apiserver failed: .*rolled back kube-apiserver to \/etc\/kubernetes\/tmp\/kubeadm-backup-manifests-[0-9-]+\/kube-apiserver\.yaml/);
    // The manifest is back (the renewed certificates stay: they are valid ones).
    expect(sha(await manifestStamps(U5.name))).toEqual(sha(before));
    await waitFor(async () => (await kubectl(U5.name, ['get', '--raw', '/healthz'], { reject: false })).trim() === 'ok', 3 * MIN, 'the API server healthy');
    await machineExec(U5.name, ['rm', '-f', planFile]);
  }, 10 * MIN);
});
