/**
 * The host phase group (src/phases/host/phase.ts composes the leaves of src/phases/host/<leaf>.ts)
 * on a --rootfs temp tree with a fake running system (test/helpers/host-phase.ts: modules,
 * sysctls, swap, services recorded, never the real machine): a bare host is prepared, a second run
 * writes and applies nothing, a dry run changes neither the tree nor the fake system; the exit
 * checks (`tsadm check host`) judge every check kubeadm's preflight also has exactly as preflight
 * does on the same machine. Expected file contents are written out here from kubeadm's install
 * docs and the v1.20 packages, not taken from render.ts.
 */
import { existsSync } from 'node:fs';
import type { CheckFinding } from '../../../../src/engine/phase.js';
import { hostLeaves, hostPhase } from '../../../../src/phases/host/phase.js';
import { hostPrepInput } from '../../../../src/phases/host/input.js';
import type { CheckResult } from '../../../../src/phases/preflight/check.js';
import { commonChecks } from '../../../../src/phases/preflight/checks.js';
import { verifyPhases } from '../../../../src/verify/run.js';
import type { InitCtx } from '../../../../src/run/context.js';
import { exitCheckOf } from '../../../../src/verify/exit-check.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { bare, cfgFor, fake, fakeProbe, type FakeState, hostPhaseRootEachTest, MODULES, SYSCTLS } from '../../../helpers/host-phase.js';

const h = hostPhaseRootEachTest();
const { run, read } = h;

test('a bare host: every drop-in written, modules loaded, sysctls set, units installed and enabled, containerd started', async () => {
  const state = bare();
  state.active.delete('containerd');
  const { changed } = await run(state);
  expect(read('/etc/modules-load.d/k8s.conf')).toBe(MODULES);
  expect(read('/etc/sysctl.d/k8s.conf')).toBe(SYSCTLS);
  // containerd has no config.toml: one that imports the drop-ins, and the drop-in (v1.20: cgroupfs, pause 3.2).
  expect(read('/etc/containerd/config.toml')).toContain('imports = ["/etc/containerd/conf.d/*.toml"]');
  const dropIn = read('/etc/containerd/conf.d/k8s.toml');
  expect(dropIn).toContain('sandbox_image = "k8s.gcr.io/pause:3.2"');
  expect(dropIn).toContain('SystemdCgroup = false');
  expect(read('/etc/systemd/system/kubelet.service')).toContain('ExecStart=/usr/bin/kubelet\nRestart=always\nStartLimitInterval=0\nRestartSec=10\n');
  expect(read('/etc/systemd/system/kubelet.service.d/10-kubeadm.conf')).toContain('ExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS\n');
  expect(read('/etc/crictl.yaml')).toBe('runtime-endpoint: unix:///run/containerd/containerd.sock\nimage-endpoint: unix:///run/containerd/containerd.sock\n');
  expect(changed).toHaveLength(7);
  expect(state.calls).toEqual([
    'modprobe overlay', 'modprobe br_netfilter',
    'sysctl -w net.bridge.bridge-nf-call-iptables=1', 'sysctl -w net.bridge.bridge-nf-call-ip6tables=1', 'sysctl -w net.ipv4.ip_forward=1',
    'start containerd', 'daemon-reload kubelet', 'enable kubelet',
  ]);
});

test('a second run writes nothing, loads, sets and restarts nothing', async () => {
  const state = bare();
  await run(state, { flags: { 'restart-container-runtime': true } });
  state.calls = [];
  const before = read('/etc/containerd/conf.d/k8s.toml');
  const second = await run(state, { flags: { 'restart-container-runtime': true } });
  expect(second.changed).toEqual([]);
  expect(state.calls).toEqual([]);
  expect(read('/etc/containerd/conf.d/k8s.toml')).toBe(before);
});

test('the exit check of a prepared host passes with the preflight checks\' names; a bare one fails them', async () => {
  const state = bare();
  const { ctx, tree } = await run(state);
  const leaves = tree[0]!.children!;
  const findings = [];
  for (const leaf of leaves) findings.push(...await exitCheckOf(`host/${leaf.name}`, leaf)!(ctx));
  expect(findings.filter((f) => !f.ok)).toEqual([]);
  const names = findings.map((f) => f.check);
  expect(names).toEqual(expect.arrayContaining(['FileContent--proc-sys-net-bridge-bridge-nf-call-iptables', 'FileContent--proc-sys-net-ipv4-ip_forward', 'Swap', 'CRI', 'Service-Kubelet', 'FileExisting-crictl']));
  // The check itself changed nothing (it runs the phases as a dry run).
  expect(state.calls.filter((c) => !c.startsWith('dry '))).toHaveLength(7);

  const other = bare();
  h.reset({});
  const { ctx: bareCtx } = initCtxFor(cfgFor(), h.root.dir);
  const sysctlLeaf = [hostPhase<InitCtx>('init', (c) => Promise.resolve(hostPrepInput(c.cfg, c.versions, {})), () => true, { system: fake(other, h.root) })][0]!.children!.find((l) => l.name === 'sysctl')!;
  const bad = await exitCheckOf('host/sysctl', sysctlLeaf)!(bareCtx);
  expect(bad.filter((f) => !f.ok).map((f) => f.check)).toEqual(expect.arrayContaining(['/etc/sysctl.d/k8s.conf', 'FileContent--proc-sys-net-ipv4-ip_forward']));
});

test('--dry-run: nothing written under the root, the fake system unchanged, every change listed', async () => {
  const state = bare();
  const { ctx } = await run(state, { dryRun: true });
  expect(existsSync(h.root.at('/etc/sysctl.d/k8s.conf'))).toBe(false);
  expect(state.modules.size).toBe(0);
  expect(state.calls.every((c) => c.startsWith('dry '))).toBe(true);
  expect(ctx.host.writes.map((w) => w.path)).toEqual(expect.arrayContaining(['/etc/modules-load.d/k8s.conf', '/etc/sysctl.d/k8s.conf', '/etc/containerd/conf.d/k8s.toml', '/etc/crictl.yaml']));
});

describe('`tsadm check host` and preflight share their check functions', () => {
  /** kubeadm's preflight checks that a host leaf also checks: their names, as kubeadm spells them. */
  const SHARED = ['CRI', 'FileContent--proc-sys-net-bridge-bridge-nf-call-iptables', 'FileContent--proc-sys-net-ipv4-ip_forward', 'Service-Kubelet', 'Swap'];
  type Verdict = { readonly check: string; readonly verdict: 'ok' | 'warning' | 'error'; readonly message?: string };
  const ofFinding = (f: CheckFinding): Verdict => (f.ok ? (f.warning ? { check: f.check, verdict: 'warning', message: f.detail } : { check: f.check, verdict: 'ok' }) : { check: f.check, verdict: 'error', message: f.detail });
  const ofResult = (check: string, r: CheckResult): Verdict =>
    r.errors.length > 0 ? { check, verdict: 'error', message: r.errors.join('; ') } : r.warnings.length > 0 ? { check, verdict: 'warning', message: r.warnings.join('; ') } : { check, verdict: 'ok' };

  /** The same stand-in machine (ROOT and STATE) through both paths: `tsadm check host`'s exit checks and init's preflight checks. */
  async function bothPaths(state: FakeState, cfg = cfgFor()): Promise<{ host: Verdict[]; preflight: Verdict[] }> {
    const { ctx } = initCtxFor(cfg, h.root.dir);
    const tree = [hostPhase<InitCtx>('init', (c) => Promise.resolve(hostPrepInput(c.cfg, c.versions, {})), () => true, { system: fake(state, h.root) })];
    // What `tsadm check host` runs (src/commands/check.ts).
    const host = (await verifyPhases(tree, ctx, ['host'], ctx.log)).filter((f) => SHARED.includes(f.check)).map(ofFinding);
    const checks = commonChecks({
      versions: ctx.versions,
      kubernetesVersion: cfg.cluster.kubernetesVersion,
      criSocket: cfg.init.nodeRegistration.criSocket,
      nodeName: cfg.init.nodeRegistration.name,
      bindPort: cfg.init.localAPIEndpoint.bindPort,
      swapAllowed: cfg.componentConfigs.kubelet.failSwapOn === false,
    }).filter((c) => SHARED.includes(c.name));
    const preflight: Verdict[] = [];
    for (const c of checks) preflight.push(ofResult(c.name, await c.run({ host: ctx.host, system: fakeProbe(state, h.root) })));
    const byName = (a: Verdict, b: Verdict): number => a.check.localeCompare(b.check);
    return { host: host.sort(byName), preflight: preflight.sort(byName) };
  }

  test('every shared check, on bare and prepared machines with swap, a stopped runtime and no init system: the same verdict and message', async () => {
    const seen = new Set<string>();
    const expectSame = async (what: string, state: FakeState, cfg = cfgFor()): Promise<Verdict[]> => {
      const { host, preflight } = await bothPaths(state, cfg);
      expect([what, host.map((v) => v.check)]).toEqual([what, SHARED]);
      expect([what, host]).toEqual([what, preflight]);
      for (const v of host) seen.add(`${v.check}:${v.verdict}`);
      return host;
    };
    // A bare machine: no br_netfilter, no forwarding, no kubelet unit; containerd answers.
    const onBare = await expectSame('bare', bare());
    expect(onBare.find((v) => v.check === 'FileContent--proc-sys-net-ipv4-ip_forward')!.verdict).toBe('error');
    const noInit = bare();
    noInit.initSystem = false;
    noInit.active.delete('containerd');
    await expectSame('bare, no init system, containerd stopped', noInit);

    const state = bare();
    await run(state);
    const prepared = await expectSame('prepared', state);
    expect(prepared.map((v) => v.verdict)).toEqual(SHARED.map(() => 'ok'));
    state.swaps = ['/swap.img'];
    await expectSame('prepared, swap on', state);
    await expectSame('prepared, swap on, failSwapOn: false', state, cfgFor('v1.20.2', { failSwapOn: false }));
    state.swaps = [];
    state.active.delete('containerd');
    await expectSame('prepared, containerd stopped', state);
    rmLink();
    await expectSame('prepared, kubelet not enabled', state);
    state.initSystem = false;
    await expectSame('prepared, no init system', state);
    // The states above reach each verdict of each shared check that has one (Service-Kubelet and Swap warn, never fail, when allowed).
    expect([...seen].sort()).toEqual([
      'CRI:error', 'CRI:ok',
      'FileContent--proc-sys-net-bridge-bridge-nf-call-iptables:error', 'FileContent--proc-sys-net-bridge-bridge-nf-call-iptables:ok',
      'FileContent--proc-sys-net-ipv4-ip_forward:error', 'FileContent--proc-sys-net-ipv4-ip_forward:ok',
      'Service-Kubelet:ok', 'Service-Kubelet:warning',
      'Swap:error', 'Swap:ok', 'Swap:warning',
    ]);
  });

  function rmLink(): void {
    h.reset({ '/usr/bin/kubelet': '', '/etc/systemd/system/kubelet.service': '[Service]\n' });
    expect(existsSync(h.root.at('/etc/systemd/system/multi-user.target.wants/kubelet.service'))).toBe(false);
  }
});

test('each leaf\'s help example names the command it is shown under', () => {
  const inputOf = (c: InitCtx) => Promise.resolve(hostPrepInput(c.cfg, c.versions, {}));
  const examples = (leaves: readonly { readonly name: string; readonly example?: string }[]) => leaves.map((l) => [l.name, l.example]);
  const names = ['binaries', 'kernel-modules', 'sysctl', 'swap', 'container-runtime', 'kubelet-service', 'crictl'];
  expect(examples(hostPhase<InitCtx>('init', inputOf, () => true).children!)).toEqual(names.map((n) => [n, `tsadm init phase host ${n} --dry-run`]));
  expect(examples(hostPhase<InitCtx>('join', inputOf, () => true).children!)).toEqual(names.map((n) => [n, `tsadm join phase host ${n} --dry-run`]));
  expect(examples(hostLeaves<InitCtx>(inputOf, 'tsadm prepare phase'))).toEqual(names.map((n) => [n, `tsadm prepare phase ${n} --dry-run`]));
  expect(hostPhase<InitCtx>('join', inputOf, () => true).example).toBe('tsadm join phase host all --dry-run');
});
