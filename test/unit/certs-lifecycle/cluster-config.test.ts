/**
 * `certs check-expiration` and `certs renew` read the cluster's ClusterConfiguration through
 * --kubeconfig when there is no --config (kubeadm's getInternalCfg), against a real
 * kube-apiserver v1.20.2 holding a kubeadm-config ConfigMap; the reference kubeadm v1.20.2 is
 * the oracle of the lines printed when the cluster cannot be read.
 */
import { jest } from '@jest/globals';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { kubeadm, parseExpirationTable, runCli, tsadmPki } from '../../helpers/certs-lifecycle.js';
import { haveOracles, oracles } from '../../helpers/oracle.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

jest.setTimeout(120_000);

const CLUSTER_CONFIGURATION = [
  'apiVersion: kubeadm.k8s.io/v1beta2',
  'kind: ClusterConfiguration',
  'kubernetesVersion: v1.20.2',
  'certificatesDir: /srv/pki',
  'etcd:',
  '  external:',
  '    endpoints: [https://10.0.0.9:2379]',
  '    caFile: /srv/etcd/ca.crt',
  '    certFile: /srv/etcd/client.crt',
  '    keyFile: /srv/etcd/client.key',
  '',
].join('\n');

const READING = [
  '[check-expiration] Reading configuration from the cluster...',
  "[check-expiration] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'",
];

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describeWithApiServer('certs commands read the ClusterConfiguration through --kubeconfig', () => {
  let server: TestApiServer;
  let root: TempRoot;

  beforeAll(async () => {
    server = await startApiServer();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system' }, data: { ClusterConfiguration: CLUSTER_CONFIGURATION } };
    const r = await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', { auth: 'admin', body: cm });
    expect(r.status).toBe(201);
    root = tempRoot();
    await tsadmPki(root);
    // The PKI lives where the cluster's configuration says, not at the default.
    mkdirSync(root.at('/srv'), { recursive: true });
    renameSync(root.at('/etc/kubernetes/pki'), root.at('/srv/pki'));
    writeFileSync(root.at('/srv/cluster.conf'), server.adminKubeconfig);
    const down = server.adminKubeconfig.replace(/server: https:\/\/127\.0\.0\.1:\d+/, `server: https://127.0.0.1:${await closedPort()}`);
    writeFileSync(root.at('/srv/down.conf'), down);
  });
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  test('check-expiration: certificatesDir and external etcd come from kubeadm-config, after kubeadm\'s two lines and an empty line', async () => {
    const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/cluster.conf']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([...READING, '']);
    const table = parseExpirationTable(lines.slice(3).join('\n'));
    const names = table.certificates.map((c) => c.name);
    expect(table.certificates.find((c) => c.name === 'apiserver')?.missing).toBe(false);
    expect(table.cas.find((c) => c.name === 'ca')?.missing).toBe(false);
    // external etcd: kubeadm does not manage the etcd certificates
    expect(names).not.toContain('etcd-server');
    expect(names).not.toContain('apiserver-etcd-client');
  });

  test('--cert-dir wins over the cluster\'s certificatesDir', async () => {
    const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/cluster.conf', '--cert-dir', '/etc/kubernetes/pki']);
    expect(r.code).toBe(0);
    const table = parseExpirationTable(r.stdout.split('\n').slice(3).join('\n'));
    expect(table.certificates.find((c) => c.name === 'apiserver')?.missing).toBe(true);
  });

  test('--config wins: the cluster is not read (no lines), the file\'s configuration is used', async () => {
    writeFileSync(root.at('/defaults.yaml'), 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n');
    const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/cluster.conf', '--config', root.at('/defaults.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Reading configuration from the cluster');
    const table = parseExpirationTable(r.stdout);
    expect(table.certificates.find((c) => c.name === 'apiserver')?.missing).toBe(true);
    expect(table.certificates.map((c) => c.name)).toContain('etcd-server');
  });

  test('-o yaml: no lines before the document (kubeadm\'s structured printers are silent)', async () => {
    const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/cluster.conf', '-o', 'yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Reading configuration');
    expect(r.stdout).toMatch(/^apiVersion: /);
  });

  test('an API server that does not answer: kubeadm\'s fallback lines, then the defaults (same lines as kubeadm v1.20.2)', async () => {
    const start = Date.now();
    const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/down.conf']);
    expect(Date.now() - start).toBeLessThan(20_000);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const fallback = '[check-expiration] Error reading configuration from the Cluster. Falling back to default configuration';
    expect(lines.slice(0, 4)).toEqual([...READING, fallback, '']);
    // defaults: /etc/kubernetes/pki, which is empty here
    expect(parseExpirationTable(lines.slice(4).join('\n')).certificates.find((c) => c.name === 'apiserver')?.missing).toBe(true);
    if (haveOracles([oracles.kubeadm])) {
      const k = kubeadm(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/down.conf']);
      expect(k.stdout.split('\n').slice(0, 4)).toEqual(lines.slice(0, 4));
    }
  });

  test('no kubeconfig file: no client, the defaults without a word (as kubeadm)', async () => {
    const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--kubeconfig', '/srv/none.conf']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^CERTIFICATE\s/);
  });

  test('renew reads the same configuration: the certificate under the cluster\'s certificatesDir is renewed', async () => {
    const r = await runCli(['certs', 'renew', 'apiserver', '--dry-run', '--rootfs', root.dir, '--kubeconfig', '/srv/cluster.conf']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '[renew] Reading configuration from the cluster...',
      "[renew] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'",
      '',
    ]);
    expect(r.stdout).toContain('[renew] certificate for serving the Kubernetes API would be renewed');
    expect(r.stdout).toContain('/srv/pki/apiserver.crt');
  });
});
