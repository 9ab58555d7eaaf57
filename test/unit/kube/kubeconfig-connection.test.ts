/**
 * Kubeconfig resolution through @kubernetes/client-node's KubeConfig: data and file fields,
 * relative paths, credentials (token, basic auth, a real exec credential plugin), and the
 * refusals. Connecting with it to a real API server is covered by real-api.test.ts and
 * real-token.test.ts.
 */
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyInline, resolveKubeconfigConnection, type AppliedOptions } from '../../../src/kube/kubeconfig-connection.js';
import { isTsadmError } from '../../../src/errors.js';
import type { InlineKubeconfig, KubeconfigFiles } from '../../../src/kube/credential-policy.js';

/** The files of a kubeconfig at SOURCE, read from the real filesystem (the machine's own root). */
function onDisk(source: string): KubeconfigFiles {
  const read = (p: string): Promise<Buffer | undefined> => {
    try {
      return Promise.resolve(readFileSync(p));
    } catch {
      return Promise.resolve(undefined);
    }
  };
  return { read, dir: path.dirname(source), allowExec: true };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeconfig(cluster: string, user: string, current = 'ctx'): string {
  return `apiVersion: v1
kind: Config
current-context: ${current}
contexts:
- name: other
  context: {cluster: nope, user: nope}
- name: ctx
  context: {cluster: c1, user: u1}
clusters:
- name: nope
  cluster: {server: https://wrong:1}
- name: c1
  cluster:
${cluster}
users:
- name: u1
  user:
${user}
`;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kcconn-'));
  mkdirSync(path.join(dir, 'pki'));
  writeFileSync(path.join(dir, 'pki', 'ca.crt'), 'CA-FILE');
  writeFileSync(path.join(dir, 'pki', 'client.crt'), 'CERT-FILE');
  writeFileSync(path.join(dir, 'pki', 'client.key'), 'KEY-FILE');
  // A credential plugin as kubectl runs them: prints an ExecCredential with a token.
  writeFileSync(
    path.join(dir, 'cred-plugin'),
    '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"plugin-token-\'"$1"\'"}}\'\n',
  );
  chmodSync(path.join(dir, 'cred-plugin'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveKubeconfigConnection', () => {
  test('embedded data of the current context (as kubeadm writes admin.conf); trailing slash trimmed', async () => {
    const text = kubeconfig(`    server: https://10.0.0.1:6443/\n    certificate-authority-data: ${b64('CA')}`, `    client-certificate-data: ${b64('CERT')}\n    client-key-data: ${b64('KEY')}`);
    const c = await resolveKubeconfigConnection(text, '/etc/kubernetes/admin.conf');
    expect(c.server).toBe('https://10.0.0.1:6443');
    expect([c.ca?.toString(), c.cert?.toString(), c.key?.toString()]).toEqual(['CA', 'CERT', 'KEY']);
    expect(c.headers).toEqual({});
    expect(c.rejectUnauthorized).toBeUndefined();
  });

  test('file fields resolve against the kubeconfig directory (kubelet.conf style); tls-server-name; insecure', async () => {
    const text = kubeconfig(
      '    server: https://10.0.0.1:6443\n    certificate-authority: pki/ca.crt\n    tls-server-name: kubernetes\n    insecure-skip-tls-verify: true',
      `    client-certificate: pki/client.crt\n    client-key: ${path.join(dir, 'pki', 'client.key')}`,
    );
    const c = await resolveKubeconfigConnection(text, path.join(dir, 'kubelet.conf'), onDisk(path.join(dir, 'kubelet.conf')));
    expect([c.ca?.toString(), c.cert?.toString(), c.key?.toString()]).toEqual(['CA-FILE', 'CERT-FILE', 'KEY-FILE']);
    expect(c.headers).toEqual({});
    expect(c.tlsServerName).toBe('kubernetes');
    expect(c.rejectUnauthorized).toBe(false);
  });

  test('an inline token wins over basic auth; basic auth alone becomes a Basic header', async () => {
    const tok = await resolveKubeconfigConnection(kubeconfig('    server: https://h:1', '    token: abc.def\n    username: u\n    password: p'), 'x');
    expect(tok.headers).toEqual({ Authorization: 'Bearer abc.def' });
    const basic = await resolveKubeconfigConnection(kubeconfig('    server: https://h:1', '    username: u\n    password: p'), 'x');
    expect(basic.headers).toEqual({ Authorization: `Basic ${b64('u:p')}` });
  });

  test('an exec credential plugin is run and its token used', async () => {
    const text = kubeconfig(
      '    server: https://h:1',
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ${path.join(dir, 'cred-plugin')}\n      args: [abc]`,
    );
    const c = await resolveKubeconfigConnection(text, path.join(dir, 'k.conf'), onDisk(path.join(dir, 'k.conf')));
    expect(c.headers).toEqual({ Authorization: 'Bearer plugin-token-abc' });
  });

  test('refusals: no current cluster, failing plugin, unreadable file, not YAML', async () => {
    const reject = async (text: string): Promise<string> => {
      try {
        await resolveKubeconfigConnection(text, path.join(dir, 'k.conf'), onDisk(path.join(dir, 'k.conf')));
      } catch (err) {
        expect(isTsadmError(err)).toBe(true);
        return (err as Error).message;
      }
      throw new Error('resolved');
    };
    expect(await reject(kubeconfig('    server: https://h:1', '    token: t', 'missing'))).toContain('has no cluster for its current context');
    expect(await reject(kubeconfig('    server: https://h:1', `    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ${path.join(dir, 'absent-plugin')}}`))).toContain('cannot resolve its credentials');
    expect(await reject(kubeconfig('    server: https://h:1', '    client-certificate: pki/absent.crt'))).toMatch(/cannot resolve its credentials: .*pki\/absent\.crt/);
    expect(await reject('clusters: [')).toContain(`failed to load kubeconfig ${path.join(dir, 'k.conf')}`);
  });
});

describe('applyInline: what client-node resolves for a user without an exec plugin', () => {
  const inline = (cluster: Partial<InlineKubeconfig['clusters'][0]>, user: Partial<InlineKubeconfig['users'][0]>, current = 'ctx'): InlineKubeconfig => ({
    clusters: [{ name: 'c', server: 'https://h:1', skipTLSVerify: false, ...cluster }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: current,
  });
  /** client-node's KubeConfig.applyToHTTPSOptions on the same input, its agent left out. */
  const clientNode = async (k: InlineKubeconfig): Promise<AppliedOptions | string> => {
    const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
    const kc = new KubeConfig();
    kc.loadFromOptions(k);
    const opts: AppliedOptions & { agent?: unknown } = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (err) {
      return (err as Error).message;
    }
    delete opts.agent;
    return opts;
  };
  const ours = (k: InlineKubeconfig): AppliedOptions | string => {
    try {
      return applyInline(k);
    } catch (err) {
      return (err as Error).message;
    }
  };

  test.each([
    ['certificate data (admin.conf)', inline({ caData: b64('CA') }, { certData: b64('CERT'), keyData: b64('KEY') })],
    ['token, basic auth and impersonation', inline({ caData: b64('CA') }, { token: 'abc.def', username: 'u', password: 'p', impersonateUser: 'someone' })],
    ['basic auth alone, without a password', inline({}, { username: 'u' })],
    ['tls-server-name and insecure-skip-tls-verify', inline({ tlsServerName: 'kubernetes', skipTLSVerify: true }, { token: 't' })],
    ['empty data counts as none', inline({ caData: '' }, { certData: '', keyData: '', token: '' })],
    ['http: with insecure-skip-tls-verify', inline({ server: 'http://h:1', skipTLSVerify: true }, { token: 't' })],
    ['http: without it (refused)', inline({ server: 'http://h:1' }, { token: 't' })],
    ['no user for the current context', inline({}, { token: 't' }, 'other')],
  ])('%s', async (_name, k) => {
    expect(ours(k)).toEqual(await clientNode(k));
  });
});
