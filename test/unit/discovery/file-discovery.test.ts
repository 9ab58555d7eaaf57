/** File discovery (--discovery-file): a kubeconfig trusted as given, refreshed from cluster-info over TLS pinned to its CA. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TsadmError } from '../../../src/errors.js';
import { discover } from '../../../src/discovery/discover.js';
import { discoverByFile } from '../../../src/discovery/file-discovery.js';
import type { Discovery } from '../../../src/config/types.js';
import { clusterInfoKubeconfig, issue, makeCA, startFakeApiServer, type FakeApiServer, type TestCA, type TestPair } from '../../helpers/tls-fixtures.js';

const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };
let ca: TestCA;
let other: TestCA;
let serving: TestPair;
let dir: string;
const servers: FakeApiServer[] = [];

beforeAll(async () => {
  ca = await makeCA('kubernetes');
  other = await makeCA('other');
  serving = await issue(ca, 'kube-apiserver');
  dir = mkdtempSync(path.join(tmpdir(), 'tsadm-discovery-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

async function server(): Promise<FakeApiServer> {
  const s = await startFakeApiServer(serving);
  servers.push(s);
  return s;
}

function discoveryFile(name: string, server: string, caPem: string, user?: Record<string, string>): string {
  const lines = [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    `    server: ${server}`,
    '  name: kubernetes',
    'contexts:',
    '- context:',
    '    cluster: kubernetes',
    ...(user ? ['    user: joiner'] : []),
    '  name: joiner@kubernetes',
    'current-context: joiner@kubernetes',
    'kind: Config',
    ...(user ? ['users:', '- name: joiner', '  user:', ...Object.entries(user).map(([k, v]) => `    ${k}: ${v}`)] : ['users: []']),
  ];
  const p = path.join(dir, name);
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

const fileDiscovery = (p: string, tls = ''): Discovery => ({ file: { kubeConfigPath: p }, tlsBootstrapToken: tls, timeoutMs: 3000 });

test('the file names cluster and credentials; the server is refreshed from cluster-info over pinned TLS', async () => {
  const s = await server();
  s.data = { kubeconfig: clusterInfoKubeconfig('https://127.0.0.1:6443', ca.pem) };
  const p = discoveryFile('with-token.yaml', s.url, ca.pem, { token: 'abcdef.0123456789abcdef' });
  const d = await discover(fileDiscovery(p), { log: silent, pollIntervalMs: 50 });
  expect(d).toMatchObject({ method: 'file', server: 'https://127.0.0.1:6443', caPem: ca.pem, auth: { kind: 'token', token: 'abcdef.0123456789abcdef' }, userName: 'joiner' });
  // The refresh is anonymous: the file's credentials stay on this machine until the TLS bootstrap.
  expect(s.requests.every((r) => r.authorization === undefined)).toBe(true);
});

test('cluster-info forbidden to anonymous clients: the file is used as is (kubeadm proceeds the same way)', async () => {
  const s = await server();
  s.status = 403;
  const warnings: string[] = [];
  const p = discoveryFile('forbidden.yaml', s.url, ca.pem);
  const d = await discoverByFile({ location: p, timeoutMs: 3000 }, { log: { ...silent, warn: (m: string) => warnings.push(m) } });
  expect(d.server).toBe(s.url);
  expect(d.auth).toBeUndefined();
  expect(warnings.join()).toContain('Could not access the cluster-info ConfigMap');
});

test('a --tls-bootstrap-token wins over the file; without any credentials discovery fails clearly', async () => {
  const s = await server();
  s.status = 403;
  const p = discoveryFile('no-user.yaml', s.url, ca.pem);
  await expect(discover(fileDiscovery(p, 'abcdef.0123456789abcdef'), { log: silent })).resolves.toMatchObject({ auth: { kind: 'token', token: 'abcdef.0123456789abcdef' }, userName: 'tls-bootstrap-token-user' });
  await expect(discover(fileDiscovery(p), { log: silent })).rejects.toThrow("couldn't find authentication credentials for the TLS bootstrap process");
});

test('a file whose CA does not vouch for the server fails at once, without sending anything', async () => {
  const s = await server();
  s.data = { kubeconfig: clusterInfoKubeconfig(s.url, ca.pem) };
  const p = discoveryFile('wrong-ca.yaml', s.url, other.pem, { token: 'abcdef.0123456789abcdef' });
  const started = Date.now();
  const err = await discover(fileDiscovery(p), { log: silent }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TsadmError);
  expect((err as TsadmError).code).toBe('E_TRUST');
  expect((err as TsadmError).message).toContain('does not present a certificate signed by the CA in the discovery file');
  expect(Date.now() - started).toBeLessThan(2000);
  expect(s.requests).toHaveLength(0);
});

test('missing file, unsupported scheme and https URLs the system does not trust are clear errors', async () => {
  await expect(discoverByFile({ location: path.join(dir, 'nope.yaml'), timeoutMs: 1000 }, { log: silent })).rejects.toThrow(/couldn't read the discovery file/);
  await expect(discoverByFile({ location: 'http://127.0.0.1:1/x', timeoutMs: 1000 }, { log: silent })).rejects.toThrow(/only local paths and https:\/\/ URLs/);
  const s = await server();
  await expect(discoverByFile({ location: `${s.url}/discovery.yaml`, timeoutMs: 1000 }, { log: silent })).rejects.toThrow(/couldn't fetch the discovery file/);
});

describe('issue 27: a discovery file names no local file and no program', () => {
  // Each field kubeadm would read (or client-go would run) on the joining machine, refused by name.
  const cases: Array<[string, (secret: string) => Record<string, string>, RegExp]> = [
    ['tokenFile', (secret) => ({ tokenFile: secret }), /user "joiner" tokenFile names a local file/],
    ['token-file', (secret) => ({ 'token-file': secret }), /user "joiner" token-file names a local file/],
    ['client-certificate', (secret) => ({ 'client-certificate': secret, 'client-key-data': 'eA==' }), /user "joiner" client-certificate names a local file/],
    ['client-key', (secret) => ({ 'client-certificate-data': 'eA==', 'client-key': secret }), /user "joiner" client-key names a local file/],
    ['exec', (secret) => ({ exec: `{apiVersion: client.authentication.k8s.io/v1beta1, command: /bin/cat, args: [${secret}]}` }), /user "joiner" exec runs a credential plugin/],
    ['auth-provider', (secret) => ({ 'auth-provider': `{name: gcp, config: {cmd-path: /bin/cat, cmd-args: ${secret}}}` }), /user "joiner" auth-provider uses an auth-provider plugin/],
  ];
  test.each(cases)('%s: refused before anything is read or sent; the server sees no request and no credential', async (_field, user, message) => {
    const s = await server();
    s.data = { kubeconfig: clusterInfoKubeconfig(s.url, ca.pem) };
    const secret = path.join(dir, 'local-secret');
    writeFileSync(secret, 'SECRET-CONTENT-OF-THIS-MACHINE');
    const p = discoveryFile(`refused-${_field}.yaml`, s.url, ca.pem, user(secret));
    const err = await discover(fileDiscovery(p), { log: silent, pollIntervalMs: 50 }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as TsadmError).code).toBe('E_TRUST');
    expect((err as TsadmError).message).toMatch(message);
    expect((err as TsadmError).message).toContain(`the discovery file ${p}:`);
    expect(s.requests).toEqual([]);
  });

  test('a CA given as a path is refused too (kubeadm reads and embeds it)', async () => {
    const s = await server();
    const caFile = path.join(dir, 'ca.crt');
    writeFileSync(caFile, ca.pem);
    const p = path.join(dir, 'ca-path.yaml');
    writeFileSync(p, `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster: {server: '${s.url}', certificate-authority: ${caFile}}\ncontexts:\n- name: c\n  context: {cluster: k}\ncurrent-context: c\n`);
    await expect(discoverByFile({ location: p, timeoutMs: 3000 }, { log: silent })).rejects.toThrow('cluster "k" certificate-authority names a local file; a discovery file must embed its CA as certificate-authority-data');
    expect(s.requests).toEqual([]);
  });
});
