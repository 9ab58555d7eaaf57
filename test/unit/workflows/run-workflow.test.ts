/**
 * The skeleton init, join and reset share (src/workflows/run-workflow.ts): the configuration's
 * v1beta4 `dryRun: true` chooses the dry-run seams exactly as --dry-run does, a configuration
 * error still ends in a result event, and the API seam is closed however the run ends.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { captureIo, runCli } from '../../helpers/cli.js';
import { main } from '../../../src/main.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { runWorkflow } from '../../../src/workflows/run-workflow.js';
import type { BaseCtx } from '../../../src/run/context.js';
import type { Runtime } from '../../../src/run/runtime.js';
import { listTree } from '../../helpers/pki-test-utils.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
function newDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  roots.push(dir);
  return dir;
}

function resultOf(jsonLines: string): { ok: boolean; command: string; data?: Record<string, unknown>; error?: { code: string } } {
  const events = jsonLines.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
  return events.filter((e) => e.type === 'result').pop() as never;
}

describe('runWorkflow', () => {
  async function run(dryRunOf: boolean, failWith?: Error): Promise<{ rt: Runtime; closed: boolean; out: string; error?: unknown }> {
    const { io, out } = captureIo();
    let seen: Runtime | undefined;
    let closed = false;
    const error = await runWorkflow<{ dryRun: boolean }, BaseCtx>({
      command: 'test',
      runtime: {},
      resolveConfig: () => Promise.resolve({ dryRun: dryRunOf }),
      dryRunOf: (cfg) => cfg.dryRun,
      buildContext: (rt) => {
        seen = rt;
        const close = rt.api.close.bind(rt.api);
        (rt.api as { close: () => void }).close = () => { closed = true; close(); };
        return Promise.resolve({ host: rt.host, api: rt.api, log: rt.log, dryRun: rt.dryRun, system: rt.system, clock: () => new Date(), startTime: rt.startTime });
      },
      run: (_ctx, rt) => (failWith ? Promise.reject(failWith) : Promise.resolve({ dryRun: rt.dryRun })),
    }, { rootfs: newDir('tsadm-rw-'), output: 'json' }, { io }).then(() => undefined, (e: unknown) => e);
    return { rt: seen!, closed, out: out(), ...(error !== undefined ? { error } : {}) };
  }

  test('the configuration\'s dryRun chooses the dry-run host and API seam', async () => {
    const dry = await run(true);
    expect(dry.rt.dryRun).toBe(true);
    expect(dry.rt.host).toBeInstanceOf(DryRunHost);
    expect(dry.rt.api.dryRun).toBe(true);
    expect(resultOf(dry.out)).toMatchObject({ command: 'test', ok: true, data: { dryRun: true } });
    const real = await run(false);
    expect(real.rt.dryRun).toBe(false);
    expect(real.rt.host).not.toBeInstanceOf(DryRunHost);
    expect(real.rt.api.dryRun).toBe(false);
  });

  test('the API seam is closed and the error is the result event when the phases fail', async () => {
    const failed = await run(false, Object.assign(new Error('boom'), { code: 'E_PRECONDITION' }));
    expect(failed.error).toBeInstanceOf(Error);
    expect(failed.closed).toBe(true);
    expect(resultOf(failed.out)).toMatchObject({ command: 'test', ok: false, error: { code: 'E_PRECONDITION', message: 'boom' } });
    expect((await run(false)).closed).toBe(true);
  });

  test('a configuration that does not resolve still ends in a result event', async () => {
    const root = newDir('tsadm-rw-');
    const r = await runCli(['init', 'phase', 'certs', 'ca', '--config', path.join(root, 'missing.yaml'), '--rootfs', root, '-o', 'json']);
    expect(r.code).not.toBe(0);
    expect(resultOf(r.stdout)).toMatchObject({ command: 'init', ok: false, error: { code: 'E_CONFIG_INVALID' } });
  });
});

describe('dryRun: true in a v1beta4 configuration file', () => {
  const INIT = (dryRun: boolean) => [
    'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: InitConfiguration', `dryRun: ${dryRun}`,
    'nodeRegistration:', '  name: cp1', '  criSocket: unix:///run/containerd/containerd.sock',
    'localAPIEndpoint:', '  advertiseAddress: 192.168.10.11', '---',
    'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.31.0', '',
  ].join('\n');

  test('init phase certs ca writes nothing under --rootfs (and writes ca.crt/ca.key without it)', async () => {
    const dir = newDir('tsadm-cfg-');
    const dryConfig = path.join(dir, 'dry.yaml');
    const realConfig = path.join(dir, 'real.yaml');
    writeFileSync(dryConfig, INIT(true));
    writeFileSync(realConfig, INIT(false));

    const dryRoot = newDir('tsadm-root-');
    const dry = await runCli(['init', 'phase', 'certs', 'ca', '--config', dryConfig, '--rootfs', dryRoot]);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(readdirSync(dryRoot)).toEqual([]);
    expect(dry.stdout).toContain('[dryrun] The following files would be written:');
    expect(dry.stdout).toContain('/etc/kubernetes/pki/ca.crt');

    // The same command without dryRun writes the CA: the assertion above can fail.
    const realRoot = newDir('tsadm-root-');
    const real = await runCli(['init', 'phase', 'certs', 'ca', '--config', realConfig, '--rootfs', realRoot]);
    expect(real.code).toBe(0);
    expect(readFileSync(path.join(realRoot, 'etc/kubernetes/pki/ca.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');
    expect(readFileSync(path.join(realRoot, 'etc/kubernetes/pki/ca.key'), 'utf8')).toContain('PRIVATE KEY');
  });

  test('reset (force: true) changes no file and stops no service', async () => {
    const root = newDir('tsadm-root-');
    for (const p of ['etc/kubernetes/admin.conf', 'etc/kubernetes/pki/ca.crt', 'var/lib/kubelet/config.yaml', 'etc/kubernetes/manifests/kube-apiserver.yaml']) {
      mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      writeFileSync(path.join(root, p), 'x');
    }
    const config = path.join(newDir('tsadm-cfg-'), 'reset.yaml');
    writeFileSync(config, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ndryRun: true\n');
    const before = listTree(root);
    // A service manager that records what it was asked to do: a dry run asks nothing.
    const sm = newDir('tsadm-sm-');
    const calls = path.join(sm, 'calls');
    writeFileSync(path.join(sm, 'sm'), `#!/bin/sh\necho "$@" >> ${calls}\nexit 0\n`, { mode: 0o755 });
    const saved = process.env.TSADM_SERVICE_MANAGER;
    process.env.TSADM_SERVICE_MANAGER = path.join(sm, 'sm');
    try {
      const { io, out, err } = captureIo();
      const code = await main(['reset', '--config', config, '--rootfs', root], io);
      expect(err()).not.toContain('error:');
      expect(code).toBe(0);
      expect(listTree(root)).toEqual(before);
      expect(out()).toContain('[dryrun] Would run: remove /etc/kubernetes/admin.conf');
      expect(out()).toContain('[dryrun] Would run: stop kubelet');
      expect(readdirSync(sm)).toEqual(['sm']);
    } finally {
      if (saved === undefined) delete process.env.TSADM_SERVICE_MANAGER;
      else process.env.TSADM_SERVICE_MANAGER = saved;
    }
  });
});
