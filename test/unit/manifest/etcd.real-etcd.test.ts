/**
 * The etcd static pod tsadm renders, run by the real etcd of its minor: for every supported minor
 * whose etcd image is 3.4.x or 3.5.x, the pod's command (flags exactly as rendered; only ports,
 * certificate directory and data directory moved into a temp dir) is started with the etcd binary
 * of that major.minor this machine has (the host's 3.4, Debian unstable's 3.5; see
 * test/helpers/etcd-process.ts), and every probe path of the pod (liveness, readiness, startup)
 * must answer 200 on the metrics URL. etcd refuses unknown flags, so this also proves each
 * minor's flags (the corrupt-check and watch-progress flags of 1.24+) exist in that etcd; and
 * that /livez and /readyz (1.31+) are served by 3.5 (etcd 3.4 has neither). Minors whose etcd is
 * 3.6 have no binary here: their flags are checked against kubeadm's facts only (render.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LocalEtcd, ResolvedInitConfig } from '../../../src/config/types.js';
import { staticPodConfigFromInit } from '../../../src/manifest/inputs.js';
import type { Container, Probe } from '../../../src/manifest/pod.js';
import { renderEtcdPod } from '../../../src/manifest/etcd.js';
import { DEFAULT_PATCH, SUPPORTED_MINORS, type SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { describeEachEtcd, freePort } from '../../helpers/etcd-process.js';
import { issue, makeCA } from '../../helpers/tls-fixtures.js';

/** Loopback, but not 127.0.0.1: the pod listens on both the loopback and the advertise address. */
const ADVERTISE = '127.0.0.2';

const majorMinor = (tag: string): string => /^v?(\d+\.\d+)\./.exec(tag)?.[1] ?? tag;

interface Rendered {
  readonly minors: SupportedMinor[];
  readonly flags: string[];
  /** Probe paths in the order liveness, readiness, startup (those the pod has). */
  readonly probes: { kind: string; path: string; port: number }[];
}

/** The etcd pod of each minor whose etcd is `mm`, with the same command and probes merged. */
function renderedFor(mm: string, pkiDir: string, dataDir: string): Rendered[] {
  const base = fixtureInitConfig();
  const out = new Map<string, Rendered>();
  for (const minor of SUPPORTED_MINORS.filter((m) => majorMinor(VERSION_TABLE[m].images.etcdTag) === mm)) {
    const cfg: ResolvedInitConfig = {
      ...base,
      init: { ...base.init, localAPIEndpoint: { advertiseAddress: ADVERTISE, bindPort: 6443 } },
      cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], certificatesDir: pkiDir, etcd: { ...(base.cluster.etcd as LocalEtcd), dataDir } },
    };
    const c = renderEtcdPod(staticPodConfigFromInit(cfg), VERSION_TABLE[minor], {}).spec.containers[0] as Container;
    const probes = ([['liveness', c.livenessProbe], ['readiness', c.readinessProbe], ['startup', c.startupProbe]] as [string, Probe | undefined][])
      .filter((p): p is [string, Probe] => p[1]?.httpGet !== undefined)
      .map(([kind, p]) => ({ kind, path: p.httpGet.path, port: Number(p.httpGet.port) }));
    const key = JSON.stringify([c.command, probes]);
    const seen = out.get(key);
    if (seen) seen.minors.push(minor);
    else out.set(key, { minors: [minor], flags: c.command.slice(1), probes });
  }
  return [...out.values()];
}

function get(port: number, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, timeout: 2000, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

describeEachEtcd('the rendered etcd static pod runs on the real etcd of its minor', (etcd) => {
  let dir: string;
  const procs: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-etcd-pod-'));
    const ca = await makeCA('etcd-ca');
    const pair = await issue(ca, 'etcd', { ips: ['127.0.0.1', ADVERTISE], dns: ['localhost'], usages: ['serverAuth', 'clientAuth'] });
    mkdirSync(path.join(dir, 'pki', 'etcd'), { recursive: true });
    const f = (n: string): string => path.join(dir, 'pki', 'etcd', n);
    writeFileSync(f('ca.crt'), ca.pem);
    for (const n of ['server', 'peer']) {
      writeFileSync(f(`${n}.crt`), pair.certPem);
      writeFileSync(f(`${n}.key`), pair.keyPem, { mode: 0o600 });
    }
  });

  afterAll(async () => {
    await Promise.all(procs.filter((p) => p.exitCode === null && p.signalCode === null).map((p) => new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    })));
    rmSync(dir, { recursive: true, force: true });
  });

  // The binary's own major.minor (a newer unstable etcd than 3.5 would test the minors of its own).
  const mm = majorMinor(etcd.version ?? etcd.wanted);

  test(`every minor whose etcd image is ${mm}.x: flags accepted, every probe path answers 200`, async () => {
    const runs = renderedFor(mm, path.join(dir, 'pki'), '/placeholder-data-dir');
    expect(runs.length).toBeGreaterThan(0);
    for (const [i, run] of runs.entries()) {
      const [client, peer, metrics] = [await freePort(), await freePort(), await freePort()];
      const flags = run.flags.map((a) => a
        .replaceAll(':2379', `:${client}`).replaceAll(':2380', `:${peer}`).replaceAll(':2381', `:${metrics}`)
        .replace('/placeholder-data-dir', path.join(dir, `data-${i}`)));
      let stderr = '';
      const proc = spawn(etcd.path, flags, { stdio: ['ignore', 'ignore', 'pipe'] });
      procs.push(proc);
      proc.stderr.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
      const label = `minors ${run.minors.join(', ')} on ${etcd.title}`;
      // Until every probe answers (a single member elects itself within seconds), or etcd exits.
      const answers = async (): Promise<Record<string, number>> => Object.fromEntries(await Promise.all(run.probes.map(async (p) => {
        expect(p.port).toBe(2381);
        const r = await get(metrics, p.path).catch(() => ({ status: 0 }));
        return [`${p.kind} ${p.path}`, r.status] as const;
      })));
      let last: Record<string, number> = {};
      for (let t = 0; t < 80; t++) {
        const died = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 250))]);
        if (died !== 'running') throw new Error(`${label}: etcd exited (${String(died)}) with the rendered flags: ${stderr}`);
        last = await answers();
        if (Object.values(last).every((s) => s === 200)) break;
      }
      expect([label, last]).toEqual([label, Object.fromEntries(run.probes.map((p) => [`${p.kind} ${p.path}`, 200]))]);
      proc.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
