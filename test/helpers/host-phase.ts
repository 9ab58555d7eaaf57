/**
 * The host phase group's test machine: a --rootfs temp tree and a fake running system whose state
 * (modules, sysctls, swap, services) lives in memory, never the real machine; its probe (the
 * SystemProbe preflight's checks read) answers from the same state, so the host phases' exit
 * checks and preflight see one machine. Shared by test/unit/phases/host/<leaf>.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedInitConfig } from '../../src/config/types.js';
import type { FlagValues } from '../../src/flags.js';
import { runPhases } from '../../src/engine/runner.js';
import type { Host, ServiceAction, ServiceResult } from '../../src/host/host.js';
import type { RunningSystem } from '../../src/host/running-system.js';
import type { ServiceFacts, SystemProbe } from '../../src/host/system-probe.js';
import { hostPrepInput } from '../../src/phases/host/input.js';
import { hostPhase } from '../../src/phases/host/phase.js';
import type { InitCtx } from '../../src/run/context.js';
import { fixtureInitConfig } from './config-fixture.js';
import { initCtxFor } from './phase-ctx.js';
import { tempRoot, type TempRoot } from './temp-root.js';

export interface FakeState {
  modules: Set<string>;
  sysctls: Map<string, string>;
  swaps: string[];
  active: Set<string>;
  calls: string[];
  /** Whether an init system answers (kubeadm's initsystem); true by default. */
  initSystem?: boolean;
  /** The init system's word on whether the kubelet is enabled; by default, whether systemd's wants link exists. */
  kubeletEnabled?: boolean;
}

export const bare = (): FakeState => ({
  modules: new Set(),
  sysctls: new Map([['net.ipv4.ip_forward', '0']]),
  swaps: [],
  active: new Set(['containerd']),
  calls: [],
});

/** Where the fake looks for programs (under the root), as PATH would list them. */
const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
const KUBELET_WANTS_LINK = '/etc/systemd/system/multi-user.target.wants/kubelet.service';

/** The machine's probe on the fake state: /proc/sys, /proc/swaps, PATH (under the root), the CRI socket, the init system. */
export function fakeProbe(state: FakeState, root: TempRoot): SystemProbe {
  const sysctl = (k: string): string | undefined =>
    k.startsWith('net.bridge.') && !state.modules.has('br_netfilter') ? undefined : state.sysctls.get(k) ?? (k.startsWith('net.bridge.') ? '0' : undefined);
  const partial: Partial<SystemProbe> = {
    readProc: (p) => {
      if (p === '/proc/swaps') return Promise.resolve(`Filename\tType\tSize\tUsed\tPriority\n${state.swaps.map((s) => `${s}\tpartition\t1024\t0\t-2\n`).join('')}`);
      if (p.startsWith('/proc/sys/')) {
        const v = sysctl(p.slice('/proc/sys/'.length).replace(/\//g, '.'));
        return Promise.resolve(v === undefined ? undefined : `${v}\n`);
      }
      return Promise.resolve(undefined);
    },
    which: (program) => Promise.resolve(PATH_DIRS.map((d) => `${d}/${program}`).find((p) => existsSync(root.at(p)))),
    socketReachable: () => Promise.resolve(state.active.has('containerd')),
    service: (unit): Promise<ServiceFacts | { error: string }> => {
      if (state.initSystem === false) return Promise.resolve({ error: 'no supported init system detected, skipping checking for services' });
      const exists = unit === 'kubelet' ? existsSync(root.at('/etc/systemd/system/kubelet.service')) || existsSync(root.at('/lib/systemd/system/kubelet.service')) : state.active.has(unit);
      const enabled = unit === 'kubelet' ? state.kubeletEnabled ?? existsSync(root.at(KUBELET_WANTS_LINK)) : state.active.has(unit);
      return Promise.resolve({ exists, enabled, active: state.active.has(unit), enableCommand: `systemctl enable ${unit}.service` });
    },
  };
  return partial as SystemProbe;
}

/** A running system that keeps its state in memory; changes only when the host is not a dry run. */
export function fake(state: FakeState, root: TempRoot): (host: Host) => RunningSystem {
  return (host) => {
    const probe = fakeProbe(state, root);
    const act = (call: string, change: () => void): Promise<void> => {
      state.calls.push(`${host.dryRun ? 'dry ' : ''}${call}`);
      if (!host.dryRun) change();
      return Promise.resolve();
    };
    return {
      live: true,
      probe,
      moduleLoaded: (m) => Promise.resolve(state.modules.has(m)),
      sysctl: async (k) => (await probe.readProc(`/proc/sys/${k.replace(/\./g, '/')}`))?.trim(),
      procSwaps: async () => (await probe.readProc('/proc/swaps')) ?? '',
      containerdMajor: () => Promise.resolve(1),
      modprobe: (m) => act(`modprobe ${m}`, () => state.modules.add(m)),
      setSysctl: (k, v) => act(`sysctl -w ${k}=${v}`, () => state.sysctls.set(k, v)),
      swapoff: () => act('swapoff -a', () => { state.swaps = []; }),
      service: async (action: ServiceAction, unit: string): Promise<ServiceResult> => {
        if (action === 'is-active') return { ok: state.active.has(unit), via: 'fake' };
        await act(`${action} ${unit}`, () => {
          if (action === 'enable') {
            const link = root.at(KUBELET_WANTS_LINK);
            mkdirSync(path.dirname(link), { recursive: true });
            writeFileSync(link, '');
          }
          if (action === 'start' || action === 'restart') state.active.add(unit);
        });
        return { ok: true, via: 'fake' };
      },
    };
  };
}

export const MODULES = 'overlay\nbr_netfilter\n';
export const SYSCTLS = 'net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\nnet.ipv4.ip_forward = 1\n';

export function cfgFor(version = 'v1.20.2', kubelet: Record<string, unknown> = {}): ResolvedInitConfig {
  const base = fixtureInitConfig({ cluster: { kubernetesVersion: version } });
  return { ...base, componentConfigs: { ...base.componentConfigs, kubelet: { ...base.componentConfigs.kubelet, ...kubelet } } };
}

/** Runs init's host group (or one leaf, `only`) on ROOT with the fake running system of STATE. */
async function runHost(root: TempRoot, state: FakeState, o: { flags?: FlagValues; dryRun?: boolean; cfg?: ResolvedInitConfig; only?: string } = {}) {
  const cfg = o.cfg ?? cfgFor();
  // The context's probe answers from the same state as the fake running system: one machine.
  const { ctx, reporter } = initCtxFor(cfg, root.dir, { dryRun: o.dryRun ?? false, system: fakeProbe(state, root) });
  const withFlags: InitCtx = { ...ctx, options: { ...ctx.options, flags: o.flags ?? {} } };
  const tree = [hostPhase<InitCtx>('init', (c) => Promise.resolve(hostPrepInput(c.cfg, c.versions, c.options.flags)), () => true, { system: fake(state, root) })];
  await runPhases(tree, withFlags, { filter: [o.only ?? 'host'], skip: [] });
  return { ctx: withFlags, reporter, tree, changed: ctx.host.writes.filter((w) => !w.unchanged).map((w) => w.path) };
}

/** A file under the root, as text. */
function readUnder(root: TempRoot, p: string): string {
  return readFileSync(root.at(p), 'utf8');
}

/** A host-phase test file's temp root: a fresh one for every test, and the phase runner and reader on it. */
export interface HostPhaseRoot {
  /** The current test's root. */
  readonly root: TempRoot;
  /** Replaces the current test's root by one holding `files` (removed after the test as usual). */
  reset(files: Parameters<typeof tempRoot>[0]): TempRoot;
  /** Runs the host phase (or `only` one leaf) on the current root with a fake running system. */
  readonly run: (state: FakeState, o?: Parameters<typeof runHost>[2]) => ReturnType<typeof runHost>;
  /** A file under the current root, as text. */
  readonly read: (p: string) => string;
}

/**
 * Registers beforeEach/afterEach hooks giving every test a fresh root holding `files` (by default
 * an installed kubelet, as the host phase expects) and removing it afterwards.
 */
export function hostPhaseRootEachTest(files: Parameters<typeof tempRoot>[0] = { '/usr/bin/kubelet': '' }): HostPhaseRoot {
  let current: TempRoot | undefined;
  const root = (): TempRoot => {
    if (!current) throw new Error('hostPhaseRootEachTest: no root outside a test');
    return current;
  };
  beforeEach(() => {
    current = tempRoot(files);
  });
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  return {
    get root() {
      return root();
    },
    reset(next) {
      root().cleanup();
      const fresh = tempRoot(next);
      current = fresh;
      return fresh;
    },
    run: (state, o = {}) => runHost(root(), state, o),
    read: (p) => readUnder(root(), p),
  };
}
