/**
 * Secret hygiene (issue 9 §5) against a real etcd + kube-apiserver v1.20.2 (plus the
 * bootstrapsigner, tokencleaner and garbage collector): every command of the built CLI runs with
 * -v 2, and no token secret, private key or certificate key appears in its stdout or stderr
 * except where the user asked for it (token create/list, --print-join-command, certs
 * certificate-key, init's join commands and certificate key as kubeadm prints them, kubeconfig
 * user's own new key). The kubeadm-certs Secret holds only AES-GCM ciphertext that the
 * certificate key opens, and is owned by a two-hour bootstrap token: deleting the token (as the
 * tokencleaner does at expiry) makes the garbage collector delete it. SAFETY_DEBUG=1 keeps each
 * run's output in /tmp/secrets-<run>.txt.
 */
import { expect, jest } from '@jest/globals';
import { createDecipheriv } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type TestApiServer } from '../../helpers/apiserver.js';
import { NO_KUBELET, startClusterRoot, type ClusterRoot } from './cluster-root.js';
import { listFiles } from '../../helpers/pki-check.js';
import { tsadm, type CliResult, type Scratch } from '../../helpers/built-cli.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';

jest.setTimeout(10 * 60_000);

const secretOf = (token: string): string => token.split('.')[1] as string;

/** Distinctive pieces of a private key, to find it in output whatever the wrapping. */
function keyNeedles(pem: string): string[] {
  const body = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
  const b64OfPem = Buffer.from(pem).toString('base64');
  // PEM lines (64 chars) as printed raw, and 48-char pieces of the PEM's base64 as kubeconfigs embed it.
  return [...body.filter((l) => l.length >= 40), ...[0, 400, 800].map((o) => b64OfPem.slice(o, o + 48)).filter((s) => s.length === 48)];
}

/** Every private key under a directory tree: PEM files and kubeconfigs' client-key-data. */
function keysUnder(dir: string): string[] {
  const out: string[] = [];
  for (const f of listFiles(dir)) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    if (text.includes('PRIVATE KEY-----')) out.push(text);
    for (const m of text.matchAll(/client-key-data: (\S+)/g)) out.push(Buffer.from(m[1] as string, 'base64').toString());
  }
  return out;
}

interface Run {
  readonly name: string;
  readonly result: CliResult;
  /** Secrets this command may print on stdout because the user asked for them. */
  readonly allowed: readonly string[];
}

describeWithOracles([oracles.built, oracles.apiServer])('secret hygiene of every command at -v 2', () => {
  let server: TestApiServer;
  let s: Scratch;
  let root: string;
  let port: string;
  let caHash: string;
  const runs: Run[] = [];
  const tokens = { init: '', created: '', joinCmd: '' };
  let certKey = '';
  const keyMaterial = new Set<string>();
  const tokenSecrets = new Set<string>();
  let generatedCertKey = '';

  /** Commands without logging (generate, print) have no -v flag. */
  const QUIET = new Set(['token generate', 'certs certificate-key', 'config print', 'config images', 'config migrate', 'config validate']);
  const run = async (name: string, args: string[], allowed: string[] = [], timeoutMs = 120_000): Promise<CliResult> => {
    const result = await tsadm(QUIET.has(args.slice(0, 2).join(' ')) ? args : [...args, '-v', '2'], { timeoutMs });
    runs.push({ name, result, allowed });
    for (const k of keysUnder(s.dir)) keyMaterial.add(k);
    return result;
  };
  const ok = (r: CliResult): void => expect({ code: r.code, output: r.code === 0 ? '' : `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}` }).toEqual({ code: 0, output: '' });

  let cluster: ClusterRoot;
  beforeAll(async () => {
    cluster = await startClusterRoot({ controllers: ['bootstrapsigner', 'tokencleaner', 'garbagecollector'] });
    ({ server, root, port, caHash } = cluster);
    s = cluster.scratch;
    tokens.init = cluster.token;
    certKey = cluster.certificateKey;
  }, 5 * 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  const config = (): string => cluster.config;

  test('init (certs to addons, with --upload-certs) prints only its join commands and the certificate key', async () => {
    const r = await run('init', ['init', '--config', config(), '--rootfs', root, '--upload-certs', '--skip-phases', NO_KUBELET], [secretOf(tokens.init), certKey]);
    ok(r);
    // As kubeadm: the key after "Using certificate key:", and both join commands carry the token.
    expect(r.stdout).toContain(certKey);
    expect(r.stdout).toContain(`--token ${tokens.init}`);
    expect(r.stdout).toContain(`--discovery-token-ca-cert-hash ${caHash}`);
  });

  test('the kubeadm-certs Secret is ciphertext the certificate key opens, owned by a two-hour token', async () => {
    const secret = (await server.request('GET', '/api/v1/namespaces/kube-system/secrets/kubeadm-certs', { auth: 'admin' })).body;
    const data = secret.data;
    expect(Object.keys(data)).toEqual(expect.arrayContaining(['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.key', 'etcd-ca.key']));
    for (const [name, b64] of Object.entries(data)) {
      const sealed = Buffer.from(b64, 'base64');
      expect({ name, plaintextVisible: sealed.toString('latin1').includes('-----BEGIN') }).toEqual({ name, plaintextVisible: false });
      const decipher = createDecipheriv('aes-256-gcm', Buffer.from(certKey, 'hex'), sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      const plain = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
      const file = path.join(root, 'etc/kubernetes/pki', name.replace(/^etcd-/, 'etcd/'));
      expect({ name, same: plain.equals(readFileSync(file)) }).toEqual({ name, same: true });
    }
    const [owner] = secret.metadata.ownerReferences as { kind: string; name: string; uid: string; controller?: boolean }[];
    expect(owner).toMatchObject({ kind: 'Secret', name: expect.stringMatching(/^bootstrap-token-[a-z0-9]{6}$/) });
    const token = (await server.request('GET', `/api/v1/namespaces/kube-system/secrets/${owner?.name}`, { auth: 'admin' })).body;
    expect(token.metadata.uid).toBe(owner?.uid);
    const ttlMs = new Date(Buffer.from(token.data.expiration!, 'base64').toString()).getTime() - Date.now();
    expect(ttlMs).toBeGreaterThan(110 * 60_000);
    expect(ttlMs).toBeLessThanOrEqual(120 * 60_000);
    tokenSecrets.add(Buffer.from(token.data['token-secret']!, 'base64').toString());
  });

  test('--skip-certificate-key-print and --skip-token-print withhold them (upload-certs, show-join-command, init)', async () => {
    ok(await run('upload-certs --skip-certificate-key-print', ['init', 'phase', 'upload-certs', '--upload-certs', '--skip-certificate-key-print', '--config', config(), '--rootfs', root]));
    ok(await run('show-join-command --skip-token-print --skip-certificate-key-print', ['init', 'phase', 'show-join-command', '--skip-token-print', '--skip-certificate-key-print', '--config', config(), '--rootfs', root]));
    // Without the skips it prints both, as kubeadm does (the key because the config sets one).
    ok(await run('show-join-command', ['init', 'phase', 'show-join-command', '--config', config(), '--rootfs', root], [secretOf(tokens.init), certKey]));
    // A whole init again (every phase unchanged or refreshed) with both skips prints neither.
    ok(await run('init --skip-token-print --skip-certificate-key-print', ['init', '--config', config(), '--rootfs', root, '--upload-certs', '--skip-token-print', '--skip-certificate-key-print',
      '--skip-phases', NO_KUBELET]));
    // A generated key is the output of upload-certs without a key in the config.
    writeFileSync(path.join(s.dir, 'no-key.yaml'), readFileSync(config(), 'utf8').replace(/^certificateKey: .*\n/m, ''));
    const gen = await run('upload-certs (generated key)', ['init', 'phase', 'upload-certs', '--upload-certs', '--config', path.join(s.dir, 'no-key.yaml'), '--rootfs', root], []);
    ok(gen);
    generatedCertKey = /^([0-9a-f]{64})$/m.exec(gen.stdout)?.[1] ?? '';
    expect(generatedCertKey).toMatch(/^[0-9a-f]{64}$/);
    runs[runs.length - 1] = { ...runs[runs.length - 1] as Run, allowed: [generatedCertKey] };
  });

  test('token create / create --print-join-command / list / delete / generate, certs certificate-key', async () => {
    const created = await run('token create', ['token', 'create', '--rootfs', root]);
    ok(created);
    tokens.created = /^([a-z0-9]{6}\.[a-z0-9]{16})$/m.exec(created.stdout)?.[1] ?? ''; // after the -v 2 API lines
    expect(tokens.created).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    runs[runs.length - 1] = { ...runs[runs.length - 1] as Run, allowed: [secretOf(tokens.created)] };

    const join = await run('token create --print-join-command', ['token', 'create', '--print-join-command', '--rootfs', root]);
    ok(join);
    tokens.joinCmd = /--token ([a-z0-9.]+)/.exec(join.stdout)?.[1] ?? '';
    runs[runs.length - 1] = { ...runs[runs.length - 1] as Run, allowed: [secretOf(tokens.joinCmd)] };

    for (const t of Object.values(tokens)) tokenSecrets.add(secretOf(t));
    const list = await run('token list', ['token', 'list', '--rootfs', root], [...tokenSecrets]);
    ok(list);
    for (const t of Object.values(tokens)) expect(list.stdout).toContain(t); // kubeadm lists whole tokens

    ok(await run('token delete', ['token', 'delete', tokens.created, '--rootfs', root]));
    const generated = await run('token generate', ['token', 'generate']);
    ok(generated);
    runs[runs.length - 1] = { ...runs[runs.length - 1] as Run, allowed: [secretOf(generated.stdout.trim())] };
    const key = await run('certs certificate-key', ['certs', 'certificate-key']);
    ok(key);
    runs[runs.length - 1] = { ...runs[runs.length - 1] as Run, allowed: [key.stdout.trim()] };
  });

  test('certs, kubeconfig, config, check commands', async () => {
    ok(await run('certs check-expiration', ['certs', 'check-expiration', '--rootfs', root]));
    ok(await run('certs renew all', ['certs', 'renew', 'all', '--rootfs', root]));
    const user = await run('kubeconfig user', ['kubeconfig', 'user', '--client-name', 'alice', '--config', config(), '--rootfs', root]);
    ok(user);
    // Its own new key is the output the user asked for; no key of the machine may be in it.
    const own = /client-key-data: (\S+)/.exec(user.stdout)?.[1];
    expect(own).toBeDefined();
    // The needles find a key in output as printed (this one is allowed here, and only here).
    expect(keyNeedles(Buffer.from(own ?? '', 'base64').toString()).some((n) => user.stdout.includes(n))).toBe(true);
    runs[runs.length - 1] = { ...runs[runs.length - 1] as Run, allowed: keyNeedles(Buffer.from(own ?? '', 'base64').toString()) };
    ok(await run('config print init-defaults', ['config', 'print', 'init-defaults']));
    ok(await run('config print reset-defaults', ['config', 'print', 'reset-defaults']));
    ok(await run('config print upgrade-defaults', ['config', 'print', 'upgrade-defaults']));
    ok(await run('config validate', ['config', 'validate', '--config', config()]));
    // The migrated file is the configuration itself: its token and certificate key are the output asked for.
    ok(await run('config migrate', ['config', 'migrate', '--old-config', config()], [secretOf(tokens.init), certKey]));
    ok(await run('config images list', ['config', 'images', 'list', '--kubernetes-version', 'v1.20.2']));
    await run('check', ['check', '--config', config(), '--rootfs', root]); // may report missing pods: only its output matters
  });

  test('dry runs of init and join, and a control-plane join that downloads the certificates', async () => {
    const fresh = path.join(s.dir, 'fresh');
    mkdirSync(fresh);
    // A dry run prints what init prints (the token in use, the join commands) and no Secret data.
    ok(await run('init --dry-run', ['init', '--dry-run', '--config', config(), '--rootfs', fresh, '--skip-phases', 'preflight'], [secretOf(tokens.init), certKey]));
    const joinRoot = path.join(s.dir, 'joiner');
    mkdirSync(joinRoot);
    const joinArgs = ['join', `127.0.0.1:${port}`, '--token', tokens.init, '--discovery-token-ca-cert-hash', caHash, '--node-name', 'n2', '--rootfs', joinRoot];
    ok(await run('join --dry-run', [...joinArgs, '--dry-run', '--skip-phases', 'preflight']));
    // The real control-plane join stops when it waits for a kubelet that does not exist here;
    // by then it has discovered the cluster, downloaded and decrypted the certificates and
    // written them, which is the part that handles secrets.
    // The last upload (generated key) re-encrypted kubeadm-certs: that key opens it now.
    const cp = await run('join --control-plane', [...joinArgs, '--control-plane', '--certificate-key', generatedCertKey, '--apiserver-advertise-address', '10.250.0.42', '--skip-phases', 'preflight'], [], 45_000);
    expect(cp.stdout).toContain('[download-certs] Downloading the certificates');
    expect(readFileSync(path.join(joinRoot, 'etc/kubernetes/pki/ca.key'), 'utf8')).toBe(server.caKeyPem);
    // No etcd runs behind this tree's etcd manifest: a short timeouts.etcdAPICall makes reset give
    // up on removing the member in seconds instead of retrying for the default 2 minutes.
    const resetConfig = path.join(s.dir, 'reset.yaml');
    writeFileSync(resetConfig, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ntimeouts:\n  etcdAPICall: 3s\n');
    ok(await run('reset', ['reset', '--config', resetConfig, '--rootfs', root]));
  });

  test('no secret appears anywhere it was not asked for', () => {
    for (const k of keysUnder(s.dir)) keyMaterial.add(k);
    keyMaterial.add(server.caKeyPem);
    const needles = new Map<string, string>();
    for (const k of keyMaterial) for (const n of keyNeedles(k)) needles.set(n, 'private key');
    for (const t of tokenSecrets) needles.set(t, 'token secret');
    needles.set(certKey, 'certificate key');
    if (generatedCertKey) needles.set(generatedCertKey, 'certificate key');
    expect(needles.size).toBeGreaterThan(50);
    expect(runs.length).toBe(26);
    const leaks: string[] = [];
    for (const r of runs) {
      for (const [needle, what] of needles) {
        if (r.result.stderr.includes(needle)) leaks.push(`${r.name}: ${what} on stderr`);
        if (r.result.stdout.includes(needle) && !r.allowed.includes(needle)) leaks.push(`${r.name}: ${what} on stdout`);
      }
      if (/PRIVATE KEY-----/.test(r.result.stderr)) leaks.push(`${r.name}: a PEM private key on stderr`);
      if (/PRIVATE KEY-----/.test(r.result.stdout)) leaks.push(`${r.name}: a PEM private key on stdout`);
    }
    if (process.env.SAFETY_DEBUG) for (const r of runs) writeFileSync(`/tmp/secrets-${r.name.replace(/\W+/g, '_')}.txt`, `${r.result.stdout}\n----\n${r.result.stderr}`);
    expect([...new Set(leaks)]).toEqual([]);
  });

  test('deleting the owning token (the tokencleaner does at expiry) garbage-collects kubeadm-certs', async () => {
    const secret = (await server.request('GET', '/api/v1/namespaces/kube-system/secrets/kubeadm-certs', { auth: 'admin' })).body;
    const owner = (secret.metadata.ownerReferences as { name: string }[])[0]?.name;
    expect((await server.request('DELETE', `/api/v1/namespaces/kube-system/secrets/${owner}`, { auth: 'admin' })).status).toBe(200);
    const deadline = Date.now() + 120_000;
    let status = 200;
    while (Date.now() < deadline && status !== 404) {
      await new Promise((r) => setTimeout(r, 1000));
      status = (await server.request('GET', '/api/v1/namespaces/kube-system/secrets/kubeadm-certs', { auth: 'admin' })).status;
    }
    expect(status).toBe(404);
  });
});
