/**
 * Real etcd processes on loopback with mutual TLS (a throwaway CA, one serving/peer pair, a
 * healthcheck-style client pair), stopped by PID. For the etcd client and reset tests, which run
 * against every etcd this machine has (`describeEachEtcd`): the host's (Debian bookworm's 3.4)
 * and the newer one that scripts/e2e/provision.sh unpacks from Debian's unstable suite (3.5,
 * stage debian-sid).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EtcdClient } from '../../src/etcd-client/client.js';
import type { EtcdTls } from '../../src/etcd-client/transport.js';
import { cacheDir } from './components.js';
import { describeWithOracles, type Oracle } from './oracle.js';
import { issue, makeCA, type TestCA, type TestPair } from './tls-fixtures.js';
import { freePort } from './free-port.js';

/** The host's etcd (bookworm's etcd-server, 3.4), or $TSADM_ETCD_BIN. */
const HOST_ETCD_BIN = process.env.TSADM_ETCD_BIN ?? '/usr/bin/etcd';

/** Where provision.sh's stage debian-sid unpacks Debian unstable's packages. */
export function debianSidRoot(): string {
  return path.join(cacheDir(), 'debian-sid', 'root');
}

/** One etcd binary the real-etcd suites run against. */
export interface EtcdBinary {
  /** What the suites are named by: "etcd 3.4.23 (/usr/bin/etcd)". */
  readonly title: string;
  readonly path: string;
  /** `etcd --version`'s version, or undefined when the binary is missing or does not run. */
  readonly version: string | undefined;
  /** The major.minor this slot stands for ("3.4", "3.5"). */
  readonly wanted: string;
  /** How to get it when it is missing. */
  readonly howToGet: string;
}

function etcdVersion(bin: string): string | undefined {
  if (!existsSync(bin)) return undefined;
  try {
    return /^etcd Version: (\S+)/m.exec(execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 }))?.[1];
  } catch {
    return undefined;
  }
}

let binaries: EtcdBinary[] | undefined;

/**
 * The etcd binaries of this machine, oldest first: the host's 3.4 and Debian unstable's 3.5
 * (provision stage debian-sid), whether present or not (a missing one has no version).
 */
function etcdBinaries(): readonly EtcdBinary[] {
  binaries ??= [
    { path: HOST_ETCD_BIN, wanted: '3.4', howToGet: 'apt-get install -y etcd-server (bash scripts/e2e/provision.sh does)' },
    { path: path.join(debianSidRoot(), 'usr/bin/etcd'), wanted: '3.5', howToGet: 'bash scripts/e2e/provision.sh (stage debian-sid)' },
  ].map((b) => {
    const version = etcdVersion(b.path);
    return { ...b, version, title: `etcd ${version ?? `${b.wanted} (missing)`} (${b.path})` };
  });
  return binaries;
}

/**
 * `describe(name, fn)` once per etcd binary (etcdBinaries), `fn` getting the binary, so every
 * real-etcd suite holds with etcd 3.4 and 3.5 alike. A missing binary is a failing test under
 * CI=true (a real-component suite never skips itself in CI) and a skipped one elsewhere, named
 * with how to get it (test/helpers/oracle.ts). `outer` replaces `describe` (describeWithApiServer for suites that also
 * need a real API server).
 */
export function describeEachEtcd(name: string, fn: (etcd: EtcdBinary) => void, outer: (name: string, fn: () => void) => void = describe): void {
  for (const etcd of etcdBinaries()) {
    const oracle: Oracle = {
      name: `etcd ${etcd.wanted}`,
      missing: () => (etcd.version !== undefined ? undefined : `etcd ${etcd.wanted} is missing or does not run (${etcd.path}); get it: ${etcd.howToGet}`),
    };
    describeWithOracles([oracle], outer)(`${name} [${etcd.title}]`, () => fn(etcd));
  }
}


export interface EtcdMemberProcess {
  readonly name: string;
  readonly client: string;
  readonly peer: string;
  proc?: ChildProcess;
}

export interface EtcdLab {
  readonly dir: string;
  readonly ca: TestCA;
  /** The client identity etcd accepts (what etcd/healthcheck-client.* holds). */
  readonly tls: EtcdTls;
  readonly clientPair: TestPair;
  member(name: string): Promise<EtcdMemberProcess>;
  start(m: EtcdMemberProcess, initialCluster: string, state: 'new' | 'existing'): void;
  stop(m: EtcdMemberProcess): Promise<void>;
  /** Starts a single-member cluster and waits until it answers. */
  startSingle(m: EtcdMemberProcess): Promise<void>;
  close(): Promise<void>;
}

/** A lab whose members run `bin` (default: the host's etcd). */
export async function etcdLab(bin: string = HOST_ETCD_BIN): Promise<EtcdLab> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-etcd-'));
  const ca = await makeCA('etcd-ca');
  const server = await issue(ca, 'etcd', { ips: ['127.0.0.1'], dns: ['localhost'], usages: ['serverAuth', 'clientAuth'] });
  const clientPair = await issue(ca, 'kube-etcd-healthcheck-client', { ips: [], dns: [], usages: ['clientAuth'] });
  const f = (n: string): string => path.join(dir, n);
  writeFileSync(f('ca.crt'), ca.pem);
  writeFileSync(f('server.crt'), server.certPem);
  writeFileSync(f('server.key'), server.keyPem, { mode: 0o600 });
  const tls: EtcdTls = { ca: ca.pem, cert: clientPair.certPem, key: clientPair.keyPem };
  const procs: ChildProcess[] = [];
  const lab: EtcdLab = {
    dir, ca, tls, clientPair,
    member: async (name) => ({ name, client: `https://127.0.0.1:${await freePort()}`, peer: `https://127.0.0.1:${await freePort()}` }),
    start(m, initialCluster, state) {
      const proc = spawn(bin, [
        `--name=${m.name}`, `--data-dir=${f(`${m.name}.data`)}`,
        `--listen-client-urls=${m.client}`, `--advertise-client-urls=${m.client}`,
        `--listen-peer-urls=${m.peer}`, `--initial-advertise-peer-urls=${m.peer}`,
        `--initial-cluster=${initialCluster}`, `--initial-cluster-state=${state}`,
        `--cert-file=${f('server.crt')}`, `--key-file=${f('server.key')}`, `--trusted-ca-file=${f('ca.crt')}`, '--client-cert-auth=true',
        `--peer-cert-file=${f('server.crt')}`, `--peer-key-file=${f('server.key')}`, `--peer-trusted-ca-file=${f('ca.crt')}`, '--peer-client-cert-auth=true',
        '--listen-metrics-urls=', '--log-level=error',
      ], { stdio: 'ignore' });
      m.proc = proc;
      procs.push(proc);
    },
    async stop(m) {
      const p = m.proc;
      if (!p || !running(p)) return;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGTERM');
      });
    },
    async startSingle(m) {
      lab.start(m, `${m.name}=${m.peer}`, 'new');
      await new EtcdClient([m.client], { tls }).waitForClusterAvailable(60, 250);
    },
    async close() {
      await Promise.all(procs.filter(running).map((p) => new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      })));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return lab;
}

/** Still running: no exit code and not ended by a signal (a signalled process has exitCode null). */
function running(p: ChildProcess): boolean {
  return p.exitCode === null && p.signalCode === null;
}

export { freePort };
