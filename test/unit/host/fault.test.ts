/**
 * The fault seam (src/host/fault.ts) through the built CLI, as the crash tests use it: a real
 * SIGKILL right after the Nth kill point (TSADM_FAULT_AFTER) or right after the first write of a
 * named file (TSADM_FAULT_AFTER_WRITE), whatever its number; TSADM_FAULT_TRACE lists the points.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describeBuilt, scratchDir, tsadmSync, type Scratch } from '../../helpers/built-cli.js';

/** `init phase certs ca` on a fresh --rootfs directory (which must exist). */
const certsCa = (root: string): string[] => {
  mkdirSync(root, { recursive: true });
  return ['init', 'phase', 'certs', 'ca', '--rootfs', root, '--kubernetes-version', 'v1.20.2'];
};

describeBuilt('fault injection', () => {
  let work: Scratch;
  beforeEach(() => {
    work = scratchDir('tsadm-fault-');
  });
  afterEach(() => work.cleanup());

  const points = (stderr: string): string[] => [...stderr.matchAll(/^tsadm: fault point (write #\d+ \(.*\))$/gm)].map((m) => m[1]!);

  test('TSADM_FAULT_AFTER_WRITE kills right after the first write of the named file, numbered as the trace numbers it', () => {
    const traced = tsadmSync(certsCa(path.join(work.dir, 'a')), { env: { TSADM_FAULT_TRACE: '1' } });
    expect(traced.code).toBe(0);
    const all = points(traced.stderr);
    const crt = all.find((p) => p.endsWith('/pki/ca.crt)'));
    expect(crt).toBeDefined();

    const root = path.join(work.dir, 'b');
    const killed = tsadmSync(certsCa(root), { env: { TSADM_FAULT_AFTER_WRITE: '/pki/ca.crt' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stderr).toContain(`tsadm: fault injected after ${crt!}`);
    expect(existsSync(path.join(root, 'etc/kubernetes/pki/ca.crt'))).toBe(true);
    // Nothing after the kill point was written.
    const later = all.slice(all.indexOf(crt!) + 1).map((p) => /\((.*)\)$/.exec(p)![1]!);
    for (const f of later) expect([f, existsSync(path.join(root, f))]).toEqual([f, false]);
  });

  test('a suffix no write has lets the run finish', () => {
    const r = tsadmSync(certsCa(path.join(work.dir, 'c')), { env: { TSADM_FAULT_AFTER_WRITE: '/pki/no-such-file' } });
    expect([r.code, r.signal]).toEqual([0, null]);
    expect(r.stderr).not.toContain('fault injected');
  });
});
