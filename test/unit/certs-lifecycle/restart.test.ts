/**
 * Restarting a static pod by taking its manifest out until the component stops: against a
 * stand-in kubelet that runs a real HTTP "component" on loopback while the manifest is present,
 * probed through the manifest's own liveness probe. The real kubelet is exercised by
 * test/e2e/tsadm-init.e2e.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { probeFromManifest, runProbe } from '../../../src/certs-lifecycle/probe.js';
import { describeRestartStep, recoverInterruptedRestarts, restartInOrder, restartStaticPod, restartSteps } from '../../../src/certs-lifecycle/restart.js';
import { SCHEDULER_MANIFEST as MANIFEST, StandInKubelet, freePort, probedPodManifest } from '../../helpers/stand-in-kubelet.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

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
    root = tempRoot({ [MANIFEST]: { content: probedPodManifest(port), mode: 0o600 } });
    kubelet = new StandInKubelet(root, port, MANIFEST, { neverStops });
    await kubelet.start();
  }

  test('the probe is read from the manifest, as the kubelet would run it', async () => {
    await setup();
    const probe = probeFromManifest(probedPodManifest(kubelet.port));
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
    expect(readFileSync(root.at(MANIFEST), 'utf8')).toBe(probedPodManifest(kubelet.port));
    expect(readdirSync(root.at('/etc/kubernetes/tmp'))).toHaveLength(1);
  });

  test('a component without a manifest is refused before anything moves', async () => {
    await setup();
    await expect(restartStaticPod({ host: new RootedHost(root.dir), log, probe: (p) => runProbe(p) }, 'etcd'))
      .rejects.toMatchObject({ code: 'E_PRECONDITION', message: 'etcd is not a static pod on this node (/etc/kubernetes/manifests/etcd.yaml does not exist)' });
    expect(existsSync(root.at('/etc/kubernetes/tmp'))).toBe(false);
  });
});

describe('restartInOrder: one component after another; etcd with the API server stopped around it', () => {
  const ETCD = '/etc/kubernetes/manifests/etcd.yaml';
  const API = '/etc/kubernetes/manifests/kube-apiserver.yaml';
  let current: TempRoot | undefined;
  const root = (): TempRoot => {
    if (!current) throw new Error('no machine root: setup() first');
    return current;
  };
  let kubelets: StandInKubelet[] = [];
  const events: string[] = [];
  const lines: string[] = [];
  const log = { info: (m: string) => { lines.push(m); events.push(`log ${m}`); }, warn: (m: string) => lines.push(m) };

  afterEach(async () => {
    await Promise.all(kubelets.map((k) => k.stop()));
    kubelets = [];
    current?.cleanup();
    current = undefined;
    lines.length = 0;
    events.length = 0;
  });

  /** A control plane's static pods, each served by its own stand-in sharing one event list. */
  async function setup(names: string[], opts: { etcdNeverRestarts?: boolean } = {}): Promise<Record<string, string>> {
    const ports = await Promise.all(names.map(() => freePort()));
    const files = Object.fromEntries(names.map((n, i) => [`/etc/kubernetes/manifests/${n}.yaml`, probedPodManifest(ports[i]!, n)]));
    const made = tempRoot(Object.fromEntries(Object.entries(files).map(([f, content]) => [f, { content, mode: 0o600 }])));
    kubelets = names.map((n, i) => new StandInKubelet(made, ports[i]!, `/etc/kubernetes/manifests/${n}.yaml`, { events, neverRestarts: n === 'etcd' && opts.etcdNeverRestarts === true }));
    current = made;
    for (const k of kubelets) await k.start();
    events.length = 0; // only what the restart does
    return files;
  }
  const deps = () => ({ host: new RootedHost(root().dir), log, probe: runProbe, pollMs: 20, settleMs: 100 });

  test('the steps (pure): etcd takes the API server along only where one runs; nothing twice; others alone, in the order given', () => {
    expect(restartSteps(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'], true)).toEqual([['etcd', 'kube-apiserver'], ['kube-controller-manager'], ['kube-scheduler']]);
    expect(restartSteps(['etcd'], true)).toEqual([['etcd', 'kube-apiserver']]);
    expect(restartSteps(['etcd', 'kube-apiserver'], false)).toEqual([['etcd'], ['kube-apiserver']]);
    expect(restartSteps(['kube-apiserver', 'kube-scheduler'], true)).toEqual([['kube-apiserver'], ['kube-scheduler']]);
    expect(describeRestartStep(['etcd', 'kube-apiserver'])).toBe('Would stop kube-apiserver, restart etcd, and start kube-apiserver again once etcd passes its liveness probe (their static pod manifests leave and re-enter the manifests dir)');
    expect(describeRestartStep(['kube-scheduler'])).toBe('Would restart kube-scheduler (its static pod manifest leaves and re-enters the manifests dir), then wait until its liveness probe passes');
  });

  test('the API server stops before etcd goes and starts only once etcd serves again; each later component waits for the one before; every manifest back byte for byte', async () => {
    const files = await setup(['etcd', 'kube-apiserver', 'kube-scheduler']);
    const done: string[][] = [];
    const restarted = await restartInOrder(deps(), ['etcd', 'kube-apiserver', 'kube-scheduler'], (step) => { done.push([...step]); return Promise.resolve(); });
    expect(restarted).toEqual(['etcd', 'kube-apiserver', 'kube-scheduler']);
    expect(done).toEqual([['etcd', 'kube-apiserver'], ['kube-scheduler']]);
    expect(events).toEqual([
      `log Stopping kube-apiserver while etcd restarts (stopped, it refuses connections rather than holding them without etcd): ${API} is moved out until the kubelet has stopped it`,
      'stop kube-apiserver',
      `log Restarting etcd: ${ETCD} is moved out until the kubelet has stopped it`,
      'stop etcd',
      'start etcd',
      'log etcd restarted and healthy',
      'start kube-apiserver',
      'log kube-apiserver restarted and healthy',
      `log Restarting kube-scheduler: ${MANIFEST} is moved out until the kubelet has stopped it`,
      'stop kube-scheduler',
      'start kube-scheduler',
      'log kube-scheduler restarted and healthy',
    ]);
    for (const [f, content] of Object.entries(files)) {
      expect(readFileSync(root().at(f), 'utf8')).toBe(content);
      expect(statSync(root().at(f)).mode & 0o777).toBe(0o600);
    }
    expect(readdirSync(root().at('/etc/kubernetes/tmp'))).toEqual([]);
  });

  test('etcd alone due: the API server is still stopped around it and restarted (it is reported)', async () => {
    await setup(['etcd', 'kube-apiserver']);
    expect(await restartInOrder(deps(), ['etcd'])).toEqual(['etcd', 'kube-apiserver']);
    expect(events.filter((e) => !e.startsWith('log '))).toEqual(['stop kube-apiserver', 'stop etcd', 'start etcd', 'start kube-apiserver']);
  });

  test('no API server on the machine (an etcd-only host): etcd restarts alone', async () => {
    await setup(['etcd']);
    expect(await restartInOrder(deps(), ['etcd'])).toEqual(['etcd']);
    expect(events.filter((e) => !e.startsWith('log '))).toEqual(['stop etcd', 'start etcd']);
  });

  test('etcd never comes back: timeout naming etcd; the API server\'s manifest is put back all the same, both copies kept', async () => {
    const files = await setup(['etcd', 'kube-apiserver'], { etcdNeverRestarts: true });
    const after: string[][] = [];
    await expect(restartInOrder({ ...deps(), timeoutMs: 400 }, ['etcd', 'kube-apiserver'], (step) => { after.push([...step]); return Promise.resolve(); }))
      .rejects.toMatchObject({ code: 'E_TIMEOUT', message: expect.stringMatching(/^timed out waiting for etcd to pass its liveness probe again/) as unknown });
    expect(after).toEqual([]); // the journal keeps both
    for (const [f, content] of Object.entries(files)) expect(readFileSync(root().at(f), 'utf8')).toBe(content);
    expect(readdirSync(root().at('/etc/kubernetes/tmp')).map((d) => d.replace(/\d+/, 'N')).sort()).toEqual(['tsadm-restart-N-etcd', 'tsadm-restart-N-kube-apiserver']);
  });
});

describe('recoverInterruptedRestarts (a re-run after a kill in the middle of a restart)', () => {
  let root: TempRoot;
  afterEach(() => root.cleanup());
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };

  test('a manifest left out is put back byte for byte with its mode; one in place is left alone; the copies go', async () => {
    const scheduler = probedPodManifest(10259);
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

  test('killed while etcd restarted with the API server held out: both manifests come back, both copies go', async () => {
    root = tempRoot({
      '/etc/kubernetes/tmp/tsadm-restart-1700000000000-kube-apiserver/kube-apiserver.yaml': { content: 'api\n', mode: 0o600 },
      '/etc/kubernetes/tmp/tsadm-restart-1700000000050-etcd/etcd.yaml': { content: 'etcd\n', mode: 0o600 },
    });
    expect((await recoverInterruptedRestarts({ host: new RootedHost(root.dir), log })).sort()).toEqual(['etcd', 'kube-apiserver']);
    expect(readFileSync(root.at('/etc/kubernetes/manifests/kube-apiserver.yaml'), 'utf8')).toBe('api\n');
    expect(readFileSync(root.at('/etc/kubernetes/manifests/etcd.yaml'), 'utf8')).toBe('etcd\n');
    expect(readdirSync(root.at('/etc/kubernetes/tmp'))).toEqual([]);
  });
});
