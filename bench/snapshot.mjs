// `npm run bench -- --only snapshot` (issue 30): `tsadm etcd snapshot save` against
// `etcdctl snapshot save` on the same real etcd (the host's etcd 3.4, mutual TLS on loopback,
// a throwaway openssl CA), holding SNAPSHOT_KEYS keys of 4 KiB (about 40 MiB of database).
// Runs alternate tsadm/etcdctl (order swapped each pair); reported are the medians and the
// median of the per-pair ratios tsadm/etcdctl. Both write to the same temp directory; both
// verify nothing beyond their own defaults (etcdctl checks the hash while saving; tsadm checks the
// SHA-256 and the bbolt magic as the bytes arrive).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { check, timed, timePrefix } from './lib/exec.mjs';
import { freePort } from './lib/net.mjs';
import { median, pairedRatio } from './lib/stats.mjs';

const ETCD = process.env.TSADM_ETCD_BIN ?? '/usr/bin/etcd';
const ETCDCTL = path.join(path.dirname(ETCD), 'etcdctl');
// TSADM_BENCH_SNAPSHOT_KEYS: a larger database, to see the ratio once start-up is a small part of it.
const SNAPSHOT_KEYS = Number.parseInt(process.env.TSADM_BENCH_SNAPSHOT_KEYS ?? '', 10) || 10_000;

function pki(dir) {
  const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=etcd-ca');
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  for (const [name, cn] of [['server', 'etcd'], ['client', 'kube-etcd-healthcheck-client']]) {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '1', '-extfile', 'san.ext');
  }
}

async function fill(endpoint, dir, log) {
  const tls = { ca: readFileSync(path.join(dir, 'ca.crt')), cert: readFileSync(path.join(dir, 'client.crt')), key: readFileSync(path.join(dir, 'client.key')) };
  const agent = new https.Agent({ ...tls, keepAlive: true, maxSockets: 16 });
  const value = Buffer.alloc(4096, 'v').toString('base64');
  const put = (i) => new Promise((resolve, reject) => {
    const body = JSON.stringify({ key: Buffer.from(`bench/${i}`).toString('base64'), value });
    const req = https.request(`${endpoint}/v3/kv/put`, { method: 'POST', agent, headers: { 'Content-Type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`put: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  for (let i = 0; i < SNAPSHOT_KEYS; i += 64) await Promise.all(Array.from({ length: Math.min(64, SNAPSHOT_KEYS - i) }, (_, j) => put(i + j)));
  agent.destroy();
  log(`snapshot: etcd filled with ${SNAPSHOT_KEYS} keys of 4 KiB`);
}

async function waitUp(endpoint, dir) {
  for (let i = 0; i < 120; i++) {
    try {
      execFileSync(ETCDCTL, ['--endpoints', endpoint, '--cacert', 'ca.crt', '--cert', 'client.crt', '--key', 'client.key', 'endpoint', 'health'], { cwd: dir, env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'pipe' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error('etcd did not come up');
}

export async function runSnapshot({ tsadmArgv, runs = 7, log }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-bench-snap-'));
  let etcd;
  try {
    pki(dir);
    const client = `https://127.0.0.1:${await freePort()}`;
    const peer = `https://127.0.0.1:${await freePort()}`;
    etcd = spawn(ETCD, [
      '--name=b', `--data-dir=${path.join(dir, 'data')}`, `--listen-client-urls=${client}`, `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=b=${peer}`,
      '--cert-file=server.crt', '--key-file=server.key', '--trusted-ca-file=ca.crt', '--client-cert-auth=true',
      '--peer-cert-file=server.crt', '--peer-key-file=server.key', '--peer-trusted-ca-file=ca.crt', '--listen-metrics-urls=', '--log-level=error',
      '--quota-backend-bytes=4294967296',
    ], { cwd: dir, stdio: 'ignore' });
    await waitUp(client, dir);
    await fill(client, dir, log);
    // tsadm reads the client pair from <cert-dir>/etcd/ under --rootfs, as on a control plane.
    const root = path.join(dir, 'root');
    mkdirSync(path.join(root, 'pki', 'etcd'), { recursive: true });
    for (const [from, to] of [['ca.crt', 'ca.crt'], ['client.crt', 'healthcheck-client.crt'], ['client.key', 'healthcheck-client.key']]) {
      writeFileSync(path.join(root, 'pki', 'etcd', to), readFileSync(path.join(dir, from)));
    }
    const tsadm = () => timed(timePrefix()[0], [...timePrefix().slice(1), ...tsadmArgv, 'etcd', 'snapshot', 'save', '/snap.db', '--rootfs', root, '--cert-dir', '/pki', '--endpoint', client]);
    const etcdctl = () => timed(timePrefix()[0], [...timePrefix().slice(1), ETCDCTL, '--endpoints', client, '--cacert', 'ca.crt', '--cert', 'client.crt', '--key', 'client.key', 'snapshot', 'save', path.join(dir, 'ctl.db')], { cwd: dir, env: { ...process.env, ETCDCTL_API: '3' } });
    const t = [];
    const c = [];
    let size = 0;
    for (let i = 0; i < runs; i++) {
      rmSync(path.join(root, 'snap.db'), { force: true });
      rmSync(path.join(dir, 'ctl.db'), { force: true });
      const order = i % 2 === 0 ? ['t', 'c'] : ['c', 't'];
      for (const who of order) {
        if (who === 't') t.push(check(await tsadm(), 'tsadm etcd snapshot save').wallMs);
        else c.push(check(await etcdctl(), 'etcdctl snapshot save').wallMs);
      }
      size = readFileSync(path.join(root, 'snap.db')).length;
    }
    const result = { keys: SNAPSHOT_KEYS, snapshotBytes: size, runs, tsadmMs: t, etcdctlMs: c, tsadmMedianMs: median(t), etcdctlMedianMs: median(c), ratio: pairedRatio(t, c), etcd: execFileSync(ETCD, ['--version'], { encoding: 'utf8' }).split('\n')[0] };
    log(`snapshot: ${(size / 1048576).toFixed(1)} MiB; tsadm ${result.tsadmMedianMs.toFixed(0)} ms, etcdctl ${result.etcdctlMedianMs.toFixed(0)} ms, ratio ${result.ratio.toFixed(2)}`);
    return result;
  } finally {
    if (etcd && etcd.exitCode === null) {
      const gone = new Promise((r) => etcd.once('exit', r));
      etcd.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
