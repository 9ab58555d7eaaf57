/**
 * join against a real kube-apiserver v1.20.2 (with the controller-manager's bootstrapsigner
 * signing cluster-info), on a --rootfs temp tree: the worker's kubelet-start end to end with a
 * stand-in kubelet (it writes kubelet.conf and registers the Node, as the real one would after
 * its TLS bootstrap), the Ready-node refusal, dry-run, and control-plane-prepare from a real
 * kubeadm-certs Secret. The real kubelet, etcd membership and static pods run in the e2e tests.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { MemoryReporter, initCtxFor, testRuntime } from '../../helpers/phase-ctx.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { runCli } from '../../helpers/cli.js';
import { runCerts, verifyWith, sanLine } from '../../helpers/pki-test-utils.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import type { KubeApi, NodeObject } from '../../../src/kube/types.js';
import { bootstrapToken } from '../../../src/phases/cluster/bootstrap-token.js';
import { uploadKubeadmConfig, uploadKubeletConfig } from '../../../src/phases/cluster/upload-config.js';
import { uploadCerts } from '../../../src/phases/cluster/upload-certs.js';
import { certFilesToUpload } from '../../../src/certs/kubeadm-certs-secret.js';
import { caCertHash } from '../../../src/pki/hash.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { runPhases } from '../../../src/engine/runner.js';
import { buildJoinContext, checkJoinCredentials, joinPhases } from '../../../src/workflows/join.js';
import { realJoinDeps } from '../../../src/phases/join/deps.js';
import type { Runtime } from '../../../src/run/runtime.js';
import type { FlagValues } from '../../../src/flags.js';
import { TsadmError } from '../../../src/errors.js';

const TOKEN = 'abcdef.0123456789abcdef';
const CERT_KEY = 'a'.repeat(64);
const FIXTURES = path.join(process.cwd(), 'test/fixtures/kubeadm-dry-run');
const KUBELET_CONFIG = readFileSync(path.join(FIXTURES, 'kubeadm-1.20-kubelet-config.yaml'), 'utf8');
const CLUSTER_CONFIG = [
  'apiServer:', '  extraArgs:', '    authorization-mode: Node,RBAC', '  timeoutForControlPlane: 4m0s',
  'apiVersion: kubeadm.k8s.io/v1beta2', 'certificatesDir: /etc/kubernetes/pki', 'clusterName: kubernetes',
  'controlPlaneEndpoint: cp.example.com:6443', 'controllerManager: {}', 'dns:', '  type: CoreDNS', 'etcd:', '  local:', '    dataDir: /var/lib/etcd',
  'imageRepository: registry.local/k8s', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.20.2', 'networking:', '  dnsDomain: cluster.local',
  '  podSubnet: 10.244.0.0/16', '  serviceSubnet: 10.96.0.0/12', 'scheduler: {}', '',
].join('\n');

describeWithApiServer('join against a real API server', () => {
  let server: TestApiServer;
  let admin: KubeApi;
  let pin: string;
  const roots: string[] = [];
  const savedManager = process.env.TSADM_SERVICE_MANAGER;
  let serviceCalls = '';
  const kubeletRestarts = (): number => (existsSync(serviceCalls) ? readFileSync(serviceCalls, 'utf8').split('\n').filter((l) => l === 'restart kubelet').length : 0);

  beforeAll(async () => {
    // Never touch this machine's kubelet: the service manager seam answers "done" and does
    // nothing; systemd-resolved counts as inactive (else kubeadm adds resolvConf).
    const bin = mkdtempSync(path.join(tmpdir(), 'tsadm-sm-'));
    roots.push(bin);
    // It records each call (calls file beside it), so a test can see the kubelet restarted.
    writeFileSync(path.join(bin, 'service-manager'), '#!/bin/sh\necho "$@" >> "$(dirname "$0")/calls"\n[ "$1" = is-active ] && exit 3\nexit 0\n', { mode: 0o755 });
    serviceCalls = path.join(bin, 'calls');
    process.env.TSADM_SERVICE_MANAGER = path.join(bin, 'service-manager');
    server = await startApiServer({ controllers: ['bootstrapsigner'] });
    const log = new PhaseLogger(new MemoryReporter());
    admin = await createApiSeam({ readFile: () => Promise.resolve(Buffer.from(server.adminKubeconfig)) }, false).open({ path: '/etc/kubernetes/admin.conf' }, { log });
    await bootstrapToken(admin, {
      tokens: [{ token: TOKEN, description: 'test', ttlMs: 3600_000, usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'] }],
      server: server.url, caPem: Buffer.from(server.caPem), clusterAdmins: false, skipTokenPrint: true, now: new Date(),
    }, log);
    await uploadKubeadmConfig(admin, { clusterConfigurationYaml: CLUSTER_CONFIG, clusterStatus: { nodeName: 'cp1', endpoint: { advertiseAddress: '192.168.10.11', bindPort: 6443 }, apiVersion: 'kubeadm.k8s.io/v1beta2' } }, log);
    await uploadKubeletConfig(admin, { versions: profileFor('v1.20.2'), kubeletConfigurationYaml: KUBELET_CONFIG, sign: true, nodeName: 'cp1', criSocket: undefined }, log);
    pin = caCertHash(server.caPem);
  }, 120_000);

  afterAll(async () => {
    if (savedManager === undefined) delete process.env.TSADM_SERVICE_MANAGER;
    else process.env.TSADM_SERVICE_MANAGER = savedManager;
    admin?.close();
    await server?.stop();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  }, 30_000);

  function newRoot(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-join-'));
    roots.push(dir);
    return dir;
  }

  function runtime(root: string, dryRun = false): { rt: Runtime; reporter: MemoryReporter } {
    const reporter = new MemoryReporter();
    const rooted = new RootedHost(root);
    const host = dryRun ? new DryRunHost(rooted) : rooted;
    return { reporter, rt: testRuntime(host, { reporter, dryRun, verbosity: 0 }) };
  }

  async function join(root: string, flags: FlagValues, opts: { dryRun?: boolean; skip?: string[]; kubeletServing?: boolean } = {}) {
    const { rt, reporter } = runtime(root, opts.dryRun);
    // This machine's own kubelet (if any) must not decide: the stand-in kubelet says whether it is up.
    const deps = realJoinDeps({ tlsBootstrapPollMs: 100, hostname: () => 'testhost', kubeletServing: () => Promise.resolve(opts.kubeletServing ?? false) });
    const ctx = await buildJoinContext({
      flags: { token: TOKEN, 'discovery-token-ca-cert-hash': [pin], 'cri-socket': '/run/containerd/containerd.sock', 'ignore-preflight-errors': ['all'], ...flags },
      positionals: [server.url.replace('https://', '')],
    }, rt, deps);
    try {
      await runPhases(joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), ctx, { filter: [], skip: opts.skip ?? [] });
    } finally {
      ctx.api.close();
    }
    return { ctx, reporter, host: rt.host };
  }

  /**
   * Plays the kubelet: once bootstrap-kubelet.conf is there and the kubelet has been started, "bootstrap" (write kubelet.conf) and
   * register the Node — with registerOnlyAfterRestart, only once the kubelet has been restarted
   * after that (a kubelet that bootstrapped in the background and still talks anonymously).
   */
  function fakeKubelet(root: string, nodeName: string, opts: { registerOnlyAfterRestart?: boolean } = {}): { stop(): void; seenBootstrap: Promise<string> } {
    let stopped = false;
    let resolveSeen: (t: string) => void = () => undefined;
    const seenBootstrap = new Promise<string>((r) => { resolveSeen = r; });
    const restartsAtStart = kubeletRestarts();
    void (async () => {
      const bootstrap = path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf');
      // A real kubelet bootstraps only once kubelet-start has (re)started it.
      while (!stopped && !(existsSync(bootstrap) && kubeletRestarts() > restartsAtStart)) await new Promise((r) => setTimeout(r, 50));
      if (stopped) return;
      resolveSeen(readFileSync(bootstrap, 'utf8'));
      const restartsBefore = kubeletRestarts();
      writeFileSync(path.join(root, 'etc/kubernetes/kubelet.conf'), server.clientKubeconfig(`system:node:${nodeName}`, 'system:nodes'), { mode: 0o600 });
      while (!stopped && opts.registerOnlyAfterRestart && kubeletRestarts() === restartsBefore) await new Promise((r) => setTimeout(r, 50));
      if (stopped) return;
      await admin.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } });
    })();
    return { stop: () => { stopped = true; }, seenBootstrap };
  }

  test('worker: bootstrap kubeconfig, CA, kubelet files as kubeadm writes them, TLS bootstrap, CRI socket on the Node', async () => {
    const root = newRoot();
    const kubelet = fakeKubelet(root, 'w1');
    try {
      const { reporter } = await join(root, { 'node-name': 'w1' });
      const bootstrap = await kubelet.seenBootstrap;
      expect(bootstrap).toContain(`server: ${server.url}`);
      expect(bootstrap).toContain('name: tls-bootstrap-token-user');
      expect(bootstrap).toContain(`token: ${TOKEN}`);
      expect(bootstrap).toContain('current-context: tls-bootstrap-token-user@kubernetes');
      // The bootstrap credential is gone once the kubelet has its own.
      expect(existsSync(path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf'))).toBe(false);
      expect(readFileSync(path.join(root, 'etc/kubernetes/pki/ca.crt'), 'utf8')).toBe(server.caPem);
      // The cluster's kubelet configuration, byte for byte what kubeadm v1.20.2 writes.
      expect(readFileSync(path.join(root, 'var/lib/kubelet/config.yaml'), 'utf8')).toBe(KUBELET_CONFIG);
      expect(readFileSync(path.join(root, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8'))
        .toBe('KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=/run/containerd/containerd.sock --hostname-override=w1"\n');
      const node = await admin.get<NodeObject>('Node', 'w1');
      expect(node?.metadata.annotations?.['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');
      const lines = reporter.lines();
      expect(lines).toEqual(expect.arrayContaining(['Running pre-flight checks', 'Reading configuration from the cluster...', 'Waiting for the kubelet to perform the TLS Bootstrap...']));
      expect(lines.join('\n')).not.toContain(TOKEN.split('.')[1]);
      expect(lines.join('\n')).not.toContain('restarting it');
    } finally {
      kubelet.stop();
    }
  }, 60_000);

  test('a kubelet already up when its certificate came, and not registering, is restarted once; one that registers is left alone', async () => {
    const late = newRoot();
    const lateKubelet = fakeKubelet(late, 'w-late', { registerOnlyAfterRestart: true });
    try {
      const before = kubeletRestarts();
      const { reporter } = await join(late, { 'node-name': 'w-late' }, { kubeletServing: true });
      // kubelet-start's own restart, then the one after the late bootstrap.
      expect(kubeletRestarts() - before).toBe(2);
      expect(reporter.lines()).toContain('The kubelet got its certificate after it had started; restarting it so that it registers with the certificate at once');
      const node = await admin.get<NodeObject>('Node', 'w-late');
      expect(node?.metadata.annotations?.['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');
    } finally {
      lateKubelet.stop();
    }
    const prompt = newRoot();
    const promptKubelet = fakeKubelet(prompt, 'w-prompt');
    try {
      const before = kubeletRestarts();
      const { reporter } = await join(prompt, { 'node-name': 'w-prompt' }, { kubeletServing: true });
      expect(kubeletRestarts() - before).toBe(1);
      expect(reporter.lines().join('\n')).not.toContain('restarting it');
    } finally {
      promptKubelet.stop();
    }
  }, 60_000);

  test('a Ready Node with the same name is refused before anything is written', async () => {
    await admin.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'w2' } });
    const ready = await server.request('PATCH', '/api/v1/nodes/w2/status', {
      auth: 'admin', contentType: 'application/merge-patch+json',
      body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok', lastHeartbeatTime: new Date().toISOString(), lastTransitionTime: new Date().toISOString() }] } },
    });
    expect(ready.status).toBe(200);
    const root = newRoot();
    const err = await join(root, { 'node-name': 'w2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as TsadmError).message).toContain('a Node with name "w2" and status "Ready" already exists in the cluster');
    expect(readdirSync(root)).toEqual([]);
  }, 60_000);

  test('a re-run of a join killed after the TLS bootstrap completes: the Ready Node is this machine; another machine\'s name is still refused', async () => {
    // A Node as a kubelet registers it (with its hostname label), then Ready.
    const markReady = async (name: string): Promise<void> => {
      await admin.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
      const now = new Date().toISOString();
      const r = await server.request('PATCH', `/api/v1/nodes/${name}/status`, {
        auth: 'admin', contentType: 'application/merge-patch+json',
        body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok', lastHeartbeatTime: now, lastTransitionTime: now }] } },
      });
      expect(r.status).toBe(200);
    };
    // The first run got as far as the kubelet's own credentials (kubelet.conf) and a Ready Node.
    await markReady('w7');
    const root = newRoot();
    mkdirSync(path.join(root, 'etc/kubernetes'), { recursive: true });
    writeFileSync(path.join(root, 'etc/kubernetes/kubelet.conf'), server.clientKubeconfig('system:node:w7', 'system:nodes'), { mode: 0o600 });
    const { reporter } = await join(root, { 'node-name': 'w7' });
    expect(reporter.lines().join('\n')).toContain('the Ready Node "w7" is this machine');
    expect(readFileSync(path.join(root, 'var/lib/kubelet/config.yaml'), 'utf8')).toBe(KUBELET_CONFIG);
    expect(existsSync(path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf'))).toBe(false);
    const node = await admin.get<NodeObject>('Node', 'w7');
    expect(node?.metadata.annotations?.['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');

    // Credentials of another node do not make a Ready Node this machine's.
    await markReady('w8');
    const other = newRoot();
    mkdirSync(path.join(other, 'etc/kubernetes'), { recursive: true });
    writeFileSync(path.join(other, 'etc/kubernetes/kubelet.conf'), server.clientKubeconfig('system:node:w7', 'system:nodes'), { mode: 0o600 });
    const err = await join(other, { 'node-name': 'w8' }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('a Node with name "w8" and status "Ready" already exists in the cluster');
  }, 60_000);

  test('a wrong CA pin or a wrong token secret fails in preflight and writes nothing', async () => {
    const root = newRoot();
    const pinErr = await join(root, { 'discovery-token-ca-cert-hash': [`sha256:${'0'.repeat(64)}`] }).catch((e: unknown) => e) as TsadmError;
    expect(pinErr.message).toContain(`error execution phase preflight: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${pin}" are pinned`);
    const tokenErr = await join(root, { token: 'abcdef.ffffffffffffffff' }).catch((e: unknown) => e) as TsadmError;
    expect(tokenErr.message).toContain('failed to verify JWS signature');
    expect(readdirSync(root)).toEqual([]);
  }, 60_000);

  test('dry-run: every file is planned, nothing is written, nothing waits', async () => {
    const root = newRoot();
    const { host } = await join(root, { 'node-name': 'w3' }, { dryRun: true });
    expect(readdirSync(root)).toEqual([]);
    expect(host.writes.map((w) => w.path)).toEqual([
      '/etc/kubernetes/bootstrap-kubelet.conf', '/etc/kubernetes/pki/ca.crt', '/var/lib/kubelet/config.yaml', '/var/lib/kubelet/kubeadm-flags.env',
    ]);
    expect(host.actions).toEqual(['stop kubelet', 'restart kubelet', 'remove /etc/kubernetes/bootstrap-kubelet.conf']);
  }, 60_000);

  test('dryRun: true in a v1beta4 JoinConfiguration is a dry run, as --dry-run is (through the CLI)', async () => {
    const root = newRoot();
    const config = path.join(newRoot(), 'join.yaml');
    writeFileSync(config, [
      'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: JoinConfiguration', 'dryRun: true', 'discovery:', '  bootstrapToken:', `    apiServerEndpoint: ${server.url.replace('https://', '')}`,
      `    token: ${TOKEN}`, '    caCertHashes:', `    - ${pin}`, 'nodeRegistration:', '  name: w-config-dry', '  criSocket: unix:///run/containerd/containerd.sock',
      '  ignorePreflightErrors:', '  - all', '',
    ].join('\n'));
    const r = await runCli(['join', '--config', config, '--rootfs', root]);
    expect(r.stderr).not.toContain('error:');
    expect(r.code).toBe(0);
    expect(readdirSync(root)).toEqual([]);
    expect(r.stdout).toContain('[dryrun] The following files would be written:');
    expect(r.stdout).toContain('/etc/kubernetes/bootstrap-kubelet.conf');
    expect(r.stdout).toContain('[dryrun] Would run: restart kubelet');
    expect(await admin.get('Node', 'w-config-dry')).toBeUndefined();
  }, 60_000);

  test('a phase kubeadm of the cluster\'s minor does not have yet is refused in one line naming that minor, before any phase (v1.20 cluster)', async () => {
    const root = newRoot();
    const base = ['--rootfs', root, server.url.replace('https://', ''), '--token', TOKEN, '--discovery-token-ca-cert-hash', pin, '--node-name', 'w-later-phase'];
    const skip = await runCli(['join', ...base, '--skip-phases', 'preflight,wait-control-plane']);
    expect(skip.code).toBe(3);
    expect(skip.stderr).toContain('--skip-phases entry "wait-control-plane": not a phase of kubeadm v1.20, the target\'s minor (kubeadm has wait-control-plane from v1.30)');
    const alone = await runCli(['join', 'phase', 'etcd-join', ...base]);
    expect(alone.code).toBe(3);
    expect(alone.stderr).toContain('phase "etcd-join": not a phase of kubeadm v1.20, the target\'s minor (kubeadm has etcd-join from v1.31)');
    expect(readdirSync(root)).toEqual([]);
    expect(await admin.get('Node', 'w-later-phase')).toBeUndefined();
  }, 60_000);

  test('--config with a v1beta2 JoinConfiguration: its discovery and registration, worker taints as --register-with-taints', async () => {
    const root = newRoot();
    const config = path.join(newRoot(), 'join.yaml');
    writeFileSync(config, [
      'apiVersion: kubeadm.k8s.io/v1beta2', 'kind: JoinConfiguration', 'discovery:', '  bootstrapToken:', `    apiServerEndpoint: ${server.url.replace('https://', '')}`,
      `    token: ${TOKEN}`, '    caCertHashes:', `    - ${pin}`, 'nodeRegistration:', '  name: w5', '  criSocket: /run/containerd/containerd.sock',
      '  ignorePreflightErrors:', '  - all', '  taints:', '  - key: dedicated', '    value: infra', '    effect: NoSchedule', '',
    ].join('\n'));
    const { rt } = runtime(root, true);
    const ctx = await buildJoinContext({ flags: { config }, positionals: [] }, rt, realJoinDeps({ hostname: () => 'w5' }));
    await runPhases(joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), ctx, { filter: [], skip: [] });
    const env = rt.host.writes.find((w) => w.path === '/var/lib/kubelet/kubeadm-flags.env');
    expect(env?.content?.toString()).toBe('KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=/run/containerd/containerd.sock --register-with-taints=dedicated=infra:NoSchedule"\n');
    expect(readdirSync(root)).toEqual([]);
  }, 60_000);

  test('--discovery-file with --tls-bootstrap-token: the file\'s CA is trusted, the token authenticates the bootstrap', async () => {
    const root = newRoot();
    const file = path.join(newRoot(), 'discovery.yaml');
    writeFileSync(file, [
      'apiVersion: v1', 'kind: Config', 'clusters:', '- cluster:', `    certificate-authority-data: ${Buffer.from(server.caPem).toString('base64')}`, `    server: ${server.url}`,
      '  name: k', 'contexts:', '- context:', '    cluster: k', '  name: k', 'current-context: k', '',
    ].join('\n'));
    const { rt } = runtime(root, true);
    const ctx = await buildJoinContext({
      flags: { 'discovery-file': file, 'tls-bootstrap-token': TOKEN, 'node-name': 'w6', 'cri-socket': '/run/containerd/containerd.sock', 'ignore-preflight-errors': ['all'] },
      positionals: [],
    }, rt, realJoinDeps({ hostname: () => 'w6' }));
    await runPhases(joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), ctx, { filter: [], skip: [] });
    const bootstrap = rt.host.writes.find((w) => w.path === '/etc/kubernetes/bootstrap-kubelet.conf')?.content?.toString() ?? '';
    expect(bootstrap).toContain(`token: ${TOKEN}`);
    expect(bootstrap).toContain(`server: ${server.url}`);
    expect(readdirSync(root)).toEqual([]);
  }, 60_000);

  test('control-plane-prepare: shared certificates from kubeadm-certs, this node\'s certificates, kubeconfigs and manifests', async () => {
    // The "first control plane": its PKI, uploaded encrypted as init --upload-certs does.
    const first = newRoot();
    const { ctx: initCtx } = initCtxFor(fixtureInitConfig({ cluster: { encryptionAlgorithm: 'ECDSA-P256' } }), first);
    await runCerts(initCtx);
    const files = new Map<string, Buffer | undefined>();
    for (const f of certFilesToUpload('/etc/kubernetes/pki', { mode: 'local' } as never)) files.set(f.key, readFileSync(path.join(first, f.path)));
    await uploadCerts(admin, { certificateKey: CERT_KEY, files, now: new Date() }, { info: () => undefined });

    const root = newRoot();
    mkdirSync(path.join(root, 'etc/kubernetes/manifests'), { recursive: true });
    const { reporter } = await join(root, {
      'control-plane': true, 'certificate-key': CERT_KEY, 'apiserver-advertise-address': '10.0.0.5', 'node-name': 'cp2',
    }, { skip: ['check-etcd', 'kubelet-start', 'control-plane-join'] });
    const pki = path.join(root, 'etc/kubernetes/pki');
    // Shared files are the first control plane's, byte for byte.
    for (const name of ['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.crt', 'etcd/ca.crt', 'etcd/ca.key']) {
      expect(readFileSync(path.join(pki, name))).toEqual(readFileSync(path.join(first, 'etc/kubernetes/pki', name)));
    }
    // This node's own certificates, signed by the shared CAs, for this node's name and address.
    expect(verifyWith(path.join(pki, 'ca.crt'), path.join(pki, 'apiserver.crt'))).toBe(true);
    expect(sanLine(path.join(pki, 'apiserver.crt'))).toContain('IP Address:10.0.0.5');
    expect(sanLine(path.join(pki, 'apiserver.crt'))).toContain('DNS:cp.example.com');
    expect(sanLine(path.join(pki, 'etcd/server.crt'))).toContain('DNS:cp2');
    expect(verifyWith(path.join(pki, 'etcd/ca.crt'), path.join(pki, 'etcd/peer.crt'))).toBe(true);
    expect(readdirSync(path.join(root, 'etc/kubernetes')).sort()).toEqual(['admin.conf', 'controller-manager.conf', 'manifests', 'pki', 'scheduler.conf']);
    expect(readFileSync(path.join(root, 'etc/kubernetes/admin.conf'), 'utf8')).toContain('server: https://cp.example.com:6443');
    expect(readFileSync(path.join(root, 'etc/kubernetes/scheduler.conf'), 'utf8')).toContain('server: https://10.0.0.5:6443');
    expect(readdirSync(path.join(root, 'etc/kubernetes/manifests')).sort()).toEqual(['kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml']);
    const apiserver = readFileSync(path.join(root, 'etc/kubernetes/manifests/kube-apiserver.yaml'), 'utf8');
    expect(apiserver).toContain('--advertise-address=10.0.0.5');
    expect(apiserver).toContain('image: registry.local/k8s/kube-apiserver:v1.20.2');
    expect(reporter.lines()).toEqual(expect.arrayContaining([
      'Downloading the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
      'Using existing ca certificate authority',
      'Generating "apiserver" certificate and key',
      'Writing "admin.conf" kubeconfig file',
      'Creating static Pod manifest for "kube-apiserver"',
    ]));
  }, 90_000);

  test('control-plane join with a wrong certificate key fails clearly and writes no certificate', async () => {
    const root = newRoot();
    mkdirSync(path.join(root, 'etc/kubernetes/manifests'), { recursive: true });
    const err = await join(root, {
      'control-plane': true, 'certificate-key': 'b'.repeat(64), 'apiserver-advertise-address': '10.0.0.6', 'node-name': 'cp3',
    }, { skip: ['check-etcd', 'kubelet-start', 'control-plane-join'] }).catch((e: unknown) => e) as TsadmError;
    expect(err.message).toContain('error execution phase control-plane-prepare/download-certs: could not decrypt the control-plane certificates: wrong certificate key');
    expect(existsSync(path.join(root, 'etc/kubernetes/pki'))).toBe(false);
  }, 60_000);

  // The JoinConfiguration's API version is judged by the cluster's minor, known after discovery
  // (kubeadm 1.37 no longer reads v1beta3, PR #136016; 1.35/1.36 read it deprecated).
  test('--config with a v1beta3 JoinConfiguration: refused after discovery when the cluster is 1.37, before anything is written', async () => {
    const stored = [
      'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.37.0', 'controlPlaneEndpoint: cp.example.com:6443',
      'networking:', '  podSubnet: 10.244.0.0/16', '  serviceSubnet: 10.96.0.0/12', '',
    ].join('\n');
    const root = newRoot();
    const config = path.join(newRoot(), 'join-v1beta3.yaml');
    writeFileSync(config, [
      'apiVersion: kubeadm.k8s.io/v1beta3', 'kind: JoinConfiguration', 'discovery:', '  bootstrapToken:', `    apiServerEndpoint: ${server.url.replace('https://', '')}`,
      `    token: ${TOKEN}`, '    caCertHashes:', `    - ${pin}`, 'nodeRegistration:', '  name: w9', '  criSocket: /run/containerd/containerd.sock',
      '  ignorePreflightErrors:', '  - all', '',
    ].join('\n'));
    const log = new PhaseLogger(new MemoryReporter());
    await uploadKubeadmConfig(admin, { clusterConfigurationYaml: stored }, log);
    // A 1.37 cluster's kubelet ConfigMap (kubelet-config) and the bootstrap tokens' right to read it.
    await uploadKubeletConfig(admin, { versions: profileFor('v1.37.0'), kubeletConfigurationYaml: KUBELET_CONFIG, sign: true, nodeName: 'cp1', criSocket: undefined }, log);
    try {
      const { rt } = runtime(root);
      const ctx = await buildJoinContext({ flags: { config }, positionals: [] }, rt, realJoinDeps({ hostname: () => 'w9' }));
      const err = await runPhases(joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), ctx, { filter: [], skip: [] }).then(() => undefined, (e: unknown) => e) as TsadmError;
      ctx.api.close();
      expect(err).toBeInstanceOf(TsadmError);
      expect(err.message).toContain(`kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (JoinConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config ${config} --new-config NEW'`);
      expect(readdirSync(root)).toEqual([]);
    } finally {
      await uploadKubeadmConfig(admin, { clusterConfigurationYaml: CLUSTER_CONFIG, clusterStatus: { nodeName: 'cp1', endpoint: { advertiseAddress: '192.168.10.11', bindPort: 6443 }, apiVersion: 'kubeadm.k8s.io/v1beta2' } }, log);
    }
  }, 60_000);

  // Last: it changes the cluster's kubeadm-config.
  test('a control-plane join is refused without shared certificates, and on a cluster without controlPlaneEndpoint', async () => {
    const root = newRoot();
    const cp = { 'control-plane': true, 'apiserver-advertise-address': '10.0.0.8', 'node-name': 'cp4' } as const;
    const noCerts = await join(root, cp).catch((e: unknown) => e) as TsadmError;
    expect(noCerts.message).toContain('missing shared certificates: /etc/kubernetes/pki/ca.crt, /etc/kubernetes/pki/ca.key');
    expect(noCerts.hint).toContain('stable controlPlaneEndpoint');
    await uploadKubeadmConfig(admin, { clusterConfigurationYaml: CLUSTER_CONFIG.replace('controlPlaneEndpoint: cp.example.com:6443\n', '') }, { info: () => undefined });
    const noEndpoint = await join(root, { ...cp, 'certificate-key': CERT_KEY }).catch((e: unknown) => e) as TsadmError;
    expect(noEndpoint.code).toBe('E_PRECONDITION');
    expect(noEndpoint.message).toContain("unable to add a new control plane instance to a cluster that doesn't have a stable controlPlaneEndpoint address");
    expect(readdirSync(root)).toEqual([]);
  }, 60_000);
});

/**
 * kubeadm's join phases per minor (cmd/kubeadm/app/cmd/join.go, phases/join/*.go of that
 * release, and its generated reference pages): [name, hidden]. 1.30 adds wait-control-plane,
 * "EXPERIMENTAL: Wait for the control plane to start" (PR #123341); 1.31 the hidden etcd-join and
 * kubelet-wait-bootstrap after kubelet-start, "[EXPERIMENTAL] … (only used when feature gate
 * ControlPlaneKubeletLocalMode is enabled)" (PRs #125582, #125780); 1.33 shows
 * kubelet-wait-bootstrap and drops those prefixes (PR #129956; etcd-join stays hidden, unhidden
 * only by the later patch releases of PRs #135481/#135482); 1.34 drops wait-control-plane's
 * EXPERIMENTAL (PR #132594).
 */
describe('the join tree per minor', () => {
  const phasesOf = (minor: string) => joinPhases(profileFor(`v${minor}.0`));
  const tree = (minor: string): Array<[string, boolean]> => phasesOf(minor).map((p) => [p.name, p.hidden === true]);
  const summary = (minor: string, name: string) => phasesOf(minor).find((p) => p.name === name)?.summary;
  // host: tsadm's own opt-in host preparation (src/phases/host), first.
  const BASE: Array<[string, boolean]> = [['host', false], ['preflight', false], ['control-plane-prepare', false], ['check-etcd', true], ['kubelet-start', false]];
  // certs-auto-renew: tsadm's own opt-in renewal timer (src/phases/certs/auto-renew.ts), last.
  const END: Array<[string, boolean]> = [['certs-auto-renew', false]];

  test.each(['1.20', '1.29'])('%s: no etcd-join, kubelet-wait-bootstrap or wait-control-plane', (minor) => {
    expect(tree(minor)).toEqual([...BASE, ['control-plane-join', false], ...END]);
  });
  test('1.30: wait-control-plane, visible and EXPERIMENTAL, at the end', () => {
    expect(tree('1.30')).toEqual([...BASE, ['control-plane-join', false], ['wait-control-plane', false], ...END]);
    expect(summary('1.30', 'wait-control-plane')).toBe('EXPERIMENTAL: Wait for the control plane to start');
  });
  test.each(['1.31', '1.32'])('%s: etcd-join and kubelet-wait-bootstrap, hidden and EXPERIMENTAL, between kubelet-start and control-plane-join', (minor) => {
    expect(tree(minor)).toEqual([...BASE, ['etcd-join', true], ['kubelet-wait-bootstrap', true], ['control-plane-join', false], ['wait-control-plane', false], ...END]);
    expect(summary(minor, 'etcd-join')).toBe('[EXPERIMENTAL] Join etcd for control plane nodes (only used when feature gate ControlPlaneKubeletLocalMode is enabled)');
    expect(summary(minor, 'kubelet-wait-bootstrap')).toBe('[EXPERIMENTAL] Wait for the kubelet to bootstrap itself (only used when feature gate ControlPlaneKubeletLocalMode is enabled)');
  });
  test('1.33: kubelet-wait-bootstrap shown, no EXPERIMENTAL prefixes on the local-mode phases; etcd-join still hidden', () => {
    expect(tree('1.33')).toEqual([...BASE, ['etcd-join', true], ['kubelet-wait-bootstrap', false], ['control-plane-join', false], ['wait-control-plane', false], ...END]);
    expect(summary('1.33', 'etcd-join')).toBe('Join etcd for control plane nodes');
    expect(summary('1.33', 'kubelet-wait-bootstrap')).toBe('Wait for the kubelet to bootstrap itself');
    expect(summary('1.33', 'wait-control-plane')).toBe('EXPERIMENTAL: Wait for the control plane to start');
  });
  test('1.34: wait-control-plane no longer EXPERIMENTAL', () => {
    expect(tree('1.34')).toEqual([...BASE, ['etcd-join', true], ['kubelet-wait-bootstrap', false], ['control-plane-join', false], ['wait-control-plane', false], ...END]);
    expect(summary('1.34', 'wait-control-plane')).toBe('Wait for the control plane to start');
  });
});

describe('join without credentials (issue 40)', () => {
  test('checkJoinCredentials: any of --config, --token, --discovery-token, --discovery-file will do; none is a usage error naming them', () => {
    for (const flags of [{ config: '/c.yaml' }, { token: 'abcdef.0123456789abcdef' }, { 'discovery-token': 'abcdef.0123456789abcdef' }, { 'discovery-file': '/f' }]) {
      expect(() => checkJoinCredentials(flags)).not.toThrow();
    }
    expect(() => checkJoinCredentials({ 'node-name': 'w1', token: '' })).toThrow(TsadmError);
  });

  test.each([[['join', '10.0.0.1:6443']], [['join']], [['join', '10.0.0.1:6443', '--discovery-token-ca-cert-hash', 'sha256:00']]])('tsadm %j: one line naming --token, --discovery-token-ca-cert-hash and --discovery-file; exit 3', async (args) => {
    const r = await runCli([...args, '--dry-run', '--rootfs', '/']);
    expect(r.code).toBe(3);
    const first = r.stderr.split('\n')[0] ?? '';
    for (const flag of ['--token', '--discovery-token-ca-cert-hash', '--discovery-file']) expect([flag, first.includes(flag)]).toEqual([flag, true]);
    expect(r.stderr).not.toMatch(/configuration errors|discovery\.bootstrapToken/);
  });
});
