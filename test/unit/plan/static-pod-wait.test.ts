import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { FakeKubelet } from '../../helpers/fake-kubelet.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { RestKubeApi } from '../../../src/kube/rest-api.js';
import { NO_RETRY } from '../../../src/kube/retry.js';
import { transportFromKubeconfig } from '../../../src/kube/transport.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { hashesBeforeApply, waitForStaticPod, type StaticPodWaitDeps } from '../../../src/plan/static-pod-wait.js';
import { PLAN_API_VERSION, PLAN_KIND, type Plan, type StaticPodWaitStep } from '../../../src/plan/types.js';
import type { KubeApi } from '../../../src/kube/types.js';

const NODE = 'cp1';
const MANIFEST = '/etc/kubernetes/manifests/kube-apiserver.yaml';
const BACKUP = '/etc/kubernetes/tmp/kubeadm-backup-manifests-2026-11-25-12-00-00/kube-apiserver.yaml';
const OLD = 'kind: Pod\nspec:\n  containers:\n  - image: k8s.gcr.io/kube-apiserver:v1.20.2\n';
const NEW = OLD.replace('v1.20.2', 'v1.20.3');
const sha256 = (t: string): string => createHash('sha256').update(t).digest('hex');

const wait = (timeoutSeconds: number): StaticPodWaitStep => ({
  type: 'wait', for: 'static-pod', kubeconfig: '/etc/kubernetes/admin.conf', component: 'kube-apiserver', node: NODE,
  manifest: MANIFEST, backup: BACKUP, healthUrl: 'https://127.0.0.1:6443/livez', timeoutSeconds,
});

/** An upgrade plan's steps for one component, as `tsadm upgrade apply --dry-run --plan` records them. */
function plan(step: StaticPodWaitStep): Plan {
  const file = (path: string, text: string) => ({ type: 'file' as const, path, mode: '0600', kind: 'manifest', description: path, size: text.length, sha256: sha256(text), unchanged: false, text });
  return {
    note: '', apiVersion: PLAN_API_VERSION, kind: PLAN_KIND, keyMaterial: true, createdAt: '', tsadmVersion: '', command: 'upgrade apply', phases: ['control-plane'], rootfs: '/',
    preconditions: { files: [], clusters: [], objects: [] },
    steps: [file(BACKUP, OLD), file(MANIFEST, NEW), step],
  };
}

/**
 * The static Pod waits of an upgrade plan (what `tsadm apply` does between an upgraded manifest
 * and the next step) against a real kube-apiserver, with a stand-in kubelet publishing the mirror
 * Pod's hash of the manifest on disk.
 */
describeWithApiServer('static Pod waits of an upgrade plan', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let kubelet: FakeKubelet<'kube-apiserver'>;
  let api: KubeApi;
  let reporter: MemoryReporter;
  let deps: StaticPodWaitDeps;

  beforeAll(async () => {
    server = await startApiServer();
    api = new RestKubeApi(await transportFromKubeconfig(server.adminKubeconfig, 'admin.conf'), { retry: NO_RETRY });
  }, 120_000);
  afterAll(async () => {
    api?.close();
    await server?.stop();
  }, 30_000);

  beforeEach(async () => {
    root = tempRoot({ [MANIFEST]: OLD, [BACKUP]: OLD });
    kubelet = new FakeKubelet(server, root, NODE, ['kube-apiserver']);
    await kubelet.createMirrorPods();
    kubelet.start();
    reporter = new MemoryReporter();
    deps = { host: new RootedHost(root.dir), log: new PhaseLogger(reporter), openApi: () => Promise.resolve(api), check: () => Promise.resolve({ ok: true, detail: 'ok' }) };
  });
  afterEach(async () => {
    kubelet.stop();
    await server.request('DELETE', `/api/v1/namespaces/kube-system/pods/kube-apiserver-${NODE}?gracePeriodSeconds=0`, { auth: 'admin' });
    root.cleanup();
  });

  test('the hash before is read first; after the manifest step, apply waits for the kubelet to run it', async () => {
    const p = plan(wait(20));
    const before = await hashesBeforeApply(p, deps);
    const old = await kubelet.hashOf('kube-apiserver');
    expect(before.get(`${NODE}/kube-apiserver`)).toBe(old);
    writeFileSync(root.at(MANIFEST), NEW);
    await waitForStaticPod(wait(20), before, deps);
    expect(await kubelet.hashOf('kube-apiserver')).not.toBe(old);
    expect(reporter.lines()).toContain('Component "kube-apiserver" upgraded successfully!');
  }, 60_000);

  test('a component that never comes back: the backup goes back, the error names the component and the backup', async () => {
    const before = await hashesBeforeApply(plan(wait(2)), deps);
    kubelet.broken.add('kube-apiserver');
    writeFileSync(root.at(MANIFEST), NEW);
    const err = await tsadmErrorOf(waitForStaticPod(wait(2), before, deps));
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).toMatch(/^upgrading kube-apiserver failed: the kubelet did not run the manifest within 2s .*; rolled back kube-apiserver to \/etc\/kubernetes\/tmp\/kubeadm-backup-manifests-2026-11-25-12-00-00\/kube-apiserver\.yaml$/);
    expect(readFileSync(root.at(MANIFEST), 'utf8')).toBe(OLD);
  }, 60_000);

  test('an apply run again after the manifest step: no new hash is needed, only a running component', async () => {
    writeFileSync(root.at(MANIFEST), NEW);
    const before = await hashesBeforeApply(plan(wait(20)), deps);
    expect(before.get(`${NODE}/kube-apiserver`)).toBe('any');
    await waitForStaticPod(wait(20), before, deps);
  }, 60_000);

  test('no mirror Pod to read before applying: refused before any step', async () => {
    await server.request('DELETE', `/api/v1/namespaces/kube-system/pods/kube-apiserver-${NODE}?gracePeriodSeconds=0`, { auth: 'admin' });
    kubelet.stop();
    const err = await tsadmErrorOf(hashesBeforeApply(plan(wait(20)), { ...deps }));
    expect(err.message).toMatch(/cannot read the mirror Pod kube-system\/kube-apiserver-cp1 before applying the upgrade/);
  }, 60_000);
});
