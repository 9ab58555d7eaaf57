import http from 'node:http';
import net from 'node:net';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import type { SystemProbe } from '../../../../src/host/system-probe.js';
import {
  bindAddressesOf, commonChecks, containerRuntimeVersionCheck, criCheck, dirAvailable, externalEtcdVersionCheck, fileAvailable, fileContent, fileExisting,
  firewalldCheck, hostnameCheck, httpProxyCheck, httpProxyCidrCheck, initChecks, isPrivilegedUser, joinChecks, kubeletVersionCheck,
  kubernetesVersionCheck, mem, numCPU, portCheck, serviceKubeletCheck, swapCheck, systemVerificationCheck,
  type ConnectRuntimeConfig,
} from '../../../../src/phases/preflight/checks.js';
import { runChecks } from '../../../../src/phases/preflight/run-checks.js';
import { realSystem } from '../../../../src/host/system-probe.js';
import { profileFor } from '../../../../src/versions/resolve.js';
import { tempRoot } from '../../../helpers/temp-root.js';
import { MemoryReporter } from '../../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../../src/log/logger.js';
import { TsadmError } from '../../../../src/errors.js';
import type { Host } from '../../../../src/host/host.js';

/** The kernel options system-validators requires (validators/types_unix.go), all built in. */
const FULL_KERNEL_CONFIG = ['NAMESPACES', 'NET_NS', 'PID_NS', 'IPC_NS', 'UTS_NS', 'CPUSETS', 'MEMCG', 'INET', 'EXT4_FS', 'PROC_FS', 'NETFILTER_XT_TARGET_REDIRECT',
  'NETFILTER_XT_MATCH_COMMENT', 'FAIR_GROUP_SCHED', 'CGROUPS', 'CGROUP_CPUACCT', 'CGROUP_DEVICE', 'CGROUP_FREEZER', 'CGROUP_PIDS', 'CGROUP_SCHED', 'CGROUP_BPF']
  .map((n) => `CONFIG_${n}=y`).join('\n');

/** A healthy machine (cgroup v2, a 6.x kernel, the kubelet unit enabled); each test breaks one fact. */
function system(overrides: Partial<SystemProbe> = {}): SystemProbe {
  return {
    uid: () => 0,
    cpus: () => 4,
    memoryMB: () => 8000,
    portFree: () => Promise.resolve(true),
    readProc: (p) => Promise.resolve(
      p === '/proc/swaps' ? 'Filename\tType\tSize\tUsed\tPriority\n'
        // A cgroup v2 host's root controllers (as CentOS Stream 9 shows them, kubernetes/system-validators#31).
        : p === '/sys/fs/cgroup/cgroup.controllers' ? 'cpuset cpu io memory hugetlb pids rdma misc\n'
          : '1\n'),
    which: (p) => Promise.resolve(`/usr/bin/${p}`),
    socketReachable: () => Promise.resolve(true),
    resolveHost: () => Promise.resolve(true),
    env: () => undefined,
    kernelRelease: () => '6.1.0-13-amd64',
    cgroupFsType: () => Promise.resolve('cgroup2fs'),
    kernelConfig: () => Promise.resolve({ text: FULL_KERNEL_CONFIG }),
    moduleLoaded: () => Promise.resolve(true),
    service: (unit) => Promise.resolve(unit === 'firewalld'
      ? { exists: false, enabled: false, active: false, enableCommand: 'systemctl enable firewalld.service' }
      : { exists: true, enabled: true, active: true, enableCommand: `systemctl enable ${unit}.service` }),
    httpGet: () => Promise.reject(new Error('no network in this test')),
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
    ['HTTPProxy', httpProxyCheck('10.0.0.5'), system({ env: (n) => (n === 'HTTPS_PROXY' ? 'http://proxy:3128' : undefined) }), /uses proxy/],
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

  test('1.38 (kubeadm PR #141968): getent missing from PATH is a warning, FileExisting-getent; before 1.38 there is no such check', async () => {
    const common = (version: string) => commonChecks({ versions: profileFor(version), kubernetesVersion: version, criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false });
    const getent = common('v1.38.0-rc.0').find((c) => c.name === 'FileExisting-getent');
    expect(getent).toBeDefined();
    const missing = await fires(getent as NonNullable<typeof getent>, system({ which: (p: string) => Promise.resolve(p === 'getent' ? undefined : `/usr/bin/${p}`) }));
    expect(missing).toEqual({ warnings: ['getent not found in system path'], errors: [] });
    expect(common('v1.37.0').map((c) => c.name)).not.toContain('FileExisting-getent');
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

describe('the checks of issue 26 (kubeadm 1.35+ and the parity gaps), with kubeadm\'s names and messages', () => {
  const v135 = profileFor('v1.35.0');
  const v136 = profileFor('v1.36.0');
  const v137 = profileFor('v1.37.0');
  const kubeletAt = (version: string | undefined): Host => Object.assign(Object.create(host) as Host, {
    exec: () => Promise.resolve(version === undefined ? { exitCode: 127, stdout: '', stderr: 'kubelet: not found' } : { exitCode: 0, stdout: `Kubernetes ${version}\n`, stderr: '' }),
  });

  test('Service-Kubelet warns when the unit is not enabled, and when no init system is found', async () => {
    const disabled = system({ service: () => Promise.resolve({ exists: true, enabled: false, active: false, enableCommand: 'systemctl enable kubelet.service' }) });
    // kubeadm's own output (kubeadm join, any version): the check name and message.
    expect((await fires(serviceKubeletCheck(), disabled)).warnings).toEqual(["kubelet service is not enabled, please run 'systemctl enable kubelet.service'"]);
    expect(serviceKubeletCheck().name).toBe('Service-Kubelet');
    const none = system({ service: () => Promise.resolve({ error: 'no supported init system detected, skipping checking for services' }) });
    expect((await fires(serviceKubeletCheck(), none)).warnings).toEqual(['no supported init system detected, skipping checking for services']);
    expect(await fires(serviceKubeletCheck(), system())).toEqual({ warnings: [], errors: [] });
  });

  test('Firewalld warns when firewalld is active, naming the API server and kubelet ports', async () => {
    const active = system({ service: () => Promise.resolve({ exists: true, enabled: true, active: true, enableCommand: 'systemctl enable firewalld.service' }) });
    // kubeadm v1.27.1's output: "[WARNING Firewalld]: firewalld is active, please ensure ports [6443 10250] are open …".
    expect((await fires(firewalldCheck([6443, 10250]), active)).warnings).toEqual(['firewalld is active, please ensure ports [6443 10250] are open or your cluster may not function correctly']);
    expect(await fires(firewalldCheck([6443, 10250]), system())).toEqual({ warnings: [], errors: [] });
  });

  test('HTTPProxyCIDR warns when the first address of a CIDR would go through HTTPS_PROXY (Go\'s NO_PROXY rules)', async () => {
    const env = (vars: Record<string, string>) => system({ env: (n) => vars[n] });
    const message = 'connection to "10.96.0.0/12" uses proxy "http://proxy:3128". This may lead to malfunctional cluster setup. Make sure that Pod and Services IP ranges specified correctly as exceptions in proxy configuration';
    expect((await fires(httpProxyCidrCheck('10.96.0.0/12'), env({ HTTPS_PROXY: 'http://proxy:3128' }))).warnings).toEqual([message]);
    // Go's httpproxy prepends http:// to a proxy without a scheme.
    expect((await fires(httpProxyCidrCheck('10.96.0.0/12'), env({ HTTPS_PROXY: 'proxy:3128' }))).warnings).toEqual([message]);
    for (const noProxy of ['10.96.0.0/12', '10.0.0.0/8', '10.96.0.1', '*', 'example.com, 10.96.0.0/16']) {
      expect(await fires(httpProxyCidrCheck('10.96.0.0/12'), env({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy }))).toEqual({ warnings: [], errors: [] });
    }
    expect(await fires(httpProxyCidrCheck('10.96.0.0/12'), env({}))).toEqual({ warnings: [], errors: [] });
    expect(await fires(httpProxyCidrCheck(''), env({ HTTPS_PROXY: 'http://proxy:3128' }))).toEqual({ warnings: [], errors: [] });
    expect((await fires(httpProxyCidrCheck('fd00::/108'), env({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '10.0.0.0/8' }))).warnings[0]).toMatch(/^connection to "fd00::\/108" uses proxy/);
  });

  test('KubernetesVersion warns at the first minor past the tool\'s newest one, pre-releases included', async () => {
    expect((await fires(kubernetesVersionCheck('v1.38.0', '1.37'), system())).warnings).toEqual(['Kubernetes version is greater than kubeadm version. Please consider to upgrade kubeadm. Kubernetes version: 1.38.0. Kubeadm version: 1.37.x']);
    expect((await fires(kubernetesVersionCheck('v1.38.0-alpha.1', '1.37'), system())).warnings).toHaveLength(1);
    expect(await fires(kubernetesVersionCheck('v1.37.9', '1.37'), system())).toEqual({ warnings: [], errors: [] });
    expect(kubernetesVersionCheck('v1.37.0').name).toBe('KubernetesVersion');
  });

  test('ExternalEtcdVersion asks each endpoint\'s /version (a real HTTP server on loopback) against MinExternalEtcdVersion', async () => {
    let version = '3.4.13';
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end(JSON.stringify({ etcdserver: version, etcdcluster: '3.4.0' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const etcd = { mode: 'external' as const, endpoints: [endpoint], caFile: '', certFile: '', keyFile: '' };
    // kubeadm's MinExternalEtcdVersion: 3.2.18 in v1.20.2's constants.go, 3.5.24-0 in 1.36's; init's
    // checks take it from the target's row.
    const initEtcdCheck = (v: string) => {
      const found = initChecks({ versions: profileFor(v), kubernetesVersion: v, criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, externalEtcd: etcd })
        .find((c) => c.name === 'ExternalEtcdVersion');
      if (found === undefined) throw new Error(`no ExternalEtcdVersion check at ${v}`);
      return found;
    };
    try {
      expect((await fires(externalEtcdVersionCheck(etcd, '3.5.24-0', 10), realSystem)).errors).toEqual(['this version of kubeadm only supports external etcd version >= 3.5.24-0. Current version: 3.4.13']);
      expect(await fires(initEtcdCheck('v1.20.2'), realSystem)).toEqual({ warnings: [], errors: [] });
      expect((await fires(initEtcdCheck('v1.36.0'), realSystem)).errors).toEqual(['this version of kubeadm only supports external etcd version >= 3.5.24-0. Current version: 3.4.13']);
      version = '3.6.6';
      expect(await fires(externalEtcdVersionCheck(etcd, '3.5.24-0', 10), realSystem)).toEqual({ warnings: [], errors: [] });
      expect(seen).toEqual(['/version', '/version', '/version', '/version']);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect((await fires(externalEtcdVersionCheck({ ...etcd, caFile: '/etc/kubernetes/pki/etcd/missing.crt' }, '3.2.18', 10), realSystem)).errors)
      .toEqual(["couldn't load external etcd's server certificate /etc/kubernetes/pki/etcd/missing.crt: open /etc/kubernetes/pki/etcd/missing.crt: no such file or directory"]);
  });

  test('ContainerRuntimeVersion: a warning when the runtime lacks RuntimeConfig, for the kubelets of each minor', async () => {
    const rpcError = (code: number, text: string) => Object.assign(new Error(text), { code });
    const unimplemented = () => Promise.resolve({ runtimeConfig: () => Promise.reject(rpcError(12, 'rpc error: code = Unimplemented desc = unknown method RuntimeConfig for service runtime.v1.RuntimeService')), close: () => undefined });
    const unavailable = () => Promise.resolve({ runtimeConfig: () => Promise.reject(rpcError(14, 'rpc error: code = Unavailable desc = No connection established')), close: () => undefined });
    const answers = () => Promise.resolve({ runtimeConfig: () => Promise.resolve({ cgroupDriver: 'systemd' }), close: () => undefined });
    // kubeadm v1.35.0–v1.35.3's output: "[WARNING ContainerRuntimeVersion]: You must update … will be removed in 1.36. …".
    const text = (minor: string) => `You must update your container runtime to a version that supports the CRI method RuntimeConfig. Falling back to using cgroupDriver from kubelet config will be removed in ${minor}. For more information, see https://git.k8s.io/enhancements/keps/sig-node/4033-group-driver-detection-over-cri`;
    const run = (versions: typeof v135, kubelet: string | undefined, connect: ConnectRuntimeConfig) =>
      containerRuntimeVersionCheck(versions, `v${versions.minor}.0`, 'unix:///run/containerd/containerd.sock', connect).run({ host: kubeletAt(kubelet), system: system() });
    expect((await run(v135, 'v1.35.0', unimplemented)).warnings).toEqual([text('1.36')]);
    expect((await run(v136, 'v1.36.1', unimplemented)).warnings).toEqual([text('1.37')]);
    expect((await run(v137, 'v1.37.0', unimplemented)).warnings).toEqual([text('1.38')]);
    // 1.36 warns only for kubelets older than 1.37, 1.37 only for those older than 1.38.
    expect(await run(v136, 'v1.37.0', unimplemented)).toEqual({ warnings: [], errors: [] });
    expect(await run(v135, 'v1.35.0', answers)).toEqual({ warnings: [], errors: [] });
    expect((await run(v135, undefined, () => Promise.reject(new Error('connect ENOENT /run/containerd/containerd.sock')))).errors)
      .toEqual(['could not connect to the container runtime: connect ENOENT /run/containerd/containerd.sock']);
    // A runtime that does not answer at all is an error, not the RuntimeConfig warning.
    expect(await run(v137, 'v1.37.0', unavailable)).toEqual({ warnings: [], errors: ['could not connect to the container runtime: rpc error: code = Unavailable desc = No connection established'] });
    // Only from 1.35, and only when the CRI seam is given.
    const input = { kubernetesVersion: 'v1.34.1', criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, connectRuntime: answers };
    expect(commonChecks({ ...input, versions: profileFor('v1.34.1') }).map((c) => c.name)).not.toContain('ContainerRuntimeVersion');
    expect(commonChecks({ ...input, kubernetesVersion: 'v1.35.0', versions: v135 }).map((c) => c.name).slice(0, 2)).toEqual(['CRI', 'ContainerRuntimeVersion']);
  });

  test('port checks bind to the components\' configured bind-address from 1.37 (PR #138250), to all addresses before', async () => {
    const asked: Array<[number, string | undefined]> = [];
    const probe = system({ portFree: (port, address) => { asked.push([port, address]); return Promise.resolve(true); } });
    const input = { criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, bindAddresses: { apiServer: '10.0.10.3', scheduler: '127.0.0.1', controllerManager: '127.0.0.1' } };
    for (const c of initChecks({ ...input, versions: v137, kubernetesVersion: 'v1.37.0' }).filter((x) => x.name.startsWith('Port-'))) await c.run({ host, system: probe });
    expect(asked.slice(0, 3)).toEqual([[6443, '10.0.10.3'], [10259, '127.0.0.1'], [10257, '127.0.0.1']]);
    asked.length = 0;
    for (const c of initChecks({ ...input, versions: v136, kubernetesVersion: 'v1.36.0' }).filter((x) => x.name.startsWith('Port-'))) await c.run({ host, system: probe });
    expect(asked.slice(0, 3)).toEqual([[6443, undefined], [10259, undefined], [10257, undefined]]);
  });

  test('a control-plane join adds kubeadm\'s init control-plane checks (InitNodeChecks for a secondary control plane); bind addresses come from extraArgs, the last one winning', () => {
    const names = joinChecks({ versions: v137, kubernetesVersion: 'v1.37.0', criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, controlPlane: true, serviceSubnet: '10.96.0.0/12', podSubnet: '10.244.0.0/16' }).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['NumCPU', 'Mem', 'KubernetesVersion', 'Firewalld', 'Port-6443', 'Port-10259', 'Port-10257', 'HTTPProxyCIDR', 'SystemVerification', 'Service-Kubelet']));
    expect(names.filter((n) => n === 'HTTPProxyCIDR')).toHaveLength(2);
    const worker = joinChecks({ versions: v137, kubernetesVersion: 'v1.37.0', criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, controlPlane: false }).map((c) => c.name);
    expect(worker).not.toContain('Firewalld');
    const args = (...values: string[]) => ({ extraArgs: [{ name: 'v', value: '2' }, ...values.map((value) => ({ name: 'bind-address', value }))] });
    expect(bindAddressesOf({ apiServer: args('10.0.0.1', '10.0.10.3'), scheduler: args(), controllerManager: args('127.0.0.1') }))
      .toEqual({ apiServer: '10.0.10.3', controllerManager: '127.0.0.1' });
  });

  test('a port in use on one loopback address is free on another (the real probe, bound to an address)', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      expect((await portCheck(port, '127.0.0.1').run({ host, system: realSystem })).errors).toEqual([`Port ${port} is in use`]);
      expect((await portCheck(port, '127.0.0.2').run({ host, system: realSystem })).errors).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  describe('SystemVerification on a cgroup v1 host', () => {
    const cgroupV1 = system({
      cgroupFsType: () => Promise.resolve('tmpfs'),
      // This machine's /proc/cgroups (Debian 12, cgroup v1).
      readProc: (p) => Promise.resolve(p === '/proc/swaps' ? 'Filename\tType\tSize\tUsed\tPriority\n' : p === '/proc/cgroups'
        ? '#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t1\t1\ncpu\t1\t1\t1\ncpuacct\t2\t1\t1\nblkio\t7\t1\t1\nmemory\t4\t50\t1\ndevices\t5\t1\t1\nfreezer\t6\t1\t1\nnet_cls\t0\t1\t1\nperf_event\t0\t1\t1\nnet_prio\t0\t1\t1\nhugetlb\t0\t1\t1\npids\t8\t1\t1\n'
        : '1\n'),
    });
    // system-validators v1.12.1's message, as kubeadm v1.35.0-rc.1 printed it (minikube #22315).
    const expected = "[ERROR SystemVerification]: cgroups v1 support is deprecated and will be removed in a future release. Please migrate to cgroups v2. To explicitly enable cgroups v1 support for kubelet v1.35 or newer, you must set the kubelet configuration option 'FailCgroupV1' to 'false'. You must also explicitly skip this validation. For more information, see https://git.k8s.io/enhancements/keps/sig-node/5573-remove-cgroup-v1";
    const empty = tempRoot({});
    afterAll(() => empty.cleanup());

    test.each(['v1.35.0', 'v1.36.0', 'v1.37.0'])('init preflight for %s fails with [ERROR SystemVerification] naming cgroup v1 and the opt-out', async (version) => {
      const reporter = new MemoryReporter();
      const checks = initChecks({ versions: profileFor(version), kubernetesVersion: version, criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, localEtcdDataDir: '/var/lib/etcd' });
      // An empty machine without a kubelet: the target's version is the kubelet's.
      const bare: Host = Object.assign(Object.create(new RootedHost(empty.dir)) as Host, { exec: () => Promise.resolve({ exitCode: 127, stdout: '', stderr: '' }) });
      const err = await runChecks(checks, { host: bare, system: cgroupV1 }, [], new PhaseLogger(reporter)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TsadmError);
      expect((err as TsadmError).details).toEqual([expected]);
      // The documented opt-out makes it a warning.
      await runChecks(checks, { host: bare, system: cgroupV1 }, ['SystemVerification'], new PhaseLogger(reporter));
      expect(reporter.lines()).toContain(expected.replace('[ERROR', '[WARNING'));
    });

    test('a v1.20.2 kubelet (the e2e tests\') is not refused: no error, no warning', async () => {
      const result = await systemVerificationCheck('v1.20.2').run({ host: kubeletAt('v1.20.2'), system: cgroupV1 });
      expect(result).toEqual({ warnings: [], errors: [] });
    });

    test('during an upgrade the kubelet is judged one minor ahead (PR #134744): a 1.34 kubelet is refused, as it will be 1.35', async () => {
      expect((await systemVerificationCheck('v1.35.0', { upgrade: true }).run({ host: kubeletAt('v1.34.2'), system: cgroupV1 })).errors).toHaveLength(1);
      expect((await systemVerificationCheck('v1.35.0').run({ host: kubeletAt('v1.34.2'), system: cgroupV1 })).errors).toEqual([]);
      expect((await systemVerificationCheck('v1.34.1', { upgrade: true }).run({ host: kubeletAt('v1.33.5'), system: cgroupV1 })).errors).toEqual([]);
    });

    test('the installed kubelet\'s version decides, not the target\'s', async () => {
      expect((await systemVerificationCheck('v1.35.0').run({ host: kubeletAt('v1.34.2'), system: cgroupV1 })).errors).toEqual([]);
      expect((await systemVerificationCheck('v1.34.1').run({ host: kubeletAt('v1.35.0-alpha.1'), system: cgroupV1 })).errors).toHaveLength(1);
    });
  });
});

describe('HTTPProxy decides as Go\'s net/http (httpproxy, kubeadm\'s HTTPProxyCheck)', () => {
  const env = (vars: Record<string, string>): SystemProbe => system({ env: (n) => vars[n] });
  const proxied = { HTTPS_PROXY: 'proxy:3128', NO_PROXY: 'example.com,.corp.test,10.0.0.0/8,2001:db8::/48,192.168.7.7:443,192.168.8.8:6443' };
  const warning = async (host: string, vars: Record<string, string> = proxied): Promise<string[]> => [...(await fires(httpProxyCheck(host), env(vars))).warnings];

  test('loopback and localhost are never proxied; NO_PROXY CIDRs, addresses (with the URL\'s port) and domain suffixes are honoured', async () => {
    for (const direct of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', 'localhost', '10.96.0.1', '2001:db8::1:15', '[2001:db8::1:15]', 'example.com', 'api.example.com', 'a.corp.test', '192.168.7.7']) {
      expect([direct, await warning(direct)]).toEqual([direct, []]);
    }
    // ".corp.test" matches subdomains only; "192.168.8.8:6443" not kubeadm's port-less URL (https: 443).
    for (const viaProxy of ['corp.test', 'notexample.com', '192.168.0.1', '192.168.8.8', '2001:db8:1::1:15']) {
      expect([viaProxy, (await warning(viaProxy)).length]).toEqual([viaProxy, 1]);
    }
  });

  test('kubeadm\'s URL in the warning: the bare host, an unbracketed IPv6 literal with port 1234; a proxy without scheme gets http://', async () => {
    expect(await warning('192.168.0.1')).toEqual(['Connection to "https://192.168.0.1" uses proxy "http://proxy:3128". If that is not intended, adjust your proxy settings']);
    expect(await warning('2001:db8:1::1:15')).toEqual(['Connection to "https://[2001:db8:1::1:15]:1234" uses proxy "http://proxy:3128". If that is not intended, adjust your proxy settings']);
    expect(await warning('[2001:db8:1::1:15]')).toEqual(['Connection to "https://[2001:db8:1::1:15]" uses proxy "http://proxy:3128". If that is not intended, adjust your proxy settings']);
  });

  test('lower-case variables count when the upper-case ones are unset; "*" exempts every host; no HTTPS_PROXY, no proxy', async () => {
    expect(await warning('10.1.2.3', { https_proxy: 'https://p:1', no_proxy: '10.1.0.0/16' })).toEqual([]);
    expect(await warning('10.2.2.3', { https_proxy: 'https://p:1', no_proxy: '10.1.0.0/16' })).toHaveLength(1);
    expect(await warning('192.168.0.1', { HTTPS_PROXY: 'https://p:1', NO_PROXY: 'x.test,*' })).toEqual([]);
    expect(await warning('192.168.0.1', { HTTP_PROXY: 'http://p:1' })).toEqual([]);
  });
});

describe('IP forwarding checks by IP family (kubeadm 1.27+, PR #115420)', () => {
  const V4 = 'FileContent--proc-sys-net-ipv4-ip_forward';
  const V6 = 'FileContent--proc-sys-net-ipv6-conf-default-forwarding';
  const forwarding = (names: readonly { name: string }[]): string[] => names.map((c) => c.name).filter((n) => n === V4 || n === V6);
  const base = { criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false };
  const v127 = { ...base, versions: profileFor('v1.27.0'), kubernetesVersion: 'v1.27.0' };
  const v126 = { ...base, versions: profileFor('v1.26.3'), kubernetesVersion: 'v1.26.3' };

  test('init follows the Service and Pod subnets and the advertise address', () => {
    expect(forwarding(initChecks({ ...v127, serviceSubnet: 'fd00:1::/112', podSubnet: 'fd00:2::/56', advertiseAddress: 'fd00::10' }))).toEqual([V6]);
    expect(forwarding(initChecks({ ...v127, serviceSubnet: '10.96.0.0/16,fd00:1::/112', podSubnet: 'fd00:2::/56' }))).toEqual([V4, V6]);
    expect(forwarding(initChecks({ ...v127, serviceSubnet: '10.96.0.0/16', podSubnet: '', advertiseAddress: 'fd00::10' }))).toEqual([V4, V6]);
    expect(forwarding(initChecks({ ...v127, serviceSubnet: '10.96.0.0/16', podSubnet: '10.244.0.0/16', advertiseAddress: '10.0.0.5' }))).toEqual([V4]);
  });

  test('join follows the bootstrap-token discovery endpoint\'s address; a name or file discovery adds none', () => {
    const join = (discoveryEndpoint?: string) => forwarding(joinChecks({ ...v127, controlPlane: false, serviceSubnet: '10.96.0.0/16', ...(discoveryEndpoint !== undefined ? { discoveryEndpoint } : {}) }));
    expect(join('[fd00::10]:6443')).toEqual([V6]);
    expect(join('10.0.0.5:6443')).toEqual([V4]);
    expect(join('cp.example.com:6443')).toEqual([]);
    expect(join()).toEqual([]);
    expect(joinChecks({ ...v127, controlPlane: false, discoveryEndpoint: '10.0.0.5:6443' }).map((c) => c.name)).toContain('HTTPProxy');
  });

  test('before 1.27 ip_forward is a common check whatever the family; an IPv6 advertise address or discovery endpoint adds IPv6 forwarding', () => {
    // kubeadm <= 1.26 InitNodeChecks / RunJoinNodeChecks: bridgenf6 and ipv6DefaultForwarding when
    // the advertise address (init) or the discovery host (join) is IPv6; the subnets do not count.
    expect(forwarding(initChecks({ ...v126, serviceSubnet: 'fd00:1::/112', podSubnet: 'fd00:2::/56', advertiseAddress: 'fd00::10' }))).toEqual([V4, V6]);
    expect(forwarding(initChecks({ ...v126, serviceSubnet: 'fd00:1::/112', podSubnet: 'fd00:2::/56', advertiseAddress: '10.0.0.5' }))).toEqual([V4]);
    expect(forwarding(initChecks({ ...v126, serviceSubnet: '10.96.0.0/12', podSubnet: '', advertiseAddress: '::ffff:10.0.0.5' }))).toEqual([V4]);
    expect(forwarding(joinChecks({ ...v126, controlPlane: false, discoveryEndpoint: '[fd00::10]:6443' }))).toEqual([V4, V6]);
    expect(forwarding(joinChecks({ ...v126, controlPlane: false, discoveryEndpoint: '10.0.0.5:6443' }))).toEqual([V4]);
  });

  test('the IPv6 check reads conf/default/forwarding', async () => {
    const [check] = initChecks({ ...v127, serviceSubnet: 'fd00:1::/112', podSubnet: '' }).filter((c) => c.name === V6);
    const read: string[] = [];
    const result = await fires(check!, system({ readProc: (p) => { read.push(p); return Promise.resolve('0\n'); } }));
    expect(read).toEqual(['/proc/sys/net/ipv6/conf/default/forwarding']);
    expect(result.errors).toEqual(['/proc/sys/net/ipv6/conf/default/forwarding contents are not set to 1']);
  });
});

describe('bridge-netfilter and conntrack checks per minor (row facts preflight.bridgeNetfilter, preflight.conntrackInPath)', () => {
  const BR4 = 'FileContent--proc-sys-net-bridge-bridge-nf-call-iptables';
  const BR6 = 'FileContent--proc-sys-net-bridge-bridge-nf-call-ip6tables';
  const V4 = 'FileContent--proc-sys-net-ipv4-ip_forward';
  const V6 = 'FileContent--proc-sys-net-ipv6-conf-default-forwarding';
  const kernel = (checks: readonly { name: string }[]): string[] => checks.map((c) => c.name).filter((n) => n.startsWith('FileContent--proc-sys-net-'));
  const at = (version: string) => ({ criSocket: 'x', nodeName: 'n', bindPort: 6443, swapAllowed: false, versions: profileFor(version), kubernetesVersion: version });
  const dual = { serviceSubnet: '10.96.0.0/16,fd00:1::/112', podSubnet: '' };

  test('before 1.27 each family\'s bridge file comes before its forwarding file: IPv4 among the common checks, IPv6 after them', () => {
    expect(kernel(initChecks({ ...at('v1.26.3'), ...dual, advertiseAddress: 'fd00::10' }))).toEqual([BR4, V4, BR6, V6]);
    expect(kernel(joinChecks({ ...at('v1.20.2'), controlPlane: false, discoveryEndpoint: '10.0.0.5:6443' }))).toEqual([BR4, V4]);
  });

  test('1.27-1.29: the bridge files follow the IP families with their forwarding files (PR #115420)', () => {
    expect(kernel(initChecks({ ...at('v1.29.4'), ...dual }))).toEqual([BR4, V4, BR6, V6]);
    expect(kernel(initChecks({ ...at('v1.27.0'), serviceSubnet: 'fd00:1::/112', podSubnet: 'fd00:2::/56' }))).toEqual([BR6, V6]);
    expect(kernel(joinChecks({ ...at('v1.28.2'), controlPlane: false, discoveryEndpoint: '[fd00::10]:6443' }))).toEqual([BR6, V6]);
  });

  test('from 1.30 kubeadm checks neither bridge file (PR #123464)', () => {
    for (const version of ['v1.30.0', 'v1.35.4', 'v1.37.0']) {
      expect(kernel(initChecks({ ...at(version), ...dual }))).toEqual([V4, V6]);
      expect(kernel(joinChecks({ ...at(version), controlPlane: false, discoveryEndpoint: '[fd00::10]:6443' }))).toEqual([V6]);
    }
  });

  test('the IPv6 bridge check reads bridge-nf-call-ip6tables', async () => {
    const [check] = initChecks({ ...at('v1.26.3'), serviceSubnet: '10.96.0.0/12', podSubnet: '', advertiseAddress: 'fd00::10' }).filter((c) => c.name === BR6);
    const result = await fires(check!, system({ readProc: (p) => Promise.resolve(p.endsWith('ip6tables') ? '0\n' : '1\n') }));
    expect(result.errors).toEqual(['/proc/sys/net/bridge/bridge-nf-call-ip6tables contents are not set to 1']);
  });

  test('conntrack is a mandatory binary up to 1.31 and not checked from 1.32 (PR #126953)', async () => {
    const conntrack = (version: string) => commonChecks(at(version)).find((c) => c.name === 'FileExisting-conntrack');
    expect(conntrack('v1.20.2')).toBeDefined();
    expect(conntrack('v1.31.9')).toBeDefined();
    expect(conntrack('v1.32.0')).toBeUndefined();
    expect(conntrack('v1.37.0')).toBeUndefined();
    const missing = await fires(conntrack('v1.31.9')!, system({ which: (p) => Promise.resolve(p === 'conntrack' ? undefined : `/usr/bin/${p}`) }));
    expect(missing.errors).toEqual(['conntrack not found in system path']);
    // The other mandatory binaries stay, in kubeadm's order.
    expect(commonChecks(at('v1.32.0')).map((c) => c.name).filter((n) => n.startsWith('FileExisting-')).slice(0, 4))
      .toEqual(['FileExisting-ip', 'FileExisting-iptables', 'FileExisting-mount', 'FileExisting-nsenter']);
  });
});
