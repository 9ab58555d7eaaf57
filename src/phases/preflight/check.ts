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
  /** Resolves true when the TCP port can be bound on all addresses. */
  portFree(port: number): Promise<boolean>;
  readProc(path: string): Promise<string | undefined>;
  /** Absolute path of a program on PATH, or undefined. */
  which(program: string): Promise<string | undefined>;
  /** Resolves true when a unix socket accepts a connection. */
  socketReachable(path: string): Promise<boolean>;
  resolveHost(name: string): Promise<boolean>;
  env(name: string): string | undefined;
}

export const ok: CheckResult = { warnings: [], errors: [] };
export const warn = (...warnings: string[]): CheckResult => ({ warnings, errors: [] });
export const fail = (...errors: string[]): CheckResult => ({ warnings: [], errors });

/** kubeadm names file checks after the path: /etc/kubernetes/manifests/x.yaml → FileAvailable--etc-kubernetes-manifests-x.yaml */
export function pathCheckName(prefix: string, p: string): string {
  return `${prefix}-${p.replace(/\//g, '-')}`;
}
