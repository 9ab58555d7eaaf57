/**
 * Restarting a static pod by taking its manifest out until the component stops: against a
 * stand-in kubelet that runs a real HTTP "component" on loopback while the manifest is present,
 * probed through the manifest's own liveness probe. The real kubelet is exercised by
 * test/e2e/tsadm-init.e2e.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { probeFromManifest, runProbe } from '../../../src/certs-lifecycle/probe.js';
import { recoverInterruptedRestarts, restartStaticPod } from '../../../src/certs-lifecycle/restart.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

const MANIFEST = '/etc/kubernetes/manifests/kube-scheduler.yaml';

const manifest = (port: number): string => [
  'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: kube-scheduler', 'spec:', '  containers:', '  - name: kube-scheduler',
  '    livenessProbe:', '      httpGet:', '        host: 127.0.0.1', '        path: /healthz', `        port: ${port}`, '        scheme: HTTP', '',
].join('\n');

/** While the manifest exists a server answers on the port; each time it reappears a new one starts. */
class StandInKubelet {
  starts = 0;
  private server: http.Server | undefined;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly root: TempRoot, readonly port: number, private readonly neverStops = false) {}

  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync(), 20);
  }

  private async sync(): Promise<void> {
    const present = existsSync(this.root.at(MANIFEST));
    if (present && !this.server) {
      this.starts++;
      const server = http.createServer((_req, res) => res.end('ok'));
      this.server = server;
      await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
    } else if (!present && this.server && !this.neverStops) {
      const server = this.server;
      this.server = undefined;
      await new Promise((r) => server.close(r));
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((r) => server.close(r));
  }
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('restartStaticPod', () => {
  let root: TempRoot;
  let kubelet: StandInKubelet;
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };

  afterEach(async () => {
    await kubelet.stop();
    root.cleanup();
    lines.length = 0;
  });

  async function setup(neverStops = false): Promise<void> {
    const port = await freePort();
    root = tempRoot({ [MANIFEST]: { content: manifest(port), mode: 0o600 } });
    kubelet = new StandInKubelet(root, port, neverStops);
    await kubelet.start();
  }

  test('the probe is read from the manifest, as the kubelet would run it', async () => {
    await setup();
    const probe = probeFromManifest(manifest(kubelet.port));
    expect(probe).toEqual({ url: `http://127.0.0.1:${kubelet.port}/healthz` });
    expect(await runProbe(probe as { url: string })).toBe('up');
    expect(await runProbe({ url: `http://127.0.0.1:${await freePort()}/` })).toBe('down');
    expect(probeFromManifest('kind: Pod\nspec:\n  containers:\n  - name: x\n')).toBeUndefined();
  });

  test('the manifest leaves until the component stops, comes back byte for byte with its mode, and the component serves again', async () => {
    await setup();
    const before = readFileSync(root.at(MANIFEST));
    await restartStaticPod({ host: new RootedHost(root.dir), log, probe: (p) => runProbe(p), pollMs: 20, settleMs: 100 }, 'kube-scheduler');
    expect(kubelet.starts).toBe(2);
    expect(readFileSync(root.at(MANIFEST)).equals(before)).toBe(true);
    expect(statSync(root.at(MANIFEST)).mode & 0o777).toBe(0o600);
    expect(await runProbe({ url: `http://127.0.0.1:${kubelet.port}/healthz` })).toBe('up');
    expect(readdirSync(root.at('/etc/kubernetes/tmp'))).toEqual([]); // the safety copy is gone
    expect(lines).toEqual([
      'Restarting kube-scheduler: /etc/kubernetes/manifests/kube-scheduler.yaml is moved out until the kubelet has stopped it',
      'kube-scheduler restarted and healthy',
    ]);
  });

  test('a component that never stops: timeout, the manifest is back in place and its copy kept', async () => {
    await setup(true);
    await expect(restartStaticPod({ host: new RootedHost(root.dir), log, probe: (p) => runProbe(p), pollMs: 20, timeoutMs: 300 }, 'kube-scheduler'))
      .rejects.toMatchObject({ code: 'E_TIMEOUT', message: 'timed out waiting for the kubelet to stop kube-scheduler' });
    expect(readFileSync(root.at(MANIFEST), 'utf8')).toBe(manifest(kubelet.port));
    expect(readdirSync(root.at('/etc/kubernetes/tmp'))).toHaveLength(1);
  });

  test('a component without a manifest is refused before anything moves', async () => {
    await setup();
    await expect(restartStaticPod({ host: new RootedHost(root.dir), log, probe: (p) => runProbe(p) }, 'etcd'))
      .rejects.toMatchObject({ code: 'E_PRECONDITION', message: 'etcd is not a static pod on this node (/etc/kubernetes/manifests/etcd.yaml does not exist)' });
    expect(existsSync(root.at('/etc/kubernetes/tmp'))).toBe(false);
  });
});

describe('recoverInterruptedRestarts (a re-run after a kill in the middle of a restart)', () => {
  let root: TempRoot;
  afterEach(() => root.cleanup());
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };

  test('a manifest left out is put back byte for byte with its mode; one in place is left alone; the copies go', async () => {
    const scheduler = manifest(10259);
    root = tempRoot({
      // killed while kube-scheduler's manifest was out: only the copy exists
      '/etc/kubernetes/tmp/tsadm-restart-1700000000000/kube-scheduler.yaml': { content: scheduler, mode: 0o600 },
      // killed after etcd's manifest came back, before its copy was removed
      '/etc/kubernetes/tmp/tsadm-restart-1700000000001/etcd.yaml': { content: 'old copy\n', mode: 0o600 },
      '/etc/kubernetes/manifests/etcd.yaml': { content: 'current\n', mode: 0o600 },
      // something else's file in the tmp dir is not ours
      '/etc/kubernetes/tmp/kubeadm-backup-etcd-x/etcd.yaml': 'not ours\n',
    });
    const restored = await recoverInterruptedRestarts({ host: new RootedHost(root.dir), log });
    expect(restored).toEqual(['kube-scheduler']);
    expect(readFileSync(root.at(MANIFEST), 'utf8')).toBe(scheduler);
    expect(statSync(root.at(MANIFEST)).mode & 0o777).toBe(0o600);
    expect(readFileSync(root.at('/etc/kubernetes/manifests/etcd.yaml'), 'utf8')).toBe('current\n');
    expect(readdirSync(root.at('/etc/kubernetes/tmp'))).toEqual(['kubeadm-backup-etcd-x']);
    expect(lines.some((l) => l.includes('kube-scheduler.yaml was left out by an interrupted restart'))).toBe(true);
  });
});
