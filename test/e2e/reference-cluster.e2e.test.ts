/**
 * The real-component harness, proven with the reference kubeadm v1.20.2: init on cp1, join w1,
 * both nodes Ready with the control plane and kube-proxy Running; the kubelet "unit" obeys the
 * service-manager seam; and teardown leaves nothing behind on the host.
 */
import {
  createMachine,
  destroyAll,
  hostTraces,
  kubeadmConfig,
  kubectl,
  machineExec,
  machineLog,
  nodeReadiness,
  parseJoinCommand,
  podPhases,
  provision,
  requireComponents,
  waitFor,
  writeSharedFile,
  type HostTraces,
} from './harness.js';

const CP = { name: 'cp1', ip: '10.250.0.11' };
const WORKER = { name: 'w1', ip: '10.250.0.12' };
const MIN = 60_000;

jest.setTimeout(15 * MIN);

let baseline: HostTraces;

beforeAll(async () => {
  await provision();
  requireComponents();
  // A previous, interrupted run may have left machines: start clean, then remember the host.
  await destroyAll();
  baseline = await hostTraces();
}, 20 * MIN);

afterAll(async () => {
  await destroyAll();
}, 5 * MIN);

describe('reference kubeadm on harness machines', () => {
  test('init cp1 + join w1: 2 nodes Ready, control-plane pods and kube-proxy Running', async () => {
    await createMachine(CP.name, CP.ip);
    await createMachine(WORKER.name, WORKER.ip);

    const config = writeSharedFile('reference-cluster-kubeadm.yaml', await kubeadmConfig(CP.ip, CP.name));
    // Preflight needs crictl, which Debian does not have: skipped (images are imported already).
    const init = await machineExec(CP.name, ['kubeadm', 'init', '--config', config, '--skip-phases=preflight'], {
      timeoutMs: 6 * MIN,
    });
    expect(init.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');

    const joinArgs = parseJoinCommand(init.stdout);
    expect(joinArgs[0]).toBe(`${CP.ip}:6443`);
    const join = await machineExec(
      WORKER.name,
      ['kubeadm', 'join', ...joinArgs, '--cri-socket', '/run/containerd/containerd.sock', '--skip-phases=preflight'],
      { timeoutMs: 6 * MIN },
    );
    expect(join.stdout).toContain('This node has joined the cluster');

    try {
      await waitFor(
        async () => {
          const r = await nodeReadiness(CP.name);
          return r[CP.name] === 'True' && r[WORKER.name] === 'True';
        },
        5 * MIN,
        'nodes cp1 and w1 Ready',
      );
      // Static pods' mirror pods show up only at the kubelet's next sync (~60 s after init).
      const phases = await waitFor(
        async () => {
          const p = await podPhases(CP.name, 'kube-system');
          const cp = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every(
            (c) => p[`${c}-${CP.name}`] === 'Running',
          );
          const proxies = Object.entries(p).filter(([n, ph]) => n.startsWith('kube-proxy-') && ph === 'Running');
          return cp && proxies.length === 2 ? p : undefined;
        },
        5 * MIN,
        'control-plane pods and 2 kube-proxy pods Running',
      );
      expect(Object.keys(phases)).toEqual(expect.arrayContaining(['etcd-cp1', 'kube-apiserver-cp1']));
    } catch (e) {
      const pods = await kubectl(CP.name, ['get', 'pods', '-A', '-o', 'wide'], { reject: false });
      throw new Error(
        `${(e as Error).message}\n--- pods\n${pods}\n--- cp1 kubelet\n${machineLog(CP.name)}\n--- w1 kubelet\n${machineLog(WORKER.name)}`,
      );
    }

    const nodes = await kubectl(CP.name, ['get', 'nodes', '-o', 'wide']);
    expect(nodes).toMatch(/cp1\s+Ready\s+control-plane,master/);
    expect(nodes).toMatch(/w1\s+Ready/);
    expect(nodes).toContain('v1.20.2');
  });

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
    expect(await sm('frobnicate')).toBe(2);
    expect(await sm('is-active', 'nosuchunit')).toBe(5);
  });

  test('teardown leaves no process, namespace, mount, cgroup root or iptables rule', async () => {
    const during = await hostTraces();
    expect(during.netns).toEqual(expect.arrayContaining(['tsadm-cp1', 'tsadm-w1', 'tsadm-switch']));
    expect(during.cgroupRoots.length).toBeGreaterThan(0);
    expect(during.processes.some((p) => / kube-apiserver /.test(` ${p} `))).toBe(true);

    await destroyAll();

    const after = await hostTraces();
    expect(after.processes).toEqual(baseline.processes);
    expect(after.netns).toEqual(baseline.netns);
    expect(after.links).toEqual(baseline.links);
    expect(after.mounts).toEqual(baseline.mounts);
    expect(after.cgroupRoots).toEqual([]);
    expect(after.iptables).toEqual(baseline.iptables);
    expect(after.stateDirEntries).toEqual([]);
  });
});
