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
 * Needs `npm run build` (machines run bin/tsadm). Only these machines are created and destroyed
 * (never destroyAll: other suites share the host).
 */
import { expect } from '@jest/globals';
import * as yaml from 'js-yaml';
import {
  UPGRADE_RENEWED_CERTIFICATES, certificateNotAfter, createMachine, destroyMachine, expectClusterAt, importCoreDNSStandIn, importImages,
  installCrictlShim, kubeadmAt, kubeadmConfig, kubectl, machineExec, machineImages, machineLog, nodeKubeletVersion,
  nodeReadiness, provision, requireComponents, tsadm, useNodeBinaries, waitClusterReady, waitFor, writeSharedFile,
  type Machine,
} from './harness.js';

const U1: Machine = { name: 'u1', ip: '10.250.0.81' };
const U2: Machine = { name: 'u2', ip: '10.250.0.82' };
const MACHINES = [U1, U2];
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

beforeAll(async () => {
  await provision();
  requireComponents();
  kubeadmAt(TO);
  for (const m of MACHINES) await destroyMachine(m.name).catch(() => undefined);
}, 20 * MIN);

afterAll(async () => {
  for (const m of MACHINES) await destroyMachine(m.name).catch(() => undefined);
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
    if (r.exitCode !== 0) throw new Error(`kubeadm upgrade apply exited ${r.exitCode}:\n${r.all}\n--- kubelet\n${machineLog(U1.name)}`);
    expect(r.stdout).toContain(`[upgrade/successful] SUCCESS! Your cluster was upgraded to "${TO}". Enjoy!`);
    for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      expect(r.stdout).toContain(`[upgrade/staticpods] Component "${c}" upgraded successfully!`);
    }
    // etcd's image (3.4.13-0) is the same in both versions: kubeadm leaves it alone.
    expect(r.stdout).toContain('[upgrade/staticpods] Current and new manifests of etcd are equal, skipping upgrade');
    expect(r.all).not.toMatch(/\[WARNING/);

    await expectClusterAt(U1, TO);
    // What kubeadm wrote anew is what tsadm had written, but for the version: tsadm's init output
    // is kubeadm's (a difference here is a difference between tsadm init and kubeadm). One known,
    // deliberate exception: kube-proxy's config.conf, which tsadm writes with the fields set
    // (test/unit/phases/addons/kube-proxy-render.test.ts) and kubeadm in Go's full serialization,
    // zero values included: the same configuration for kube-proxy, compared as such.
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
    if (r.exitCode !== 0) throw new Error(`kubeadm upgrade node exited ${r.exitCode}:\n${r.all}`);
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
