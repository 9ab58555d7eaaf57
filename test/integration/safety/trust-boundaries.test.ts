/**
 * Issue 27, finding 2 through the built CLI, against a real HTTPS server on 127.0.0.1: a
 * discovery file may hand the joining machine's files to the server it names. The positive
 * control proves the server does see a discovery file's credential when the file carries it
 * inline (that is what the file is for); a file that names a local file instead is refused with
 * one error, and the server sees no request at all, so no byte of the local secret leaves.
 * (The other findings' CLI reproductions are corpus cases, test/fixtures/hostile/cases/trust-*.)
 */
import { jest } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeBuilt, scratchDir, tsadm, type Scratch } from '../../helpers/built-cli.js';
import { clusterInfoKubeconfig, issue, makeCA, startFakeApiServer, type FakeApiServer, type TestCA } from '../../helpers/tls-fixtures.js';

jest.setTimeout(120_000);

const SECRET = 'local-secret-0f3a9c-of-this-machine';
const INLINE = 'abcdef.0123456789abcdef';

describeBuilt('issue 27: a discovery file cannot send local files to its server', () => {
  let ca: TestCA;
  let server: FakeApiServer;
  let work: Scratch;
  beforeAll(async () => {
    ca = await makeCA('kubernetes');
    server = await startFakeApiServer(await issue(ca, 'kube-apiserver', { ips: ['127.0.0.1'] }));
    server.data = { kubeconfig: clusterInfoKubeconfig(server.url, ca.pem) };
    work = scratchDir('tsadm-trust-');
  });
  afterAll(async () => {
    await server.close();
    work.cleanup();
  });

  function discoveryFile(name: string, user: string): string {
    const file = path.join(work.dir, name);
    writeFileSync(file, [
      'apiVersion: v1', 'kind: Config',
      'clusters:', `- name: k`, '  cluster:', `    server: ${server.url}`, `    certificate-authority-data: ${Buffer.from(ca.pem).toString('base64')}`,
      'users:', '- name: joiner', '  user:', `    ${user}`,
      'contexts:', '- name: c', '  context: {cluster: k, user: joiner}', 'current-context: c', '',
    ].join('\n'));
    return file;
  }

  async function join(file: string): Promise<{ code: number | null; stderr: string }> {
    const root = path.join(work.dir, `root-${path.basename(file)}`);
    mkdirSync(root);
    const r = await tsadm(['join', '--discovery-file', file, '--dry-run', '--rootfs', root, '--ignore-preflight-errors', 'all'], { timeoutMs: 90_000 });
    if (process.env.SAFETY_DEBUG) process.stdout.write(`${r.stdout}\n${r.stderr}\n`);
    return { code: r.code, stderr: r.stderr };
  }

  test('positive control: an inline token is what the file is for, and the server sees it', async () => {
    server.requests.length = 0;
    await join(discoveryFile('inline.conf', `token: ${INLINE}`));
    expect(server.requests.some((r) => r.authorization === `Bearer ${INLINE}`)).toBe(true);
  });

  test('a tokenFile naming a local secret: one clear error, and no request reaches the server', async () => {
    const secret = path.join(work.dir, 'secret');
    writeFileSync(secret, SECRET);
    server.requests.length = 0;
    const r = await join(discoveryFile('token-file.conf', `tokenFile: ${secret}`));
    // First what matters: no credential, and no request at all, reached the server.
    expect(server.requests.map((q) => q.authorization ?? '')).not.toContain(`Bearer ${SECRET}`);
    expect(server.requests).toEqual([]);
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([expect.stringMatching(/the discovery file .*token-file\.conf: user "joiner" tokenFile names a local file/)]);
  });
});
