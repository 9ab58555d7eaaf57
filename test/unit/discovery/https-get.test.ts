import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { httpsGet } from '../../../src/discovery/https-get.js';
import { USER_AGENT } from '../../../src/version.js';

/** discovery's GET against a loopback HTTPS server with a pinned self-signed certificate. */
describe('httpsGet', () => {
  let dir: string;
  let server: https.Server;
  let url: string;
  let caPem: string;
  const seen: Array<{ userAgent: string | undefined; authorization: string | undefined }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-https-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem')], { stdio: 'pipe' });
    caPem = readFileSync(path.join(dir, 'c.pem'), 'utf8');
    server = https.createServer({ key: readFileSync(path.join(dir, 'k.pem')), cert: caPem }, (req, res) => {
      seen.push({ userAgent: req.headers['user-agent'], authorization: req.headers.authorization });
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/namespaces/kube-public/configmaps/cluster-info`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('every request says who sent it (User-Agent tsadm/…), pinned or not', async () => {
    await expect(httpsGet(url, { trust: { kind: 'insecure' }, timeoutMs: 5000 })).resolves.toMatchObject({ status: 200 });
    await expect(httpsGet(url, { trust: { kind: 'ca', pem: caPem }, timeoutMs: 5000, bearerToken: 'abcdef.0123456789abcdef' })).resolves.toMatchObject({ status: 200 });
    expect(seen).toEqual([
      { userAgent: USER_AGENT, authorization: undefined },
      { userAgent: USER_AGENT, authorization: 'Bearer abcdef.0123456789abcdef' },
    ]);
    expect(USER_AGENT).toMatch(/^tsadm\//);
  });
});
