import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWithOracles, oracles } from './oracle.js';

/**
 * A real etcd + kube-apiserver v1.20.2 (optionally a kube-controller-manager) on 127.0.0.1 with
 * random free ports and throwaway certificates, for tests of the API layer against the real
 * thing. Processes are stopped by PID; nothing listens beyond loopback.
 *
 *   const server = await startApiServer();   // undefined when the binaries are not built
 *   ...
 *   await server?.stop();
 */
const KUBE_VERSION = 'v1.20.2';
const CACHE_DIR = process.env.TSADM_CACHE_DIR ?? '/var/cache/tsadm';
export const KUBE_BIN_DIR = path.join(CACHE_DIR, `kubernetes-${KUBE_VERSION}`, 'bin');
const ETCD_BIN = process.env.TSADM_ETCD_BIN ?? '/usr/bin/etcd';

/**
 * A response body as the tests read it: a Kubernetes object or list. Only the fields tests look at
 * are typed; an assertion on a missing one fails as any other mismatch would.
 */
interface ApiObject {
  readonly type?: string;
  readonly metadata: {
    readonly name: string;
    readonly uid: string;
    readonly resourceVersion: string;
    readonly labels: Record<string, string>;
    readonly annotations: Record<string, string>;
    readonly ownerReferences: { kind: string; name: string; uid: string; controller?: boolean }[];
    readonly managedFields?: { manager: string; operation: string }[];
  };
  readonly data: Record<string, string>;
  readonly spec: { readonly template: { readonly spec: { readonly containers: { readonly image: string }[] } }; readonly [field: string]: unknown };
  readonly items: ApiObject[];
  readonly subjects?: unknown;
}

export interface TestApiServer {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly dir: string;
  /** Admin kubeconfig (group system:masters), embedded credentials. */
  readonly adminKubeconfig: string;
  readonly adminKubeconfigPath: string;
  readonly caPem: string;
  readonly caKeyPem: string;
  /** Issues a client certificate signed by the cluster CA, returned as a kubeconfig. */
  clientKubeconfig(cn: string, org?: string): string;
  /** A kubeconfig authenticating with a bearer token (e.g. a bootstrap token). */
  tokenKubeconfig(token: string): string;
  /** A kubeconfig with no credentials (anonymous). */
  anonymousKubeconfig(): string;
  /** Raw HTTPS request; credentials from the given kubeconfig's style: 'admin' | 'anonymous' | bearer token. */
  request(method: string, p: string, opts?: { auth?: 'admin' | 'anonymous' | { token: string }; body?: unknown; contentType?: string }): Promise<{ status: number; body: ApiObject; text: string }>;
  stop(): Promise<void>;
}

/** Creates the Node `name` as its kubelet registers it: with the kubernetes.io/hostname label tsadm waits for. */
export function registerNode(server: TestApiServer, name: string): ReturnType<TestApiServer['request']> {
  return server.request('POST', '/api/v1/nodes', { auth: 'admin', body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } } });
}

export interface StartOptions {
  /** Also run kube-controller-manager with these controllers (e.g. bootstrapsigner,tokencleaner). */
  readonly controllers?: readonly string[];
  /**
   * The CA kube-controller-manager signs with (--cluster-signing-cert-file/-key-file), when not the
   * cluster CA: a CA rotation's new CA at sign-new, while the API server still trusts only the old.
   */
  readonly signingCa?: { readonly certPem: string; readonly keyPem: string };
}

/**
 * `describe` for real-server suites (test/helpers/oracle.ts): runs them when the binaries exist;
 * otherwise one failing test under CI=true, one skipped test elsewhere, named with what is missing.
 */
export function describeWithApiServer(name: string, fn: () => void): void {
  describeWithOracles([oracles.apiServer])(name, fn);
}

/** What kube-apiserver's bootstrap controller creates on its own (pkg/master/controller.go in v1.20). */
const APISERVER_BOOTSTRAP_OBJECTS = [
  '/api/v1/namespaces/kube-system',
  '/api/v1/namespaces/kube-public',
  '/api/v1/namespaces/kube-node-lease',
  '/api/v1/namespaces/default',
  '/api/v1/namespaces/default/services/kubernetes',
] as const;

export async function startApiServer(opts: StartOptions = {}): Promise<TestApiServer> {
  const why = oracles.apiServer.missing();
  if (why !== undefined) throw new Error(why);
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-apiserver-'));
  const procs: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of procs.reverse()) await stopProcess(p);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pki = makePki(dir);
    const [etcdClient, etcdPeer, securePort, kcmPort] = await freePorts(4);
    procs.push(spawnLogged(dir, 'etcd', ETCD_BIN, [
      '--name=default',
      `--data-dir=${path.join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
      '--log-level=warn',
    ]));
    await waitFor(`etcd on ${etcdClient}`, () => httpOk(`http://127.0.0.1:${etcdClient}/health`), 30_000, dir, 'etcd');
    procs.push(spawnLogged(dir, 'kube-apiserver', path.join(KUBE_BIN_DIR, 'kube-apiserver'), [
      '--advertise-address=127.0.0.1',
      '--bind-address=127.0.0.1',
      `--secure-port=${securePort}`,
      '--insecure-port=0',
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      `--client-ca-file=${pki.caCrt}`,
      `--tls-cert-file=${pki.apiserverCrt}`,
      `--tls-private-key-file=${pki.apiserverKey}`,
      `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--service-cluster-ip-range=10.96.0.0/12',
      '--authorization-mode=Node,RBAC',
      '--enable-bootstrap-token-auth=true',
      '--anonymous-auth=true',
      '--enable-admission-plugins=NodeRestriction',
      '--allow-privileged=true',
      `--cert-dir=${path.join(dir, 'apiserver-certs')}`,
      '--endpoint-reconciler-type=none',
      '--v=0',
    ]));
    const url = `https://127.0.0.1:${securePort}`;
    const adminKubeconfig = kubeconfig(url, pki.caPem, { cert: pki.adminCrtPem, key: pki.adminKeyPem }, 'kubernetes-admin');
    const adminKubeconfigPath = path.join(dir, 'admin.conf');
    writeFileSync(adminKubeconfigPath, adminKubeconfig, { mode: 0o600 });
    const request: TestApiServer['request'] = (method, p, o = {}) => httpsJson(url, pki, method, p, o);
    await waitFor('kube-apiserver /healthz', async () => (await request('GET', '/healthz').catch(() => ({ status: 0 }))).status === 200, 90_000, dir, 'kube-apiserver');
    // The apiserver's bootstrap controller creates these in two loops after /healthz is green
    // (system namespaces in one; "default" with the kubernetes Service in the other).
    // Tests that snapshot resourceVersions must start after both, or a loaded machine shows the
    // controller's late creation as a change (CI of 7016935: namespace "default" appeared mid-test).
    for (const object of APISERVER_BOOTSTRAP_OBJECTS) {
      await waitFor(object, async () => (await request('GET', object, { auth: 'admin' })).status === 200, 30_000, dir, 'kube-apiserver');
    }
    if (opts.controllers?.length) {
      const signing = opts.signingCa ? { cert: path.join(dir, 'signing-ca.crt'), key: path.join(dir, 'signing-ca.key') } : { cert: pki.caCrt, key: pki.caKeyPath };
      if (opts.signingCa) {
        writeFileSync(signing.cert, opts.signingCa.certPem);
        writeFileSync(signing.key, opts.signingCa.keyPem, { mode: 0o600 });
      }
      procs.push(spawnLogged(dir, 'kube-controller-manager', path.join(KUBE_BIN_DIR, 'kube-controller-manager'), [
        `--kubeconfig=${adminKubeconfigPath}`,
        `--controllers=${opts.controllers.join(',')}`,
        '--leader-elect=false',
        '--use-service-account-credentials=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        '--port=0',
        `--cluster-signing-cert-file=${signing.cert}`,
        `--cluster-signing-key-file=${signing.key}`,
        `--root-ca-file=${pki.caCrt}`,
        '--v=0',
      ]));
    }
    return {
      url,
      dir,
      adminKubeconfig,
      adminKubeconfigPath,
      caPem: pki.caPem,
      caKeyPem: pki.caKeyPem,
      clientKubeconfig: (cn, org) => {
        const c = issueClientCert(dir, pki, cn, org);
        return kubeconfig(url, pki.caPem, c, cn);
      },
      tokenKubeconfig: (token) => kubeconfig(url, pki.caPem, { token }, 'token-user'),
      anonymousKubeconfig: () => kubeconfig(url, pki.caPem, {}, 'anonymous'),
      request,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface Pki {
  caCrt: string;
  caKeyPath: string;
  caPem: string;
  caKeyPem: string;
  apiserverCrt: string;
  apiserverKey: string;
  saKey: string;
  saPub: string;
  adminCrtPem: string;
  adminKeyPem: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Throwaway PKI with openssl: a CA, the apiserver serving cert (127.0.0.1), an admin client, SA keys. */
function makePki(dir: string): Pki {
  const p = (n: string): string => path.join(dir, n);
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.crt'), '-days', '2', '-subj', '/CN=kubernetes',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign']);
  writeFileSync(p('apiserver.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('apiserver.key'), '-out', p('apiserver.csr'), '-subj', '/CN=kube-apiserver']);
  openssl(dir, ['x509', '-req', '-in', p('apiserver.csr'), '-CA', p('ca.crt'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('apiserver.crt'), '-days', '2', '-extfile', p('apiserver.ext')]);
  openssl(dir, ['genrsa', '-out', p('sa.key'), '2048']);
  openssl(dir, ['rsa', '-in', p('sa.key'), '-pubout', '-out', p('sa.pub')]);
  const pki: Pki = {
    caCrt: p('ca.crt'),
    caKeyPath: p('ca.key'),
    caPem: readFileSync(p('ca.crt'), 'utf8'),
    caKeyPem: readFileSync(p('ca.key'), 'utf8'),
    apiserverCrt: p('apiserver.crt'),
    apiserverKey: p('apiserver.key'),
    saKey: p('sa.key'),
    saPub: p('sa.pub'),
    adminCrtPem: '',
    adminKeyPem: '',
  };
  const admin = issueClientCert(dir, pki, 'kubernetes-admin', 'system:masters');
  pki.adminCrtPem = admin.cert;
  pki.adminKeyPem = admin.key;
  return pki;
}

let serial = 0;
function issueClientCert(dir: string, pki: Pick<Pki, 'caCrt' | 'caKeyPath'>, cn: string, org?: string): { cert: string; key: string } {
  const base = path.join(dir, `client-${++serial}`);
  writeFileSync(`${base}.ext`, 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${cn}${org ? `/O=${org}` : ''}`]);
  openssl(dir, ['x509', '-req', '-in', `${base}.csr`, '-CA', pki.caCrt, '-CAkey', pki.caKeyPath, '-CAcreateserial', '-out', `${base}.crt`, '-days', '2', '-extfile', `${base}.ext`]);
  return { cert: readFileSync(`${base}.crt`, 'utf8'), key: readFileSync(`${base}.key`, 'utf8') };
}

function kubeconfig(server: string, caPem: string, cred: { cert?: string; key?: string; token?: string }, userName: string): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const user: string[] = [];
  if (cred.cert && cred.key) user.push(`    client-certificate-data: ${b64(cred.cert)}`, `    client-key-data: ${b64(cred.key)}`);
  if (cred.token) user.push(`    token: ${cred.token}`);
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(caPem)}`,
    `    server: ${server}`,
    '  name: kubernetes',
    'contexts:',
    '- context:',
    '    cluster: kubernetes',
    `    user: ${userName}`,
    `  name: ${userName}@kubernetes`,
    `current-context: ${userName}@kubernetes`,
    'kind: Config',
    'preferences: {}',
    'users:',
    `- name: ${userName}`,
    '  user:',
    ...(user.length ? user : ['    {}']),
    '',
  ].join('\n').replace('  user:\n    {}', '  user: {}');
}

function httpsJson(
  url: string,
  pki: Pki,
  method: string,
  p: string,
  o: { auth?: 'admin' | 'anonymous' | { token: string }; body?: unknown; contentType?: string },
): Promise<{ status: number; body: ApiObject; text: string }> {
  const auth = o.auth ?? 'anonymous';
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (typeof auth === 'object') headers.Authorization = `Bearer ${auth.token}`;
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
  if (payload) {
    headers['Content-Type'] = o.contentType ?? 'application/json';
    headers['Content-Length'] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}${p}`, {
      method,
      headers,
      ca: pki.caPem,
      ...(auth === 'admin' ? { cert: pki.adminCrtPem, key: pki.adminKeyPem } : {}),
      agent: false,
      timeout: 10_000,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: body as ApiObject, text }); // not checked: tests assert on it
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    if (payload) req.write(payload);
    req.end();
  });
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = (url.startsWith('https') ? https : http).get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, dir: string, logName: string): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  let tail = '';
  try {
    tail = readFileSync(path.join(dir, `${logName}.log`), 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    // no log
  }
  throw new Error(`timed out waiting for ${what}\n${tail}`);
}

function spawnLogged(dir: string, name: string, bin: string, args: string[]): ChildProcess {
  const fd = openSync(path.join(dir, `${name}.log`), 'a');
  const child = spawn(bin, args, { cwd: dir, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.on('error', () => undefined);
  return child;
}

/** SIGTERM, then SIGKILL after 5 s; by PID only. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }, 5000);
  await exited;
  clearTimeout(timer);
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => new Promise<net.Server>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}
