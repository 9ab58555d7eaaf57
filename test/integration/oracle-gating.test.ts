/**
 * Issue 29: a CI run cannot pass with its oracle suites skipped. Every suite or test that needs an
 * oracle (reference kubeadm, kube-apiserver/etcd, the built CLI, ...) is gated by
 * test/helpers/oracle.ts, which fails under CI=true when the oracle is missing and names it, and
 * skips with the reason elsewhere. Proven here with a cache directory that holds nothing: the
 * helper's decision directly, and jest itself run on a kubeadm-gated test file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gate, oracles } from '../helpers/oracle.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let empty: string;
beforeAll(() => {
  empty = mkdtempSync(path.join(tmpdir(), 'tsadm-empty-cache-'));
});
afterAll(() => rmSync(empty, { recursive: true, force: true }));

/** Runs FN with $TSADM_CACHE_DIR pointing at the empty cache. */
function withEmptyCache<T>(fn: () => T): T {
  const saved = process.env.TSADM_CACHE_DIR;
  process.env.TSADM_CACHE_DIR = empty;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.TSADM_CACHE_DIR;
    else process.env.TSADM_CACHE_DIR = saved;
  }
}

test('CI=true and no reference kubeadm in the cache: the gate fails and names kubeadm and where it looked', () => {
  const g = withEmptyCache(() => gate([oracles.kubeadm], { CI: 'true' }));
  expect(g.mode).toBe('fail');
  if (g.mode === 'run') throw new Error('unreachable');
  expect(g.title).toContain('reference kubeadm v1.20.2');
  expect(g.message).toContain(path.join(empty, 'kubernetes-v1.20.2', 'bin', 'kubeadm'));
  expect(g.message).toContain('bash scripts/e2e/provision.sh');
});

test('outside CI the same gate skips, saying why; a real API server missing is named with both binaries', () => {
  const kubeadm = withEmptyCache(() => gate([oracles.kubeadm], {}));
  expect(kubeadm.mode).toBe('skip');
  if (kubeadm.mode === 'run') throw new Error('unreachable');
  expect(kubeadm.title).toMatch(/^SKIPPED \(missing: reference kubeadm v1\.20\.2 missing \(/);
  const api = withEmptyCache(() => gate([oracles.apiServer], { CI: 'true' }));
  expect(api.mode).toBe('fail');
  if (api.mode === 'run') throw new Error('unreachable');
  expect(api.message).toContain(path.join(empty, 'kubernetes-v1.20.2', 'bin', 'kube-apiserver'));
});

test('present oracles run, whatever CI says (openssl is on this machine: the tests use it throughout)', () => {
  expect(spawnSync('openssl', ['version']).status).toBe(0);
  expect(gate([oracles.openssl], { CI: 'true' })).toEqual({ mode: 'run' });
});

test('jest under CI=true with an empty cache fails a kubeadm-gated file and names the missing kubeadm', () => {
  const file = 'test/unit/certs-lifecycle/inventory.test.ts';
  const r = spawnSync(process.execPath, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--selectProjects=unit', '--ci', '--reporters=default', '--', file], {
    cwd: REPO,
    env: { ...process.env, CI: 'true', TSADM_CACHE_DIR: empty, NO_COLOR: '1', FORCE_COLOR: '0' },
    encoding: 'utf8',
    timeout: 240_000,
  });
  const out = `${r.stdout}${r.stderr}`;
  expect(out).toContain(file);
  expect(r.status).toBe(1);
  expect(out).toContain('oracle missing under CI=true: reference kubeadm v1.20.2');
  expect(out).toContain(path.join(empty, 'kubernetes-v1.20.2', 'bin', 'kubeadm'));
  expect(out).toMatch(/Tests:\s+1 failed, \d+ passed/);
}, 240_000);

test('no test file gates itself: every describe.skip / test.skip / `? describe :` goes through test/helpers/oracle.ts', () => {
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
  const own = path.join(REPO, 'test', 'helpers', 'oracle.ts');
  const selfGated = /\b(describe|test|it)\.skip\b|\?\s*(describe|test|it)\s*:|:\s*(describe|test|it)\.skip\b/;
  const offenders = files(path.join(REPO, 'test'))
    .filter((f) => f !== own && f !== fileURLToPath(import.meta.url))
    .filter((f) => selfGated.test(readFileSync(f, 'utf8')))
    .map((f) => path.relative(REPO, f));
  expect(offenders).toEqual([]);
});
