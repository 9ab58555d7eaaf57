/**
 * The real-component harness, proven with the reference kubeadm v1.20.2: init on rc1, join rw1,
 * both nodes Ready with the control plane and kube-proxy Running; the kubelet "unit" obeys the
 * service-manager seam; and teardown leaves nothing behind on the host.
 */
import {
  cleanHostBaseline,
  createMachine,
  destroyMachine,
  expectHostAsBefore,
  hostTraces,
  kubectl,
  machineExec,
  podPhases,
  referenceInit,
  referenceJoin,
  waitClusterReady,
  waitFor,
  type HostTraces,
} from './harness.js';

// Not cp1/w1: those are `npm run cluster`'s, which cluster-command.e2e may be running at the same
// time (e2e files run two at a time).
const CP = { name: 'rc1', ip: '10.250.0.13' };
const WORKER = { name: 'rw1', ip: '10.250.0.14' };
const MINE = [CP.name, WORKER.name];
const destroyMine = async (): Promise<void> => {
  await Promise.all(MINE.map((m) => destroyMachine(m)));
};
const MIN = 60_000;

// Timeouts are per hook/test (ESM jest has no `jest` global without importing it).
const TEST_TIMEOUT = 15 * MIN;

let baseline: HostTraces;

beforeAll(async () => {
  baseline = await cleanHostBaseline(MINE);
}, 20 * MIN);

afterAll(async () => {
  await destroyMine();
}, 5 * MIN);

describe('reference kubeadm on harness machines', () => {
  test('init rc1 + join rw1: 2 nodes Ready, control-plane pods and kube-proxy Running', async () => {
    await Promise.all([CP, WORKER].map((m) => createMachine(m.name, m.ip)));

    const init = await referenceInit(CP);
    expect(init.output).toContain('Your Kubernetes control-plane has initialized successfully!');
    expect(init.joinArgs[0]).toBe(`${CP.ip}:6443`);
    expect(init.joinArgs).toEqual(expect.arrayContaining(['--token', '--discovery-token-ca-cert-hash']));

    const join = await referenceJoin(WORKER, init.joinArgs);
    expect(join).toContain('This node has joined the cluster');

    await waitClusterReady(CP, [CP, WORKER]);

    const nodes = await kubectl(CP.name, ['get', 'nodes', '-o', 'wide']);
    expect(nodes).toMatch(/rc1\s+Ready\s+control-plane,master/);
    expect(nodes).toMatch(/rw1\s+Ready/);
    expect(nodes).toContain('v1.20.2');
    const pods = await podPhases(CP.name, 'kube-system');
    for (const p of ['etcd-rc1', 'kube-apiserver-rc1', 'kube-controller-manager-rc1', 'kube-scheduler-rc1']) {
      expect(pods[p]).toBe('Running');
    }
    expect(Object.entries(pods).filter(([n, ph]) => n.startsWith('kube-proxy-') && ph === 'Running')).toHaveLength(2);
  }, TEST_TIMEOUT);

  test('the kubelet unit obeys TSADM_SERVICE_MANAGER inside a machine', async () => {
    const sm = async (action: string, unit = 'kubelet') =>
      (await machineExec(WORKER.name, ['sh', '-c', `"$TSADM_SERVICE_MANAGER" ${action} ${unit}`], { reject: false })).exitCode;
    // The PID namespace is shared by all machines: ask the supervisor's pidfile, not pgrep.
    const kubeletPid = async () =>
      (
        await machineExec(
          WORKER.name,
          ['sh', '-c', '. /run/tsadm-machine/env; p=$(cat "$MDIR/kubelet.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null && echo "$p"'],
          { reject: false },
        )
      ).stdout.trim();

    expect(await sm('is-active')).toBe(0);
    const before = await kubeletPid();
    expect(before).toMatch(/^\d+$/);

    expect(await sm('restart')).toBe(0);
    const after = await waitFor(async () => {
      const p = await kubeletPid();
      return /^\d+$/.test(p) && p !== before ? p : undefined;
    }, MIN, 'a new kubelet process after restart');
    expect(after).not.toBe(before);

    expect(await sm('stop')).toBe(0);
    expect(await sm('is-active')).toBe(3);
    expect(await kubeletPid()).toBe('');

    expect(await sm('start')).toBe(0);
    await waitFor(async () => (await sm('is-active')) === 0, MIN, 'kubelet active after start');

    // Like `systemctl restart` after kubeadm rewrites the unit's files: a change restarts the kubelet.
    const pidBeforeEdit = await waitFor(async () => {
      const p = await kubeletPid();
      return /^\d+$/.test(p) ? p : undefined;
    }, MIN, 'a running kubelet');
    await machineExec(WORKER.name, ['sh', '-c', 'echo \'KUBELET_EXTRA_ARGS="--v=1"\' >/etc/default/kubelet']);
    const pidAfterEdit = await waitFor(async () => {
      const p = await kubeletPid();
      return /^\d+$/.test(p) && p !== pidBeforeEdit ? p : undefined;
    }, MIN, 'a kubelet restarted after /etc/default/kubelet changed');
    const cmdline = (await machineExec(WORKER.name, ['cat', `/proc/${pidAfterEdit}/cmdline`])).stdout.split('\0');
    expect(cmdline).toContain('--v=1');
    expect(cmdline).toEqual(expect.arrayContaining(['--cgroup-root=/rw1', '--node-ip=10.250.0.14', '--fail-swap-on=false']));
    await machineExec(WORKER.name, ['rm', '/etc/default/kubelet']);

    expect(await sm('frobnicate')).toBe(2);
    expect(await sm('is-active', 'nosuchunit')).toBe(5);
  }, 5 * MIN);

  test('teardown leaves no process, namespace, mount, cgroup root or iptables rule', async () => {
    expect((await hostTraces()).netns).toContain('tsadm-switch');
    // The scoped view sees this file's machines, and only them (other files' machines may be up).
    const during = await hostTraces(MINE);
    expect(during.netns.sort()).toEqual(['tsadm-rc1', 'tsadm-rw1']);
    expect(during.stateDirEntries.sort()).toEqual(['rc1', 'rw1']);
    expect(during.cgroupRoots.length).toBeGreaterThan(0);
    expect(during.cgroupRoots.every((r) => /\/(rc1|rw1)$/.test(r))).toBe(true);
    expect(during.mounts.some((m) => m.includes('/run/netns/tsadm-rc1'))).toBe(true);
    expect(during.processes.some((p) => / kube-apiserver /.test(` ${p} `))).toBe(true);
    expect(during.processes.some((p) => / kubelet /.test(` ${p} `))).toBe(true);

    await destroyMine();

    expectHostAsBefore(await hostTraces(MINE), baseline);
  }, 5 * MIN);
});
