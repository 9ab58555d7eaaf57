/**
 * The upgrade paths of the current minors (issue 26 §2 "Upgrade"): v1.34 → v1.35 → v1.36 → v1.37,
 * one step at a time, against a real kube-apiserver (v1.20.2, the one this machine has; it stores
 * the objects and enforces RBAC, whatever version they are rendered for).
 *
 * Each step starts from what `tsadm init` of the source version writes (the cluster objects of
 * upload-config, mark-control-plane, bootstrap-token and addon, and the etcd and control-plane
 * static Pod manifests under a --rootfs), then checks:
 * - `upgrade plan`: the rows a cluster at the source version is offered (the real objects and
 *   manifests are read; only the API server's own version is given as the source version, since
 *   the server here is v1.20.2);
 * - `upgrade diff <target>` through the CLI: the changed lines of the three control-plane manifests;
 * - the object phases of `upgrade apply` (upload-config, kubelet-config, bootstrap-token, addon,
 *   post-upgrade): the objects change as kubeadm's facts say, and a second run writes nothing
 *   (every object's resourceVersion unchanged, no object event but "unchanged").
 *
 * Expected values are kubeadm's, from the golden facts of each minor (test/fixtures/versions/
 * 1.34–1.37.yaml, each naming the kubeadm file or PR it was read from), never from
 * src/versions/table.ts: etcd 3.6.4-0 → 3.6.6-0 → 3.6.8-0 → 3.7.0-0, CoreDNS v1.12.1 → v1.13.1 →
 * v1.14.2 → v1.14.6, the kube-proxy and control-plane images at the target version, kubeadm-config
 * stored as kubeadm.k8s.io/v1beta4, one unversioned kubelet-config ConfigMap, the
 * kube-controller-manager's flexvolume-dir gone at 1.36 (PR #136423) and kube-proxy's
 * `mode: iptables` at 1.37 (PR #139777).
 *
 * Two tests need the renderer switches of branch issue-26-switches (another engineer's, merged by
 * the lead): the 1.35 → 1.36 diff (no flexvolume-dir from 1.36) and the 1.37 kube-proxy mode. Each
 * says so in its name; on a main without that branch they fail, by design: the facts are kubeadm's.
 */
import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { describeWithApiServer, registerNode, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { clusterSnapshot, type ClusterSnapshot } from '../helpers/cluster-snapshot.js';
import { fixtureInitConfig } from '../helpers/config-fixture.js';
import { fixtureText } from '../helpers/kubeadm-fixtures.js';
import { initCtxFor, type MemoryReporter } from '../helpers/phase-ctx.js';
import { runCli } from '../helpers/run-cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import { upgradeCtxFor } from '../helpers/upgrade-ctx.js';
import type { Phase } from '../../src/engine/phase.js';
import { runPhases } from '../../src/engine/runner.js';
import { RootedHost } from '../../src/host/rooted-host.js';
import { RestKubeApi } from '../../src/kube/rest-api.js';
import { transportFromKubeconfig } from '../../src/kube/transport.js';
import type { TsadmEvent } from '../../src/log/events.js';
import { addonPhase } from '../../src/phases/addons/addon-phase.js';
import { bootstrapTokenPhase } from '../../src/phases/cluster/bootstrap-token.js';
import { markControlPlanePhase } from '../../src/phases/cluster/mark-control-plane.js';
import { uploadConfigPhase } from '../../src/phases/cluster/upload-config.js';
import { controlPlanePhase } from '../../src/phases/controlplane/phase.js';
import { etcdPhase } from '../../src/phases/etcd/phase.js';
import { upgradeAddonPhase } from '../../src/phases/upgrade/addons.js';
import { upgradeBootstrapTokenPhase } from '../../src/phases/upgrade/bootstrap-token.js';
import { upgradeKubeletConfigPhase } from '../../src/phases/upgrade/kubelet-config.js';
import { upgradePostUpgradePhase } from '../../src/phases/upgrade/post-upgrade.js';
import { upgradeUploadConfigPhase } from '../../src/phases/upgrade/upload-config.js';
import { readUpgradeCluster } from '../../src/upgrade-plan/cluster-view.js';
import { computeUpgrades } from '../../src/upgrade-plan/plan-compute.js';
import { readPlanInputs } from '../../src/upgrade-plan/plan-read.js';
import { formatPlan } from '../../src/upgrade-plan/plan-render.js';
import type { InitCtx } from '../../src/run/context.js';
import type { UpgradeCtx } from '../../src/phases/upgrade/context.js';

/** One upgrade step and kubeadm's images on both sides (golden facts `images` of each minor). */
interface Step {
  readonly from: string;
  readonly to: string;
  readonly etcd: readonly [string, string];
  readonly coredns: readonly [string, string];
  /** The first release on the way whose corefile-migration plugin table tsadm has not read. */
  readonly unreadCorefileTable: string;
}

const STEPS: readonly Step[] = [
  { from: 'v1.34.1', to: 'v1.35.4', etcd: ['3.6.4-0', '3.6.6-0'], coredns: ['v1.12.1', 'v1.13.1'], unreadCorefileTable: '1.12.4' },
  { from: 'v1.35.4', to: 'v1.36.0', etcd: ['3.6.6-0', '3.6.8-0'], coredns: ['v1.13.1', 'v1.14.2'], unreadCorefileTable: '1.13.2' },
  { from: 'v1.36.0', to: 'v1.37.0', etcd: ['3.6.8-0', '3.7.0-0'], coredns: ['v1.14.2', 'v1.14.6'], unreadCorefileTable: '1.14.3' },
];

const REGISTRY = 'registry.k8s.io';
/** kubeadm's default flex-volume directory, as its own manifest writes it (test/fixtures/manifests/v1.20.2/default/kube-controller-manager.yaml). */
const FLEXVOLUME_LINES = [
  '-    - mountPath: /usr/libexec/kubernetes/kubelet-plugins/volume/exec',
  '-      name: flexvolume-dir',
  '-  - hostPath:',
  '-      path: /usr/libexec/kubernetes/kubelet-plugins/volume/exec',
  '-      type: DirectoryOrCreate',
  '-    name: flexvolume-dir',
];
const INIT: Phase<InitCtx>[] = [uploadConfigPhase, markControlPlanePhase, bootstrapTokenPhase, addonPhase, etcdPhase, controlPlanePhase];
const UPGRADE: Phase<UpgradeCtx>[] = [upgradeUploadConfigPhase, upgradeKubeletConfigPhase, upgradeBootstrapTokenPhase, upgradeAddonPhase, upgradePostUpgradePhase];
/** This node's advertise address (a documentation address: kubeadm refuses loopback); every request goes to the loopback API server of admin.conf. */
const ADVERTISE = '192.0.2.10';
const CUSTOM_COREFILE = '.:53 {\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n    }\n    forward . 9.9.9.9\n    cache 60\n}\n';
const COLLECTIONS = [
  '/api/v1/configmaps', '/api/v1/secrets', '/api/v1/services', '/api/v1/serviceaccounts', '/api/v1/nodes', '/api/v1/namespaces',
  '/apis/apps/v1/deployments', '/apis/apps/v1/daemonsets',
  '/apis/rbac.authorization.k8s.io/v1/roles', '/apis/rbac.authorization.k8s.io/v1/rolebindings',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
];

describeWithApiServer('upgrade 1.34 → 1.35 → 1.36 → 1.37 on a real API server', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let port: string;

  const get = (p: string) => server.request('GET', p, { auth: 'admin' });
  const cm = (name: string, ns = 'kube-system') => get(`/api/v1/namespaces/${ns}/configmaps/${name}`);
  const image = async (kind: 'deployments' | 'daemonsets', name: string) => (await get(`/apis/apps/v1/namespaces/kube-system/${kind}/${name}`)).body.spec.template.spec.containers[0]?.image;
  const objectEvents = (r: MemoryReporter) => r.events.filter((e): e is Extract<TsadmEvent, { type: 'object' }> => e.type === 'object');
  const changes = (r: MemoryReporter) => objectEvents(r).filter((e) => e.action !== 'unchanged').map((e) => `${e.action} ${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`);
  const logLines = (r: MemoryReporter) => r.events.flatMap((e) => (e.type === 'log' && e.verbosity === 0 ? [`[${e.prefix ?? e.phase}] ${e.message}`] : []));

  beforeAll(async () => {
    server = await startApiServer();
    port = new URL(server.url).port;
    root = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 },
      '/var/lib/kubelet/config.yaml': fixtureText('kubeadm-1.20-kubelet-config.yaml'),
      '/etc/kubernetes/pki/ca.crt': server.caPem,
      '/etc/kubernetes/pki/ca.key': server.caKeyPem,
    });
    expect((await registerNode(server, 'cp1')).status).toBe(201);
    // No controller-manager runs here: the namespace's default ServiceAccount the kube-apiserver
    // mirror Pod needs (ServiceAccount admission) is created by hand.
    const sa = await server.request('POST', '/api/v1/namespaces/kube-system/serviceaccounts', {
      auth: 'admin', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'kube-system' } },
    });
    expect([201, 409]).toContain(sa.status);
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  /** What `tsadm init` of `version` writes: the cluster objects and the etcd and control-plane manifests. */
  async function initAt(version: string): Promise<void> {
    const base = fixtureInitConfig({
      cluster: {
        kubernetesVersion: version,
        imageRepository: REGISTRY,
        controlPlaneEndpoint: `127.0.0.1:${port}`,
        networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '10.244.0.0/16', dnsDomain: 'cluster.local' },
      },
    });
    const cfg = { ...base, init: { ...base.init, localAPIEndpoint: { advertiseAddress: ADVERTISE, bindPort: 6443 } } };
    await runPhases(INIT, initCtxFor(cfg, root.dir).ctx, { filter: [], skip: [] });
  }

  /** The node as the kubelet of `version` reports it, and its kube-apiserver mirror Pod running `apiserverVersion`. */
  async function nodeAt(kubeletVersion: string, apiserverVersion: string): Promise<void> {
    const status = await server.request('PATCH', '/api/v1/nodes/cp1/status', {
      auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { nodeInfo: { kubeletVersion } } },
    });
    expect(status.status).toBe(200);
    const pods = '/api/v1/namespaces/kube-system/pods';
    await server.request('DELETE', `${pods}/kube-apiserver-cp1?gracePeriodSeconds=0`, { auth: 'admin' });
    const pod = await server.request('POST', pods, {
      auth: 'admin',
      body: {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: 'kube-apiserver-cp1', namespace: 'kube-system', labels: { component: 'kube-apiserver', tier: 'control-plane' } },
        spec: { nodeName: 'cp1', automountServiceAccountToken: false, containers: [{ name: 'kube-apiserver', image: `${REGISTRY}/kube-apiserver:${apiserverVersion}` }] },
      },
    });
    expect(pod.status).toBe(201);
  }

  async function upgrade(version: string): Promise<MemoryReporter> {
    const { ctx, reporter } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version } });
    await runPhases(UPGRADE, ctx, { filter: [], skip: [] });
    return reporter;
  }

  /** Every object's resourceVersion and every file under the root with its content hash. */
  const snapshot = (): Promise<ClusterSnapshot> => clusterSnapshot(server, COLLECTIONS, root.dir);

  /** The plan's rows as printed, one [component, current, available] per line of the upgrade table. */
  function printedRows(text: string): string[][] {
    const start = text.indexOf('Upgrade to the latest version');
    const table = text.slice(start, text.indexOf('You can now apply', start));
    return table.split('\n').filter((l) => /^(kube-|CoreDNS|etcd)/.test(l)).map((l) => l.trim().split(/\s+/));
  }

  /** Changed lines of `tsadm upgrade diff <version> --context-lines 0`, file headers included. */
  async function diffLines(version: string): Promise<string[]> {
    const run = await runCli(['upgrade', 'diff', version, '--context-lines', '0', '--rootfs', root.dir, '--kubeconfig', '/etc/kubernetes/admin.conf']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return run.stdout.split('\n').filter((l) => /^[-+]/.test(l));
  }

  const imageLines = (from: string, to: string, component: string): string[] => [
    `-    image: ${REGISTRY}/${component}:${from}`, `+    image: ${REGISTRY}/${component}:${to}`,
  ];

  for (const step of STEPS) {
    const { from, to } = step;
    const toMinor = to.split('.').slice(0, 2).join('.');

    test(`${from}: the cluster as tsadm init of ${from} leaves it`, async () => {
      await initAt(from);
      await nodeAt(from, from);
      expect(yaml.load((await cm('kubeadm-config')).body.data.ClusterConfiguration ?? '')).toMatchObject({ kubernetesVersion: from });
      expect(await image('deployments', 'coredns')).toBe(`${REGISTRY}/coredns/coredns:${step.coredns[0]}`);
      expect(readFileSync(root.at('/etc/kubernetes/manifests/etcd.yaml'), 'utf8')).toContain(`image: ${REGISTRY}/etcd:${step.etcd[0]}\n`);
    }, 120_000);

    test(`${from} → ${to}: upgrade plan offers every component at kubeadm ${toMinor}'s version`, async () => {
      const api = new RestKubeApi(await transportFromKubeconfig(server.adminKubeconfig, 'admin.conf'));
      try {
        // The objects and manifests are the real ones; the server's own version is the source's.
        Object.assign(api, { serverVersion: () => Promise.resolve(from) });
        const host = new RootedHost(root.dir);
        const view = await readUpgradeCluster(api, host, 'cp1');
        const reading = await readPlanInputs(api, host, view);
        const upgrades = computeUpgrades(reading.versions, { version: to, allowExperimentalUpgrades: false, allowRCUpgrades: false });
        expect(upgrades.map((u) => [u.targetVersion, u.verdict, u.reasons])).toEqual([[to, 'allowed', []]]);
        const text = formatPlan({ clusterVersion: from, availableUpgrades: upgrades, configVersions: reading.configVersions }, 'text');
        expect(text).toContain(`COMPONENT   CURRENT       AVAILABLE\nkubelet     1 x ${from}   ${to}\n`);
        expect(printedRows(text)).toEqual([
          ['kube-apiserver', from, to],
          ['kube-controller-manager', from, to],
          ['kube-scheduler', from, to],
          ['kube-proxy', from, to],
          ['CoreDNS', ...step.coredns],
          ['etcd', ...step.etcd],
        ]);
        expect(text).toContain(`\ttsadm upgrade apply ${to}\n`);
      } finally {
        api.close();
      }
    }, 60_000);

    const needsSwitches = from === 'v1.35.4' ? ' (needs branch issue-26-switches: no flexvolume-dir from 1.36, PR #136423)' : '';
    test(`${from} → ${to}: upgrade diff changes the images${from === 'v1.35.4' ? ' and drops the kube-controller-manager\'s flexvolume-dir' : ' only'}${needsSwitches}`, async () => {
      const before = await snapshot();
      const lines = await diffLines(to);
      const kcmStart = lines.indexOf('--- /etc/kubernetes/manifests/kube-controller-manager.yaml');
      const kcmEnd = lines.indexOf('--- /etc/kubernetes/manifests/kube-scheduler.yaml');
      const kcm = lines.slice(kcmStart, kcmEnd);
      expect([...lines.slice(0, kcmStart), ...lines.slice(kcmEnd)]).toEqual([
        '--- /etc/kubernetes/manifests/kube-apiserver.yaml', '+++ new manifest', ...imageLines(from, to, 'kube-apiserver'),
        '--- /etc/kubernetes/manifests/kube-scheduler.yaml', '+++ new manifest', ...imageLines(from, to, 'kube-scheduler'),
      ]);
      // The order of the removed volume lines depends on how the diff aligns the neighbouring
      // "- hostPath:" items; the lines themselves are kubeadm's.
      const expectedKcm = ['--- /etc/kubernetes/manifests/kube-controller-manager.yaml', '+++ new manifest', ...imageLines(from, to, 'kube-controller-manager'),
        ...(from === 'v1.35.4' ? FLEXVOLUME_LINES : [])];
      expect([...kcm].sort()).toEqual([...expectedKcm].sort());
      expect(kcm.slice(0, 4)).toEqual(expectedKcm.slice(0, 4));
      expect(await snapshot()).toEqual(before);
    }, 60_000);

    test(`${from} → ${to}: the object phases change what kubeadm ${toMinor} changes; a second run writes nothing`, async () => {
      // The control plane of this node is at the target (upgrade apply's control-plane step ran).
      await nodeAt(from, to);
      const put = await server.request('PUT', '/api/v1/namespaces/kube-system/configmaps/coredns', {
        auth: 'admin',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: CUSTOM_COREFILE } },
      });
      expect(put.status).toBe(200);

      const r = await upgrade(to);
      const stored = (await cm('kubeadm-config')).body.data.ClusterConfiguration ?? '';
      expect(yaml.load(stored)).toMatchObject({ apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'ClusterConfiguration', kubernetesVersion: to });
      // One unversioned kubelet ConfigMap (kubeadm since 1.24); the node's file is what it holds
      // plus this node's CRI endpoint, which kubeadm writes to the file only (the ConfigMap is
      // shared by every node).
      const kubelet = await cm('kubelet-config');
      expect(kubelet.status).toBe(200);
      expect(kubelet.body.data.kubelet).toMatch(/^apiVersion: kubelet\.config\.k8s\.io\/v1beta1\n/m);
      expect(kubelet.body.data.kubelet).not.toContain('containerRuntimeEndpoint');
      expect((await cm(`kubelet-config-${toMinor.slice(1)}`)).status).toBe(404);
      const file = readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8');
      expect(file.split('\n').filter((l) => l.startsWith('containerRuntimeEndpoint: '))).toHaveLength(1);
      expect(file.split('\n').filter((l) => !l.startsWith('containerRuntimeEndpoint: ')).join('\n')).toBe(kubelet.body.data.kubelet);
      expect(await image('deployments', 'coredns')).toBe(`${REGISTRY}/coredns/coredns:${step.coredns[1]}`);
      expect(await image('daemonsets', 'kube-proxy')).toBe(`${REGISTRY}/kube-proxy:${to}`);
      // A customised Corefile is kept; tsadm says it could not check it (the library's tables of
      // these releases were not readable), where kubeadm may have migrated it.
      expect((await cm('coredns')).body.data.Corefile).toBe(CUSTOM_COREFILE);
      expect(logLines(r)).toContain(`[addons] the CoreDNS Configuration was not migrated: tsadm cannot check a customised Corefile for the upgrade from CoreDNS ${step.coredns[0].slice(1)} to ${step.coredns[1].slice(1)} `
        + `(tsadm has not read corefile-migration's plugin table of CoreDNS ${step.unreadCorefileTable}). The existing CoreDNS Corefile configuration has been retained.`);
      expect(changes(r)).toEqual(expect.arrayContaining([
        'updated ConfigMap kube-system/kubeadm-config', 'updated Deployment kube-system/coredns', 'updated DaemonSet kube-system/kube-proxy',
      ]));
      expect(logLines(r)).toEqual(expect.arrayContaining([
        '[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace',
        '[addons] Applied essential addon: CoreDNS',
        '[addons] Applied essential addon: kube-proxy',
      ]));

      const before = await snapshot();
      const again = await upgrade(to);
      expect(changes(again)).toEqual([]);
      expect(objectEvents(again).length).toBeGreaterThan(10);
      // Same CoreDNS on both sides now: nothing to check, no warning.
      expect(logLines(again).some((l) => l.includes('was not migrated'))).toBe(false);
      expect(await snapshot()).toEqual(before);
    }, 120_000);
  }

  test('v1.36.0 → v1.37.0: kube-proxy\'s configuration gets mode: iptables (PR #139777) (needs branch issue-26-switches)', async () => {
    // Runs after the 1.36 → 1.37 step above: the cluster's kube-proxy ConfigMap is 1.37's.
    const conf = yaml.load((await cm('kube-proxy')).body.data['config.conf'] ?? '') as Record<string, unknown>;
    expect(conf).toMatchObject({ apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', mode: 'iptables' });
  }, 60_000);

  test('v1.34 and v1.35 (kubeadm before PR #139777) leave kube-proxy\'s mode empty', async () => {
    for (const version of ['v1.34.1', 'v1.35.4']) {
      await initAt(version);
      // The same live ConfigMap as init of that version leaves it: re-render from scratch.
      expect((await server.request('DELETE', '/api/v1/namespaces/kube-system/configmaps/kube-proxy', { auth: 'admin' })).status).toBe(200);
      await initAt(version);
      const conf = yaml.load((await cm('kube-proxy')).body.data['config.conf'] ?? '') as Record<string, unknown>;
      expect([version, conf.mode ?? '']).toEqual([version, '']);
    }
  }, 120_000);
});
