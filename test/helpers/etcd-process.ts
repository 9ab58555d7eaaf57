/**
 * Real etcd processes on loopback with mutual TLS (a throwaway CA, one serving/peer pair, a
 * healthcheck-style client pair), stopped by PID. For the etcd client and reset tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EtcdClient } from '../../src/etcd-client/client.js';
import type { EtcdTls } from '../../src/etcd-client/transport.js';
import { issue, makeCA, type TestCA, type TestPair } from './tls-fixtures.js';

const ETCD_BIN = process.env.TSADM_ETCD_BIN ?? '/usr/bin/etcd';
export const etcdAvailable = (): boolean => existsSync(ETCD_BIN);

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
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

export async function etcdLab(): Promise<EtcdLab> {
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
      const proc = spawn(ETCD_BIN, [
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
