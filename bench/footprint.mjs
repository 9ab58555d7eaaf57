#!/usr/bin/env node
// Issue 39, "Footprint": peak RSS (getrusage of the child, as /usr/bin/time's %M) and CPU time
// (user+sys) of tsadm's commands, which a loaded machine disturbs far less than wall time.
//   node bench/footprint.mjs [--runs N] [--exe PATH] [--no-join]
// --exe measures another tsadm (e.g. dist/tsadm, the single executable); default `node bin/tsadm`
// (needs `npm run build`). Cases:
//   node -e 0                 the floor of the runtime itself
//   version                   the launcher's fast path
//   init (local)              init of a v1.20.2 control plane into a --rootfs temp dir, every phase
//                             that needs a cluster or a kubelet skipped (certs, kubeconfigs,
//                             manifests, kubelet files: 14 RSA keys)
//   join --dry-run            against a real kube-apiserver v1.20.2 + etcd + kube-controller-manager
//                             (bootstrapsigner) on loopback, as test/helpers/apiserver.ts starts them:
//                             token discovery, the pinned CA, the cluster's configuration read
//   join (worker, --rootfs)   the same join for real into a temp root, preflight skipped; the
//                             service manager is a stub and this script plays the kubelet (as
//                             test/unit/workflows/join.test.ts does): once bootstrap-kubelet.conf
//                             appears it writes kubelet.conf and registers the Node
// The API server needs $TSADM_CACHE_DIR/kubernetes-v1.20.2/bin (scripts/e2e/provision.sh), the
// host's etcd and openssl; without them the join cases are left out, with the reason printed.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lib/net.mjs';
import { median } from './lib/stats.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', '3'));
const EXE = opt('--exe', undefined);
const TSADM = EXE ? [path.resolve(EXE)] : [process.execPath, path.join(REPO, 'bin/tsadm')];
const CACHE = process.env.TSADM_CACHE_DIR || '/var/cache/tsadm';
const KUBE_BIN = path.join(CACHE, 'kubernetes-v1.20.2', 'bin');
const ETCD = process.env.TSADM_ETCD_BIN ?? '/usr/bin/etcd';
const TOKEN = 'abcdef.0123456789abcdef';
const SKIP_INIT = 'preflight,wait-for-kubelet,wait-control-plane,upload-config,upload-certs,mark-control-plane,bootstrap-token,kubelet-finalize,addon,show-join-command';
// The node-local init the crash sweeps use (test/integration/safety/crash-support.ts).
const INIT_CONFIG = readFileSync(new URL('../test/fixtures/config/node-local-init-v1.20.yaml', import.meta.url), 'utf8');

const work = mkdtempSync(path.join(tmpdir(), 'tsadm-footprint-'));
const procs = [];

/** Runs one command; resolves with its peak RSS (MB, the child's ru_maxrss) and CPU (s). */
function measure(cmd, argv, env = {}) {
  return new Promise((resolve, reject) => {
    // /usr/bin/time reports the child alone: %M peak RSS in KB, %U/%S its CPU.
    const child = spawn('/usr/bin/time', ['-f', 'FOOTPRINT %M %U %S', cmd, ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      const m = /FOOTPRINT (\d+) ([\d.]+) ([\d.]+)/.exec(err);
      if (code !== 0 || !m) return reject(new Error(`${cmd} ${argv.join(' ')} failed (exit ${code}):\n${out}\n${err}`));
      resolve({ rssMb: Number(m[1]) / 1024, cpuS: Number(m[2]) + Number(m[3]) });
    });
  });
}

const tsadm = (argv, env) => measure(TSADM[0], [...TSADM.slice(1), ...argv], env);

async function runCase(name, fn) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn(i));
  const row = { name, runs: runs.length, rssMb: median(runs.map((r) => r.rssMb)), rssMax: Math.max(...runs.map((r) => r.rssMb)), cpuS: median(runs.map((r) => r.cpuS)) };
  process.stdout.write(`| ${name} | ${row.runs} | ${row.rssMb.toFixed(1)} | ${row.rssMax.toFixed(1)} | ${row.cpuS.toFixed(2)} |\n`);
  return row;
}

// --- a real API server (the setup of test/helpers/apiserver.ts, in plain JavaScript) ---

const openssl = (dir, argv) => execFileSync('openssl', argv, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

function start(name, bin, argv) {
  const p = spawn(bin, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  p.stderr.on('data', (d) => (log = (log + d).slice(-4000)));
  p.logTail = () => log;
  p.label = name;
  procs.push(p);
  return p;
}

async function waitFor(what, check, ms, proc) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready within ${ms / 1000}s${proc ? `:\n${proc.logTail()}` : ''}`);
}

function clientCert(dir, cn, org) {
  const base = path.join(dir, `client-${cn.replace(/[^a-z0-9]/gi, '_')}`);
  writeFileSync(`${base}.ext`, 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${cn}${org ? `/O=${org}` : ''}`]);
  openssl(dir, ['x509', '-req', '-in', `${base}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${base}.crt`, '-days', '2', '-extfile', `${base}.ext`]);
  return { cert: readFileSync(`${base}.crt`, 'utf8'), key: readFileSync(`${base}.key`, 'utf8') };
}

function kubeconfig(url, caPem, cred, user) {
  const b64 = (s) => Buffer.from(s).toString('base64');
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${b64(caPem)}
    server: ${url}
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: ${user}
  name: ${user}@kubernetes
current-context: ${user}@kubernetes
kind: Config
preferences: {}
users:
- name: ${user}
  user:
    client-certificate-data: ${b64(cred.cert)}
    client-key-data: ${b64(cred.key)}
`;
}

function missingForApiServer() {
  for (const f of [path.join(KUBE_BIN, 'kube-apiserver'), path.join(KUBE_BIN, 'kube-controller-manager'), ETCD]) if (!existsSync(f)) return `${f} missing (scripts/e2e/provision.sh)`;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    return 'openssl missing';
  }
  return undefined;
}

async function startApiServer() {
  const dir = path.join(work, 'apiserver');
  mkdirSync(dir);
  const p = (n) => path.join(dir, n);
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=kubernetes',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign']);
  writeFileSync(p('apiserver.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver']);
  openssl(dir, ['x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'apiserver.crt', '-days', '2', '-extfile', 'apiserver.ext']);
  openssl(dir, ['genrsa', '-out', 'sa.key', '2048']);
  openssl(dir, ['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  const caPem = readFileSync(p('ca.crt'), 'utf8');
  const admin = clientCert(dir, 'kubernetes-admin', 'system:masters');
  const [etcdClient, etcdPeer, port, kcmPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const etcd = start('etcd', ETCD, ['--name=default', `--data-dir=${p('etcd')}`, `--listen-client-urls=http://127.0.0.1:${etcdClient}`, `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`, `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`, '--log-level=warn']);
  await waitFor('etcd', () => new Promise((res) => http.get(`http://127.0.0.1:${etcdClient}/health`, (r) => res(r.statusCode === 200)).on('error', () => res(false))), 60_000, etcd);
  const apiserver = start('kube-apiserver', path.join(KUBE_BIN, 'kube-apiserver'), ['--advertise-address=127.0.0.1', '--bind-address=127.0.0.1', `--secure-port=${port}`, '--insecure-port=0',
    `--etcd-servers=http://127.0.0.1:${etcdClient}`, `--client-ca-file=${p('ca.crt')}`, `--tls-cert-file=${p('apiserver.crt')}`, `--tls-private-key-file=${p('apiserver.key')}`,
    `--service-account-key-file=${p('sa.pub')}`, `--service-account-signing-key-file=${p('sa.key')}`, '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.96.0.0/12', '--authorization-mode=Node,RBAC', '--enable-bootstrap-token-auth=true', '--anonymous-auth=true',
    '--enable-admission-plugins=NodeRestriction', `--cert-dir=${p('apiserver-certs')}`, '--endpoint-reconciler-type=none', '--v=0']);
  const url = `https://127.0.0.1:${port}`;
  const request = (method, urlPath, body) => new Promise((res, rej) => {
    const req = https.request(`${url}${urlPath}`, { method, ca: caPem, cert: admin.cert, key: admin.key, headers: { 'content-type': 'application/json' } }, (r) => {
      let text = '';
      r.on('data', (d) => (text += d));
      r.on('end', () => res({ status: r.statusCode, text }));
    });
    req.on('error', rej);
    req.end(body ? JSON.stringify(body) : undefined);
  });
  await waitFor('kube-apiserver', async () => (await request('GET', '/healthz')).status === 200, 120_000, apiserver);
  await waitFor('namespace kube-public', async () => (await request('GET', '/api/v1/namespaces/kube-public')).status === 200, 60_000, apiserver);
  writeFileSync(p('admin.conf'), kubeconfig(url, caPem, admin, 'kubernetes-admin'), { mode: 0o600 });
  start('kube-controller-manager', path.join(KUBE_BIN, 'kube-controller-manager'), [`--kubeconfig=${p('admin.conf')}`, '--controllers=bootstrapsigner', '--leader-elect=false',
    '--use-service-account-credentials=false', '--bind-address=127.0.0.1', `--secure-port=${kcmPort}`, '--port=0', '--v=0']);
  return { dir, url, caPem, request, adminConf: readFileSync(p('admin.conf'), 'utf8') };
}

/** The cluster side of a kubeadm control plane as join needs it, made by tsadm's own init phases. */
async function prepareCluster(server, env) {
  const cp = path.join(work, 'cp-root');
  mkdirSync(path.join(cp, 'etc/kubernetes/pki'), { recursive: true });
  writeFileSync(path.join(cp, 'etc/kubernetes/admin.conf'), server.adminConf, { mode: 0o600 });
  writeFileSync(path.join(cp, 'etc/kubernetes/pki/ca.crt'), server.caPem);
  const config = path.join(work, 'cp.yaml');
  writeFileSync(config, INIT_CONFIG.replace('kind: InitConfiguration\n', `kind: InitConfiguration\nbootstrapTokens:\n- token: ${TOKEN}\n`)
    .replace('kubernetesVersion: v1.20.2\n', `kubernetesVersion: v1.20.2\ncontrolPlaneEndpoint: ${server.url.replace('https://', '')}\n`));
  // kubelet-start writes the kubelet configuration upload-config kubelet uploads, which also
  // annotates the control plane's Node: registered here, as its kubelet would.
  await server.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } });
  for (const phase of [['kubelet-start'], ['bootstrap-token'], ['upload-config', 'all']]) {
    const argv = [...TSADM.slice(1), 'init', 'phase', ...phase, '--config', config, '--rootfs', cp];
    try {
      execFileSync(TSADM[0], argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env }, encoding: 'utf8' });
    } catch (err) {
      throw new Error(`tsadm ${argv.slice(TSADM.length - 1).join(' ')} failed: ${err.stderr}`, { cause: err });
    }
  }
  // cluster-info is signed by the controller-manager's bootstrapsigner, shortly after.
  await waitFor('signed cluster-info', async () => (await server.request('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info')).text.includes('jws-kubeconfig-'), 60_000);
  const der = execFileSync('openssl', ['x509', '-in', path.join(server.dir, 'ca.crt'), '-pubkey', '-noout']);
  const spki = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: der });
  const { createHash } = await import('node:crypto');
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** Plays the kubelet of ROOT: kubelet.conf once bootstrap-kubelet.conf is there, then the Node. */
function standInKubelet(server, root, nodeName) {
  let stopped = false;
  const done = (async () => {
    const bootstrap = path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf');
    while (!stopped && !existsSync(bootstrap)) await new Promise((r) => setTimeout(r, 50));
    if (stopped) return;
    const cred = clientCert(server.dir, `system:node:${nodeName}`, 'system:nodes');
    writeFileSync(path.join(root, 'etc/kubernetes/kubelet.conf'), kubeconfig(server.url, server.caPem, cred, `system:node:${nodeName}`), { mode: 0o600 });
    await server.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } });
  })();
  return { stop: () => { stopped = true; return done; } };
}

async function stopAll() {
  for (const p of procs.reverse()) {
    if (p.exitCode !== null) continue;
    p.kill('SIGTERM');
    await Promise.race([new Promise((r) => p.once('exit', r)), new Promise((r) => setTimeout(r, 10_000))]);
    if (p.exitCode === null) p.kill('SIGKILL');
  }
}

try {
  process.stdout.write(`tsadm: ${TSADM.join(' ')}; ${RUNS} run(s) per case; medians (peak RSS also max)\n\n`);
  process.stdout.write('| case | runs | peak RSS MB | max MB | CPU s |\n| --- | --- | --- | --- | --- |\n');
  writeFileSync(path.join(work, 'init.yaml'), INIT_CONFIG);
  await runCase('node -e 0', () => measure(process.execPath, ['-e', '0']));
  await runCase('version', () => tsadm(['version']));
  await runCase('init (local, --rootfs)', (i) => {
    const root = path.join(work, `init-${i}`);
    mkdirSync(root);
    return tsadm(['init', '--config', path.join(work, 'init.yaml'), '--rootfs', root, '--skip-phases', SKIP_INIT]);
  });
  const why = args.includes('--no-join') ? '--no-join' : missingForApiServer();
  if (why) {
    process.stdout.write(`\njoin cases left out: ${why}\n`);
  } else {
    // The service manager seam's stub: every call succeeds and the kubelet counts as inactive.
    const stub = path.join(work, 'service-manager');
    writeFileSync(stub, '#!/bin/sh\n[ "$1" = is-active ] && exit 3\nexit 0\n', { mode: 0o755 });
    const env = { TSADM_SERVICE_MANAGER: stub };
    const server = await startApiServer();
    const pin = await prepareCluster(server, env);
    const endpoint = server.url.replace('https://', '');
    const joinArgs = (root, name) => ['join', endpoint, '--token', TOKEN, '--discovery-token-ca-cert-hash', pin, '--cri-socket', '/run/containerd/containerd.sock',
      '--node-name', name, '--rootfs', root, '--ignore-preflight-errors', 'all', '--skip-phases', 'preflight'];
    await runCase('join --dry-run (real API server)', (i) => {
      const root = path.join(work, `dry-${i}`);
      mkdirSync(root);
      return tsadm([...joinArgs(root, `dry-${i}`), '--dry-run'], env);
    });
    await runCase('join (worker, --rootfs, stand-in kubelet)', async (i) => {
      const root = path.join(work, `join-${i}`);
      mkdirSync(root);
      const kubelet = standInKubelet(server, root, `w-${i}`);
      try {
        return await tsadm(joinArgs(root, `w-${i}`), env);
      } finally {
        await kubelet.stop();
      }
    });
  }
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}
