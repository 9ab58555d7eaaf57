/**
 * `upgrade apply phase control-plane` on a --rootfs tree against a real kube-apiserver + etcd on
 * loopback. No kubelet runs here: a stand-in (below) does the one thing the phase watches for,
 * setting the mirror Pod's kubernetes.io/config.hash to a hash of the manifest on disk, as the
 * kubelet does when it restarts a static Pod; one test "breaks" it for a component to drive the
 * rollback.
 *
 * Oracles: the manifests kubeadm v1.20.2 itself wrote for this node (test/fixtures/manifests/
 * v1.20.2/default, generate.sh there), the PKI written by the reference kubeadm, openssl for the
 * renewed certificates, and kubeadm 1.20.2's source for names and messages.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveUpgradeConfig } from '../../../../src/config/load-upgrade.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { DryRunHost } from '../../../../src/host/dry-run-host.js';
import { createApiSeam } from '../../../../src/kube/seam.js';
import { PhaseLogger } from '../../../../src/log/logger.js';
import { journalOf } from '../../../../src/host/journal.js';
import { realSystem } from '../../../../src/host/system-probe.js';
import { upgradeControlPlanePhase } from '../../../../src/phases/upgrade/control-plane.js';
import { realUpgradeDeps } from '../../../../src/phases/upgrade/deps.js';
import { newUpgradeRunState } from '../../../../src/phases/upgrade/state.js';
import type { UpgradeCtx } from '../../../../src/phases/upgrade/context.js';
import { startApiServer, type TestApiServer } from '../../../helpers/apiserver.js';
import { kubeadm } from '../../../helpers/certs-lifecycle.js';
import { MemoryReporter } from '../../../helpers/phase-ctx.js';
import { openssl } from '../../../helpers/pki-test-utils.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';
import { FakeKubelet, manifestHash } from '../../../helpers/fake-kubelet.js';
import { describeWithOracles, oracles } from '../../../helpers/oracle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(here, '../../../fixtures/manifests/v1.20.2/default');
const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
type Component = (typeof COMPONENTS)[number];
const NODE = 'cp1';
const TEST_KUBECONFIG = '/etc/kubernetes/test-admin.conf';

/** kubeadm v1.20.2's manifest of this node (the target). */
const target = (c: Component): string => readFileSync(path.join(FIXTURE, `${c}.yaml`), 'utf8');
/** The same node as kubeadm 1.20 wrote it for v1.20.0: only the control-plane images differ. */
const before = (c: Component): string => (c === 'etcd' ? target(c) : target(c).replace(/:v1\.20\.2$/m, ':v1.20.0'));

const CLUSTER_CONFIGURATION = (version: string): string => [
  'apiVersion: kubeadm.k8s.io/v1beta2',
  'kind: ClusterConfiguration',
  `kubernetesVersion: ${version}`,
  'clusterName: kubernetes',
  'imageRepository: k8s.gcr.io',
  'certificatesDir: /etc/kubernetes/pki',
  'networking:',
  '  serviceSubnet: 10.96.0.0/12',
  '  dnsDomain: cluster.local',
  'etcd:',
  '  local:',
  '    dataDir: /var/lib/etcd',
  '',
].join('\n');

async function putConfigMap(server: TestApiServer, name: string, data: Record<string, string>): Promise<void> {
  const r = await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', { auth: 'admin', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'kube-system' }, data } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`ConfigMap ${name}: ${r.status} ${r.text}`);
}

type Check = NonNullable<UpgradeCtx['deps']['healthCheck']>;
const allHealthy: Check = () => Promise.resolve({ ok: true, detail: 'ok' });

function ctxFor(root: TempRoot, opts: { dryRun?: boolean; timeoutMs?: number; certificateRenewal?: boolean; etcdUpgrade?: boolean; now?: Date; healthCheck?: Check } = {}): { ctx: UpgradeCtx; reporter: MemoryReporter } {
  const reporter = new MemoryReporter();
  const rooted = new RootedHost(root.dir);
  const host = opts.dryRun ? new DryRunHost(rooted) : rooted;
  const resolved = resolveUpgradeConfig({ flags: {}, version: 'v1.20.2' }, 'apply');
  const cfg = {
    ...resolved,
    upgrade: {
      ...resolved.upgrade,
      dryRun: opts.dryRun ?? false,
      certificateRenewal: opts.certificateRenewal ?? true,
      etcdUpgrade: opts.etcdUpgrade ?? true,
      upgradeManifestsTimeoutMs: opts.timeoutMs ?? 30_000,
    },
  };
  // The backup folders are named after the clock (kubeadm: time.Now() when it makes them); certificates are signed from the real start.
  const now = opts.now ?? new Date();
  const ctx: UpgradeCtx = {
    host,
    api: createApiSeam(host, opts.dryRun ?? false),
    log: new PhaseLogger(reporter),
    dryRun: opts.dryRun ?? false,
    system: realSystem,
    clock: () => now,
    startTime: new Date(),
    command: 'apply',
    cfg,
    flags: {},
    options: { kubeconfigPath: TEST_KUBECONFIG },
    // The test answers for the health endpoints (nothing listens on 192.168.10.11:6443 or 10257/10259/2381 here).
    deps: realUpgradeDeps(process.stdin, { hostname: () => NODE, healthCheck: opts.healthCheck ?? allHealthy }),
    state: newUpgradeRunState(),
  };
  return { ctx, reporter };
}

const PKI_FILES = ['apiserver.crt', 'apiserver-kubelet-client.crt', 'front-proxy-client.crt', 'apiserver-etcd-client.crt', 'etcd/server.crt', 'etcd/peer.crt', 'etcd/healthcheck-client.crt'];
const serial = (root: TempRoot, file: string): string => openssl(['x509', '-noout', '-serial', '-in', root.at(`/etc/kubernetes/pki/${file}`)]).trim();
const kubeconfigCertSerial = (root: TempRoot, file: string): string => {
  const text = readFileSync(root.at(`/etc/kubernetes/${file}`), 'utf8');
  const b64 = /client-certificate-data: (\S+)/.exec(text)?.[1] ?? '';
  const pem = Buffer.from(b64, 'base64').toString('utf8');
  return openssl(['x509', '-noout', '-serial'], pem).trim();
};
const manifest = (root: TempRoot, c: Component): string => readFileSync(root.at(`/etc/kubernetes/manifests/${c}.yaml`), 'utf8');
const tmpEntries = (root: TempRoot): string[] => (existsSync(root.at('/etc/kubernetes/tmp')) ? readdirSync(root.at('/etc/kubernetes/tmp')).sort() : []);

/** The node's PKI comes from the reference kubeadm, the cluster is a real API server. */
const describeReal = describeWithOracles([oracles.kubeadm, oracles.apiServer]);

describeReal('upgrade control-plane on a --rootfs node against a real API server', () => {
  let server: TestApiServer;
  beforeAll(async () => {
    server = await startApiServer();
    await putConfigMap(server, 'kubeadm-config', { ClusterConfiguration: CLUSTER_CONFIGURATION('v1.20.0') });
    await putConfigMap(server, 'kubelet-config-1.20', { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n' });
    const node = await server.request('POST', '/api/v1/nodes', {
      auth: 'admin',
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE, 'node-role.kubernetes.io/master': '' }, annotations: { 'kubeadm.alpha.kubernetes.io/cri-socket': '/run/containerd/containerd.sock' } } },
    });
    if (node.status !== 201) throw new Error(`Node: ${node.status} ${node.text}`);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  let root: TempRoot;
  let kubelet: FakeKubelet;
  /** A control-plane node at v1.20.0 made by kubeadm: its PKI and kubeconfigs, its manifests, etcd's data; mirror Pods for each. */
  async function node(opts: { etcdImage?: string } = {}): Promise<void> {
    root = tempRoot({ '/kubeadm.yaml': readFileSync(path.join(FIXTURE, 'root/cfg.yaml'), 'utf8') });
    for (const args of [['init', 'phase', 'certs', 'all'], ['init', 'phase', 'kubeconfig', 'all']]) {
      const r = kubeadm([...args, '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
      if (r.code !== 0) throw new Error(`kubeadm ${args.join(' ')}: ${r.stderr}`);
    }
    writeFileSync(root.at(TEST_KUBECONFIG), server.adminKubeconfig, { mode: 0o600 });
    mkdirSync(root.at('/etc/kubernetes/manifests'), { recursive: true });
    for (const c of COMPONENTS) {
      const text = c === 'etcd' && opts.etcdImage ? before(c).replace('k8s.gcr.io/etcd:3.4.13-0', opts.etcdImage) : before(c);
      writeFileSync(root.at(`/etc/kubernetes/manifests/${c}.yaml`), text, { mode: 0o600 });
    }
    mkdirSync(root.at('/var/lib/etcd/member/snap'), { recursive: true, mode: 0o700 });
    writeFileSync(root.at('/var/lib/etcd/member/snap/db'), 'etcd-data-v1', { mode: 0o600 });
    kubelet = new FakeKubelet(server, root, NODE, COMPONENTS);
    await kubelet.createMirrorPods();
    kubelet.start();
  }
  afterEach(async () => {
    kubelet?.stop();
    for (const c of COMPONENTS) await server.request('DELETE', `/api/v1/namespaces/kube-system/pods/${c}-${NODE}?gracePeriodSeconds=0`, { auth: 'admin' });
    root?.cleanup();
  });

  test('upgrades each changed component to kubeadm v1.20.2\'s bytes, backs up, renews certificates, waits for the new hash; a second run changes nothing', async () => {
    await node();
    const serials = Object.fromEntries(PKI_FILES.map((f) => [f, serial(root, f)]));
    const kcSerials = Object.fromEntries(['controller-manager.conf', 'scheduler.conf', 'admin.conf'].map((f) => [f, kubeconfigCertSerial(root, f)]));
    const now = new Date(2021, 1, 3, 4, 5, 6);
    const { ctx, reporter } = ctxFor(root, { now });
    await upgradeControlPlanePhase.run!(ctx);
    ctx.api.close();

    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, target(c)]);
    for (const c of COMPONENTS) expect([c, statSync(root.at(`/etc/kubernetes/manifests/${c}.yaml`)).mode & 0o777]).toEqual([c, 0o600]);
    expect(ctx.state.upgraded).toEqual(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    // kubeadm's folder name; the old manifests of the changed components only (etcd was equal).
    const backup = '/etc/kubernetes/tmp/kubeadm-backup-manifests-2021-02-03-04-05-06';
    expect(ctx.state.backups).toEqual({ manifestsDir: backup });
    expect(tmpEntries(root)).toEqual(['kubeadm-backup-manifests-2021-02-03-04-05-06']);
    expect(readdirSync(root.at(backup)).sort()).toEqual(['kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml']);
    expect(readFileSync(root.at(`${backup}/kube-apiserver.yaml`), 'utf8')).toBe(before('kube-apiserver'));
    expect(statSync(root.at(backup)).mode & 0o777).toBe(0o700);
    // The kubelet stand-in published the new manifests' hashes.
    for (const c of ['kube-apiserver', 'kube-scheduler'] as const) expect(await kubelet.hashOf(c)).toBe(manifestHash(target(c)));

    // Renewed (new serial, still signed by the CA) where the component changed; etcd's untouched.
    for (const f of ['apiserver.crt', 'apiserver-kubelet-client.crt', 'front-proxy-client.crt', 'apiserver-etcd-client.crt']) {
      expect([f, serial(root, f) === serials[f]]).toEqual([f, false]);
    }
    expect(openssl(['verify', '-CAfile', root.at('/etc/kubernetes/pki/ca.crt'), root.at('/etc/kubernetes/pki/apiserver.crt')])).toContain(': OK');
    for (const f of ['etcd/server.crt', 'etcd/peer.crt', 'etcd/healthcheck-client.crt']) expect([f, serial(root, f)]).toEqual([f, serials[f]]);
    for (const f of ['controller-manager.conf', 'scheduler.conf', 'admin.conf']) expect([f, kubeconfigCertSerial(root, f) === kcSerials[f]]).toEqual([f, false]);

    const lines = reporter.lines();
    expect(lines).toContain('Current and new manifests of etcd are equal, skipping upgrade');
    expect(lines).toContain('Renewing apiserver certificate');
    expect(lines).toContain(`Moved new manifest to "/etc/kubernetes/manifests/kube-apiserver.yaml" and backed up old manifest to "${backup}/kube-apiserver.yaml"`);
    expect(lines).toContain('This might take a minute or longer depending on the component/version gap (timeout 30s)');
    expect(lines).toContain('Found 1 Pods for label selector component=kube-apiserver');
    expect(lines).toContain('Component "kube-scheduler" upgraded successfully!');

    // Again at the target: nothing written, no new backup folder.
    const { ctx: again, reporter: r2 } = ctxFor(root, { now: new Date(2021, 1, 3, 4, 9, 0) });
    await upgradeControlPlanePhase.run!(again);
    again.api.close();
    expect(again.host.writes).toEqual([]);
    expect(again.state.upgraded).toEqual([]);
    expect(tmpEntries(root)).toEqual(['kubeadm-backup-manifests-2021-02-03-04-05-06']);
    expect(r2.lines().filter((l) => l.endsWith('are equal, skipping upgrade'))).toHaveLength(4);

    // The exit check agrees: nothing would change (the health endpoints are not asked on a root folder).
    const { ctx: check } = ctxFor(root);
    const findings = await upgradeControlPlanePhase.verify!(check, { path: 'control-plane', phase: upgradeControlPlanePhase });
    check.api.close();
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(findings.some((f) => (f.detail ?? '').includes('running the phase again would change nothing'))).toBe(true);
  }, 120_000);

  test('exit check before the upgrade: each manifest to change is a finding, with the backup and certificates its upgrade writes', async () => {
    await node();
    const { ctx } = ctxFor(root);
    const findings = await upgradeControlPlanePhase.verify!(ctx, { path: 'control-plane', phase: upgradeControlPlanePhase });
    ctx.api.close();
    const failing = findings.filter((f) => !f.ok).map((f) => f.check.replace(/kubeadm-backup-manifests-[0-9-]+/, 'kubeadm-backup-manifests-T'));
    // kubeadm's renewCertsByComponent (local etcd) and backup folder, per component.
    expect(failing).toEqual([
      ...['apiserver', 'apiserver-kubelet-client', 'front-proxy-client', 'apiserver-etcd-client'].map((c) => `/etc/kubernetes/pki/${c}.crt`),
      '/etc/kubernetes/tmp/kubeadm-backup-manifests-T/kube-apiserver.yaml', '/etc/kubernetes/manifests/kube-apiserver.yaml',
      '/etc/kubernetes/controller-manager.conf', '/etc/kubernetes/tmp/kubeadm-backup-manifests-T/kube-controller-manager.yaml', '/etc/kubernetes/manifests/kube-controller-manager.yaml',
      '/etc/kubernetes/scheduler.conf', '/etc/kubernetes/tmp/kubeadm-backup-manifests-T/kube-scheduler.yaml', '/etc/kubernetes/manifests/kube-scheduler.yaml',
    ]);
    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, before(c)]);
  }, 120_000);

  test('a component the kubelet never restarts is rolled back, with the backup folder named', async () => {
    await node();
    kubelet.broken.add('kube-controller-manager');
    const now = new Date(2021, 1, 3, 5, 0, 0);
    const { ctx } = ctxFor(root, { now, timeoutMs: 3000 });
    const err = await tsadmErrorOf(upgradeControlPlanePhase.run!(ctx));
    ctx.api.close();
    const backup = '/etc/kubernetes/tmp/kubeadm-backup-manifests-2021-02-03-05-00-00';
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).not.toContain('\n');
    expect(err.message).toMatch(/^upgrading kube-controller-manager failed: the kubelet did not run the manifest within 3s \(the mirror Pod kube-system\/kube-controller-manager-cp1 still has hash [0-9a-f]{32}\); /);
    // kube-apiserver had been upgraded in this run: it goes back too (kubeadm's rollbackOldManifests).
    expect(err.message).toContain('rolled back kube-apiserver, kube-controller-manager to the manifests in');
    expect(err.message).toContain(backup);
    expect(err.hint).toContain('crictl ps -a');
    // kubeadm's rollbackOldManifests: every manifest this run changed goes back, the scheduler was never touched.
    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, before(c)]);
    expect(readFileSync(root.at(`${backup}/kube-controller-manager.yaml`), 'utf8')).toBe(before('kube-controller-manager'));
    expect(ctx.state.upgraded).toEqual([]);
  }, 120_000);

  test('etcd: a newer etcd is upgraded first, after its data is backed up', async () => {
    await node({ etcdImage: 'k8s.gcr.io/etcd:3.4.9-1' });
    const { ctx, reporter } = ctxFor(root, { now: new Date(2021, 1, 3, 6, 0, 0) });
    await upgradeControlPlanePhase.run!(ctx);
    ctx.api.close();
    expect(manifest(root, 'etcd')).toBe(target('etcd'));
    expect(ctx.state.upgraded).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    const etcdBackup = '/etc/kubernetes/tmp/kubeadm-backup-etcd-2021-02-03-06-00-00';
    expect(ctx.state.backups?.etcdDataDir).toBe(etcdBackup);
    expect(readFileSync(root.at(`${etcdBackup}/etcd/member/snap/db`), 'utf8')).toBe('etcd-data-v1');
    expect(statSync(root.at(`${etcdBackup}/etcd/member/snap/db`)).mode & 0o777).toBe(0o600);
    expect(reporter.lines()).toContain('Upgrading to TLS for etcd');
    expect(reporter.lines()).toContain('Renewing etcd-server certificate');
  }, 120_000);

  test('etcd that does not come back on the new manifest: manifest and data restored from the backups, the error says so', async () => {
    await node({ etcdImage: 'k8s.gcr.io/etcd:3.4.9-1' });
    const etcdBefore = manifest(root, 'etcd');
    const db = root.at('/var/lib/etcd/member/snap/db');
    // The "new" etcd writes to its data dir and never answers; the old one answers only on its own data.
    const etcdStandIn: Check = (url) => {
      if (!url.includes(':2381/')) return allHealthy(url, new AbortController().signal);
      if (manifest(root, 'etcd') !== etcdBefore) {
        writeFileSync(db, 'etcd-data-v2');
        mkdirSync(root.at('/var/lib/etcd/member/wal'), { recursive: true });
        writeFileSync(root.at('/var/lib/etcd/member/wal/0000000000000001-0000000000000001.wal'), 'new wal');
        return Promise.resolve({ ok: false, detail: 'connection refused' });
      }
      return Promise.resolve(existsSync(db) && readFileSync(db, 'utf8') === 'etcd-data-v1' ? { ok: true, detail: 'ok' } : { ok: false, detail: 'HTTP 503' });
    };
    const { ctx, reporter } = ctxFor(root, { now: new Date(2021, 1, 3, 8, 0, 0), timeoutMs: 2000, healthCheck: etcdStandIn });
    const err = await tsadmErrorOf(upgradeControlPlanePhase.run!(ctx));
    ctx.api.close();
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).toMatch(/^upgrading etcd failed: http:\/\/127\.0\.0\.1:2381\/health did not answer within 2s \(connection refused\); /);
    expect(err.message).toContain('rolled back etcd to the manifests in /etc/kubernetes/tmp/kubeadm-backup-manifests-2021-02-03-08-00-00');
    expect(err.message).not.toContain('not healthy either');
    expect(manifest(root, 'etcd')).toBe(etcdBefore);
    // kubeadm's rollbackEtcdData: the data dir is the backup again (the new WAL segment is gone).
    expect(readFileSync(db, 'utf8')).toBe('etcd-data-v1');
    expect(existsSync(root.at('/var/lib/etcd/member/wal'))).toBe(false);
    expect(statSync(root.at('/var/lib/etcd')).mode & 0o777).toBe(0o700);
    expect(reporter.lines()).toEqual(expect.arrayContaining(['Rolling back etcd data', 'Etcd data rollback successful', 'Etcd was rolled back and is now available']));
    // The other components were not touched.
    for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const) expect([c, manifest(root, c)]).toEqual([c, before(c)]);
  }, 120_000);

  test('etcd not healthy before the upgrade: nothing is changed', async () => {
    await node({ etcdImage: 'k8s.gcr.io/etcd:3.4.9-1' });
    const down: Check = (url) => Promise.resolve(url.includes(':2381/') ? { ok: false, detail: 'connection refused' } : { ok: true, detail: 'ok' });
    const { ctx } = ctxFor(root, { healthCheck: down });
    const err = await tsadmErrorOf(upgradeControlPlanePhase.run!(ctx));
    ctx.api.close();
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toContain('etcd cluster is not healthy');
    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, c === 'etcd' ? before(c).replace('k8s.gcr.io/etcd:3.4.13-0', 'k8s.gcr.io/etcd:3.4.9-1') : before(c)]);
    expect(tmpEntries(root)).toEqual([]);
  }, 120_000);

  test('--etcd-upgrade=false leaves a newer etcd alone', async () => {
    await node({ etcdImage: 'k8s.gcr.io/etcd:3.4.9-1' });
    const old = manifest(root, 'etcd');
    const { ctx, reporter } = ctxFor(root, { etcdUpgrade: false });
    await upgradeControlPlanePhase.run!(ctx);
    ctx.api.close();
    expect(manifest(root, 'etcd')).toBe(old);
    expect(reporter.lines()).not.toContain('Upgrading to TLS for etcd');
    expect(ctx.state.backups?.etcdDataDir).toBeUndefined();
  }, 120_000);

  test('etcd: an older target etcd is refused without failing', async () => {
    await node({ etcdImage: 'k8s.gcr.io/etcd:3.5.0-0' });
    const older = manifest(root, 'etcd');
    const { ctx, reporter } = ctxFor(root, { now: new Date(2021, 1, 3, 7, 0, 0) });
    await upgradeControlPlanePhase.run!(ctx);
    ctx.api.close();
    expect(manifest(root, 'etcd')).toBe(older);
    expect(reporter.lines()).toContain('Non fatal issue encountered during upgrade: the desired etcd version "3.4.13-0" is older than the currently installed "3.5.0-0". Skipping etcd upgrade');
    expect(ctx.state.upgraded).toEqual(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
  }, 120_000);

  test('--certificate-renewal=false: manifests upgraded, certificates untouched', async () => {
    await node();
    const serials = Object.fromEntries(PKI_FILES.map((f) => [f, serial(root, f)]));
    const admin = kubeconfigCertSerial(root, 'admin.conf');
    const { ctx, reporter } = ctxFor(root, { certificateRenewal: false });
    await upgradeControlPlanePhase.run!(ctx);
    ctx.api.close();
    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, target(c)]);
    for (const f of PKI_FILES) expect([f, serial(root, f)]).toEqual([f, serials[f]]);
    expect(kubeconfigCertSerial(root, 'admin.conf')).toBe(admin);
    expect(reporter.lines().filter((l) => l.startsWith('Renewing '))).toEqual([]);
  }, 120_000);

  test('a certificate that cannot be renewed stops the upgrade before the component changes', async () => {
    await node();
    writeFileSync(root.at('/etc/kubernetes/pki/front-proxy-client.crt'), 'not a certificate\n');
    const { ctx } = ctxFor(root, { now: new Date(2021, 1, 3, 9, 0, 0) });
    const err = await tsadmErrorOf(upgradeControlPlanePhase.run!(ctx));
    ctx.api.close();
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toMatch(/^upgrading kube-apiserver failed: failed to renew certificates for component "kube-apiserver": /);
    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, before(c)]);
    expect(ctx.state.upgraded).toEqual([]);
  }, 120_000);

  test('dry run: writes nothing to disk, waits for nothing; plans the backups, renewed certificates and new manifests, and a wait per component', async () => {
    await node();
    const { ctx, reporter } = ctxFor(root, { dryRun: true });
    await upgradeControlPlanePhase.run!(ctx);
    ctx.api.close();
    for (const c of COMPONENTS) expect([c, manifest(root, c)]).toEqual([c, before(c)]);
    expect(tmpEntries(root)).toEqual([]);
    const planned = (['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const);
    const manifestWrites = ctx.host.writes.filter((w) => w.path.startsWith('/etc/kubernetes/manifests/')).map((w) => [w.path, w.content?.toString('utf8')]);
    expect(manifestWrites).toEqual(planned.map((c) => [`/etc/kubernetes/manifests/${c}.yaml`, target(c)]));
    // The backups hold the manifests as they are on disk.
    const backups = ctx.host.writes.filter((w) => w.path.startsWith('/etc/kubernetes/tmp/kubeadm-backup-manifests-'));
    expect(backups.map((w) => [w.path.split('/').pop(), w.content?.toString('utf8')])).toEqual(planned.map((c) => [`${c}.yaml`, before(c)]));
    expect(ctx.host.writes.map((w) => w.path)).toEqual(expect.arrayContaining(['/etc/kubernetes/pki/apiserver.crt', '/etc/kubernetes/controller-manager.conf', '/etc/kubernetes/scheduler.conf']));
    // What a dry run cannot do, wait for the kubelet, is a step of its own for `tsadm apply`.
    const waits = journalOf(ctx.host)!.steps.filter((st) => st.type === 'wait-static-pod');
    expect(waits.map((w) => w.type === 'wait-static-pod' && [w.component, w.manifest, w.timeoutSeconds])).toEqual(planned.map((c) => [c, `/etc/kubernetes/manifests/${c}.yaml`, ctx.cfg.upgrade.upgradeManifestsTimeoutMs / 1000]));
    expect(reporter.lines()).toContain('Would wait for the kubelet to restart kube-apiserver');
  }, 120_000);
});

describe('upgrade control-plane on a worker', () => {
  test('no kube-apiserver manifest: kubeadm\'s skip line, nothing written', async () => {
    const root = tempRoot();
    try {
      const { ctx, reporter } = ctxFor(root);
      ctx.state.cluster = Promise.resolve({
        texts: { clusterConfigurationYaml: CLUSTER_CONFIGURATION('v1.20.2'), clusterStatusYaml: undefined, kubeletConfigurationYaml: '' },
        storedVersion: 'v1.20.2', serverVersion: 'v1.20.2', kubeletVersions: [], nodes: [], nodeName: 'w1', node: undefined, controlPlane: false, localAPIEndpoint: undefined,
      });
      await upgradeControlPlanePhase.run!(ctx);
      expect(reporter.lines()).toEqual(['Skipping phase. Not a control plane node.']);
      expect(ctx.host.writes).toEqual([]);
    } finally {
      root.cleanup();
    }
  });
});
