import semver from 'semver';
import { MANIFESTS_DIR, PORTS } from '../../constants.js';
import { socketPath } from '../../host/cri.js';
import type { VersionProfile } from '../../versions/table.js';
import { type Check, type CheckEnv, type CheckResult, fail, ok, pathCheckName, warn } from './check.js';

/** Facts the checks need, resolved from the configuration beforehand. */
export interface PreflightInput {
  readonly versions: VersionProfile;
  readonly kubernetesVersion: string;
  readonly criSocket: string;
  readonly nodeName: string;
  readonly bindPort: number;
  readonly advertiseAddress?: string;
  readonly serviceSubnet?: string;
  readonly podSubnet?: string;
  readonly localEtcdDataDir?: string;
  /** kubelet may run with swap (failSwapOn: false in the KubeletConfiguration). */
  readonly swapAllowed: boolean;
}

// A check may decide synchronously (CPU count, uid); Check.run is always asynchronous.
const check = (name: string, run: (env: CheckEnv) => CheckResult | Promise<CheckResult>): Check => ({ name, run: (env) => Promise.resolve(run(env)) });

export const isPrivilegedUser = check('IsPrivilegedUser', ({ system }) =>
  system.uid() === 0 ? ok : fail('user is not running as root'));

export const numCPU = check('NumCPU', ({ system }) =>
  system.cpus() >= 2 ? ok : fail(`the number of available CPUs ${system.cpus()} is less than the required 2`));

export const mem = check('Mem', ({ system }) =>
  system.memoryMB() >= 1700 ? ok : fail(`the system RAM (${system.memoryMB()} MB) is less than the minimum 1700 MB`));

export function portCheck(port: number): Check {
  return check(`Port-${port}`, async ({ system }) => ((await system.portFree(port)) ? ok : fail(`Port ${port} is in use`)));
}

export function fileAvailable(p: string): Check {
  return check(pathCheckName('FileAvailable', p), async ({ host }) =>
    (await host.stat(p)) ? fail(`${p} already exists`) : ok);
}

export function dirAvailable(p: string): Check {
  return check(pathCheckName('DirAvailable', p), async ({ host }) =>
    (await host.readdir(p)).length > 0 ? fail(`${p} is not empty`) : ok);
}

export function fileContent(p: string, want: string): Check {
  return check(pathCheckName('FileContent', p), async ({ system }) => {
    const got = await system.readProc(p);
    if (got === undefined) return fail(`${p} does not exist`);
    return got.trim() === want ? ok : fail(`${p} contents are not set to ${want}`);
  });
}

export function fileExisting(program: string, mandatory: boolean): Check {
  return check(`FileExisting-${program}`, async ({ system }) => {
    if (await system.which(program)) return ok;
    const msg = `${program} not found in system path`;
    return mandatory ? fail(msg) : warn(msg);
  });
}

export function swapCheck(allowed: boolean): Check {
  return check('Swap', async ({ system }) => {
    const swaps = (await system.readProc('/proc/swaps')) ?? '';
    const active = swaps.trim().split('\n').length > 1;
    if (!active) return ok;
    return allowed ? warn('swap is enabled; production deployments should disable swap') : fail('running with swap on is not supported. Please disable swap');
  });
}

export function criCheck(criSocket: string): Check {
  return check('CRI', async ({ system }) =>
    (await system.socketReachable(socketPath(criSocket)))
      ? ok
      : fail(`container runtime is not running: cannot connect to the CRI socket ${criSocket}`));
}

export function hostnameCheck(nodeName: string): Check {
  return check('Hostname', async ({ system }) =>
    (await system.resolveHost(nodeName)) ? ok : warn(`hostname "${nodeName}" could not be reached; lookup ${nodeName} failed`));
}

/** kubelet must be within the skew policy: not newer than the control plane, not older than the minimum. */
export function kubeletVersionCheck(versions: VersionProfile, target: string): Check {
  return check('KubeletVersion', async ({ host }): Promise<CheckResult> => {
    const res = await host.exec('kubelet', ['--version']).catch(() => undefined);
    if (!res || res.exitCode !== 0) return warn('could not run "kubelet --version"; is the kubelet installed?');
    const got = semver.coerce(res.stdout.replace(/^Kubernetes\s+/, ''));
    if (!got) return warn(`could not parse kubelet version from "${res.stdout.trim()}"`);
    const want = semver.coerce(target);
    if (want && semver.gt(`${got.major}.${got.minor}.0`, `${want.major}.${want.minor}.0`)) {
      return fail(`the kubelet version is higher than the control plane version. This is not a supported version skew and may lead to a malfunctional cluster. Kubelet version: "${got.version}" Control plane version: "${want.version}"`);
    }
    if (semver.lt(got.version, versions.skew.minKubelet)) {
      return fail(`Kubelet version "${got.version}" is lower than kubeadm can support. Please upgrade kubelet`);
    }
    return ok;
  });
}

export function httpProxyCheck(address: string | undefined, port: number): Check {
  return check('HTTPProxy', ({ system }) => {
    const proxy = system.env('HTTPS_PROXY');
    if (!proxy || !address) return ok;
    const noProxy = (system.env('NO_PROXY') ?? '').split(',').map((s) => s.trim());
    if (noProxy.includes(address) || noProxy.includes('*')) return ok;
    return warn(`Connection to "https://${address}:${port}" uses proxy "${proxy}". If that is not intended, adjust your proxy settings`);
  });
}

/** kubeadm's init checks for a control-plane node (docs/kubeadm-reference.md §1.8), in kubeadm's order. */
export function initChecks(input: PreflightInput): Check[] {
  const manifests = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'].map((c) => `${MANIFESTS_DIR}/${c}.yaml`);
  const checks: Check[] = [
    numCPU,
    mem,
    portCheck(input.bindPort),
    portCheck(PORTS.scheduler),
    portCheck(PORTS.controllerManager),
    ...manifests.map(fileAvailable),
    httpProxyCheck(input.advertiseAddress, input.bindPort),
    ...commonChecks(input),
  ];
  if (input.localEtcdDataDir !== undefined) {
    checks.push(portCheck(PORTS.etcdClient), portCheck(PORTS.etcdPeer), dirAvailable(input.localEtcdDataDir));
  }
  return [isPrivilegedUser, ...checks];
}

/** Checks shared by init and join (kubeadm's RunInitNodeChecks/common checks). */
export function commonChecks(input: PreflightInput): Check[] {
  return [
    criCheck(input.criSocket),
    fileContent('/proc/sys/net/bridge/bridge-nf-call-iptables', '1'),
    fileContent('/proc/sys/net/ipv4/ip_forward', '1'),
    swapCheck(input.swapAllowed),
    ...['conntrack', 'ip', 'iptables', 'mount', 'nsenter'].map((p) => fileExisting(p, true)),
    ...['ebtables', 'ethtool', 'socat', 'tc', 'touch'].map((p) => fileExisting(p, false)),
    hostnameCheck(input.nodeName),
    kubeletVersionCheck(input.versions, input.kubernetesVersion),
    portCheck(PORTS.kubelet),
  ];
}

/** kubeadm's join checks for a worker (control-plane joins add the init control-plane checks). */
export function joinChecks(input: PreflightInput & { controlPlane: boolean }): Check[] {
  const checks: Check[] = [
    isPrivilegedUser,
    dirAvailable(MANIFESTS_DIR),
    fileAvailable('/etc/kubernetes/kubelet.conf'),
    fileAvailable('/etc/kubernetes/bootstrap-kubelet.conf'),
    ...commonChecks(input),
  ];
  if (!input.controlPlane) checks.push(fileAvailable('/etc/kubernetes/pki/ca.crt'));
  else checks.push(numCPU, mem, portCheck(input.bindPort), portCheck(PORTS.scheduler), portCheck(PORTS.controllerManager));
  if (input.controlPlane && input.localEtcdDataDir !== undefined) {
    checks.push(portCheck(PORTS.etcdClient), portCheck(PORTS.etcdPeer), dirAvailable(input.localEtcdDataDir));
  }
  return checks;
}
