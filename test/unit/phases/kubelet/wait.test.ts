import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isTsadmError, type TsadmError } from '../../../../src/errors.js';
import { httpHealthCheck, type HealthCheck } from '../../../../src/health/http-check.js';
import { controlPlaneHealthTargets, kubeletHealthTarget, waitControlPlaneTargets } from '../../../../src/phases/kubelet/targets.js';
import { makeWaitControlPlanePhase, makeWaitForKubeletPhase } from '../../../../src/phases/kubelet/wait.js';
import { waitForHealthy } from '../../../../src/health/wait-loop.js';
import { runPhases } from '../../../../src/engine/runner.js';
import { DEFAULT_PATCH } from '../../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';

/** A check that fails `failures` times per URL, then succeeds. */
function flaky(failures: Record<string, number>): HealthCheck & { calls: string[] } {
  const calls: string[] = [];
  const check: HealthCheck = (url) => {
    calls.push(url);
    const left = failures[url] ?? 0;
    failures[url] = left - 1;
    return Promise.resolve(left > 0 ? { ok: false, detail: 'ECONNREFUSED' } : { ok: true, detail: 'ok' });
  };
  return Object.assign(check, { calls });
}

function withTimeouts(ms: number): ResolvedInitConfig {
  const base = fixtureInitConfig();
  return { ...base, init: { ...base.init, timeouts: { ...base.init.timeouts, controlPlaneComponentHealthCheckMs: ms, kubeletHealthCheckMs: ms } } };
}

describe('health targets', () => {
  test('kubelet healthz, apiserver /livez at the advertise address, KCM and scheduler on the loopback', () => {
    const cfg = fixtureInitConfig();
    expect(kubeletHealthTarget(cfg).url).toBe('http://127.0.0.1:10248/healthz');
    expect(controlPlaneHealthTargets(cfg, VERSION_TABLE['1.20']).map((t) => t.url)).toEqual([
      'https://192.168.10.11:6443/livez', 'https://127.0.0.1:10257/healthz', 'https://127.0.0.1:10259/healthz',
    ]);
    expect(controlPlaneHealthTargets(cfg, VERSION_TABLE['1.32'])[2]?.url).toBe('https://127.0.0.1:10259/livez');
  });

  test('IPv6 advertise address is bracketed; bind-all addresses are reached through the loopback', () => {
    const base = fixtureInitConfig();
    const cfg = {
      ...base,
      init: { ...base.init, localAPIEndpoint: { advertiseAddress: 'fd00::11', bindPort: 6443 } },
      cluster: { ...base.cluster, scheduler: { ...base.cluster.scheduler, extraArgs: [{ name: 'bind-address', value: '::' }, { name: 'secure-port', value: '10300' }] } },
      componentConfigs: { ...base.componentConfigs, kubelet: { healthzBindAddress: '0.0.0.0', healthzPort: 10249 } },
    };
    expect(controlPlaneHealthTargets(cfg, VERSION_TABLE['1.34']).map((t) => t.url)).toEqual([
      'https://[fd00::11]:6443/livez', 'https://127.0.0.1:10257/healthz', 'https://[::1]:10300/livez',
    ]);
    expect(kubeletHealthTarget(cfg).url).toBe('http://127.0.0.1:10249/healthz');
  });
});

describe('waitForHealthy', () => {
  test('polls every target concurrently with backoff until each answers', async () => {
    const check = flaky({ a: 2, b: 0 });
    const healthy: string[] = [];
    const r = await waitForHealthy([{ component: 'A', url: 'a' }, { component: 'B', url: 'b' }], {
      timeoutMs: 5_000, check, initialIntervalMs: 5, onHealthy: (s) => healthy.push(s.target.component),
    });
    expect(r.ok).toBe(true);
    expect(healthy).toEqual(['B', 'A']);
    expect(r.states.map((s) => s.attempts)).toEqual([3, 1]);
  });

  test('times out with the last error of each target still pending, and reports progress meanwhile', async () => {
    const progress: string[][] = [];
    const started = Date.now();
    const r = await waitForHealthy([{ component: 'A', url: 'a' }, { component: 'B', url: 'b' }], {
      timeoutMs: 150, check: flaky({ a: 1e9 }), initialIntervalMs: 5, maxIntervalMs: 20, progressEveryMs: 40,
      onProgress: (pending) => progress.push(pending.map((s) => s.target.component)),
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(r.ok).toBe(false);
    expect(r.states.find((s) => s.target.component === 'A')).toMatchObject({ lastDetail: 'ECONNREFUSED' });
    expect(r.states.find((s) => s.target.component === 'B')?.healthyAfterMs).toBeDefined();
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.join() === 'A')).toBe(true);
  });
});

describe('httpHealthCheck', () => {
  let dir: string;
  let plain: http.Server;
  let secure: https.Server;
  let plainUrl: string;
  let secureUrl: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=self-signed'], { stdio: 'ignore' });
    const handler: http.RequestListener = (req, res) => {
      res.statusCode = req.url === '/healthz' || req.url === '/livez' ? 200 : 500;
      res.end(res.statusCode === 200 ? 'ok' : 'no');
    };
    plain = http.createServer(handler);
    secure = https.createServer({ key: readFileSync(path.join(dir, 'k.pem')), cert: readFileSync(path.join(dir, 'c.pem')) }, handler);
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => plain.close(r));
    await new Promise((r) => secure.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  test('200 is healthy, over http and over https with a self-signed certificate', async () => {
    const signal = new AbortController().signal;
    expect(await httpHealthCheck(`${plainUrl}/healthz`, signal)).toEqual({ ok: true, detail: 'ok' });
    expect(await httpHealthCheck(`${secureUrl}/livez`, signal)).toEqual({ ok: true, detail: 'ok' });
    expect(await httpHealthCheck(`${secureUrl}/readyz`, signal)).toEqual({ ok: false, detail: 'HTTP 500 Internal Server Error' });
  });

  test('a closed port is reported by its error code', async () => {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    expect(await httpHealthCheck(`http://127.0.0.1:${port}/healthz`, new AbortController().signal)).toEqual({ ok: false, detail: 'ECONNREFUSED' });
  });

  test('wait-control-plane against real local servers', async () => {
    const phase = makeWaitControlPlanePhase({
      targets: () => [{ component: 'kubelet', url: `${plainUrl}/healthz` }, { component: 'kube-apiserver', url: `${secureUrl}/livez` }],
    });
    const { ctx, reporter } = initCtxFor(withTimeouts(5_000), '/');
    await runPhases([phase], ctx, { filter: [], skip: [] });
    const lines = reporter.events.flatMap((e) => (e.type === 'log' && e.verbosity === 0 ? [`[${e.prefix ?? e.phase}] ${e.message}`] : []));
    expect(lines[0]).toBe('[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests". This can take up to 5s');
    expect(lines.filter((l) => l.includes('is healthy after'))).toHaveLength(2);
    expect(lines[lines.length - 1]).toMatch(/^\[apiclient\] All control plane components are healthy after \d+\.\d{6} seconds$/);
  });
});

describe('what wait-control-plane waits for (WaitForAllControlPlaneComponents)', () => {
  const cfgWith = (gates: Record<string, boolean>): ResolvedInitConfig => {
    const base = fixtureInitConfig();
    return { ...base, cluster: { ...base.cluster, featureGates: gates } };
  };
  const components = (cfg: ResolvedInitConfig, minor: keyof typeof VERSION_TABLE): string[] => waitControlPlaneTargets(cfg, VERSION_TABLE[minor]).map((t) => t.component);
  const ALL = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

  test('before the gate (1.20, 1.29) and while it is off by default (1.30-1.32): the kube-apiserver only', () => {
    for (const minor of ['1.20', '1.29', '1.30', '1.32'] as const) expect([minor, components(cfgWith({}), minor)]).toEqual([minor, ['kube-apiserver']]);
  });
  test('the gate set where it exists (1.30 alpha) turns on every component; where it does not exist (1.29) it changes nothing', () => {
    expect(components(cfgWith({ WaitForAllControlPlaneComponents: true }), '1.30')).toEqual(ALL);
    expect(components(cfgWith({ WaitForAllControlPlaneComponents: true }), '1.29')).toEqual(['kube-apiserver']);
  });
  test('on by default from 1.33 (beta), turned off by the gate there; GA in 1.34', () => {
    expect(components(cfgWith({}), '1.33')).toEqual(ALL);
    expect(components(cfgWith({ WaitForAllControlPlaneComponents: false }), '1.33')).toEqual(['kube-apiserver']);
    expect(components(cfgWith({}), '1.34')).toEqual(ALL);
  });
});

describe('wait phases', () => {
  test('wait-control-plane: E_TIMEOUT naming what is not ready, with the kubelet state and container hints', async () => {
    const check = flaky({ 'https://192.168.10.11:6443/livez': 1e9 });
    const phase = makeWaitControlPlanePhase({ check, initialIntervalMs: 5 });
    // Every component is waited for: WaitForAllControlPlaneComponents set at 1.31 (alpha there).
    const base = withTimeouts(100);
    const cfg = { ...base, cluster: { ...base.cluster, featureGates: { WaitForAllControlPlaneComponents: true } } };
    const { ctx: ctx0 } = initCtxFor(cfg, '/');
    const ctx = { ...ctx0, versions: VERSION_TABLE['1.31'] };
    const err = await runPhases([phase], ctx, { filter: [], skip: [] }).then(() => undefined, (e: unknown) => e);
    expect(isTsadmError(err)).toBe(true);
    const e = err as TsadmError;
    expect(e.code).toBe('E_TIMEOUT');
    expect(e.message).toBe('error execution phase wait-control-plane: the control plane did not become healthy within 100ms: kube-apiserver not ready');
    expect(e.details[0]).toMatch(/^kube-apiserver at https:\/\/192\.168\.10\.11:6443\/livez: ECONNREFUSED \(\d+ checks\)$/);
    expect(e.details[1]).toMatch(/^kubelet service: /);
    expect(e.hint).toContain('crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -a | grep kube | grep -v pause');
    expect(new Set(check.calls)).toEqual(new Set([
      'http://127.0.0.1:10248/healthz', 'https://192.168.10.11:6443/livez', 'https://127.0.0.1:10257/healthz', 'https://127.0.0.1:10259/healthz',
    ]));
  });

  test('wait-for-kubelet: only the kubelet, kubeadm\'s lines', async () => {
    const check = flaky({ 'http://127.0.0.1:10248/healthz': 1 });
    const { ctx, reporter } = initCtxFor(withTimeouts(5_000), '/');
    await runPhases([makeWaitForKubeletPhase({ check, initialIntervalMs: 5 })], ctx, { filter: [], skip: [] });
    expect(new Set(check.calls)).toEqual(new Set(['http://127.0.0.1:10248/healthz']));
    const lines = reporter.events.flatMap((e) => (e.type === 'log' ? [`[${e.prefix}] ${e.message}`] : []));
    expect(lines[0]).toBe('[kubelet-check] Waiting for a healthy kubelet at http://127.0.0.1:10248/healthz. This can take up to 5s');
    expect(lines[1]).toMatch(/^\[kubelet-check\] The kubelet is healthy after [\d.]+(ms|s)$/);
  });

  test('dry run: both waits are skipped with a reason', async () => {
    const check = flaky({});
    const { ctx, reporter } = initCtxFor({ ...withTimeouts(100), cluster: { ...fixtureInitConfig().cluster, kubernetesVersion: DEFAULT_PATCH['1.34'] } }, '/', { dryRun: true });
    await runPhases([makeWaitForKubeletPhase({ check }), makeWaitControlPlanePhase({ check })], ctx, { filter: [], skip: [] });
    expect(check.calls).toEqual([]);
    expect(reporter.events.filter((e) => e.type === 'phase-finish').map((e) => (e.type === 'phase-finish' ? e.status : ''))).toEqual(['skipped', 'skipped']);
  });
});
