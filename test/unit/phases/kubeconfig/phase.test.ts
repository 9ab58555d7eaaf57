import { expect, jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { parseCertificatePem } from '../../../../src/pki/certificate.js';
import { referenceKubectlPath } from '../../../helpers/components.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { listTree, openssl, runCerts, runKubeconfigs, subjectOf, tempFile, verifyWith, pkiTestConfig } from '../../../helpers/pki-test-utils.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';
import { haveOracles, oracles } from '../../../helpers/oracle.js';

jest.setTimeout(60_000);

const NOW = new Date('2026-03-01T10:00:00Z');
const KC = '/etc/kubernetes';
// The provisioned kubectl v1.20.2 when present (the /usr/bin/kubectl dispatcher of some images takes seconds per call).
/** The provisioned kubectl v1.20.2 (test/helpers/oracle.ts: a failure under CI=true when missing). */
const KUBECTL = referenceKubectlPath();

async function pkiAndKubeconfigs(root: TempRoot, cfg = pkiTestConfig(), opts: { dryRun?: boolean } = {}) {
  const { ctx, reporter } = initCtxFor(cfg, root.dir, { now: NOW, ...opts });
  await runCerts(ctx);
  reporter.events.length = 0;
  await runKubeconfigs(ctx);
  return { ctx, reporter };
}

/** `kubectl config view --raw --kubeconfig F -o json`, parsed. */
function kubectlView(file: string): { clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data': string } }>; users: Array<{ name: string; user: Record<string, string> }>; 'current-context': string; contexts: Array<{ name: string; context: { cluster: string; user: string } }> } {
  const r = spawnSync(KUBECTL ?? 'kubectl', ['config', 'view', '--raw', '--kubeconfig', file, '-o', 'json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubectl config view failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ReturnType<typeof kubectlView>;
}

function clientCertOf(file: string): { certFile: string; keyFile: string } {
  const doc = yaml.load(readFileSync(file, 'utf8')) as { users: Array<{ user: Record<string, string> }> };
  const user = doc.users[0]?.user ?? {};
  return {
    certFile: tempFile('client.crt', Buffer.from(user['client-certificate-data'] ?? '', 'base64')),
    keyFile: tempFile('client.key', Buffer.from(user['client-key-data'] ?? '', 'base64')),
  };
}

const EXPECTED_1_20: ReadonlyArray<[file: string, user: string, subject: string, server: string]> = [
  ['admin.conf', 'kubernetes-admin', 'CN=kubernetes-admin,O=system:masters', 'https://cp.example.com:6443'],
  ['kubelet.conf', 'system:node:cp1', 'CN=system:node:cp1,O=system:nodes', 'https://cp.example.com:6443'],
  ['controller-manager.conf', 'system:kube-controller-manager', 'CN=system:kube-controller-manager', 'https://10.0.0.5:6443'],
  ['scheduler.conf', 'system:kube-scheduler', 'CN=system:kube-scheduler', 'https://10.0.0.5:6443'],
];

describe('kubeconfig all (v1.20)', () => {
  let root: TempRoot;
  let lines: string[];
  beforeAll(async () => {
    root = tempRoot();
    lines = (await pkiAndKubeconfigs(root)).reporter.lines();
  });
  afterAll(() => root.cleanup());

  test('writes admin, kubelet, controller-manager and scheduler (no super-admin), mode 0600, kubeadm log lines', () => {
    const files = [...listTree(root.at(KC)).entries()].filter(([p]) => p.endsWith('.conf'));
    expect(files.map(([p, f]) => [p, f.mode.toString(8)])).toEqual([
      ['admin.conf', '600'], ['controller-manager.conf', '600'], ['kubelet.conf', '600'], ['scheduler.conf', '600'],
    ]);
    expect(lines).toEqual([
      `Using kubeconfig folder "${KC}"`,
      'Writing "admin.conf" kubeconfig file',
      'Writing "kubelet.conf" kubeconfig file',
      'Writing "controller-manager.conf" kubeconfig file',
      'Writing "scheduler.conf" kubeconfig file',
    ]);
  });

  test.each(EXPECTED_1_20)('%s: user %s, client cert %s signed by ca.crt with clientAuth, server %s', (file, user, subject, server) => {
    const path = root.at(`${KC}/${file}`);
    const doc = yaml.load(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['apiVersion', 'clusters', 'contexts', 'current-context', 'kind', 'preferences', 'users']);
    expect(doc['current-context']).toBe(`${user}@kubernetes`);
    const { certFile, keyFile } = clientCertOf(path);
    expect(verifyWith(root.at(`${KC}/pki/ca.crt`), certFile)).toBe(true);
    expect(subjectOf(certFile)).toBe(subject);
    expect(openssl(['x509', '-in', certFile, '-noout', '-ext', 'extendedKeyUsage'])).toContain('TLS Web Client Authentication');
    expect(openssl(['x509', '-in', certFile, '-noout', '-pubkey'])).toBe(openssl(['pkey', '-in', keyFile, '-pubout']));
    const embeddedCA = Buffer.from((doc.clusters as Array<{ cluster: Record<string, string> }>)[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
    expect(embeddedCA.toString()).toBe(readFileSync(root.at(`${KC}/pki/ca.crt`), 'utf8'));
    if (!haveOracles([oracles.kubectl])) return;
    const view = kubectlView(path);
    expect(view['current-context']).toBe(`${user}@kubernetes`);
    expect(view.clusters).toEqual([{ name: 'kubernetes', cluster: { server, 'certificate-authority-data': expect.any(String) } }]);
    expect(view.contexts).toEqual([{ name: `${user}@kubernetes`, context: { cluster: 'kubernetes', user } }]);
    expect(Object.keys(view.users[0]?.user ?? {}).sort()).toEqual(['client-certificate-data', 'client-key-data']);
  });

  test('a second run keeps every file byte for byte', async () => {
    const before = listTree(root.at(KC));
    const { ctx, reporter } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
    await runKubeconfigs(ctx);
    expect(listTree(root.at(KC))).toEqual(before);
    expect(ctx.host.writes).toEqual([]);
    expect(ctx.state.pki.keys.pendingIds).toEqual([]);
    expect(reporter.lines().slice(1)).toEqual(EXPECTED_1_20.map(([f]) => `Using existing kubeconfig file: "${KC}/${f}"`));
  });
});

describe('existing files', () => {
  let root: TempRoot;
  beforeEach(async () => {
    root = tempRoot();
    await pkiAndKubeconfigs(root);
  });
  afterEach(() => root.cleanup());

  test('a kubeconfig for another CA is E_CONFLICT', async () => {
    const other = tempRoot();
    try {
      await pkiAndKubeconfigs(other);
      writeFileSync(root.at(`${KC}/scheduler.conf`), readFileSync(other.at(`${KC}/scheduler.conf`)));
      const { ctx } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      const err = await tsadmErrorOf(runKubeconfigs(ctx));
      expect(err.code).toBe('E_CONFLICT');
      expect(err.message).toBe('error execution phase kubeconfig/scheduler: a kubeconfig file "/etc/kubernetes/scheduler.conf" exists already but has got the wrong CA cert');
    } finally {
      other.cleanup();
    }
  });

  test('another server URL is only a warning, as in kubeadm; the file is kept', async () => {
    const before = readFileSync(root.at(`${KC}/admin.conf`));
    const { ctx, reporter } = initCtxFor(pkiTestConfig({ controlPlaneEndpoint: 'lb.example.com:443' }), root.dir, { now: NOW });
    await runKubeconfigs(ctx, ['kubeconfig/admin']);
    expect(readFileSync(root.at(`${KC}/admin.conf`))).toEqual(before);
    const warnings = reporter.events.flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
    expect(warnings).toContain('a kubeconfig file "/etc/kubernetes/admin.conf" exists already but has an unexpected API Server URL: expected: https://lb.example.com:443, got: https://cp.example.com:6443');
    expect(warnings).toContain('port specified in controlPlaneEndpoint overrides bindPort in the controlplane address');
  });

  test('an unreadable kubeconfig is E_CONFLICT', async () => {
    writeFileSync(root.at(`${KC}/kubelet.conf`), 'apiVersion: v1\nkind: Config\n');
    const { ctx } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
    const err = await tsadmErrorOf(runKubeconfigs(ctx));
    expect(err.message).toContain('failed to load kubeconfig file /etc/kubernetes/kubelet.conf that already exists on disk: its CurrentContext is not among its contexts');
  });

  test('external CA: provided files are used, a missing one is a clear error', async () => {
    rmSync(root.at(`${KC}/pki/ca.key`));
    const { ctx, reporter } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
    await runKubeconfigs(ctx);
    expect(reporter.lines()).toContain('External CA mode: Using user provided admin.conf');
    rmSync(root.at(`${KC}/controller-manager.conf`));
    const again = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
    const err = await tsadmErrorOf(runKubeconfigs(again.ctx));
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toContain('external CA mode: /etc/kubernetes/controller-manager.conf is missing and tsadm cannot issue its client certificate without /etc/kubernetes/pki/ca.key');
  });

  test('without a CA the phase says which phase to run', async () => {
    const empty = tempRoot();
    try {
      const { ctx } = initCtxFor(pkiTestConfig(), empty.dir, { now: NOW });
      const err = await tsadmErrorOf(runKubeconfigs(ctx, ['kubeconfig/admin']));
      expect(err.code).toBe('E_PRECONDITION');
      expect(err.hint).toBe('run "tsadm init phase certs ca" to generate it');
    } finally {
      empty.cleanup();
    }
  });
});

describe('dry-run', () => {
  test('plans the files, writes nothing', async () => {
    const root = tempRoot();
    try {
      const { ctx } = await pkiAndKubeconfigs(root, pkiTestConfig(), { dryRun: true });
      expect(existsSync(root.at('/etc'))).toBe(false);
      expect(ctx.host.writes.filter((w) => w.kind === 'kubeconfig').map((w) => [w.path, w.mode])).toEqual(
        EXPECTED_1_20.map(([f]) => [`${KC}/${f}`, 0o600]),
      );
    } finally {
      root.cleanup();
    }
  });
});

describe('modern versions (v1.34) and IPv6', () => {
  test('super-admin.conf (system:masters), admin in kubeadm:cluster-admins, CA:FALSE, backdated; IPv6 local endpoint bracketed', async () => {
    const root = tempRoot();
    try {
      const cfg = pkiTestConfig({ kubernetesVersion: 'v1.34.1', controlPlaneEndpoint: '' }, { localAPIEndpoint: { advertiseAddress: 'fd00::5', bindPort: 6443 } });
      const { reporter } = await pkiAndKubeconfigs(root, cfg);
      expect(reporter.lines()).toContain('Writing "super-admin.conf" kubeconfig file');
      const subjects = Object.fromEntries(['admin.conf', 'super-admin.conf'].map((f) => [f, subjectOf(clientCertOf(root.at(`${KC}/${f}`)).certFile)]));
      expect(subjects).toEqual({ 'admin.conf': 'CN=kubernetes-admin,O=kubeadm:cluster-admins', 'super-admin.conf': 'CN=kubernetes-super-admin,O=system:masters' });
      const admin = clientCertOf(root.at(`${KC}/admin.conf`)).certFile;
      expect(openssl(['x509', '-in', admin, '-noout', '-text'])).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
      expect(parseCertificatePem(readFileSync(admin)).notBefore.toISOString()).toBe('2026-03-01T09:55:00.000Z');
      for (const f of ['admin.conf', 'super-admin.conf', 'kubelet.conf', 'scheduler.conf']) {
        expect(readFileSync(root.at(`${KC}/${f}`), 'utf8')).toContain('    server: https://[fd00::5]:6443\n');
        if (haveOracles([oracles.kubectl])) expect(kubectlView(root.at(`${KC}/${f}`)).clusters[0]?.cluster.server).toBe('https://[fd00::5]:6443');
      }
    } finally {
      root.cleanup();
    }
  });

  test('super-admin is skipped before v1.29', async () => {
    const root = tempRoot();
    try {
      const { ctx, reporter } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      await runCerts(ctx, ['certs/ca']);
      await runKubeconfigs(ctx, ['kubeconfig/super-admin']);
      expect(existsSync(root.at(`${KC}/super-admin.conf`))).toBe(false);
      expect(reporter.events.some((e) => e.type === 'phase-finish' && e.phase === 'kubeconfig/super-admin' && e.status === 'skipped')).toBe(true);
    } finally {
      root.cleanup();
    }
  });
});

describe('CA given as a file path', () => {
  test('a kubeconfig that references ca.crt by path is compared through that file (modern kubeadm)', async () => {
    const root = tempRoot();
    try {
      await pkiAndKubeconfigs(root);
      const file = root.at(`${KC}/scheduler.conf`);
      writeFileSync(file, readFileSync(file, 'utf8').replace(/certificate-authority-data: .*/, `certificate-authority: ${KC}/pki/ca.crt`));
      const { ctx, reporter } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      await runKubeconfigs(ctx, ['kubeconfig/scheduler']);
      expect(reporter.lines()).toContain(`Using existing kubeconfig file: "${KC}/scheduler.conf"`);
    } finally {
      root.cleanup();
    }
  });
});
