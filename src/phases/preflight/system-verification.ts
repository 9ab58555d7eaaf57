/**
 * kubeadm's SystemVerification check: the validators of k8s.io/system-validators that kubeadm
 * runs on Linux (kernel, OS, cgroups) against their DefaultSysSpec, on facts read through the
 * system probe (so tests and the real machine take the same path). The spec below is
 * system-validators' validators/types_unix.go (kernel versions 5.4, 5.10, 5.15 or 6+; the
 * kernel options kubeadm requires, split by cgroup version; the cgroup controllers), the
 * messages those of its validators (validators/kernel_validator.go, cgroup_validator_linux.go,
 * os_validator.go) as kubeadm prints them (docs/kubeadm-reference.md, "SystemVerification").
 *
 * cgroup v1 (kubeadm ≥ 1.35, system-validators v1.12.1, PRs #134744 and #134298): an ERROR when
 * the kubelet is 1.35 or newer (pre-releases included), because that kubelet refuses to start on
 * cgroup v1 unless its configuration sets failCgroupV1: false; the message names the opt-out.
 */
import semver from 'semver';
import type { SystemProbe } from '../../host/system-probe.js';

interface KernelConfig {
  readonly name: string;
  readonly aliases?: readonly string[];
}

const KERNEL_VERSIONS = [/^5\.4.*$/, /^5\.10.*$/, /^5\.15.*$/, /^([6-9]|[1-9][0-9]+)\.([0-9]+)\.([0-9]+).*$/];
const KERNEL_VERSIONS_NOTE = 'Supported LTS versions from the 5.x series are 5.4, 5.10 and 5.15. Any 6.x version is also supported. For cgroups v2 support, the recommended version is 5.10 or newer';
const REQUIRED: readonly KernelConfig[] = [
  { name: 'NAMESPACES' }, { name: 'NET_NS' }, { name: 'PID_NS' }, { name: 'IPC_NS' }, { name: 'UTS_NS' },
  { name: 'CPUSETS' }, { name: 'MEMCG' }, { name: 'INET' }, { name: 'EXT4_FS' }, { name: 'PROC_FS' },
  { name: 'NETFILTER_XT_TARGET_REDIRECT', aliases: ['IP_NF_TARGET_REDIRECT'] }, { name: 'NETFILTER_XT_MATCH_COMMENT' },
  { name: 'FAIR_GROUP_SCHED' },
];
const REQUIRED_CGROUPS_V1: readonly KernelConfig[] = [
  { name: 'CGROUPS' }, { name: 'CGROUP_CPUACCT' }, { name: 'CGROUP_DEVICE' }, { name: 'CGROUP_FREEZER' }, { name: 'CGROUP_PIDS' }, { name: 'CGROUP_SCHED' },
];
const REQUIRED_CGROUPS_V2: readonly KernelConfig[] = [{ name: 'CGROUPS' }, { name: 'CGROUP_BPF' }, { name: 'CGROUP_PIDS' }, { name: 'CGROUP_SCHED' }];
const CGROUPS_V1 = ['cpu', 'cpuacct', 'cpuset', 'devices', 'freezer', 'memory', 'pids'];
const CGROUPS_V1_OPTIONAL = ['hugetlb', 'blkio'];
const CGROUPS_V2 = ['cpu', 'cpuset', 'devices', 'freezer', 'memory', 'pids'];
const CGROUPS_V2_OPTIONAL = ['hugetlb', 'io'];

/** The error (kubelet ≥ 1.35) or warning system-validators v1.12.1 gives on a cgroup v1 host. */
export const CGROUP_V1_UNSUPPORTED = "cgroups v1 support is deprecated and will be removed in a future release. Please migrate to cgroups v2. To explicitly enable cgroups v1 support for kubelet v1.35 or newer, you must set the kubelet configuration option 'FailCgroupV1' to 'false'. You must also explicitly skip this validation. For more information, see https://git.k8s.io/enhancements/keps/sig-node/5573-remove-cgroup-v1";
/** system-validators v1.9's warning for kubelets in cgroup v1 maintenance mode (1.31 to 1.34, KEP-4569). */
export const CGROUP_V1_MAINTENANCE = 'cgroups v1 support is in maintenance mode, please migrate to cgroups v2';

export interface Verification {
  readonly warnings: string[];
  readonly errors: string[];
}

/** `/proc/cgroups`: the controllers whose "enabled" column is not 0. */
function cgroupV1Controllers(procCgroups: string): string[] {
  return procCgroups.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.trim().split(/\s+/)).filter((f) => f.length >= 4 && f[3] !== '0').map((f) => f[0] ?? '');
}

function missing(wanted: readonly string[], have: readonly string[]): string[] {
  return wanted.filter((c) => !have.includes(c));
}

/** CONFIG_X=y|m|n lines of a kernel configuration. */
function parseKernelConfig(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(CONFIG_[A-Z0-9_]+)=([myn])/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) out.set(m[1], m[2]);
  }
  return out;
}

function badKernelConfigs(config: Map<string, string>, required: readonly KernelConfig[]): string[] {
  const bad: string[] = [];
  for (const c of required) {
    const names = [c.name, ...(c.aliases ?? [])].map((n) => `CONFIG_${n}`);
    const found = names.find((n) => config.has(n));
    if (found === undefined) bad.push(names[names.length - 1] ?? c.name);
    else if (config.get(found) === 'n') bad.push(found);
  }
  return bad;
}

/**
 * True when the kubelet refuses cgroup v1 by default (system-validators' isCgroupsV1DisabledInKubelet:
 * 1.35.0-0 and newer; an empty version is "not disabled").
 */
export function cgroupV1DisabledInKubelet(kubeletVersion: string): boolean {
  const v = semver.parse(kubeletVersion.replace(/^v/, ''));
  return v !== null && semver.gte(v, '1.35.0-0');
}

/** Runs the kernel, OS and cgroups validators on the probe's facts. */
export async function verifySystem(system: SystemProbe, osType: string, kubeletVersion: string): Promise<Verification> {
  const warnings: string[] = [];
  const errors: string[] = [];

  // Kernel: the release against the supported versions (a warning, as kubeadm 1.35 prints it),
  // then the build options.
  const release = system.kernelRelease();
  if (!KERNEL_VERSIONS.some((r) => r.test(release))) warnings.push(`kernel release ${release} is unsupported. ${KERNEL_VERSIONS_NOTE}`);
  const fsType = await system.cgroupFsType();
  const v2 = fsType === 'cgroup2fs';
  const config = await system.kernelConfig();
  if ('error' in config) {
    warnings.push(`failed to parse kernel config: ${config.error}`);
  } else {
    const bad = badKernelConfigs(parseKernelConfig(config.text), [...REQUIRED, ...(v2 ? REQUIRED_CGROUPS_V2 : REQUIRED_CGROUPS_V1)]);
    if (bad.length > 0) errors.push(`unexpected kernel config: ${bad.join(' ')}`);
  }

  // OS.
  if (osType !== 'Linux') errors.push(`unsupported operating system: ${osType}`);

  // cgroups.
  if (fsType === undefined) {
    errors.push('cannot statfs the cgroupv2 root: no such file or directory');
    return { warnings, errors };
  }
  let have: string[];
  let required: readonly string[];
  let optional: readonly string[];
  if (v2) {
    const controllers = (await system.readProc('/sys/fs/cgroup/cgroup.controllers')) ?? '';
    // devices and freezer are implicit in cgroup v2 (system-validators assumes them).
    have = ['devices', 'freezer', ...controllers.trim().split(/\s+/).filter((c) => c !== '')];
    required = CGROUPS_V2;
    optional = CGROUPS_V2_OPTIONAL;
  } else {
    if (cgroupV1DisabledInKubelet(kubeletVersion)) errors.push(CGROUP_V1_UNSUPPORTED);
    else if (semver.valid(kubeletVersion.replace(/^v/, '')) !== null && semver.gte(kubeletVersion.replace(/^v/, ''), '1.31.0-0')) warnings.push(CGROUP_V1_MAINTENANCE);
    have = cgroupV1Controllers((await system.readProc('/proc/cgroups')) ?? '');
    required = CGROUPS_V1;
    optional = CGROUPS_V1_OPTIONAL;
  }
  const missingRequired = missing(required, have);
  if (missingRequired.length > 0) errors.push(`missing required cgroups: ${missingRequired.join(' ')}`);
  const missingOptional = missing(optional, have);
  if (missingOptional.length > 0) warnings.push(`missing optional cgroups: ${missingOptional.join(' ')}`);
  return { warnings, errors };
}
