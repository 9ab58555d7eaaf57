import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import { controlPlanePhase } from '../../../../src/phases/controlplane/phase.js';
import { etcdPhase } from '../../../../src/phases/etcd/phase.js';
import { runPhases } from '../../../../src/engine/runner.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { golden } from '../../controlplane/scenarios.js';

const tree = [controlPlanePhase, etcdPhase];
const MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'];

async function run(cfg: ResolvedInitConfig, root: string, opts: { dryRun?: boolean; filter?: string[] } = {}) {
  const { ctx, reporter } = initCtxFor(cfg, root, opts);
  await runPhases(tree, ctx, { filter: opts.filter ?? [], skip: [] });
  return { ctx, reporter };
}

describe('control-plane and etcd phases on a temp root', () => {
  let root: TempRoot;
  beforeEach(() => {
    root = tempRoot();
  });
  afterEach(() => root.cleanup());

  test('write kubeadm v1.20.2\'s bytes with kubeadm\'s modes and log lines', async () => {
    const { reporter } = await run(fixtureInitConfig(), root.dir);
    for (const f of MANIFESTS) {
      expect(readFileSync(root.at(`/etc/kubernetes/manifests/${f}`), 'utf8')).toBe(golden('default', f));
      expect(statSync(root.at(`/etc/kubernetes/manifests/${f}`)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(root.at('/etc/kubernetes/manifests')).mode & 0o777).toBe(0o700);
    expect(statSync(root.at('/var/lib/etcd')).mode & 0o777).toBe(0o700);
    expect(reporter.events.flatMap((e) => (e.type === 'log' && e.verbosity === 0 ? [e.message] : []))).toEqual([
      'Using manifest folder "/etc/kubernetes/manifests"',
      'Creating static Pod manifest for "kube-apiserver"',
      'Creating static Pod manifest for "kube-controller-manager"',
      'Creating static Pod manifest for "kube-scheduler"',
      'Creating static Pod manifest for local etcd in "/etc/kubernetes/manifests"',
    ]);
  });

  test('a second run writes nothing: every file is reported unchanged', async () => {
    await run(fixtureInitConfig(), root.dir);
    const { ctx } = await run(fixtureInitConfig(), root.dir);
    expect(ctx.host.writes.map((w) => [w.path, w.unchanged])).toEqual([
      ['/etc/kubernetes/manifests/kube-apiserver.yaml', true],
      ['/etc/kubernetes/manifests/kube-controller-manager.yaml', true],
      ['/etc/kubernetes/manifests/kube-scheduler.yaml', true],
      ['/etc/kubernetes/manifests/etcd.yaml', true],
    ]);
  });

  test('changing one flag rewrites only that manifest', async () => {
    await run(fixtureInitConfig(), root.dir);
    const before = statSync(root.at('/etc/kubernetes/manifests/kube-apiserver.yaml')).ino;
    const base = fixtureInitConfig();
    const cfg = { ...base, cluster: { ...base.cluster, scheduler: { ...base.cluster.scheduler, extraArgs: [{ name: 'v', value: '4' }] } } };
    const { ctx } = await run(cfg, root.dir);
    expect(ctx.host.writes.filter((w) => !w.unchanged).map((w) => w.path)).toEqual(['/etc/kubernetes/manifests/kube-scheduler.yaml']);
    expect(readFileSync(root.at('/etc/kubernetes/manifests/kube-scheduler.yaml'), 'utf8')).toContain('    - --v=4\n');
    expect(statSync(root.at('/etc/kubernetes/manifests/kube-apiserver.yaml')).ino).toBe(before);
  });

  test('a manifest whose mode was loosened is rewritten with 0600', async () => {
    await run(fixtureInitConfig(), root.dir);
    const { chmodSync } = await import('node:fs');
    chmodSync(root.at('/etc/kubernetes/manifests/etcd.yaml'), 0o644);
    const { ctx } = await run(fixtureInitConfig(), root.dir);
    expect(ctx.host.writes.filter((w) => !w.unchanged).map((w) => w.path)).toEqual(['/etc/kubernetes/manifests/etcd.yaml']);
    expect(statSync(root.at('/etc/kubernetes/manifests/etcd.yaml')).mode & 0o777).toBe(0o600);
  });

  test('dry run: nothing on disk, every manifest recorded with its content', async () => {
    const { ctx } = await run(fixtureInitConfig(), root.dir, { dryRun: true });
    expect(readdirSync(root.dir)).toEqual([]);
    expect(ctx.host.writes.map((w) => w.path)).toHaveLength(4);
    const etcd = ctx.host.writes.find((w) => w.path.endsWith('/etcd.yaml'));
    expect(etcd?.content?.toString('utf8')).toBe(golden('default', 'etcd.yaml'));
  });

  test('external etcd: etcd/local is skipped with kubeadm\'s reason and no data dir is made', async () => {
    const base = fixtureInitConfig();
    const cfg = { ...base, cluster: { ...base.cluster, etcd: { mode: 'external' as const, endpoints: ['https://10.0.0.1:2379'], caFile: '', certFile: '', keyFile: '' } } };
    const { reporter } = await run(cfg, root.dir);
    expect(existsSync(root.at('/etc/kubernetes/manifests/etcd.yaml'))).toBe(false);
    expect(existsSync(root.at('/var/lib/etcd'))).toBe(false);
    expect(reporter.events).toContainEqual(expect.objectContaining({ type: 'phase-finish', phase: 'etcd/local', status: 'skipped', reason: 'External etcd mode: Skipping etcd static pod generation' }));
  });

  test('host facts come from the root: CA directories present under --rootfs are mounted', async () => {
    const r = tempRoot({ '/usr/local/share/ca-certificates/local.crt': 'x' });
    try {
      await run(fixtureInitConfig(), r.dir, { filter: ['control-plane/apiserver'] });
      const text = readFileSync(r.at('/etc/kubernetes/manifests/kube-apiserver.yaml'), 'utf8');
      expect(text).toContain('    - mountPath: /usr/local/share/ca-certificates\n      name: usr-local-share-ca-certificates\n      readOnly: true\n');
    } finally {
      r.cleanup();
    }
  });

  test('an authorization-mode the user changed is warned about once', async () => {
    const base = fixtureInitConfig();
    const cfg = { ...base, cluster: { ...base.cluster, apiServer: { ...base.cluster.apiServer, extraArgs: [{ name: 'authorization-mode', value: 'Node,RBAC,Webhook' }] } } };
    const { reporter } = await run(cfg, root.dir);
    const warnings = reporter.events.filter((e) => e.type === 'log' && e.level === 'warn');
    expect(warnings).toEqual([expect.objectContaining({ message: 'the default kube-apiserver authorization-mode is "Node,RBAC"; using "Node,RBAC,Webhook"' })]);
  });
});

describe('phase trees', () => {
  test('are valid (kebab-case names, leaves with run, known flags)', async () => {
    const { FLAG_NAMES } = await import('../../../../src/flags.js');
    const { validateTree } = await import('../../../../src/engine/phase.js');
    const kubelet = { ...(await import('../../../../src/phases/kubelet/start.js')), ...(await import('../../../../src/phases/kubelet/wait.js')) };
    expect(() => validateTree([controlPlanePhase, etcdPhase, kubelet.kubeletStartPhase, kubelet.waitForKubeletPhase, kubelet.waitControlPlanePhase], FLAG_NAMES)).not.toThrow();
  });
});
