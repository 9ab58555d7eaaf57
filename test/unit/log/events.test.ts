/**
 * The --output json stream (docs/events.md): every stdout line is one JSON event of a known type
 * with its required fields; phases open and close in order with durations; every file written is
 * an event with its sha256 matching the file; the stream ends with one result — for a full
 * dry-run init, with the join commands.
 */
import { expect } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TsadmEvent } from '../../../src/log/events.js';
import { LOCAL_INIT, events, runCli } from '../../helpers/run-cli.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'tsadm-events-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const REQUIRED: Record<TsadmEvent['type'], string[]> = {
  plan: ['phases'],
  'phase-start': ['phase'],
  'phase-finish': ['phase', 'durationMs', 'status'],
  log: ['level', 'verbosity', 'message'],
  file: ['path', 'mode', 'kind', 'sha256', 'unchanged', 'dryRun'],
  object: ['action', 'kind', 'name'],
  output: ['text'],
  result: ['command', 'ok'],
};

/** Schema and sequence rules every stream obeys. */
function checkStream(evs: TsadmEvent[]): void {
  for (const e of evs) {
    expect(Object.keys(REQUIRED)).toContain(e.type);
    expect(e.ts).toMatch(ISO);
    for (const f of REQUIRED[e.type]) expect([e.type, f, f in e]).toEqual([e.type, f, true]);
  }
  // Logs may come first (e.g. "Using Kubernetes version"); the plan comes before any phase.
  expect(evs.find((e) => e.type !== 'log')?.type).toBe('plan');
  expect(evs.filter((e) => e.type === 'result')).toHaveLength(1);
  expect(evs.at(-1)?.type).toBe('result');
  // Phases never overlap: a start is followed by its own finish before the next start.
  let open: string | undefined;
  for (const e of evs) {
    if (e.type === 'phase-start') {
      expect(open).toBeUndefined();
      open = e.phase;
    } else if (e.type === 'phase-finish' && e.status !== 'skipped') {
      expect(e.phase).toBe(open);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
      open = undefined;
    } else if ((e.type === 'file' || e.type === 'object') && e.phase !== undefined) {
      expect(e.phase).toBe(open);
    }
  }
  expect(open).toBeUndefined();
}

test('init phase certs all: plan, then start / files / finish for each certificate, then the result', async () => {
  const root = tmp();
  const r = await runCli(['init', 'phase', 'certs', 'all', '--rootfs', root, '-o', 'json']);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  const evs = events(r.stdout);
  checkStream(evs);
  const plan = evs[0] as Extract<TsadmEvent, { type: 'plan' }>;
  expect(plan.phases).toEqual([
    'certs/ca', 'certs/apiserver', 'certs/apiserver-kubelet-client', 'certs/front-proxy-ca', 'certs/front-proxy-client',
    'certs/etcd-ca', 'certs/etcd-server', 'certs/etcd-peer', 'certs/etcd-healthcheck-client', 'certs/apiserver-etcd-client', 'certs/sa',
  ]);
  const shape = evs.filter((e) => e.type !== 'log').map((e) => (e.type === 'file' ? `file ${path.basename(e.path)}` : e.type === 'phase-start' || e.type === 'phase-finish' ? `${e.type} ${e.phase}` : e.type));
  expect(shape.slice(0, 5)).toEqual(['plan', 'phase-start certs/ca', 'file ca.key', 'file ca.crt', 'phase-finish certs/ca']);
  expect(shape.slice(-5)).toEqual(['phase-start certs/sa', 'file sa.key', 'file sa.pub', 'phase-finish certs/sa', 'result']);
  for (const e of evs) {
    if (e.type !== 'file') continue;
    expect(e).toMatchObject({ dryRun: false, unchanged: false });
    expect(createHash('sha256').update(readFileSync(path.join(root, e.path))).digest('hex')).toBe(e.sha256);
  }
  expect(evs.at(-1)).toMatchObject({ type: 'result', command: 'init', ok: true, data: { dryRun: false } });

  // Run again: the same files, reported unchanged.
  const again = events((await runCli(['init', 'phase', 'certs', 'all', '--rootfs', root, '-o', 'json'])).stdout);
  checkStream(again);
  expect(again.filter((e) => e.type === 'file').every((e) => e.type === 'file' && e.unchanged)).toBe(true);
}, 60_000);

test('a full dry-run init: every phase, files, objects, warnings on the stream, and the join commands in the result', async () => {
  const r = await runCli(['init', '--dry-run', '--rootfs', tmp(), ...LOCAL_INIT, '--ignore-preflight-errors', 'all', '-o', 'json']);
  expect(r.code).toBe(0);
  const evs = events(r.stdout);
  checkStream(evs);
  const finished = new Map(evs.flatMap((e) => (e.type === 'phase-finish' ? [[e.phase, e.status]] : [])));
  for (const p of (evs.find((e) => e.type === 'plan') as Extract<TsadmEvent, { type: 'plan' }>).phases) expect([p, finished.has(p)]).toEqual([p, true]);
  expect(finished.get('wait-control-plane')).toBe('skipped');
  expect(evs.filter((e) => e.type === 'file').every((e) => e.type === 'file' && e.dryRun)).toBe(true);
  const objects = evs.filter((e): e is Extract<TsadmEvent, { type: 'object' }> => e.type === 'object');
  expect(objects.map((o) => `${o.action} ${o.kind} ${o.namespace ?? ''}/${o.name}`)).toEqual(expect.arrayContaining([
    'would-create ConfigMap kube-system/kubeadm-config', 'would-update Node /n1', 'would-create DaemonSet kube-system/kube-proxy',
  ]));
  expect(evs.some((e) => e.type === 'log' && e.level === 'warn')).toBe(true); // ignored preflight errors surface as warnings
  const result = evs.at(-1) as Extract<TsadmEvent, { type: 'result' }>;
  expect(result).toMatchObject({ command: 'init', ok: true, data: { kubernetesVersion: 'v1.20.2', dryRun: true } });
  expect(String(result.data?.joinCommand)).toMatch(/^tsadm join 10\.250\.0\.51:6443 --token [a-z0-9]{6}\.[a-z0-9]{16} \\\n\s+--discovery-token-ca-cert-hash sha256:[0-9a-f]{64}/);
  expect(String(result.data?.controlPlaneJoinCommand)).toContain('--control-plane');
}, 60_000);

test('a failing command ends its stream with a result carrying the error code and hint', async () => {
  const root = tmp();
  const r = await runCli(['init', 'phase', 'kubeconfig', 'admin', '--rootfs', root, '-o', 'json']);
  expect(r.code).toBe(1);
  const evs = events(r.stdout);
  expect(evs.at(-1)).toMatchObject({ type: 'result', command: 'init', ok: false, error: { code: expect.stringMatching(/^E_/), message: expect.any(String) } });
  expect(evs.find((e) => e.type === 'phase-finish')).toMatchObject({ phase: 'kubeconfig/admin', status: 'failed' });
}, 30_000);
