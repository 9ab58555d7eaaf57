import os from 'node:os';
import semver from 'semver';
import type { Arg, ExternalEtcd } from '../../config/types.js';
import { MANIFESTS_DIR, PORTS } from '../../constants.js';
import { socketPath } from '../../host/cri.js';
import type { Host } from '../../host/host.js';
import { activeSwaps, PROC_SWAPS, type SystemProbe } from '../../host/system-probe.js';
import { splitHostPort } from '../../net/host-port.js';
import { cidrContains, formatIp, indexedIp, isLoopback, parseCidr, parseIp } from '../../net/ip.js';
import { NEWEST_MINOR, SUPPORTED_MINORS } from '../../versions/minors.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { type Check, type CheckEnv, type CheckResult, fail, ok, pathCheckName, warn } from './check.js';
import { verifySystem } from './system-verification.js';

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
  /** External etcd (init): its endpoints are asked for their version (ExternalEtcdVersion). */
  readonly externalEtcd?: ExternalEtcd;
  /**
   * The addresses the control-plane components bind to, from their extraArgs' bind-address
   * (used by the port checks when versions.preflight.portChecksOnConfiguredAddresses).
   */
  readonly bindAddresses?: { readonly apiServer?: string; readonly scheduler?: string; readonly controllerManager?: string };
  /** Opens the container runtime for ContainerRuntimeVersion (the CRI seam). */
  readonly connectRuntime?: ConnectRuntimeConfig;
  /** Join: the bootstrap-token discovery's apiServerEndpoint (host:port); absent for file discovery. */
  readonly discoveryEndpoint?: string;
}

/** The last bind-address of each control-plane component's extraArgs (the last one wins, as in kubeadm's extraArgs). */
export function bindAddressesOf(cluster: Readonly<Record<'apiServer' | 'scheduler' | 'controllerManager', { readonly extraArgs: readonly Arg[] }>>): NonNullable<PreflightInput['bindAddresses']> {
  const of = (args: readonly Arg[]): string | undefined => {
    const value = args.filter((a) => a.name === 'bind-address').at(-1)?.value;
    return value !== undefined && value !== '' ? value : undefined;
  };
  const apiServer = of(cluster.apiServer.extraArgs);
  const scheduler = of(cluster.scheduler.extraArgs);
  const controllerManager = of(cluster.controllerManager.extraArgs);
  return { ...(apiServer ? { apiServer } : {}), ...(scheduler ? { scheduler } : {}), ...(controllerManager ? { controllerManager } : {}) };
}

/** Opens the CRI runtime at a socket path for its RuntimeConfig call (the real client, or a test's). */
export type ConnectRuntimeConfig = (socket: string) => Promise<{ runtimeConfig(): Promise<unknown>; close(): void }>;

// A check may decide synchronously (CPU count, uid); Check.run is always asynchronous.
const check = (name: string, run: (env: CheckEnv) => CheckResult | Promise<CheckResult>): Check => ({ name, run: (env) => Promise.resolve(run(env)) });

export const isPrivilegedUser = check('IsPrivilegedUser', ({ system }) =>
  system.uid() === 0 ? ok : fail('user is not running as root'));

export const numCPU = check('NumCPU', ({ system }) =>
  system.cpus() >= 2 ? ok : fail(`the number of available CPUs ${system.cpus()} is less than the required 2`));

export const mem = check('Mem', ({ system }) =>
  system.memoryMB() >= 1700 ? ok : fail(`the system RAM (${system.memoryMB()} MB) is less than the minimum 1700 MB`));

/**
 * kubeadm's PortOpenCheck: the port can be bound on all addresses, or (1.37, PR #138250) on the
 * address the component is configured to bind to. The name stays Port-<port>.
 */
export function portCheck(port: number, address?: string): Check {
  return check(`Port-${port}`, async ({ system }) => ((await system.portFree(port, address)) ? ok : fail(`Port ${port} is in use`)));
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
    if (activeSwaps((await system.readProc(PROC_SWAPS)) ?? '').length === 0) return ok;
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

/** The installed kubelet's version ("1.20.2", pre-release kept), or undefined when it cannot be asked. */
async function installedKubeletVersion(host: Host): Promise<string | undefined> {
  const res = await host.exec('kubelet', ['--version']).catch(() => undefined);
  if (!res || res.exitCode !== 0) return undefined;
  const text = res.stdout.trim().replace(/^Kubernetes\s+v?/, '');
  return semver.valid(text) ?? semver.coerce(text)?.version;
}

/**
 * The kubelet version the version-dependent checks judge (SystemVerification's cgroup v1 rule,
 * ContainerRuntimeVersion): the installed kubelet's, else the target version (the kubelet that
 * the node is being set up for; docs/decisions.md).
 */
async function judgedKubeletVersion(host: Host, target: string): Promise<string> {
  return (await installedKubeletVersion(host)) ?? target.replace(/^v/, '');
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

/**
 * kubeadm's HTTPProxyCheck: a warning when an https request to the host (init's advertise address,
 * join's discovery host) would go through a proxy, as Go's net/http decides (httpsProxyFor).
 * kubeadm's URL is the bare host, except that an IPv6 literal without brackets gets port 1234
 * (net.JoinHostPort(host, "1234")): "https://10.0.0.1", "https://[2001:db8::1]:1234".
 */
export function httpProxyCheck(host: string | undefined): Check {
  return check('HTTPProxy', ({ system }) => {
    if (host === undefined || host === '') return ok;
    const bareIpv6 = parseIp(host)?.family === 6;
    const authority = bareIpv6 ? `[${host}]:1234` : host;
    // url.URL.Hostname strips the brackets of "[::1]"; a URL without a port asks for https's 443.
    const hostname = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    const proxy = httpsProxyFor(system, hostname, bareIpv6 ? '1234' : '443');
    if (proxy === undefined) return ok;
    return warn(`Connection to "https://${authority}" uses proxy "${proxy}". If that is not intended, adjust your proxy settings`);
  });
}

/**
 * kubeadm's SystemVerification: system-validators' kernel, OS and cgroups validators
 * (src/phases/preflight/system-verification.ts). With cgroup v1 and a kubelet ≥ 1.35 it is an
 * error naming the documented opt-out.
 */
export function systemVerificationCheck(target: string, opts: { readonly upgrade?: boolean } = {}): Check {
  return check('SystemVerification', async ({ host, system }) => {
    const installed = await installedKubeletVersion(host);
    // During an upgrade kubeadm judges the kubelet one minor ahead, as it will be once upgraded (PR #134744).
    const kubelet = installed !== undefined && opts.upgrade === true ? nextMinor(installed) : installed ?? target.replace(/^v/, '');
    return verifySystem(system, os.type(), kubelet);
  });
}

/** 1.34.2 → 1.35.2 (pre-releases dropped). */
function nextMinor(version: string): string {
  const v = semver.parse(version);
  return v === null ? version : `${v.major}.${v.minor + 1}.${v.patch}`;
}

/** kubeadm's ServiceCheck for the kubelet (Service-Kubelet): warns when the unit is not enabled. */
export function serviceKubeletCheck(): Check {
  return check('Service-Kubelet', async ({ system }) => {
    const unit = 'kubelet';
    const facts = await system.service(unit);
    if ('error' in facts) return warn(facts.error);
    if (!facts.exists) return warn(`${unit} service does not exist`);
    return facts.enabled ? ok : warn(`${unit} service is not enabled, please run '${facts.enableCommand}'`);
  });
}

/** kubeadm's FirewalldCheck: warns when firewalld is active, naming the ports to open (Go's %v of []int). */
export function firewalldCheck(ports: readonly number[]): Check {
  return check('Firewalld', async ({ system }) => {
    const facts = await system.service('firewalld');
    if ('error' in facts) return warn(facts.error);
    if (!facts.exists || !facts.active) return ok;
    return warn(`firewalld is active, please ensure ports [${ports.join(' ')}] are open or your cluster may not function correctly`);
  });
}

/**
 * The proxy Go's net/http (golang.org/x/net/http/httpproxy config.useProxy, as apimachinery's
 * SetOldTransportDefaults uses it) would choose for an https request to host:port (host without
 * brackets): none for "localhost" and loopback addresses; none when a NO_PROXY entry is "*", a
 * CIDR holding the address, the address itself ("ip" or "ip:port"), or a domain the host is or
 * ends in ("example.com", ".example.com", "*.example.com", each optionally with ":port"); else
 * HTTPS_PROXY ("http://" prepended when it has no scheme). Upper-case variables win over lower-case
 * ones when set (getEnvAny).
 */
function httpsProxyFor(system: SystemProbe, host: string, port: string): string | undefined {
  const envAny = (...names: string[]): string => names.map((n) => system.env(n) ?? '').find((v) => v !== '') ?? '';
  const proxy = envAny('HTTPS_PROXY', 'https_proxy');
  if (proxy === '') return undefined;
  if (host === 'localhost') return undefined;
  const ip = parseIp(host);
  if (ip !== undefined && isLoopback(ip)) return undefined;
  const addr = host.trim().toLowerCase();
  for (const raw of envAny('NO_PROXY', 'no_proxy').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return undefined;
    const cidr = parseCidr(entry);
    if (cidr !== undefined) {
      if (ip !== undefined && cidrContains(cidr, ip)) return undefined;
      continue;
    }
    const split = splitHostPort(entry);
    let entryHost = 'error' in split ? entry : split.host;
    const entryPort = 'error' in split ? '' : split.port;
    if (!('error' in split) && entryHost === '') continue;
    const portMatches = entryPort === '' || entryPort === port;
    const entryIp = parseIp(entryHost);
    if (entryIp !== undefined) {
      if (ip !== undefined && formatIp(entryIp) === formatIp(ip) && portMatches) return undefined;
      continue;
    }
    if (entryHost === '') continue;
    if (entryHost.startsWith('*.')) entryHost = entryHost.slice(1);
    const matchHost = !entryHost.startsWith('.');
    const suffix = matchHost ? `.${entryHost}` : entryHost;
    if ((addr.endsWith(suffix) || (matchHost && addr === entryHost)) && portMatches) return undefined;
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/**
 * kubeadm's HTTPProxyCIDRCheck: a warning when an https request to the CIDR's first address
 * (kube-apiserver reaching a Service or a Pod) would go through a proxy.
 */
export function httpProxyCidrCheck(cidrText: string): Check {
  return check('HTTPProxyCIDR', ({ system }) => {
    if (cidrText === '') return ok;
    const cidr = parseCidr(cidrText);
    if (cidr === undefined) return fail(`error parsing CIDR "${cidrText}": invalid CIDR address: ${cidrText}`);
    const first = indexedIp(cidr, 1);
    if (first === undefined) return fail(`unable to get first IP address from the given CIDR (${cidrText})`);
    // kubeadm asks for https://<first address>:1234/.
    const proxy = httpsProxyFor(system, formatIp(first), '1234');
    if (proxy === undefined) return ok;
    return warn(`connection to "${cidrText}" uses proxy "${proxy}". This may lead to malfunctional cluster setup. Make sure that Pod and Services IP ranges specified correctly as exceptions in proxy configuration`);
  });
}

/**
 * kubeadm's KubernetesVersionCheck: a warning when the target is at or past the first minor this
 * tool does not know. Its "kubeadm version" is the newest row: NEWEST_MINOR, or the preview minor
 * after it, as whose kubeadm tsadm acts when one of its pre-releases is named (src/versions/release.ts).
 */
export function kubernetesVersionCheck(target: string, newestMinor: string = SUPPORTED_MINORS[SUPPORTED_MINORS.length - 1] ?? NEWEST_MINOR): Check {
  return check('KubernetesVersion', () => {
    const k8s = semver.parse(target.replace(/^v/, ''));
    if (k8s === null) return fail(`couldn't parse Kubernetes version "${target}"`);
    const [major, minor] = newestMinor.split('.').map(Number) as [number, number];
    if (semver.gte(k8s, `${major}.${minor + 1}.0-0`)) {
      return warn(`Kubernetes version is greater than kubeadm version. Please consider to upgrade kubeadm. Kubernetes version: ${k8s.version}. Kubeadm version: ${major}.${minor}.x`);
    }
    return ok;
  });
}

/** Retries of kubeadm's getEtcdVersionResponse: 3 after the first try, 5 s apart. */
const ETCD_VERSION_RETRIES = 3;

/**
 * kubeadm's ExternalEtcdVersionCheck: each external endpoint's /version must name an etcd server
 * at least MinExternalEtcdVersion (the row's preflight.minExternalEtcdVersion). TLS files are read
 * through the host (so --rootfs applies).
 */
export function externalEtcdVersionCheck(etcd: ExternalEtcd, minVersion: string, retryDelayMs = 5_000): Check {
  return check('ExternalEtcdVersion', async ({ host, system }) => {
    if (etcd.endpoints.length === 0) return ok;
    const tls: { ca?: string; cert?: string; key?: string } = {};
    if (etcd.caFile !== '') {
      const ca = await host.readFile(etcd.caFile);
      if (ca === undefined) return fail(`couldn't load external etcd's server certificate ${etcd.caFile}: open ${etcd.caFile}: no such file or directory`);
      tls.ca = ca.toString('utf8');
    }
    if (etcd.certFile !== '' && etcd.keyFile !== '') {
      const cert = await host.readFile(etcd.certFile);
      const key = await host.readFile(etcd.keyFile);
      if (cert === undefined || key === undefined) {
        return fail(`couldn't load external etcd's certificate and key pair ${etcd.certFile}, ${etcd.keyFile}: open ${cert === undefined ? etcd.certFile : etcd.keyFile}: no such file or directory`);
      }
      tls.cert = cert.toString('utf8');
      tls.key = key.toString('utf8');
    }
    const errors: string[] = [];
    for (const endpoint of etcd.endpoints) {
      let url: URL;
      try {
        url = new URL(`${endpoint}/version`);
      } catch {
        errors.push(`failed to parse external etcd endpoint ${endpoint}`);
        continue;
      }
      url.pathname = url.pathname.replace(/\/\//g, '/');
      const versionUrl = url.toString();
      let body: string | undefined;
      let lastError = '';
      for (let attempt = 0; attempt <= ETCD_VERSION_RETRIES && body === undefined; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, retryDelayMs));
        try {
          const res = await system.httpGet(versionUrl, tls, 10_000);
          if (res.status >= 500 && res.status <= 599) lastError = `server responded with non-successful status: ${res.status}`;
          else body = res.body;
        } catch (e) {
          lastError = `Get "${versionUrl}": ${(e as Error).message}`;
        }
      }
      if (body === undefined) {
        errors.push(lastError);
        continue;
      }
      let server: unknown;
      try {
        server = (JSON.parse(body) as { etcdserver?: unknown }).etcdserver;
      } catch (e) {
        errors.push((e as Error).message);
        continue;
      }
      const version = typeof server === 'string' ? semver.parse(server.replace(/^v/, '')) : null;
      if (version === null) {
        errors.push(`couldn't parse external etcd version "${String(server)}": could not parse "${String(server)}" as version`);
        continue;
      }
      if (semver.lt(version, minVersion)) errors.push(`this version of kubeadm only supports external etcd version >= ${minVersion}. Current version: ${String(server)}`);
    }
    return { warnings: [], errors };
  });
}

/** gRPC's status code UNIMPLEMENTED. */
const GRPC_UNIMPLEMENTED = 12;

/**
 * kubeadm's ContainerRuntimeVersionCheck (1.35, PR #134906; its version bumped by PRs #136898 and
 * #139122): for a kubelet older than versions.preflight.containerRuntimeVersionBelow ('any': every
 * kubelet), a warning when the runtime does not answer the CRI RuntimeConfig call, which the
 * kubelet of the named minor needs (it stops falling back to the cgroupDriver of its configuration).
 */
export function containerRuntimeVersionCheck(versions: VersionProfile, target: string, criSocket: string, connect: ConnectRuntimeConfig): Check {
  const below = versions.preflight.containerRuntimeVersionBelow;
  const [major, minor] = versions.minor.split('.').map(Number) as [number, number];
  const removedIn = below === undefined || below === 'any' ? `${major}.${minor + 1}` : below.split('.').slice(0, 2).join('.');
  return check('ContainerRuntimeVersion', async ({ host }) => {
    if (below === undefined) return ok;
    if (below !== 'any') {
      const kubelet = semver.parse(await judgedKubeletVersion(host, target));
      if (kubelet !== null && semver.gte(kubelet, below)) return ok;
    }
    let runtime: Awaited<ReturnType<ConnectRuntimeConfig>>;
    try {
      runtime = await connect(host.resolve(socketPath(criSocket)));
    } catch (e) {
      return fail(`could not connect to the container runtime: ${(e as Error).message}`);
    }
    try {
      await runtime.runtimeConfig();
      return ok;
    } catch (e) {
      // gRPC UNIMPLEMENTED: the runtime predates the call. Anything else: it did not answer at
      // all (kubeadm's Connect validates the connection first and fails the check then).
      if ((e as { code?: unknown }).code !== GRPC_UNIMPLEMENTED) return fail(`could not connect to the container runtime: ${(e as Error).message}`);
      return warn(`You must update your container runtime to a version that supports the CRI method RuntimeConfig. Falling back to using cgroupDriver from kubelet config will be removed in ${removedIn}. For more information, see https://git.k8s.io/enhancements/keps/sig-node/4033-group-driver-detection-over-cri`);
    } finally {
      runtime.close();
    }
  });
}

/** kubeadm's init checks for a control-plane node (docs/kubeadm-reference.md §1.8), in kubeadm's order. */
export function initChecks(input: PreflightInput): Check[] {
  const manifests = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'].map((c) => `${MANIFESTS_DIR}/${c}.yaml`);
  const addr = input.versions.preflight.portChecksOnConfiguredAddresses ? input.bindAddresses ?? {} : {};
  const cidrs = [...(input.serviceSubnet ?? '').split(','), ...(input.podSubnet ?? '').split(',')];
  const checks: Check[] = [
    numCPU,
    mem,
    kubernetesVersionCheck(input.kubernetesVersion),
    firewalldCheck([input.bindPort, PORTS.kubelet]),
    portCheck(input.bindPort, addr.apiServer),
    portCheck(PORTS.scheduler, addr.scheduler),
    portCheck(PORTS.controllerManager, addr.controllerManager),
    ...manifests.map(fileAvailable),
    httpProxyCheck(input.advertiseAddress),
    ...cidrs.map((c) => httpProxyCidrCheck(c.trim())),
    ...commonChecks(input),
  ];
  // kubeadm's InitNodeChecks: from 1.27 the families of the Service and Pod subnets (each entry
  // as given) and of the advertise address; before, the IPv6 checks for an IPv6 advertise address.
  const cidrFamilies = input.versions.preflight.forwardingByIpFamily ? cidrs : [];
  checks.push(...familyChecks(input.versions, ipFamilies(cidrFamilies, [input.advertiseAddress])));
  if (input.externalEtcd !== undefined) checks.push(externalEtcdVersionCheck(input.externalEtcd, input.versions.preflight.minExternalEtcdVersion));
  if (input.localEtcdDataDir !== undefined) {
    checks.push(portCheck(PORTS.etcdClient), portCheck(PORTS.etcdPeer), dirAvailable(input.localEtcdDataDir));
  }
  return [isPrivilegedUser, ...checks];
}

const IPV4_FORWARD = '/proc/sys/net/ipv4/ip_forward';
const IPV6_DEFAULT_FORWARDING = '/proc/sys/net/ipv6/conf/default/forwarding';
const BRIDGE_NF_IPTABLES = '/proc/sys/net/bridge/bridge-nf-call-iptables';
const BRIDGE_NF_IP6TABLES = '/proc/sys/net/bridge/bridge-nf-call-ip6tables';

/**
 * The IP families kubeadm (1.27+, PR #115420) reads from CIDR entries (netutils.IsIPv4CIDRString /
 * IsIPv6CIDRString, entries not trimmed) and addresses (an IPv4-mapped one counts as IPv4); text
 * that does not parse counts for neither.
 */
function ipFamilies(cidrs: readonly string[], addresses: readonly (string | undefined)[]): { readonly ipv4: boolean; readonly ipv6: boolean } {
  const families = new Set<number>();
  for (const c of cidrs) {
    const cidr = parseCidr(c);
    if (cidr !== undefined) families.add(cidr.family);
  }
  for (const a of addresses) {
    const ip = a === undefined ? undefined : parseIp(a);
    if (ip !== undefined) families.add(ip.family);
  }
  return { ipv4: families.has(4), ipv6: families.has(6) };
}

/**
 * One family's kernel settings: its bridge-netfilter file (until 1.30, PR #123464), then its
 * forwarding file (kubeadm's addIPv4Checks / addIPv6Checks in checks_linux.go; before 1.27 the
 * same pairs, bridgenf and ipv4Forward among the common checks, bridgenf6 and ipv6DefaultForwarding
 * after them).
 */
function familyPair(versions: VersionProfile, family: 4 | 6): Check[] {
  const [bridge, forward] = family === 4 ? [BRIDGE_NF_IPTABLES, IPV4_FORWARD] : [BRIDGE_NF_IP6TABLES, IPV6_DEFAULT_FORWARDING];
  return [...(versions.preflight.bridgeNetfilter ? [fileContent(bridge, '1')] : []), fileContent(forward, '1')];
}

/**
 * The family checks init and join add after the common checks: every family in use from 1.27
 * (PR #115420); before, the IPv4 pair is a common check and only an IPv6 address adds the IPv6 pair.
 */
function familyChecks(versions: VersionProfile, families: { readonly ipv4: boolean; readonly ipv6: boolean }): Check[] {
  const ipv4 = families.ipv4 && versions.preflight.forwardingByIpFamily;
  return [...(ipv4 ? familyPair(versions, 4) : []), ...(families.ipv6 ? familyPair(versions, 6) : [])];
}

/** Checks shared by init and join (kubeadm's RunInitNodeChecks/common checks). */
export function commonChecks(input: PreflightInput): Check[] {
  const runtimeVersion = input.versions.preflight.containerRuntimeVersionBelow !== undefined && input.connectRuntime !== undefined
    ? [containerRuntimeVersionCheck(input.versions, input.kubernetesVersion, input.criSocket, input.connectRuntime)]
    : [];
  return [
    criCheck(input.criSocket),
    ...runtimeVersion,
    // From 1.27 the IPv4 checks follow the IP families, after these (initChecks, joinChecks).
    ...(input.versions.preflight.forwardingByIpFamily ? [] : familyPair(input.versions, 4)),
    swapCheck(input.swapAllowed),
    ...[...(input.versions.preflight.conntrackInPath ? ['conntrack'] : []), 'ip', 'iptables', 'mount', 'nsenter'].map((p) => fileExisting(p, true)),
    // getent: the kubelet resolves its user-namespace account with it (1.38, PR #141968; placed in
    // the list's alphabetical order, UNSURE: checks_linux.go was not read at a 1.38 revision).
    ...['ebtables', 'ethtool', ...(input.versions.preflight.getentInPath ? ['getent'] : []), 'socat', 'tc', 'touch'].map((p) => fileExisting(p, false)),
    systemVerificationCheck(input.kubernetesVersion),
    hostnameCheck(input.nodeName),
    kubeletVersionCheck(input.versions, input.kubernetesVersion),
    serviceKubeletCheck(),
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
  // kubeadm's JoinNodeChecks, for a bootstrap-token discovery whose endpoint splits into host and port.
  const endpoint = input.discoveryEndpoint !== undefined ? splitHostPort(input.discoveryEndpoint) : undefined;
  if (endpoint !== undefined && !('error' in endpoint)) {
    checks.push(httpProxyCheck(endpoint.host), ...familyChecks(input.versions, ipFamilies([], [endpoint.host])));
  }
  if (input.controlPlane) {
    // kubeadm's InitNodeChecks for a secondary control plane (without the common checks, run above).
    const addr = input.versions.preflight.portChecksOnConfiguredAddresses ? input.bindAddresses ?? {} : {};
    const cidrs = [...(input.serviceSubnet ?? '').split(','), ...(input.podSubnet ?? '').split(',')];
    checks.push(
      numCPU, mem, kubernetesVersionCheck(input.kubernetesVersion), firewalldCheck([input.bindPort, PORTS.kubelet]),
      portCheck(input.bindPort, addr.apiServer), portCheck(PORTS.scheduler, addr.scheduler), portCheck(PORTS.controllerManager, addr.controllerManager),
      httpProxyCheck(input.advertiseAddress),
      ...cidrs.map((c) => httpProxyCidrCheck(c.trim())),
    );
  }
  if (input.controlPlane && input.localEtcdDataDir !== undefined) {
    checks.push(portCheck(PORTS.etcdClient), portCheck(PORTS.etcdPeer), dirAvailable(input.localEtcdDataDir));
  }
  return checks;
}
