/**
 * containerd's configuration for the kubelet, as pure decisions: the cgroup driver of the runc
 * runtime (`SystemdCgroup`) must match the kubelet's `cgroupDriver`, and the sandbox (pause) image
 * must be the target version's. /etc/containerd/config.toml is the package's (or the
 * administrator's) file, so tsadm writes a drop-in that config.toml imports, and edits nothing:
 *
 * - config.toml absent: tsadm writes one that only imports /etc/containerd/conf.d/*.toml.
 * - config.toml already sets both values: nothing to do.
 * - config.toml imports the drop-in's directory: tsadm writes the drop-in, unless containerd 1.x
 *   would lose config.toml's own CRI settings: before 2.0 an imported file replaces a plugin's
 *   whole section (containerd/containerd#5837; merged by section since 2.0, PR #9982).
 * - anything else (no `imports`, the CRI plugin disabled as containerd.io's packaged config.toml
 *   does, or a CRI section containerd 1.x would drop): reported; with --override-host-settings
 *   tsadm keeps a copy of config.toml and writes the import-only one in its place.
 *
 * Schemas: config version 2 (containerd 1.x: plugin "io.containerd.grpc.v1.cri", `sandbox_image`)
 * and version 3 (containerd 2.x: "io.containerd.cri.v1.runtime" and "io.containerd.cri.v1.images",
 * `pinned_images.sandbox`); a config without `version` is version 1 (plugin "cri").
 */
import { parse as parseToml } from 'smol-toml';

export const CONTAINERD_CONFIG = '/etc/containerd/config.toml';
const CONTAINERD_DROPIN_DIR = '/etc/containerd/conf.d';
export const CONTAINERD_DROPIN = `${CONTAINERD_DROPIN_DIR}/k8s.toml`;
/** Where config.toml is kept when --override-host-settings replaces it. */
export const CONTAINERD_CONFIG_BACKUP = '/etc/containerd/config.toml.tsadm-orig';

interface ContainerdWant {
  /** kubelet cgroupDriver === 'systemd'. */
  readonly systemdCgroup: boolean;
  /** `<repository>/pause:<tag>` of the target version. */
  readonly sandboxImage: string;
}

export interface ContainerdInput extends ContainerdWant {
  /** config.toml as found, or undefined when absent. */
  readonly configToml: string | undefined;
  /** The installed containerd's major version, when known (`containerd --version`). */
  readonly containerdMajor: number | undefined;
  readonly override: boolean;
}

export type ContainerdPlan =
  | { readonly kind: 'in-place' }
  | {
    readonly kind: 'drop-in';
    /** The drop-in's content. */
    readonly dropIn: string;
    /** config.toml to write (absent, or replaced with --override-host-settings); undefined = leave it. */
    readonly configToml?: string;
    /** Keep the found config.toml at CONTAINERD_CONFIG_BACKUP before replacing it. */
    readonly backup: boolean;
    readonly notes: readonly string[];
  }
  | { readonly kind: 'conflict'; readonly detail: string };

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);
const at = (t: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => (isTable(o) ? o[k] : undefined), t);

/** The config schema version a config.toml declares (1 when it declares none, as containerd reads it). */
function configVersion(config: Table): number {
  return typeof config.version === 'number' ? config.version : 1;
}

/** The schema version tsadm writes: config.toml's own, else the installed containerd's, else 2. */
function dropInVersion(config: Table | undefined, major: number | undefined): 2 | 3 {
  const v = config ? configVersion(config) : major !== undefined && major >= 2 ? 3 : 2;
  return v >= 3 ? 3 : 2;
}

/** The CRI plugin's names in a schema version: [runtime plugin, images plugin]. */
function criPlugins(version: number): [string, string] {
  if (version >= 3) return ['io.containerd.cri.v1.runtime', 'io.containerd.cri.v1.images'];
  if (version === 2) return ['io.containerd.grpc.v1.cri', 'io.containerd.grpc.v1.cri'];
  return ['cri', 'cri'];
}

/** What a config sets itself (undefined = not set there). */
function ownSettings(config: Table): { systemdCgroup?: boolean; sandboxImage?: string } {
  const version = configVersion(config);
  const [runtime, images] = criPlugins(version);
  const cri = at(config, 'plugins', runtime);
  const runtimeName = at(cri, 'containerd', 'default_runtime_name');
  const name = typeof runtimeName === 'string' && runtimeName !== '' ? runtimeName : 'runc';
  const systemd = at(cri, 'containerd', 'runtimes', name, 'options', 'SystemdCgroup');
  const sandbox = version >= 3 ? at(config, 'plugins', images, 'pinned_images', 'sandbox') : at(config, 'plugins', images, 'sandbox_image');
  return {
    ...(typeof systemd === 'boolean' ? { systemdCgroup: systemd } : {}),
    ...(typeof sandbox === 'string' ? { sandboxImage: sandbox } : {}),
  };
}

/** True when the CRI plugin is disabled (containerd.io's packaged config.toml: disabled_plugins = ["cri"]). */
function criDisabled(config: Table): boolean {
  const disabled = Array.isArray(config.disabled_plugins) ? config.disabled_plugins.map(String) : [];
  return disabled.some((p) => p === 'cri' || p === 'io.containerd.grpc.v1.cri' || p.startsWith('io.containerd.cri.v1.'));
}

/** containerd expands each `imports` entry with Go's filepath.Glob; `*`, `?` within one path segment are enough here. */
function globMatches(pattern: string, file: string): boolean {
  const re = new RegExp(`^${pattern.split('').map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('')}$`);
  return re.test(file);
}

function importsDropIn(config: Table): boolean {
  const imports = Array.isArray(config.imports) ? config.imports.map(String) : [];
  return imports.some((p) => globMatches(p, CONTAINERD_DROPIN));
}

/** True when config.toml configures the CRI plugin itself (a section containerd 1.x would drop for an import's). */
function hasCriSection(config: Table): boolean {
  const version = configVersion(config);
  return criPlugins(version).some((p) => at(config, 'plugins', p) !== undefined);
}

/** The drop-in: only the two settings, in the schema of `version`. */
export function renderContainerdDropIn(want: ContainerdWant, version: 2 | 3): string {
  const header = '# Written by tsadm (host/container-runtime): the kubelet\'s cgroup driver and the sandbox image of its version.\n';
  if (version === 3) {
    return `${header}version = 3\n\n[plugins."io.containerd.cri.v1.images".pinned_images]\n  sandbox = "${want.sandboxImage}"\n\n`
      + `[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n  SystemdCgroup = ${String(want.systemdCgroup)}\n`;
  }
  return `${header}version = 2\n\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "${want.sandboxImage}"\n\n`
    + `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = ${String(want.systemdCgroup)}\n`;
}

/** config.toml when tsadm writes it: the schema version and the import of the drop-in directory, nothing else. */
export function renderContainerdConfig(version: 2 | 3): string {
  return `# Written by tsadm: containerd's defaults, and the drop-ins of ${CONTAINERD_DROPIN_DIR}.\nversion = ${version}\nimports = ["${CONTAINERD_DROPIN_DIR}/*.toml"]\n`;
}

/** What to do about containerd's configuration (see the module comment). */
export function planContainerd(input: ContainerdInput): ContainerdPlan {
  const want: ContainerdWant = { systemdCgroup: input.systemdCgroup, sandboxImage: input.sandboxImage };
  if (input.configToml === undefined) {
    const version = dropInVersion(undefined, input.containerdMajor);
    return { kind: 'drop-in', dropIn: renderContainerdDropIn(want, version), configToml: renderContainerdConfig(version), backup: false, notes: [] };
  }
  let config: Table;
  try {
    config = parseToml(input.configToml);
  } catch (err) {
    return conflictOr(input, want, `${CONTAINERD_CONFIG} is not valid TOML (${(err as Error).message.split('\n')[0] ?? ''})`);
  }
  const version = dropInVersion(config, input.containerdMajor);
  if (criDisabled(config)) return conflictOr(input, want, `${CONTAINERD_CONFIG} disables the CRI plugin (disabled_plugins), so the kubelet cannot use containerd`);
  const own = ownSettings(config);
  if (!importsDropIn(config)) {
    if (own.systemdCgroup === want.systemdCgroup && own.sandboxImage === want.sandboxImage) return { kind: 'in-place' };
    return conflictOr(input, want, `${CONTAINERD_CONFIG} does not import ${CONTAINERD_DROPIN_DIR}/*.toml, and sets ${describeOwn(own)} itself (wanted SystemdCgroup = ${String(want.systemdCgroup)}, sandbox image ${want.sandboxImage})`);
  }
  const major = input.containerdMajor ?? (configVersion(config) >= 3 ? 2 : 1);
  if (major < 2 && hasCriSection(config)) {
    return conflictOr(input, want, `${CONTAINERD_CONFIG} configures the CRI plugin itself, and containerd ${major}.x replaces a plugin's whole section with an imported one (containerd/containerd#5837), which would drop those settings`);
  }
  const notes = input.containerdMajor === undefined ? [`containerd's version is unknown here: the drop-in uses config version ${version}, as ${CONTAINERD_CONFIG} does`] : [];
  return { kind: 'drop-in', dropIn: renderContainerdDropIn(want, version), backup: false, notes };
}

function describeOwn(own: { systemdCgroup?: boolean; sandboxImage?: string }): string {
  return `SystemdCgroup = ${own.systemdCgroup === undefined ? '(default false)' : String(own.systemdCgroup)}, sandbox image ${own.sandboxImage ?? '(containerd\'s default)'}`;
}

/** A finding that blocks the drop-in: reported, or with --override-host-settings the import-only config.toml (the original kept). */
function conflictOr(input: ContainerdInput, want: ContainerdWant, detail: string): ContainerdPlan {
  if (!input.override) return { kind: 'conflict', detail };
  const version = dropInVersion(undefined, input.containerdMajor);
  return {
    kind: 'drop-in',
    dropIn: renderContainerdDropIn(want, version),
    configToml: renderContainerdConfig(version),
    backup: true,
    notes: [`${detail}: replaced by tsadm's import-only config.toml (--override-host-settings); the original is kept at ${CONTAINERD_CONFIG_BACKUP}`],
  };
}
