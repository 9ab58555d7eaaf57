import net from 'node:net';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import type { SystemProbe } from '../../../../src/phases/preflight/check.js';
import {
  commonChecks, criCheck, dirAvailable, fileAvailable, fileContent, fileExisting, hostnameCheck, httpProxyCheck,
  initChecks, isPrivilegedUser, joinChecks, kubeletVersionCheck, mem, numCPU, portCheck, swapCheck,
} from '../../../../src/phases/preflight/checks.js';
import { runChecks } from '../../../../src/phases/preflight/run-checks.js';
import { realSystem } from '../../../../src/phases/preflight/system.js';
import { profileFor } from '../../../../src/versions/resolve.js';
import { tempRoot } from '../../../helpers/temp-root.js';
import { MemoryReporter } from '../../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../../src/log/logger.js';
import { TsadmError } from '../../../../src/errors.js';
import type { Host } from '../../../../src/host/host.js';

/** A healthy machine; each test breaks one fact. */
function system(overrides: Partial<SystemProbe> = {}): SystemProbe {
  return {
    uid: () => 0,
    cpus: () => 4,
    memoryMB: () => 8000,
    portFree: () => Promise.resolve(true),
    readProc: (p) => Promise.resolve(p === '/proc/swaps' ? 'Filename\tType\tSize\tUsed\tPriority\n' : '1\n'),
    which: (p) => Promise.resolve(`/usr/bin/${p}`),
    socketReachable: () => Promise.resolve(true),
    resolveHost: () => Promise.resolve(true),
    env: () => undefined,
    ...overrides,
  };
}

const v120 = profileFor('v1.20.2');
const root = tempRoot({ '/etc/kubernetes/manifests/etcd.yaml': 'x', '/var/lib/etcd/member/x': 'data' });
const host = new RootedHost(root.dir);
afterAll(() => root.cleanup());

async function fires(check: { run: (e: { host: Host; system: SystemProbe }) => Promise<{ errors: readonly string[]; warnings: readonly string[] }> }, sys: SystemProbe, h: Host = host) {
  return check.run({ host: h, system: sys });
}

describe('each preflight check fires on the condition it guards', () => {
  test.each([
    ['IsPrivilegedUser', isPrivilegedUser, system({ uid: () => 1000 }), /not running as root/],
    ['NumCPU', numCPU, system({ cpus: () => 1 }), /CPUs 1 is less than the required 2/],
    ['Mem', mem, system({ memoryMB: () => 1000 }), /1000 MB\) is less than the minimum 1700 MB/],
    ['Port-6443', portCheck(6443), system({ portFree: () => Promise.resolve(false) }), /Port 6443 is in use/],
    ['FileContent ip_forward', fileContent('/proc/sys/net/ipv4/ip_forward', '1'), system({ readProc: () => Promise.resolve('0\n') }), /contents are not set to 1/],
    ['FileContent bridge-nf missing', fileContent('/proc/sys/net/bridge/bridge-nf-call-iptables', '1'), system({ readProc: () => Promise.resolve(undefined) }), /does not exist/],
    ['Swap', swapCheck(false), system({ readProc: () => Promise.resolve('Filename Type\n/swapfile file 100 0 -2\n') }), /swap on is not supported/],
    ['FileExisting-conntrack', fileExisting('conntrack', true), system({ which: () => Promise.resolve(undefined) }), /conntrack not found in system path/],
    ['CRI', criCheck('/run/containerd/containerd.sock'), system({ socketReachable: () => Promise.resolve(false) }), /cannot connect to the CRI socket/],
  ])('%s', async (_name, check, sys, message) => {
    const result = await fires(check, sys);
    expect(result.errors.join('\n')).toMatch(message);
  });

  test.each([
    ['FileExisting-socat (warning only)', fileExisting('socat', false), system({ which: () => Promise.resolve(undefined) }), /socat not found/],
    ['Hostname', hostnameCheck('nosuchhost.invalid'), system({ resolveHost: () => Promise.resolve(false) }), /could not be reached/],
    ['Swap allowed by failSwapOn=false', swapCheck(true), system({ readProc: () => Promise.resolve('Filename Type\n/swapfile file 100 0 -2\n') }), /swap is enabled/],
    ['HTTPProxy', httpProxyCheck('10.0.0.5', 6443), system({ env: (n) => (n === 'HTTPS_PROXY' ? 'http://proxy:3128' : undefined) }), /uses proxy/],
  ])('%s', async (_name, check, sys, message) => {
    const result = await fires(check, sys);
    expect(result.errors).toEqual([]);
    expect(result.warnings.join('\n')).toMatch(message);
  });

  test('FileAvailable fires when a manifest exists (under --rootfs)', async () => {
    const result = await fires(fileAvailable('/etc/kubernetes/manifests/etcd.yaml'), system());
    expect(result.errors).toEqual(['/etc/kubernetes/manifests/etcd.yaml already exists']);
    expect((await fires(fileAvailable('/etc/kubernetes/manifests/kube-apiserver.yaml'), system())).errors).toEqual([]);
  });

  test('DirAvailable fires on a non-empty etcd data dir', async () => {
    expect((await fires(dirAvailable('/var/lib/etcd'), system())).errors).toEqual(['/var/lib/etcd is not empty']);
    expect((await fires(dirAvailable('/var/lib/nothing'), system())).errors).toEqual([]);
  });

  test('check names are kubeadm\'s (usable in --ignore-preflight-errors)', () => {
    expect(fileAvailable('/etc/kubernetes/manifests/kube-apiserver.yaml').name).toBe('FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml');
    expect(dirAvailable('/var/lib/etcd').name).toBe('DirAvailable--var-lib-etcd');
    expect(fileContent('/proc/sys/net/ipv4/ip_forward', '1').name).toBe('FileContent--proc-sys-net-ipv4-ip_forward');
    const names = initChecks({ versions: v120, kubernetesVersion: 'v1.20.2', criSocket: '/run/containerd/containerd.sock', nodeName: 'cp1', bindPort: 6443, localEtcdDataDir: '/var/lib/etcd', swapAllowed: false }).map((c) => c.name);
    for (const n of ['IsPrivilegedUser', 'NumCPU', 'Mem', 'Port-6443', 'Port-10259', 'Port-10257', 'Port-2379', 'Port-2380', 'Port-10250', 'DirAvailable--var-lib-etcd', 'CRI', 'Swap', 'KubeletVersion', 'Hostname', 'FileExisting-nsenter']) {
      expect(names).toContain(n);
    }
    const join = joinChecks({ versions: v120, kubernetesVersion: 'v1.20.2', criSocket: '/run/containerd/containerd.sock', nodeName: 'w1', bindPort: 6443, swapAllowed: false, controlPlane: false }).map((c) => c.name);
    expect(join).toEqual(expect.arrayContaining(['DirAvailable--etc-kubernetes-manifests', 'FileAvailable--etc-kubernetes-kubelet.conf', 'FileAvailable--etc-kubernetes-bootstrap-kubelet.conf', 'FileAvailable--etc-kubernetes-pki-ca.crt']));
    expect(commonChecks({ versions: v120, kubernetesVersion: 'v1.20.2', criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false }).length).toBeGreaterThan(10);
  });
});

describe('real probes', () => {
  test('Port check fires on a port that is really in use', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      expect((await portCheck(port).run({ host, system: realSystem })).errors).toEqual([`Port ${port} is in use`]);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect((await portCheck(port).run({ host, system: realSystem })).errors).toEqual([]);
  });

  test('CRI check fires on a socket nobody listens on', async () => {
    const result = await criCheck(`${root.dir}/no.sock`).run({ host, system: realSystem });
    expect(result.errors[0]).toMatch(/cannot connect/);
  });

  test('KubeletVersion fires on a kubelet newer than the control plane', async () => {
    const fake: Host = Object.assign(Object.create(host) as Host, {
      exec: () => Promise.resolve({ exitCode: 0, stdout: 'Kubernetes v1.22.0\n', stderr: '' }),
    });
    expect((await kubeletVersionCheck(v120, 'v1.20.2').run({ host: fake, system: system() })).errors[0]).toMatch(/higher than the control plane/);
    const old: Host = Object.assign(Object.create(host) as Host, { exec: () => Promise.resolve({ exitCode: 0, stdout: 'Kubernetes v1.17.0\n', stderr: '' }) });
    expect((await kubeletVersionCheck(v120, 'v1.20.2').run({ host: old, system: system() })).errors[0]).toMatch(/lower than kubeadm can support/);
    const good: Host = Object.assign(Object.create(host) as Host, { exec: () => Promise.resolve({ exitCode: 0, stdout: 'Kubernetes v1.20.2\n', stderr: '' }) });
    expect((await kubeletVersionCheck(v120, 'v1.20.2').run({ host: good, system: system() })).errors).toEqual([]);
  });
});

describe('runChecks', () => {
  const logger = () => {
    const reporter = new MemoryReporter();
    return { reporter, log: new PhaseLogger(reporter) };
  };

  test('errors are fatal with exit code 2 and list every failing check', async () => {
    const { log } = logger();
    const err = await runChecks([numCPU, mem], { host, system: system({ cpus: () => 1, memoryMB: () => 10 }) }, [], log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as TsadmError).exitCode).toBe(2);
    expect((err as TsadmError).details).toEqual([
      '[ERROR NumCPU]: the number of available CPUs 1 is less than the required 2',
      '[ERROR Mem]: the system RAM (10 MB) is less than the minimum 1700 MB',
    ]);
  });

  test('--ignore-preflight-errors turns named errors into warnings (case-insensitive), "all" ignores all', async () => {
    const { log, reporter } = logger();
    await runChecks([numCPU], { host, system: system({ cpus: () => 1 }) }, ['numcpu'], log);
    expect(reporter.lines()).toContain('[WARNING NumCPU]: the number of available CPUs 1 is less than the required 2');
    await expect(runChecks([numCPU, mem], { host, system: system({ cpus: () => 1, memoryMB: () => 1 }) }, ['all'], log)).resolves.toBeUndefined();
    await expect(runChecks([numCPU], { host, system: system() }, ['all', 'Mem'], log)).rejects.toThrow(/don't specify individual checks/);
  });
});
