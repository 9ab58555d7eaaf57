/**
 * What the `host` phase group writes, as pure functions: the drop-in files kubeadm's install
 * documentation has every user copy by hand, the kubelet's systemd unit and kubeadm's
 * 10-kubeadm.conf drop-in as the v1.20 packages install them, /etc/crictl.yaml, and the reading of
 * what a host already has (a user's own k8s.conf, the sysctl files that win at boot, fstab's swap
 * entries). No I/O here; src/phases/host/phase.ts reads the host and applies the result.
 */

import { createHash } from 'node:crypto';

/** Kernel modules the container runtime and the kubelet need (kubeadm's install docs, "Forwarding IPv4 and letting iptables see bridged traffic"). */
export const HOST_MODULES = ['overlay', 'br_netfilter'] as const;

/** Sysctls every node needs; the preflight checks read the first and the last (FileContent--proc-sys-…). */
export const HOST_SYSCTLS: readonly (readonly [string, string])[] = [
  ['net.bridge.bridge-nf-call-iptables', '1'],
  ['net.bridge.bridge-nf-call-ip6tables', '1'],
  ['net.ipv4.ip_forward', '1'],
];

export const MODULES_LOAD_FILE = '/etc/modules-load.d/k8s.conf';
export const SYSCTL_FILE = '/etc/sysctl.d/k8s.conf';
export const CRICTL_FILE = '/etc/crictl.yaml';
/** Where tsadm installs the kubelet unit when no package did: the administrator's unit directory. */
export const KUBELET_UNIT_FILE = '/etc/systemd/system/kubelet.service';
/** The deb package's own path of kubeadm's drop-in (the rpm's is under /usr/lib/systemd/system). */
export const KUBEADM_DROPIN_FILE = '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf';
/** Units a kubelet package installs (deb, rpm): when one exists, tsadm writes no unit of its own. */
export const PACKAGED_KUBELET_UNITS = ['/lib/systemd/system/kubelet.service', '/usr/lib/systemd/system/kubelet.service'] as const;
/** kubeadm's drop-in as the rpm (and usr-merged systems) install it. */
export const PACKAGED_KUBEADM_DROPINS = ['/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf', '/lib/systemd/system/kubelet.service.d/10-kubeadm.conf'] as const;

/** /etc/modules-load.d/k8s.conf as kubeadm's install docs write it. */
export function renderModulesLoad(): string {
  return `${HOST_MODULES.join('\n')}\n`;
}

/** /etc/sysctl.d/k8s.conf as kubeadm's install docs write it (`key = value`, one a line). */
export function renderSysctlConf(): string {
  return HOST_SYSCTLS.map(([k, v]) => `${k} = ${v}\n`).join('');
}

/**
 * The kubelet unit of the kubelet deb/rpm packages of v1.20 (kubernetes/release,
 * cmd/kubepkg/templates/latest/deb/kubelet/lib/systemd/system/kubelet.service as of late 2020:
 * the context of kubernetes/release PR #1504; `ConditionPathExists=/var/lib/kubelet/config.yaml`
 * was added to that template later and is not in the v1.20 packages).
 */
export function renderKubeletUnit(): string {
  return [
    '[Unit]',
    'Description=kubelet: The Kubernetes Node Agent',
    'Documentation=https://kubernetes.io/docs/home/',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'ExecStart=/usr/bin/kubelet',
    'Restart=always',
    'StartLimitInterval=0',
    'RestartSec=10',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/**
 * kubeadm's 10-kubeadm.conf drop-in of the v1.20 deb (kubernetes/kubernetes build/debs/10-kubeadm.conf,
 * the text the kubepkg kubeadm package installs at /etc/systemd/system/kubelet.service.d/); the rpm
 * reads /etc/sysconfig/kubelet instead of /etc/default/kubelet (build/rpms/10-kubeadm.conf).
 */
export function renderKubeadmDropIn(flavor: 'deb' | 'rpm' = 'deb'): string {
  const extraArgsFile = flavor === 'deb' ? '/etc/default/kubelet' : '/etc/sysconfig/kubelet';
  return [
    '# Note: This dropin only works with kubeadm and kubelet v1.11+',
    '[Service]',
    'Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"',
    'Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"',
    '# This is a file that "kubeadm init" and "kubeadm join" generates at runtime, populating the KUBELET_KUBEADM_ARGS variable dynamically',
    'EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env',
    '# This is a file that the user can use for overrides of the kubelet args as a last resort. Preferably, the user should use',
    '# the .NodeRegistration.KubeletExtraArgs object in the configuration files instead. KUBELET_EXTRA_ARGS should be sourced from this file.',
    `EnvironmentFile=-${extraArgsFile}`,
    'ExecStart=',
    'ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS',
    '',
  ].join('\n');
}

/** crictl's endpoint for a CRI socket: always a unix:// URL (crictl warns on a bare path). */
export function crictlEndpoint(criSocket: string): string {
  return criSocket.includes('://') ? criSocket : `unix://${criSocket}`;
}

/** /etc/crictl.yaml: crictl talks to the node's CRI socket (cri-tools' documented keys). */
export function renderCrictlYaml(criSocket: string): string {
  const endpoint = crictlEndpoint(criSocket);
  return `runtime-endpoint: ${endpoint}\nimage-endpoint: ${endpoint}\n`;
}

/** The runtime-endpoint a crictl.yaml names (a flat `key: value` file), or undefined. */
export function crictlRuntimeEndpoint(text: string): string | undefined {
  const m = /^runtime-endpoint:\s*["']?([^"'\s#]+)["']?\s*(?:#.*)?$/m.exec(text);
  return m?.[1];
}

/** Modules a modules-load.d file lists (one a line; `#` and `;` start comments). */
export function parseModulesLoad(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    out.add(line);
  }
  return out;
}

/** `key = value` lines of a sysctl.d file (procps' syntax: `#`/`;` comments, `-` prefix ignores errors, `/` in keys as `.`). */
export function parseSysctlFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim().replace(/^-/, '').replace(/\//g, '.');
    out.set(key, line.slice(eq + 1).trim());
  }
  return out;
}

/** The directories `sysctl --system` reads, in its order of precedence for a file name (procps). */
export const SYSCTL_DIRS = ['/etc/sysctl.d', '/run/sysctl.d', '/usr/local/lib/sysctl.d', '/usr/lib/sysctl.d', '/lib/sysctl.d'] as const;
/** Read last by `sysctl --system`, so it wins over every sysctl.d file. */
export const SYSCTL_CONF = '/etc/sysctl.conf';

/** A sysctl.d file as found: its host path and content. */
export interface SysctlSource {
  readonly path: string;
  readonly text: string;
}

/**
 * The files `sysctl --system` applies, in the order it applies them (a later setting wins): a
 * name in an earlier directory hides the same name in a later one, files sort by name, and
 * /etc/sysctl.conf comes last. `files` are every `*.conf` found in SYSCTL_DIRS, and sysctl.conf.
 */
export function sysctlApplyOrder(files: readonly SysctlSource[]): SysctlSource[] {
  const byName = new Map<string, SysctlSource>();
  const rank = (p: string): number => SYSCTL_DIRS.findIndex((d) => p.startsWith(`${d}/`));
  for (const f of files) {
    if (f.path === SYSCTL_CONF) continue;
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    const seen = byName.get(name);
    if (!seen || rank(f.path) < rank(seen.path)) byName.set(name, f);
  }
  const ordered = [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, f]) => f);
  const conf = files.find((f) => f.path === SYSCTL_CONF);
  return conf ? [...ordered, conf] : ordered;
}

/** One of tsadm's sysctls that another file sets differently. */
export interface SysctlConflict {
  readonly key: string;
  readonly want: string;
  readonly file: string;
  readonly value: string;
  /** True when that file is applied after tsadm's k8s.conf, so its value is the one the host gets at boot. */
  readonly winsAtBoot: boolean;
}

/**
 * Other files' settings of tsadm's sysctls that differ from tsadm's, given every file
 * `sysctl --system` reads with /etc/sysctl.d/k8s.conf as tsadm would write it. A user's own
 * k8s.conf is passed as found (it takes the place of tsadm's; see sysctlFileState).
 */
export function sysctlConflicts(files: readonly SysctlSource[]): SysctlConflict[] {
  const withOurs = files.some((f) => f.path === SYSCTL_FILE) ? files : [...files, { path: SYSCTL_FILE, text: renderSysctlConf() }];
  const order = sysctlApplyOrder(withOurs);
  const oursAt = order.findIndex((f) => f.path === SYSCTL_FILE);
  const out: SysctlConflict[] = [];
  order.forEach((f, i) => {
    if (f.path === SYSCTL_FILE) return;
    const settings = parseSysctlFile(f.text);
    for (const [key, want] of HOST_SYSCTLS) {
      const value = settings.get(key);
      if (value !== undefined && value !== want) out.push({ key, want, file: f.path, value, winsAtBoot: i > oursAt });
    }
  });
  return out;
}

/**
 * What to do with one of tsadm's drop-in files, given what is at its path: write it (absent, or
 * `override`), nothing (identical), keep a user's own file that already says what tsadm needs,
 * or report a user's file that does not (tsadm leaves it alone).
 */
export type DropInState =
  | { readonly action: 'write'; readonly replacing: boolean }
  | { readonly action: 'unchanged' }
  | { readonly action: 'keep-user-file' }
  | { readonly action: 'conflict'; readonly detail: string };

export function dropInState(existing: string | undefined, desired: string, satisfies: (text: string) => string | undefined, override: boolean): DropInState {
  if (existing === undefined) return { action: 'write', replacing: false };
  if (existing === desired) return { action: 'unchanged' };
  const missing = satisfies(existing);
  if (missing === undefined) return { action: 'keep-user-file' };
  return override ? { action: 'write', replacing: true } : { action: 'conflict', detail: missing };
}

/** Why a user's modules-load.d/k8s.conf does not do, or undefined when it loads both modules. */
export function modulesLoadMissing(text: string): string | undefined {
  const listed = parseModulesLoad(text);
  const missing = HOST_MODULES.filter((m) => !listed.has(m));
  return missing.length === 0 ? undefined : `it does not load ${missing.join(', ')}`;
}

/** Why a user's sysctl.d/k8s.conf does not do, or undefined when it sets each of tsadm's sysctls as needed. */
export function sysctlFileMissing(text: string): string | undefined {
  const settings = parseSysctlFile(text);
  const wrong = HOST_SYSCTLS.filter(([k, v]) => settings.get(k) !== v).map(([k, v]) => `${k}=${v}`);
  return wrong.length === 0 ? undefined : `it does not set ${wrong.join(', ')}`;
}

/** Swap entries of /etc/fstab (not commented out): they turn swap on again at boot. */
export function fstabSwapEntries(text: string): string[] {
  return text.split('\n').filter((l) => {
    const t = l.trim();
    if (t === '' || t.startsWith('#')) return false;
    return t.split(/\s+/)[2] === 'swap';
  }).map((l) => l.trim().split(/\s+/)[0]!);
}

/** Where dpkg records each installed package, with the checksums of its configuration files. */
export const DPKG_STATUS = '/var/lib/dpkg/status';

/**
 * True when `content` is the file `path` as its Debian package installed it: dpkg's status lists
 * each conffile with the MD5 of the packaged content (" /etc/x.conf <md5>", "obsolete" after it
 * when a newer version dropped it), and a file an administrator changed no longer matches.
 */
export function isPackagedConffile(dpkgStatus: string, path: string, content: Uint8Array): boolean {
  const md5 = createHash('md5').update(content).digest('hex');
  return dpkgStatus.split('\n').some((line) => {
    const f = line.trim().split(/\s+/);
    return line.startsWith(' /') && f[0] === path && f[1] === md5 && f[2] !== 'obsolete';
  });
}
