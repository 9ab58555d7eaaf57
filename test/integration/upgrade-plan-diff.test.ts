/**
 * `tsadm upgrade plan` and `tsadm upgrade diff` through the CLI (main() in-process) against a real
 * kube-apiserver v1.20.2 + etcd on loopback, on a cluster made by tsadm's own init phases
 * (upload-config, mark-control-plane, addons) and control-plane phase under a --rootfs. Expected
 * values are kubeadm v1.20's: its plan layout (cmd/upgrade/plan.go) and its v1.20 constants
 * (etcd 3.4.13-0, CoreDNS 1.7.0, the same for every v1.20 patch); a patch upgrade changes only
 * the image tags of the control-plane manifests. Neither command may write, to the cluster or
 * to the machine.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeWithApiServer, registerNode, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { clusterSnapshot, type ClusterSnapshot } from '../helpers/cluster-snapshot.js';
import { fixtureInitConfig } from '../helpers/config-fixture.js';
import { fixtureText } from '../helpers/kubeadm-fixtures.js';
import { initCtxFor } from '../helpers/phase-ctx.js';
import { runCli } from '../helpers/run-cli.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import { runPhases } from '../../src/engine/runner.js';
import { addonPhase } from '../../src/phases/addons/addon-phase.js';
import { markControlPlanePhase } from '../../src/phases/cluster/mark-control-plane.js';
import { uploadConfigPhase } from '../../src/phases/cluster/upload-config.js';
import { controlPlanePhase } from '../../src/phases/controlplane/phase.js';

const PLAN_v1_20_3 = `Components that must be upgraded manually after you have upgraded the control plane with 'tsadm upgrade apply':
COMPONENT   CURRENT       AVAILABLE
kubelet     1 x v1.20.2   v1.20.3

Upgrade to the latest version in the v1.20 series:

COMPONENT                 CURRENT    AVAILABLE
kube-apiserver            v1.20.2    v1.20.3
kube-controller-manager   v1.20.2    v1.20.3
kube-scheduler            v1.20.2    v1.20.3
kube-proxy                v1.20.2    v1.20.3
CoreDNS                   1.7.0      1.7.0
etcd                      3.4.13-0   3.4.13-0

You can now apply the upgrade by executing the following command:

	tsadm upgrade apply v1.20.3

_____________________________________________________________________


The table below shows the current state of component configs as understood by this version of tsadm.
Configs that have a "yes" mark in the "MANUAL UPGRADE REQUIRED" column require manual config upgrade or
resetting to tsadm defaults before a successful upgrade can be performed. The version to manually
upgrade to is denoted in the "PREFERRED VERSION" column.

API GROUP                 CURRENT VERSION   PREFERRED VERSION   MANUAL UPGRADE REQUIRED
kubeproxy.config.k8s.io   v1alpha1          v1alpha1            no
kubelet.config.k8s.io     v1beta1           v1beta1             no
_____________________________________________________________________

`;

const COLLECTIONS = [
  '/api/v1/configmaps', '/api/v1/secrets', '/api/v1/services', '/api/v1/serviceaccounts', '/api/v1/nodes', '/api/v1/namespaces',
  '/apis/apps/v1/deployments', '/apis/apps/v1/daemonsets',
  '/apis/rbac.authorization.k8s.io/v1/roles', '/apis/rbac.authorization.k8s.io/v1/rolebindings',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
];

describeWithApiServer('upgrade plan and diff on a real cluster', () => {
  let server: TestApiServer;
  let root: TempRoot;

  beforeAll(async () => {
    server = await startApiServer();
    const port = new URL(server.url).port;
    root = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 },
      '/var/lib/kubelet/config.yaml': fixtureText('kubeadm-1.20-kubelet-config.yaml'),
      '/etc/kubernetes/pki/ca.crt': server.caPem,
      '/etc/kubernetes/pki/ca.key': server.caKeyPem,
      // kubeadm v1.20.2's own etcd manifest (image k8s.gcr.io/etcd:3.4.13-0).
      '/etc/kubernetes/manifests/etcd.yaml': readFileSync(path.resolve('test/fixtures/manifests/v1.20.2/default/etcd.yaml'), 'utf8'),
    });
    expect((await registerNode(server, 'cp1')).status).toBe(201);
    // The kubelet reports its version in the Node's status.
    const status = await server.request('PATCH', '/api/v1/nodes/cp1/status', {
      auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { nodeInfo: { kubeletVersion: 'v1.20.2' } } },
    });
    expect(status.status).toBe(200);
    const base = fixtureInitConfig({
      cluster: { controlPlaneEndpoint: `127.0.0.1:${port}`, networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '10.244.0.0/16', dnsDomain: 'cluster.local' } },
    });
    // The manifests advertise a LAN address (tsadm refuses a loopback one, as kubeadm); only the
    // rendering uses it: every request goes to the loopback API server of admin.conf.
    const cfg = { ...base, init: { ...base.init, localAPIEndpoint: { advertiseAddress: '192.168.10.11', bindPort: 6443 } } };
    const { ctx } = initCtxFor(cfg, root.dir);
    await runPhases([uploadConfigPhase, markControlPlanePhase, addonPhase, controlPlanePhase], ctx, { filter: [], skip: [] });
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  const common = (): string[] => ['--rootfs', root.dir, '--kubeconfig', '/etc/kubernetes/admin.conf'];

  /** Every object's resourceVersion, and every file under the root with its content hash. */
  const snapshot = (): Promise<ClusterSnapshot> => clusterSnapshot(server, COLLECTIONS, root.dir);

  test('plan v1.20.3 prints kubeadm\'s tables and writes nothing', async () => {
    const before = await snapshot();
    const run = await runCli(['upgrade', 'plan', 'v1.20.3', ...common()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[upgrade/versions] Cluster version: v1.20.2\n');
    expect(run.stdout.slice(run.stdout.indexOf('Components that must'))).toBe(PLAN_v1_20_3);
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  test('plan reads its version from a v1beta4 UpgradeConfiguration (--config), flags mixed in', async () => {
    const file = path.join(root.dir, '..', `${path.basename(root.dir)}-upgrade.yaml`);
    writeFileSync(file, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\nplan:\n  kubernetesVersion: v1.20.3\n');
    try {
      const run = await runCli(['upgrade', 'plan', '--config', file, '--allow-release-candidate-upgrades', ...common()]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.slice(run.stdout.indexOf('Components that must'))).toBe(PLAN_v1_20_3);
    } finally {
      rmSync(file, { force: true });
    }
  }, 60_000);

  test('plan -o json: one UpgradePlan document and nothing else on stdout', async () => {
    const run = await runCli(['upgrade', 'plan', 'v1.20.3', '-o', 'json', ...common()]);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { kind: string; availableUpgrades: { targetVersion: string; verdict: string; components: { name: string; currentVersion: string; newVersion: string }[] }[] };
    expect(doc.kind).toBe('UpgradePlan');
    expect(doc.availableUpgrades.map((u) => [u.targetVersion, u.verdict])).toEqual([['v1.20.3', 'allowed']]);
    expect(doc.availableUpgrades[0]?.components.find((c) => c.name === 'etcd')).toEqual({ name: 'etcd', currentVersion: '3.4.13-0', newVersion: '3.4.13-0' });
  }, 60_000);

  test('plan --etcd-upgrade=false (kubeadm 1.33+): no etcd row; -o kyaml: the same UpgradePlan in KYAML', async () => {
    const run = await runCli(['upgrade', 'plan', 'v1.20.3', '-o', 'json', '--etcd-upgrade=false', ...common()]);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { availableUpgrades: { components: { name: string }[] }[] };
    expect(doc.availableUpgrades[0]?.components.map((c) => c.name)).not.toContain('etcd');
    expect(doc.availableUpgrades[0]?.components.map((c) => c.name)).toContain('kube-apiserver');
    const kyaml = await runCli(['upgrade', 'plan', 'v1.20.3', '-o', 'kyaml', ...common()]);
    expect(kyaml.code).toBe(0);
    expect(kyaml.stdout.startsWith('---\n{\n')).toBe(true);
    expect(kyaml.stdout).toContain('kind: "UpgradePlan",');
  }, 60_000);

  test('plan without a version offers, offline, the next minor\'s newest patch tsadm knows (v1.20.2 is the newest v1.20 it knows)', async () => {
    const run = await runCli(['upgrade', 'plan', '-o', 'json', ...common()]);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { availableUpgrades: { description: string; targetVersion: string; verdict: string; components: { name: string; newVersion: string }[] }[] };
    expect(doc.availableUpgrades.map((u) => [u.description, u.verdict])).toEqual([['version in the v1.21 series', 'allowed']]);
    expect(doc.availableUpgrades[0]?.targetVersion).toMatch(/^v1\.21\.\d+$/);
    // kubeadm v1.21's constants: CoreDNS v1.8.0, etcd 3.4.13-0.
    expect(doc.availableUpgrades[0]?.components.filter((c) => ['CoreDNS', 'etcd'].includes(c.name)).map((c) => c.newVersion)).toEqual(['v1.8.0', '3.4.13-0']);
  }, 60_000);

  test('plan of a skipped minor says why it is refused', async () => {
    const run = await runCli(['upgrade', 'plan', 'v1.22.0', ...common()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("tsadm's version policy refuses this upgrade:\n\t- ");
    expect(run.stdout).toContain('skips a minor');
    expect(run.stdout).not.toContain('\ttsadm upgrade apply v1.22.0');
  }, 60_000);

  test('diff at the cluster\'s own version is empty; to v1.20.3 only the image tags change', async () => {
    const before = await snapshot();
    const same = await runCli(['upgrade', 'diff', ...common()]);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(same.stdout).toBe('');
    const run = await runCli(['upgrade', 'diff', 'v1.20.3', '--context-lines', '0', ...common()]);
    expect(run.code).toBe(0);
    const changed = run.stdout.split('\n').filter((l) => /^[-+]/.test(l));
    expect(changed).toEqual([
      '--- /etc/kubernetes/manifests/kube-apiserver.yaml', '+++ new manifest',
      '-    image: k8s.gcr.io/kube-apiserver:v1.20.2', '+    image: k8s.gcr.io/kube-apiserver:v1.20.3',
      '--- /etc/kubernetes/manifests/kube-controller-manager.yaml', '+++ new manifest',
      '-    image: k8s.gcr.io/kube-controller-manager:v1.20.2', '+    image: k8s.gcr.io/kube-controller-manager:v1.20.3',
      '--- /etc/kubernetes/manifests/kube-scheduler.yaml', '+++ new manifest',
      '-    image: k8s.gcr.io/kube-scheduler:v1.20.2', '+    image: k8s.gcr.io/kube-scheduler:v1.20.3',
    ]);
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  test('diff refuses a missing manifest as kubeadm does', async () => {
    const run = await runCli(['upgrade', 'diff', '--scheduler-manifest', '/nope.yaml', ...common()]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('the manifest file "/nope.yaml" does not exist');
  }, 60_000);
});
