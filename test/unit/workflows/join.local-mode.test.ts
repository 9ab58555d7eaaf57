/**
 * join of a 1.33 cluster, where ControlPlaneKubeletLocalMode is on by default (kubeadm PR
 * #129956), against a real kube-apiserver (v1.20.2 serving a kubeadm-config that says v1.33) on a
 * --rootfs temp tree, with a stand-in kubelet: kubeadm's reordered flow
 * (cmd/kubeadm/app/cmd/phases/join/kubelet.go of 1.31–1.34): kubelet-start writes
 * bootstrap-kubelet.conf (for a control plane pointing at its own LocalAPIEndpoint), starts the
 * kubelet and returns without waiting; kubelet-wait-bootstrap then waits for the kubelet's healthz
 * and the TLS bootstrap,
 * records the CRI socket on the Node and removes the bootstrap file. The stand-in kubelet
 * bootstraps only once kubelet-start has finished, so a kubelet-start that still waited would
 * never finish.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { MemoryReporter, testRuntime } from '../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import type { KubeApi, NodeObject } from '../../../src/kube/types.js';
import { bootstrapToken } from '../../../src/phases/cluster/bootstrap-token.js';
import { uploadKubeadmConfig, uploadKubeletConfig } from '../../../src/phases/cluster/upload-config.js';
import { caCertHash } from '../../../src/pki/hash.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { runPhases } from '../../../src/engine/runner.js';
import { buildJoinContext, joinPhases } from '../../../src/workflows/join.js';
import { realJoinDeps } from '../../../src/phases/join/deps.js';
import type { FlagValues } from '../../../src/flags.js';

const TOKEN = 'abcdef.0123456789abcdef';
const CLUSTER_CONFIG = [
  'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.33.5',
  'controlPlaneEndpoint: cp.example.com:6443', 'certificatesDir: /etc/kubernetes/pki', 'clusterName: kubernetes',
  'etcd:', '  local:', '    dataDir: /var/lib/etcd', 'imageRepository: registry.k8s.io',
  'networking:', '  dnsDomain: cluster.local', '  serviceSubnet: 10.96.0.0/12', '',
].join('\n');
/** The kubelet's healthz is a local stand-in server (kubelet-wait-bootstrap waits for it first). */
const kubeletConfig = (healthzPort: number) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nhealthzBindAddress: 127.0.0.1\nhealthzPort: ${healthzPort}\n`;
const SOCKET = 'unix:///run/containerd/containerd.sock';

describeWithApiServer('join with ControlPlaneKubeletLocalMode (a 1.33 cluster)', () => {
  let server: TestApiServer;
  let admin: KubeApi;
  let pin: string;
  let healthz: http.Server;
  let healthzCalls = 0;
  const roots: string[] = [];
  const savedManager = process.env.TSADM_SERVICE_MANAGER;

  beforeAll(async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'tsadm-sm-'));
    roots.push(bin);
    writeFileSync(path.join(bin, 'service-manager'), '#!/bin/sh\n[ "$1" = is-active ] && exit 3\nexit 0\n', { mode: 0o755 });
    process.env.TSADM_SERVICE_MANAGER = path.join(bin, 'service-manager');
    healthz = http.createServer((req, res) => {
      healthzCalls += 1;
      res.statusCode = req.url === '/healthz' ? 200 : 404;
      res.end('ok');
    });
    await new Promise<void>((r) => healthz.listen(0, '127.0.0.1', r));
    server = await startApiServer({ controllers: ['bootstrapsigner'] });
    const log = new PhaseLogger(new MemoryReporter());
    admin = await createApiSeam({ readFile: () => Promise.resolve(Buffer.from(server.adminKubeconfig)) }, false).open({ path: '/etc/kubernetes/admin.conf' }, { log });
    await bootstrapToken(admin, {
      tokens: [{ token: TOKEN, description: 'test', ttlMs: 3600_000, usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'] }],
      server: server.url, caPem: Buffer.from(server.caPem), clusterAdmins: false, skipTokenPrint: true, now: new Date(),
    }, log);
    await uploadKubeadmConfig(admin, { clusterConfigurationYaml: CLUSTER_CONFIG }, log);
    await uploadKubeletConfig(admin, { versions: profileFor('v1.33.5'), kubeletConfigurationYaml: kubeletConfig((healthz.address() as AddressInfo).port), sign: true, nodeName: 'cp1', criSocket: undefined }, log);
    pin = caCertHash(server.caPem);
  }, 120_000);

  afterAll(async () => {
    if (savedManager === undefined) delete process.env.TSADM_SERVICE_MANAGER;
    else process.env.TSADM_SERVICE_MANAGER = savedManager;
    admin?.close();
    await server?.stop();
    await new Promise((r) => healthz?.close(r));
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  }, 30_000);

  function newRoot(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-join-lm-'));
    roots.push(dir);
    return dir;
  }

  async function join(root: string, flags: FlagValues, filter: string[] = [], reporter = new MemoryReporter()) {
    const host = new RootedHost(root);
    const rt = testRuntime(host, { reporter, verbosity: 0 });
    const deps = realJoinDeps({ tlsBootstrapPollMs: 100, hostname: () => 'testhost' });
    const ctx = await buildJoinContext({
      flags: { token: TOKEN, 'discovery-token-ca-cert-hash': [pin], 'cri-socket': SOCKET, 'ignore-preflight-errors': ['all'], ...flags },
      positionals: [server.url.replace('https://', '')],
    }, rt, deps);
    try {
      await runPhases(joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), ctx, { filter, skip: [] });
    } finally {
      ctx.api.close();
    }
    return reporter;
  }

  /** The kubelet: "bootstraps" (writes kubelet.conf, registers the Node) once `ready()` says so. */
  function fakeKubelet(root: string, nodeName: string, ready: () => boolean): { stop(): void; done: Promise<void> } {
    let stopped = false;
    const done = (async () => {
      while (!stopped && !(existsSync(path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf')) && ready())) await new Promise((r) => setTimeout(r, 50));
      if (stopped) return;
      writeFileSync(path.join(root, 'etc/kubernetes/kubelet.conf'), server.clientKubeconfig(`system:node:${nodeName}`, 'system:nodes'), { mode: 0o600 });
      await admin.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } });
    })();
    return { stop: () => { stopped = true; }, done };
  }

  const finished = (reporter: MemoryReporter) => reporter.events.flatMap((e) => (e.type === 'phase-finish' ? [`${e.phase}:${e.status}`] : []));

  test('worker, whole join: kubelet-start returns before the TLS bootstrap, kubelet-wait-bootstrap waits for it and removes the bootstrap file', async () => {
    const root = newRoot();
    const reporter = new MemoryReporter();
    const kubeletStartDone = () => finished(reporter).includes('kubelet-start:ok');
    const kubelet = fakeKubelet(root, 'w1', kubeletStartDone);
    try {
      await join(root, { 'node-name': 'w1' }, [], reporter);
      await kubelet.done;
    } finally {
      kubelet.stop();
    }
    expect(healthzCalls).toBeGreaterThan(0);
    const order = finished(reporter);
    expect(order.filter((p) => ['kubelet-start:ok', 'kubelet-wait-bootstrap:ok'].includes(p))).toEqual(['kubelet-start:ok', 'kubelet-wait-bootstrap:ok']);
    // A worker: no etcd member, no control-plane wait.
    expect(order).toEqual(expect.arrayContaining(['etcd-join:skipped', 'wait-control-plane:skipped']));
    expect(existsSync(path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf'))).toBe(false);
    expect(existsSync(path.join(root, 'etc/kubernetes/kubelet.conf'))).toBe(true);
    const node = await admin.get<NodeObject>('Node', 'w1');
    expect(node?.metadata.annotations?.['kubeadm.alpha.kubernetes.io/cri-socket']).toBe(SOCKET);
  }, 90_000);

  test('worker, `join phase kubelet-start` alone: the kubelet is started and the bootstrap file stays for kubelet-wait-bootstrap', async () => {
    const root = newRoot();
    await join(root, { 'node-name': 'w2' }, ['kubelet-start']);
    const bootstrap = readFileSync(path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf'), 'utf8');
    // A worker's bootstrap kubeconfig keeps the discovered endpoint.
    expect(bootstrap).toContain(`server: ${server.url}`);
    expect(existsSync(path.join(root, 'etc/kubernetes/kubelet.conf'))).toBe(false);
    expect(existsSync(path.join(root, 'var/lib/kubelet/config.yaml'))).toBe(true);
  }, 60_000);

  test('control plane, `join phase kubelet-start`: bootstrap-kubelet.conf points at this node\'s own API endpoint', async () => {
    const root = newRoot();
    await join(root, { 'node-name': 'cp2', 'control-plane': true, 'apiserver-advertise-address': '10.0.0.5', 'certificate-key': 'a'.repeat(64) }, ['kubelet-start']);
    const bootstrap = readFileSync(path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf'), 'utf8');
    expect(bootstrap).toContain('server: https://10.0.0.5:6443');
    expect(bootstrap).not.toContain(`server: ${server.url}`);
    expect(bootstrap).toContain(`token: ${TOKEN}`);
    expect(existsSync(path.join(root, 'etc/kubernetes/kubelet.conf'))).toBe(false);
  }, 60_000);
});
