import { readFileSync, readdirSync, statSync } from 'node:fs';
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import type { ServiceAction, ServiceResult } from '../../../../src/host/host.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { makeKubeletStartPhase } from '../../../../src/phases/kubelet/start.js';
import { runPhases } from '../../../../src/engine/runner.js';
import { DEFAULT_PATCH } from '../../../../src/versions/minors.js';
import { profileFor } from '../../../../src/versions/resolve.js';
import type { InitCtx } from '../../../../src/run/context.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { golden } from '../../controlplane/scenarios.js';

/** A rooted host whose service manager is scripted: every action is recorded. */
class ScriptedHost extends RootedHost {
  readonly calls: string[] = [];
  constructor(root: string, private readonly results: Partial<Record<ServiceAction, ServiceResult>> = {}) {
    super(root);
  }
  override service(action: ServiceAction, unit: string): Promise<ServiceResult> {
    this.calls.push(`${action} ${unit}`);
    return Promise.resolve(this.results[action] ?? { ok: action !== 'is-active', via: 'test' });
  }
}

const phase = makeKubeletStartPhase({ hostname: () => 'vm' });

async function run(cfg: ResolvedInitConfig, root: string, host?: ScriptedHost, dryRun = false) {
  const made = initCtxFor(cfg, root, { dryRun });
  const ctx: InitCtx = host ? { ...made.ctx, host } : made.ctx;
  await runPhases([phase], ctx, { filter: [], skip: [] });
  return { ctx, reporter: made.reporter };
}

const logs = (reporter: Awaited<ReturnType<typeof run>>['reporter'], level: 'info' | 'warn') =>
  reporter.events.flatMap((e) => (e.type === 'log' && e.level === level ? [e.message] : []));

describe('kubelet-start', () => {
  let root: TempRoot;
  beforeEach(() => {
    root = tempRoot();
  });
  afterEach(() => root.cleanup());

  test('stops the kubelet, writes kubeadm v1.20.2\'s two files (0644 in a 0700 dir), restarts it', async () => {
    const host = new ScriptedHost(root.dir);
    const { reporter } = await run(fixtureInitConfig(), root.dir, host);
    expect(host.calls).toEqual(['is-active systemd-resolved', 'stop kubelet', 'restart kubelet']);
    expect(readFileSync(root.at('/var/lib/kubelet/kubeadm-flags.env'), 'utf8')).toBe(golden('kubelet-default', 'kubeadm-flags.env'));
    expect(readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8')).toBe(golden('kubelet-default', 'config.yaml'));
    expect(statSync(root.at('/var/lib/kubelet/config.yaml')).mode & 0o777).toBe(0o644);
    expect(statSync(root.at('/var/lib/kubelet/kubeadm-flags.env')).mode & 0o777).toBe(0o644);
    expect(statSync(root.at('/var/lib/kubelet')).mode & 0o777).toBe(0o700);
    expect(logs(reporter, 'info')).toEqual([
      'Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"',
      'Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
      'Starting the kubelet',
    ]);
  });

  test('a failing service manager is a warning, not a failure', async () => {
    const host = new ScriptedHost(root.dir, {
      stop: { ok: false, via: 'systemctl', message: 'Unit kubelet.service not loaded.' },
      restart: { ok: false, via: 'systemctl', message: 'Unit kubelet.service not found.' },
    });
    const { reporter } = await run(fixtureInitConfig(), root.dir, host);
    expect(logs(reporter, 'warn')).toEqual([
      'unable to stop the kubelet service momentarily: [Unit kubelet.service not loaded.]',
      'unable to start the kubelet service: [Unit kubelet.service not found.]',
      'Please ensure kubelet is reloaded and running manually.',
    ]);
  });

  test('no service manager at all: kubeadm\'s notices, and the warning about systemd-resolved', async () => {
    const none: ServiceResult = { ok: false, via: 'none' };
    const host = new ScriptedHost(root.dir, { stop: none, restart: none, 'is-active': none });
    const { reporter } = await run(fixtureInitConfig(), root.dir, host);
    expect(logs(reporter, 'info')).toContain("no supported init system detected, won't make sure the kubelet is running properly.");
    expect(logs(reporter, 'warn')).toEqual(['cannot determine if systemd-resolved is active: no supported init system detected, skipping checking for services']);
  });

  test('second run: files unchanged, the kubelet still restarted', async () => {
    await run(fixtureInitConfig(), root.dir, new ScriptedHost(root.dir));
    const host = new ScriptedHost(root.dir);
    await run(fixtureInitConfig(), root.dir, host);
    expect(host.writes.map((w) => w.unchanged)).toEqual([true, true]);
    expect(host.calls).toContain('restart kubelet');
  });

  test('dry run: nothing on disk; the service actions are recorded, not performed', async () => {
    const { ctx, reporter } = await run(fixtureInitConfig(), root.dir, undefined, true);
    expect(readdirSync(root.dir)).toEqual([]);
    expect(ctx.host.actions).toEqual(['stop kubelet', 'restart kubelet']);
    expect(ctx.host.writes.map((w) => w.path)).toEqual(['/var/lib/kubelet/kubeadm-flags.env', '/var/lib/kubelet/config.yaml']);
    expect(logs(reporter, 'info')).toContain('Would start the kubelet');
  });

  test('1.25+: kubeletconfiguration patches apply to config.yaml', async () => {
    const r = tempRoot({ '/patches/kubeletconfiguration+merge.yaml': 'maxPods: 50\nhealthzBindAddress: null\n' });
    try {
      const base = fixtureInitConfig();
      const cfg = {
        ...base,
        cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH['1.31'] },
        init: { ...base.init, patches: { directory: '/patches' }, nodeRegistration: { ...base.init.nodeRegistration, criSocket: 'unix:///run/containerd/containerd.sock' } },
      };
      const host = new ScriptedHost(r.dir);
      const made = initCtxFor(cfg, r.dir);
      expect(made.ctx.versions).toBe(profileFor(DEFAULT_PATCH['1.31']));
      await runPhases([phase], { ...made.ctx, host }, { filter: [], skip: [] });
      const config = readFileSync(r.at('/var/lib/kubelet/config.yaml'), 'utf8');
      expect(config).toContain('\nmaxPods: 50\n');
      expect(config).not.toContain('healthzBindAddress');
      expect(config).toContain('\ncgroupDriver: systemd\n');
      expect(made.reporter.events).toContainEqual(expect.objectContaining({ prefix: 'patches', message: 'Applied patch of type "application/merge-patch+json" to target "kubeletconfiguration"' }));
    } finally {
      r.cleanup();
    }
  });

  test('1.34 (NodeLocalCRISocket on by default): the CRI endpoint moves into instance-config.yaml and config.yaml', async () => {
    const base = fixtureInitConfig();
    const cfg = {
      ...base,
      cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH['1.34'], imageRepository: 'registry.k8s.io' },
      init: { ...base.init, nodeRegistration: { ...base.init.nodeRegistration, criSocket: 'unix:///run/containerd/containerd.sock' } },
    };
    await run(cfg, root.dir, new ScriptedHost(root.dir));
    expect(readFileSync(root.at('/var/lib/kubelet/kubeadm-flags.env'), 'utf8')).toBe('KUBELET_KUBEADM_ARGS="--hostname-override=cp1 --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n');
    expect(readFileSync(root.at('/var/lib/kubelet/instance-config.yaml'), 'utf8'))
      .toBe('apiVersion: kubelet.config.k8s.io/v1beta1\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\nkind: KubeletConfiguration\n');
    expect(readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8')).toContain('\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\n');

    const off = { ...cfg, cluster: { ...cfg.cluster, featureGates: { NodeLocalCRISocket: false } } };
    const r = tempRoot();
    try {
      await run(off, r.dir, new ScriptedHost(r.dir));
      expect(readFileSync(r.at('/var/lib/kubelet/kubeadm-flags.env'), 'utf8')).toContain('--container-runtime-endpoint=unix:///run/containerd/containerd.sock');
      expect(readdirSync(r.at('/var/lib/kubelet')).sort()).toEqual(['config.yaml', 'kubeadm-flags.env']);
    } finally {
      r.cleanup();
    }
  });
});

describe('kubelet-start failures', () => {
  test('a broken kubeletconfiguration patch fails before the kubelet is stopped', async () => {
    const root = tempRoot({ '/patches/kubeletconfiguration+json.yaml': '- op: remove\n  path: /nope\n' });
    try {
      const base = fixtureInitConfig();
      const cfg = {
        ...base,
        cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH['1.25'] },
        init: { ...base.init, patches: { directory: '/patches' }, nodeRegistration: { ...base.init.nodeRegistration, criSocket: 'unix:///run/containerd/containerd.sock' } },
      };
      const host = new ScriptedHost(root.dir);
      const made = initCtxFor(cfg, root.dir);
      await expect(runPhases([phase], { ...made.ctx, host }, { filter: [], skip: [] }))
        .rejects.toThrow('error execution phase kubelet-start: could not apply patch file "kubeletconfiguration+json.yaml" of type "json" to target "kubeletconfiguration"');
      expect(host.calls).toEqual(['is-active systemd-resolved']);
      expect(host.writes).toEqual([]);
    } finally {
      root.cleanup();
    }
  });
});
