import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { openssl } from '../../helpers/pki-test-utils.js';
import { events, runCli } from '../../helpers/run-cli.js';

test('an --interval under one second is a usage error (exit 3), said in one line', async () => {
  const r = await runCli(['certs', 'approve-kubelet-serving', '--watch', '--interval', '500ms', '--kubeconfig', '/nonexistent/admin.conf']);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('error: --interval "500ms" is not a duration of at least 1s');
});

test('a missing kubeconfig is a one-line error naming it', async () => {
  const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', '/nonexistent/admin.conf']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("couldn't read the kubeconfig /nonexistent/admin.conf");
});

/** The command end to end in-process against a real kube-apiserver v1.20.2; its stored conditions are the oracle. */
describeWithApiServer('tsadm certs approve-kubelet-serving on a real API server', () => {
  let server: TestApiServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-csr-cli-'));
    server = await startApiServer();
    expect((await server.request('POST', '/api/v1/nodes', { auth: 'admin', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } } })).status).toBe(201);
    expect((await server.request('PATCH', '/api/v1/nodes/w1/status', {
      auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.11' }] } },
    })).status).toBe(200);
    // Created by the admin in w1's name: the requester is not the node, so it must be denied.
    const key = path.join(dir, 'k.key');
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    const pem = openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', 'subjectAltName=IP:10.0.0.11']);
    const created = await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      auth: 'admin',
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'not-from-w1' }, spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] } },
    });
    expect(created.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test('-o json: a pure event stream ending in the result; the API server holds the Denied condition', async () => {
    const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(r.code).toBe(0);
    const all = events(r.stdout);
    const result = all[all.length - 1];
    expect(result).toMatchObject({ type: 'result', command: 'certs approve-kubelet-serving', ok: true, data: { approved: [], denied: [{ csr: 'not-from-w1', reason: 'RequesterNotNode' }], dryRun: false } });
    expect(all).toContainEqual(expect.objectContaining({ type: 'object', action: 'updated', kind: 'CertificateSigningRequest', name: 'not-from-w1' }));
    const stored = await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/not-from-w1', { auth: 'admin' });
    expect((stored.body as unknown as { status: { conditions: { type: string; reason: string }[] } }).status.conditions).toMatchObject([{ type: 'Denied', reason: 'RequesterNotNode' }]);
  }, 60_000);
});
