/**
 * The host phase group on a --rootfs temp tree with a fake running system (modules, sysctls,
 * swap, services recorded, never the real machine): a bare host is prepared, a second run writes
 * and applies nothing, a user's own files are kept or reported, destructive actions wait for
 * their flag, a dry run changes neither the tree nor the fake system. Expected file contents
 * are written out here from kubeadm's install docs and the v1.20 packages, not taken from
 * render.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import type { Host, ServiceAction, ServiceResult } from '../../../../src/host/host.js';
import type { RunningSystem } from '../../../../src/host/running-system.js';
import { runPhases } from '../../../../src/engine/runner.js';
import { hostPhase } from '../../../../src/phases/host/phase.js';
import { hostPrepInput } from '../../../../src/phases/host/input.js';
import type { FlagValues } from '../../../../src/flags.js';
import type { InitCtx } from '../../../../src/run/context.js';
import { exitCheckOf } from '../../../../src/verify/exit-check.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';

interface FakeState {
  modules: Set<string>;
  sysctls: Map<string, string>;
  swaps: string[];
  active: Set<string>;
  calls: string[];
}

const bare = (): FakeState => ({
  modules: new Set(),
  sysctls: new Map([['net.ipv4.ip_forward', '0']]),
  swaps: [],
  active: new Set(['containerd']),
  calls: [],
});

/** A running system that keeps its state in memory; changes only when the host is not a dry run. */
function fake(state: FakeState, root: TempRoot): (host: Host) => RunningSystem {
  return (host) => {
    const act = (call: string, change: () => void): Promise<void> => {
      state.calls.push(`${host.dryRun ? 'dry ' : ''}${call}`);
      if (!host.dryRun) change();
      return Promise.resolve();
    };
    return {
      live: true,
      moduleLoaded: (m) => Promise.resolve(state.modules.has(m)),
      sysctl: (k) => Promise.resolve(k.startsWith('net.bridge.') && !state.modules.has('br_netfilter') ? undefined : state.sysctls.get(k) ?? (k.startsWith('net.bridge.') ? '0' : undefined)),
      procSwaps: () => Promise.resolve(`Filename\tType\tSize\tUsed\tPriority\n${state.swaps.map((s) => `${s}\tpartition\t1024\t0\t-2\n`).join('')}`),
      containerdMajor: () => Promise.resolve(1),
      modprobe: (m) => act(`modprobe ${m}`, () => state.modules.add(m)),
      setSysctl: (k, v) => act(`sysctl -w ${k}=${v}`, () => state.sysctls.set(k, v)),
      swapoff: () => act('swapoff -a', () => { state.swaps = []; }),
      service: async (action: ServiceAction, unit: string): Promise<ServiceResult> => {
        if (action === 'is-active') return { ok: state.active.has(unit), via: 'fake' };
        await act(`${action} ${unit}`, () => {
          if (action === 'enable') {
            const link = root.at('/etc/systemd/system/multi-user.target.wants/kubelet.service');
            mkdirSync(path.dirname(link), { recursive: true });
            writeFileSync(link, '');
          }
          if (action === 'start' || action === 'restart') state.active.add(unit);
        });
        return { ok: true, via: 'fake' };
      },
      socketReachable: () => Promise.resolve(state.active.has('containerd')),
    };
  };
}

const MODULES = 'overlay\nbr_netfilter\n';
const SYSCTLS = 'net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\nnet.ipv4.ip_forward = 1\n';

let root: TempRoot;
beforeEach(() => {
  root = tempRoot({ '/usr/bin/kubelet': '' });
});
afterEach(() => root.cleanup());

function cfgFor(version = 'v1.20.2', kubelet: Record<string, unknown> = {}): ResolvedInitConfig {
  const base = fixtureInitConfig({ cluster: { kubernetesVersion: version } });
  return { ...base, componentConfigs: { ...base.componentConfigs, kubelet: { ...base.componentConfigs.kubelet, ...kubelet } } };
}

async function run(state: FakeState, o: { flags?: FlagValues; dryRun?: boolean; cfg?: ResolvedInitConfig; only?: string } = {}) {
  const cfg = o.cfg ?? cfgFor();
  const { ctx, reporter } = initCtxFor(cfg, root.dir, { dryRun: o.dryRun ?? false });
  const withFlags: InitCtx = { ...ctx, options: { ...ctx.options, flags: o.flags ?? {} } };
  const tree = [hostPhase<InitCtx>((c) => Promise.resolve(hostPrepInput(c.cfg, c.versions, c.options.flags)), () => true, { system: fake(state, root) })];
  await runPhases(tree, withFlags, { filter: [o.only ?? 'host'], skip: [] });
  return { ctx: withFlags, reporter, tree, changed: ctx.host.writes.filter((w) => !w.unchanged).map((w) => w.path) };
}

const read = (p: string): string => readFileSync(root.at(p), 'utf8');

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
  root.cleanup();
  root = tempRoot({});
  const { ctx: bareCtx } = initCtxFor(cfgFor(), root.dir);
  const sysctlLeaf = [hostPhase<InitCtx>((c) => Promise.resolve(hostPrepInput(c.cfg, c.versions, {})), () => true, { system: fake(other, root) })][0]!.children!.find((l) => l.name === 'sysctl')!;
  const bad = await exitCheckOf('host/sysctl', sysctlLeaf)!(bareCtx);
  expect(bad.filter((f) => !f.ok).map((f) => f.check)).toEqual(expect.arrayContaining(['/etc/sysctl.d/k8s.conf', 'FileContent--proc-sys-net-ipv4-ip_forward']));
});

test('--dry-run: nothing written under the root, the fake system unchanged, every change listed', async () => {
  const state = bare();
  const { ctx } = await run(state, { dryRun: true });
  expect(existsSync(root.at('/etc/sysctl.d/k8s.conf'))).toBe(false);
  expect(state.modules.size).toBe(0);
  expect(state.calls.every((c) => c.startsWith('dry '))).toBe(true);
  expect(ctx.host.writes.map((w) => w.path)).toEqual(expect.arrayContaining(['/etc/modules-load.d/k8s.conf', '/etc/sysctl.d/k8s.conf', '/etc/containerd/conf.d/k8s.toml', '/etc/crictl.yaml']));
});

test('a user\'s own k8s.conf that does the job is kept; one that does not is reported and nothing is written', async () => {
  root.cleanup();
  root = tempRoot({ '/etc/sysctl.d/k8s.conf': 'net.bridge.bridge-nf-call-iptables=1\nnet.bridge.bridge-nf-call-ip6tables=1\nnet.ipv4.ip_forward=1\n# mine\n' });
  await run(bare(), { only: 'host/sysctl' });
  expect(read('/etc/sysctl.d/k8s.conf')).toContain('# mine');

  writeFileSync(root.at('/etc/sysctl.d/k8s.conf'), 'net.ipv4.ip_forward=0\n');
  await expect(run(bare(), { only: 'host/sysctl' })).rejects.toThrow(/\/etc\/sysctl.d\/k8s.conf is not tsadm's and it does not set .*net.ipv4.ip_forward=1/);
  expect(read('/etc/sysctl.d/k8s.conf')).toBe('net.ipv4.ip_forward=0\n');
  // --override-host-settings replaces it.
  await run(bare(), { only: 'host/sysctl', flags: { 'override-host-settings': true } });
  expect(read('/etc/sysctl.d/k8s.conf')).toBe(SYSCTLS);
});

test('another sysctl file that wins at boot is reported; with the override flag the value is set now and the file left alone', async () => {
  root.cleanup();
  root = tempRoot({ '/etc/sysctl.conf': 'net.ipv4.ip_forward = 0\n' });
  const state = bare();
  await expect(run(state, { only: 'host/sysctl' })).rejects.toThrow(/\/etc\/sysctl.conf sets net.ipv4.ip_forward=0, applied after \/etc\/sysctl.d\/k8s.conf/);
  expect(existsSync(root.at('/etc/sysctl.d/k8s.conf'))).toBe(false);
  const { reporter } = await run(state, { only: 'host/sysctl', flags: { 'override-host-settings': true } });
  expect(state.sysctls.get('net.ipv4.ip_forward')).toBe('1');
  expect(read('/etc/sysctl.conf')).toBe('net.ipv4.ip_forward = 0\n');
  expect(reporter.lines().join('\n')).toMatch(/\/etc\/sysctl.conf sets net.ipv4.ip_forward=0 and wins at boot/);
});

test('swap: reported without --swap-off, turned off with it; /etc/fstab is reported, never edited', async () => {
  const fstab = 'UUID=1 / ext4 defaults 0 1\n/swap.img none swap sw 0 0\n';
  root.cleanup();
  root = tempRoot({ '/etc/fstab': fstab });
  const state = bare();
  state.swaps = ['/swap.img'];
  const first = await run(state, { only: 'host/swap' });
  expect(state.calls).toEqual([]);
  expect(first.reporter.lines().join('\n')).toMatch(/pass --swap-off/);
  const second = await run(state, { only: 'host/swap', flags: { 'swap-off': true } });
  expect(state.calls).toEqual(['swapoff -a']);
  expect(second.reporter.lines().join('\n')).toMatch(/\/etc\/fstab turns swap on again at boot \(\/swap.img\)/);
  expect(read('/etc/fstab')).toBe(fstab);
  // failSwapOn: false: swap may stay on.
  const allowed = bare();
  allowed.swaps = ['/swap.img'];
  await run(allowed, { only: 'host/swap', flags: { 'swap-off': true }, cfg: cfgFor('v1.20.2', { failSwapOn: false }) });
  expect(allowed.calls).toEqual([]);
});

test('container-runtime: a running containerd is restarted only with --restart-container-runtime; 1.30 gets systemd and its pause image', async () => {
  const state = bare();
  const cfg = cfgFor('v1.30.0', { cgroupDriver: 'systemd' });
  const first = await run(state, { only: 'host/container-runtime', cfg });
  expect(state.calls).toEqual([]);
  expect(first.reporter.lines().join('\n')).toMatch(/--restart-container-runtime/);
  expect(read('/etc/containerd/conf.d/k8s.toml')).toContain('SystemdCgroup = true');
  expect(read('/etc/containerd/conf.d/k8s.toml')).toContain('sandbox_image = "k8s.gcr.io/pause:3.9"'); // the fixture's repository, 1.30's pause tag
  // Changed again (the image repository), now with the flag: restarted.
  const other = fixtureInitConfig({ cluster: { kubernetesVersion: 'v1.30.0', imageRepository: 'mirror.example/k8s' } });
  await run(state, { only: 'host/container-runtime', cfg: { ...other, componentConfigs: cfg.componentConfigs }, flags: { 'restart-container-runtime': true } });
  expect(state.calls).toEqual(['restart containerd']);
});

test('container-runtime: containerd.io\'s packaged config.toml (CRI disabled) is reported, and replaced only with the override, the original kept', async () => {
  const packaged = '#   Copyright 2018-2022 Docker Inc.\n\ndisabled_plugins = ["cri"]\n';
  root.cleanup();
  root = tempRoot({ '/etc/containerd/config.toml': packaged });
  await expect(run(bare(), { only: 'host/container-runtime' })).rejects.toThrow(/disables the CRI plugin/);
  expect(read('/etc/containerd/config.toml')).toBe(packaged);
  expect(existsSync(root.at('/etc/containerd/conf.d/k8s.toml'))).toBe(false);
  await run(bare(), { only: 'host/container-runtime', flags: { 'override-host-settings': true } });
  expect(read('/etc/containerd/config.toml.tsadm-orig')).toBe(packaged);
  expect(read('/etc/containerd/config.toml')).toContain('imports = ["/etc/containerd/conf.d/*.toml"]');
  // Idempotent afterwards, without the flag.
  const again = await run(bare(), { only: 'host/container-runtime' });
  expect(again.changed).toEqual([]);
});

test('kubelet-service: a packaged unit and drop-in are used as they are; a different drop-in of the user is kept', async () => {
  root.cleanup();
  root = tempRoot({
    '/usr/bin/kubelet': '',
    '/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet\n',
    '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --mine\n',
  });
  const state = bare();
  const { changed, reporter } = await run(state, { only: 'host/kubelet-service' });
  expect(changed).toEqual([]);
  expect(existsSync(root.at('/etc/systemd/system/kubelet.service'))).toBe(false);
  expect(read('/etc/systemd/system/kubelet.service.d/10-kubeadm.conf')).toContain('--mine');
  expect(reporter.lines().join('\n')).toMatch(/Keeping \/etc\/systemd\/system\/kubelet.service.d\/10-kubeadm.conf/);
  expect(state.calls).toEqual(['enable kubelet']);
});

/** Debian bookworm's containerd 1.6.20 package: its config.toml and the md5 dpkg records for it (/var/lib/dpkg/status). */
const DEBIAN_CONFIG = 'version = 2\n\n[plugins]\n  [plugins."io.containerd.grpc.v1.cri"]\n    [plugins."io.containerd.grpc.v1.cri".cni]\n      bin_dir = "/usr/lib/cni"\n      conf_dir = "/etc/cni/net.d"\n  [plugins."io.containerd.internal.v1.opt"]\n    path = "/var/lib/containerd/opt"\n';
const DEBIAN_STATUS = 'Package: containerd\nStatus: install ok installed\nConffiles:\n /etc/containerd/config.toml 773cf1c5a249197a8ef37a08ac168414\nDescription: open and reliable container runtime\n';

test('container-runtime: Debian\'s packaged config.toml, unmodified, gets the import line (kept aside first); the 1.x drop-in carries its CRI section', async () => {
  root.cleanup();
  root = tempRoot({ '/etc/containerd/config.toml': DEBIAN_CONFIG, '/var/lib/dpkg/status': DEBIAN_STATUS });
  const first = await run(bare(), { only: 'host/container-runtime' });
  expect(first.changed.sort()).toEqual(['/etc/containerd/conf.d/k8s.toml', '/etc/containerd/config.toml', '/etc/containerd/config.toml.tsadm-orig']);
  expect(read('/etc/containerd/config.toml.tsadm-orig')).toBe(DEBIAN_CONFIG);
  // Only a line added: everything of the package's file is still there, byte for byte.
  const edited = read('/etc/containerd/config.toml');
  expect(edited.replace(/^# imports: added by tsadm.*\nimports = \["\/etc\/containerd\/conf.d\/\*.toml"\]\n/m, '')).toBe(DEBIAN_CONFIG);
  expect(edited.split('\n').slice(0, 3)).toEqual(['version = 2', expect.stringMatching(/^# imports: added by tsadm/), 'imports = ["/etc/containerd/conf.d/*.toml"]']);
  // containerd 1.x would drop config.toml's CRI section for the drop-in's: the drop-in has both.
  const dropIn = read('/etc/containerd/conf.d/k8s.toml');
  expect(dropIn).toMatch(/bin_dir = "\/usr\/lib\/cni"/);
  expect(dropIn).toMatch(/conf_dir = "\/etc\/cni\/net.d"/);
  expect(dropIn).toMatch(/sandbox_image = "k8s.gcr.io\/pause:3.2"/);
  expect(dropIn).toMatch(/SystemdCgroup = false/);
  expect(first.reporter.lines().join('\n')).toMatch(/it is the package's file, unmodified/);
  const again = await run(bare(), { only: 'host/container-runtime' });
  expect(again.changed).toEqual([]);
});

test('container-runtime: a config.toml of the administrator without the import is reported; the override adds the import and keeps their settings', async () => {
  const mine = `${DEBIAN_CONFIG}    # mine\n`;
  root.cleanup();
  root = tempRoot({ '/etc/containerd/config.toml': mine, '/var/lib/dpkg/status': DEBIAN_STATUS });
  await expect(run(bare(), { only: 'host/container-runtime' })).rejects.toThrow(/does not import \/etc\/containerd\/conf.d\/\*.toml/);
  expect(read('/etc/containerd/config.toml')).toBe(mine);
  expect(existsSync(root.at('/etc/containerd/conf.d/k8s.toml'))).toBe(false);
  await run(bare(), { only: 'host/container-runtime', flags: { 'override-host-settings': true } });
  expect(read('/etc/containerd/config.toml')).toContain('# mine');
  expect(read('/etc/containerd/config.toml')).toContain('imports = ["/etc/containerd/conf.d/*.toml"]');
  expect(read('/etc/containerd/config.toml.tsadm-orig')).toBe(mine);
});

describe('binaries (--bundle)', () => {
  /** Stand-ins that answer the version commands as the real binaries do (the e2e installs the real ones). */
  const script = (out: string): string => `#!/bin/sh\necho '${out}'\n`;
  const kubelet = (v: string): string => script(`Kubernetes ${v}`);
  const kubectl = (v: string): string => script(`{"clientVersion":{"major":"1","minor":"20","gitVersion":"${v}"}}`);
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
  let bundle: TempRoot;
  afterEach(() => bundle.cleanup());

  function makeBundle(files: Record<string, string>, sums: 'file' | 'per-file' | 'none' = 'file'): string {
    bundle = tempRoot({});
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(bundle.at(`/${name}`), text, { mode: 0o755 });
      if (sums === 'per-file') writeFileSync(bundle.at(`/${name}.sha256`), `${sha(text)}  ${name}\n`);
    }
    if (sums === 'file') writeFileSync(bundle.at('/SHA256SUMS'), Object.entries(files).map(([n, t]) => `${sha(t)}  ${n}\n`).join(''));
    return bundle.dir;
  }

  test('verified binaries installed into /usr/bin (0755); a second run writes nothing; without --bundle nothing', async () => {
    const dir = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2'), crictl: script('crictl version v1.20.0') });
    const first = await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
    expect(first.changed.sort()).toEqual(['/usr/bin/crictl', '/usr/bin/kubectl', '/usr/bin/kubelet']);
    expect(read('/usr/bin/kubelet')).toBe(kubelet('v1.20.2'));
    expect(statSync(root.at('/usr/bin/kubectl')).mode & 0o777).toBe(0o755);
    expect((await run(bare(), { only: 'host/binaries', flags: { bundle: dir } })).changed).toEqual([]);
    expect((await run(bare(), { only: 'host/binaries' })).changed).toEqual([]);
  });

  test('per-file .sha256 digests; crictl optional', async () => {
    const dir = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.21.0') }, 'per-file');
    const r = await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
    expect(r.changed.sort()).toEqual(['/usr/bin/kubectl', '/usr/bin/kubelet']);
  });

  test('refused before anything is written: a damaged binary, a binary without a digest, a kubelet newer than the cluster, no kubectl', async () => {
    const before = read('/usr/bin/kubelet');
    const damaged = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2') });
    writeFileSync(path.join(damaged, 'kubectl'), kubectl('v1.20.3'));
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: damaged } })).rejects.toThrow(/kubectl does not match its listed digest/);
    bundle.cleanup();
    const unlisted = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2') }, 'none');
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: unlisted } })).rejects.toThrow(/lists no SHA-256 digest for kubelet/);
    bundle.cleanup();
    const newer = makeBundle({ kubelet: kubelet('v1.21.0'), kubectl: kubectl('v1.20.2') });
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: newer } })).rejects.toThrow(/kubelet v1.21.0 is newer than the cluster's v1.20.2/);
    bundle.cleanup();
    const noKubectl = makeBundle({ kubelet: kubelet('v1.20.2') });
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: noKubectl } })).rejects.toThrow(/has no kubectl/);
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: noKubectl } })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID' });
    expect(read('/usr/bin/kubelet')).toBe(before);
    expect(existsSync(root.at('/usr/bin/kubectl'))).toBe(false);
  });

  test('issue 27: a dry run executes nothing from the bundle, and says the versions were not checked', async () => {
    const marker = path.join(root.dir, '..', `${path.basename(root.dir)}-ran`);
    // Binaries that leave a marker when run (and would answer a version check).
    const ran = (out: string): string => `#!/bin/sh
touch '${marker}'
echo '${out}'
`;
    const dir = makeBundle({ kubelet: ran('Kubernetes v1.20.2'), kubectl: ran('{"clientVersion":{"gitVersion":"v1.20.2"}}') });
    const { reporter } = await run(bare(), { only: 'host/binaries', flags: { bundle: dir }, dryRun: true });
    expect(existsSync(marker)).toBe(false);
    expect(reporter.lines().join('\n')).toContain("dry run: the versions of the bundle's binaries (kubelet, kubectl) were not checked: a dry run executes nothing from the bundle");
    expect(reporter.lines().join('\n')).toContain('Installing /usr/bin/kubelet (version not checked: dry run, sha256 verified)');
    expect(read('/usr/bin/kubelet')).toBe('');
  });

  test('issue 27: a real run executes a private copy of exactly the verified bytes, never the bundle\'s path, and removes it', async () => {
    const seen = path.join(root.dir, '..', `${path.basename(root.dir)}-argv0`);
    // Each binary records the path it was started from: the bundle's own path could be swapped after the digest check.
    const reporting = (out: string): string => `#!/bin/sh
echo "$0" >> '${seen}'
echo '${out}'
`;
    const dir = makeBundle({ kubelet: reporting('Kubernetes v1.20.2'), kubectl: reporting('{"clientVersion":{"gitVersion":"v1.20.2"}}') });
    try {
      await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
      const started = readFileSync(seen, 'utf8').trim().split('\n');
      expect(started).toHaveLength(2);
      for (const p of started) {
        expect(p.startsWith(dir)).toBe(false);
        expect(path.basename(path.dirname(p))).toMatch(/^tsadm-bundle-/);
        expect(existsSync(path.dirname(p))).toBe(false);
      }
      expect(read('/usr/bin/kubelet')).toBe(reporting('Kubernetes v1.20.2'));
    } finally {
      rmSync(seen, { force: true });
    }
  });
});
