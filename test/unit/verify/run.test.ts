/**
 * `tsadm check` on a root folder: after a local init every on-disk phase passes (pods and API
 * objects reported as not checkable there); a certificate signed by another CA, missing a SAN,
 * or a changed manifest fails, naming the file and the reason; `check certs` checks only certs.
 */
import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PhaseFinding } from '../../../src/verify/run.js';
import { CLUSTER_PHASES, LOCAL_INIT, events, runCli } from '../../helpers/run-cli.js';

let root: string;
const at = (p: string): string => path.join(root, p);
const check = async (args: string[] = []) => {
  const r = await runCli(['check', '--rootfs', root, ...LOCAL_INIT, '-o', 'json', ...args]);
  const result = events(r.stdout).at(-1) as unknown as { ok: boolean; data: { checks: PhaseFinding[] } };
  return { code: r.code, stderr: r.stderr, checks: result.data.checks };
};

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'tsadm-check-'));
  const r = await runCli(['init', '--rootfs', root, ...LOCAL_INIT, '--skip-phases', CLUSTER_PHASES.join(',')]);
  expect(r.code).toBe(0);
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('after a local init, every phase made on disk passes; what needs a live node is a warning', async () => {
  const { code, checks } = await check();
  expect(code).toBe(0);
  expect(checks.filter((c) => !c.ok)).toEqual([]);
  const phases = new Set(checks.map((c) => c.phase));
  for (const p of ['certs/ca', 'certs/apiserver', 'certs/sa', 'kubeconfig/admin', 'kubelet-start', 'control-plane/apiserver', 'etcd/local']) expect(phases).toContain(p);
  expect(checks.find((c) => c.phase === 'certs/apiserver')).toMatchObject({ ok: true, detail: expect.stringContaining('SANs kubernetes kubernetes.default') });
  expect(checks.find((c) => c.check === 'kube-apiserver running')).toMatchObject({ ok: true, warning: true, detail: expect.stringContaining('not checked on a root folder') });
  expect(checks.find((c) => c.phase === 'addon/coredns')).toMatchObject({ warning: true, detail: expect.stringContaining('does not answer') });
}, 60_000);

test('check certs: a certificate from another CA, a missing SAN and a changed manifest fail, named', async () => {
  const pki = at('/etc/kubernetes/pki');
  const saved = readFileSync(`${pki}/front-proxy-client.crt`);
  // front-proxy-client re-signed by the cluster CA instead of the front-proxy CA.
  const csr = path.join(root, 'fp.csr');
  execFileSync('openssl', ['req', '-new', '-key', `${pki}/front-proxy-client.key`, '-subj', '/CN=front-proxy-client', '-out', csr], { stdio: 'pipe' });
  execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', `${pki}/ca.crt`, '-CAkey', `${pki}/ca.key`, '-CAcreateserial', '-out', `${pki}/front-proxy-client.crt`, '-days', '30'], { stdio: 'pipe' });
  const certsOnly = await check(['certs']);
  expect(certsOnly.code).toBe(1);
  expect(new Set(certsOnly.checks.map((c) => c.phase.split('/')[0]))).toEqual(new Set(['certs']));
  expect(certsOnly.checks.find((c) => c.phase === 'certs/front-proxy-client')).toMatchObject({
    ok: false, check: '/etc/kubernetes/pki/front-proxy-client.crt', detail: expect.stringContaining('/etc/kubernetes/pki/front-proxy-ca.crt'),
  });
  writeFileSync(`${pki}/front-proxy-client.crt`, saved);

  // A SAN this configuration asks for that the existing certificate lacks.
  const extra = await check(['certs/apiserver', '--apiserver-cert-extra-sans', 'api.example.com']);
  expect(extra.code).toBe(1);
  expect(extra.checks[0]).toMatchObject({ ok: false, detail: expect.stringContaining('missing SAN DNS:api.example.com') });

  const manifest = at('/etc/kubernetes/manifests/kube-scheduler.yaml');
  writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}# edited\n`);
  const cp = await check(['control-plane']);
  expect(cp.code).toBe(1);
  expect(cp.checks.filter((c) => !c.ok)).toEqual([
    expect.objectContaining({ phase: 'control-plane/scheduler', check: '/etc/kubernetes/manifests/kube-scheduler.yaml', detail: expect.stringContaining('missing or different') }),
  ]);
}, 60_000);
