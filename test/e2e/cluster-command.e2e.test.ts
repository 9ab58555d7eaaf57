/**
 * The README's first command, as a user runs it: `npm run cluster` (scripts/e2e/cluster.sh up,
 * after the build `npm test` has already done) makes a two-node cluster with tsadm alone, prints
 * the nodes, the pods, the stage times and a KUBECONFIG line that works from the host; and
 * `npm run cluster:down` leaves no process, namespace, link, mount, cgroup root or iptables rule.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, cleanHostBaseline, destroyMachine, expectHostAsBefore, hostTraces, repoRoot, type HostTraces } from './harness.js';
import { componentsBinDir } from '../helpers/components.js';

const MIN = 60_000;
// scripts/e2e/cluster.sh's machines. Other e2e files may have theirs up at the same time (two files
// run at once), so this file looks at, and cleans up, only these.
const MINE = ['cp1', 'w1'];
let baseline: HostTraces;
let upOutput = '';

async function clusterSh(action: 'up' | 'down'): Promise<{ exitCode: number; all: string }> {
  const r = await execa('bash', [path.join(repoRoot(), 'scripts', 'e2e', 'cluster.sh'), action], {
    reject: false,
    all: true,
    stdin: 'ignore',
    timeout: 15 * MIN,
    env: { TSADM_CLUSTER_TOOL: 'tsadm' },
  });
  return { exitCode: r.exitCode ?? 1, all: String(r.all ?? '') };
}

beforeAll(async () => {
  baseline = await cleanHostBaseline(MINE);
}, 20 * MIN);

afterAll(async () => {
  await Promise.all(MINE.map((m) => destroyMachine(m)));
}, 5 * MIN);

describe('npm run cluster / cluster:down', () => {
  test('up: two Ready nodes made by tsadm alone, pods listed, stage times, a working KUBECONFIG line', async () => {
    const up = await clusterSh('up');
    upOutput = up.all;
    expect({ exit: up.exitCode, tail: up.exitCode === 0 ? '' : up.all.slice(-4000) }).toEqual({ exit: 0, tail: '' });
    expect(upOutput).toContain('init: tsadm');
    expect(upOutput).toMatch(/join command: tsadm join 10\.250\.0\.11:6443 --token <redacted> --discovery-token-ca-cert-hash sha256:[0-9a-f]{64}/);
    expect(upOutput).toMatch(/^cp1\s+Ready\s+control-plane,master\s/m);
    expect(upOutput).toMatch(/^w1\s+Ready\s+<none>\s/m);
    // Mirror pods report Running before their readiness catches up (0/1 for a while): the phase is what counts.
    for (const c of ['etcd-cp1', 'kube-apiserver-cp1', 'kube-controller-manager-cp1', 'kube-scheduler-cp1']) {
      expect(upOutput).toMatch(new RegExp(`^kube-system\\s+${c}\\s+[01]/1\\s+Running\\s`, 'm'));
    }
    expect(upOutput.match(/^kube-system\s+kube-proxy-\S+\s+1\/1\s+Running\s/gm)).toHaveLength(2);
    expect(upOutput).toMatch(/stage times: provision=\d+s machines=\d+s init=\d+s join=\d+s ready=\d+s/);

    // init and join were tsadm's own (their logs are kept in the cache).
    const initLog = readFileSync(path.join(cacheDir(), 'cluster', 'init.log'), 'utf8');
    const joinLog = readFileSync(path.join(cacheDir(), 'cluster', 'join.log'), 'utf8');
    expect(initLog).toMatch(/^\s*tsadm join 10\.250\.0\.11:6443 --token /m);
    expect(joinLog).toContain('This node has joined the cluster');

    // The printed KUBECONFIG works from the host with the provisioned kubectl.
    const kubeconfig = /^KUBECONFIG=(\S+)$/m.exec(upOutput)?.[1];
    expect(kubeconfig).toBe(path.join(cacheDir(), 'cluster', 'admin.conf'));
    const nodes = await execa(path.join(componentsBinDir(), 'kubectl'), ['get', 'nodes', '-o', 'name'], { env: { KUBECONFIG: kubeconfig as string }, timeout: MIN });
    expect(nodes.stdout.split('\n').sort()).toEqual(['node/cp1', 'node/w1']);
  }, 20 * MIN);

  test('up again on a healthy cluster reuses it', async () => {
    const again = await clusterSh('up');
    expect(again.exitCode).toBe(0);
    expect(again.all).toContain('cluster already up');
    expect(again.all).not.toContain('init: tsadm');
  }, 5 * MIN);

  test('down leaves nothing behind on the host', async () => {
    const during = await hostTraces(MINE);
    expect(during.netns.sort()).toEqual(['tsadm-cp1', 'tsadm-w1']);
    expect(during.processes.some((p) => / kube-apiserver /.test(` ${p} `))).toBe(true);
    const down = await clusterSh('down');
    expect(down.exitCode).toBe(0);
    expectHostAsBefore(await hostTraces(MINE), baseline);
  }, 5 * MIN);
});
