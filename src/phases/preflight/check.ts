import type { Host } from '../../host/host.js';

/**
 * A preflight check (kubeadm's Checker): a name usable in --ignore-preflight-errors and a
 * function returning problems. Errors stop the command unless ignored; warnings are printed.
 */
export interface CheckResult {
  readonly warnings: readonly string[];
  readonly errors: readonly string[];
}

export interface CheckEnv {
  readonly host: Host;
  /** Real-machine facts, injectable for tests. */
  readonly system: SystemProbe;
}

export interface Check {
  readonly name: string;
  run(env: CheckEnv): Promise<CheckResult>;
}

/** What preflight reads from the real machine (not --rootfs: ports, CPUs and /proc are the machine's). */
export interface SystemProbe {
  uid(): number;
  cpus(): number;
  memoryMB(): number;
  /** Resolves true when the TCP port can be bound on the address (all addresses when omitted). */
  portFree(port: number, address?: string): Promise<boolean>;
  readProc(path: string): Promise<string | undefined>;
  /** Absolute path of a program on PATH, or undefined. */
  which(program: string): Promise<string | undefined>;
  /** Resolves true when a unix socket accepts a connection. */
  socketReachable(path: string): Promise<boolean>;
  resolveHost(name: string): Promise<boolean>;
  env(name: string): string | undefined;
  /** The running kernel's release (uname -r), e.g. "6.1.0-13-amd64". */
  kernelRelease(): string;
  /** The filesystem type of /sys/fs/cgroup: "cgroup2fs" is cgroup v2, anything else v1 (kubeadm statfs's it). */
  cgroupFsType(): Promise<string | undefined>;
  /** The kernel's build configuration (from /proc/config.gz or /boot/config-<release>, …), or why it could not be read. */
  kernelConfig(): Promise<{ text: string } | { error: string }>;
  /** The init system's view of a unit (kubeadm's initsystem), or the reason none was found. */
  service(unit: string): Promise<ServiceFacts | { error: string }>;
  /** GET an HTTPS/HTTP URL with optional TLS material (external etcd's /version); rejects on a connection error. */
  httpGet(url: string, tls: HttpTls, timeoutMs: number): Promise<{ status: number; body: string }>;
}

/** What kubeadm's initsystem tells about a unit. */
export interface ServiceFacts {
  readonly exists: boolean;
  readonly enabled: boolean;
  readonly active: boolean;
  /** How to enable the unit ("systemctl enable kubelet.service"). */
  readonly enableCommand: string;
}

/** PEM texts (read through the host seam, so --rootfs applies to the files). */
export interface HttpTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

export const ok: CheckResult = { warnings: [], errors: [] };
export const warn = (...warnings: string[]): CheckResult => ({ warnings, errors: [] });
export const fail = (...errors: string[]): CheckResult => ({ warnings: [], errors });

/** kubeadm names file checks after the path: /etc/kubernetes/manifests/x.yaml → FileAvailable--etc-kubernetes-manifests-x.yaml */
export function pathCheckName(prefix: string, p: string): string {
  return `${prefix}-${p.replace(/\//g, '-')}`;
}
