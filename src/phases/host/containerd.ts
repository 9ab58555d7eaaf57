/**
 * containerd's configuration for the kubelet, as pure decisions: the cgroup driver of the runc
 * runtime (`SystemdCgroup`) must match the kubelet's `cgroupDriver`, and the sandbox (pause) image
 * must be the target version's. /etc/containerd/config.toml is the package's (or the
 * administrator's) file, so tsadm writes a drop-in that config.toml imports, and edits nothing:
 *
 * - config.toml absent: tsadm writes one that only imports /etc/containerd/conf.d/*.toml.
 * - config.toml already sets both values: nothing to do.
 * - config.toml imports the drop-in's directory: tsadm writes the drop-in. Before 2.0 containerd
 *   replaces a plugin's whole section with an imported one (containerd/containerd#5837; merged by
 *   section since 2.0, PR #9982), so for containerd 1.x the drop-in carries config.toml's own CRI
 *   section with tsadm's two values set in it: nothing of config.toml's CRI settings is lost.
 * - config.toml does not import it: when the file is its package's, unmodified (dpkg's conffile
 *   checksum; Debian's containerd ships one with a CRI section), or with --override-host-settings,
 *   tsadm keeps a copy and adds the `imports` line to it (nothing else changes); otherwise
 *   reported, since the file is the administrator's.
 * - the CRI plugin disabled (containerd.io's packaged config.toml) or a file that does not parse:
 *   reported; with --override-host-settings (or the package's own file) tsadm keeps a copy and
 *   writes the import-only config.toml in its place.
 *
 * Schemas: config version 2 (containerd 1.x: plugin "io.containerd.grpc.v1.cri", `sandbox_image`)
 * and version 3 (containerd 2.x: "io.containerd.cri.v1.runtime" and "io.containerd.cri.v1.images",
 * `pinned_images.sandbox`); a config without `version` is version 1 (plugin "cri").
 */
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { isPlainObject } from '../../util/plain-object.js';

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
  /** config.toml is its package's file, unmodified (dpkg's conffile checksum matches). */
  readonly packaged?: boolean;
}

export type ContainerdPlan =
  | { readonly kind: 'in-place' }
  | {
    readonly kind: 'drop-in';
    /** The drop-in's content. */
    readonly dropIn: string;
    /** config.toml to write (absent, an import added, or replaced); undefined = leave it. */
    readonly configToml?: string;
    /** Keep the found config.toml at CONTAINERD_CONFIG_BACKUP before replacing it. */
    readonly backup: boolean;
    readonly notes: readonly string[];
  }
  | { readonly kind: 'conflict'; readonly detail: string };

type Table = Record<string, unknown>;
const at = (t: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => (isPlainObject(o) ? o[k] : undefined), t);

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

/**
 * A file that sets anything of a runtime replaces containerd's default entry for it (the CRI
 * plugin decodes `runtimes` as a map: the key's whole value, not its fields), so the entry must
 * name its shim again or every sandbox fails with "container.Runtime.Name must be set" (seen with
 * containerd 1.6 on the e2e machines). containerd's own default for runc.
 */
const RUNC_V2 = 'io.containerd.runc.v2';

const DROPIN_HEADER = '# Written by tsadm (host/container-runtime): the kubelet\'s cgroup driver and the sandbox image of its version.\n';

/**
 * The drop-in for containerd 1.x when config.toml configures the CRI plugin itself: that section
 * with tsadm's two values set in it (1.x would otherwise drop it for the drop-in's, #5837). Only
 * schema version 2 (containerd 1.x's); undefined for a version 1 config.
 */
function renderMergedDropIn(want: ContainerdWant, config: Table): string | undefined {
  if (configVersion(config) !== 2) return undefined;
  const plugin = 'io.containerd.grpc.v1.cri';
  const cri = structuredClone(at(config, 'plugins', plugin)) as Table | undefined;
  if (!isPlainObject(cri)) return undefined;
  const runtimeName = at(cri, 'containerd', 'default_runtime_name');
  const name = typeof runtimeName === 'string' && runtimeName !== '' ? runtimeName : 'runc';
  cri.sandbox_image = want.sandboxImage;
  const runtime = tableAt(cri, 'containerd', 'runtimes', name);
  if (name === 'runc' && runtime.runtime_type === undefined) runtime.runtime_type = RUNC_V2;
  tableAt(runtime, 'options').SystemdCgroup = want.systemdCgroup;
  return `${DROPIN_HEADER}# containerd 1.x replaces a plugin's whole section with an imported one, so this file carries\n`
    + `# ${CONTAINERD_CONFIG}'s own CRI section too: run "tsadm prepare phase container-runtime" again after editing it.\n`
    + `version = 2\n\n${stringifyToml({ plugins: { [plugin]: cri } })}\n`;
}

/** The table at a path, created where missing. */
function tableAt(t: Table, ...keys: string[]): Table {
  let cur = t;
  for (const k of keys) {
    const next = cur[k];
    if (!isPlainObject(next)) cur[k] = {};
    cur = cur[k] as Table;
  }
  return cur;
}

/**
 * config.toml with the drop-in directory imported and nothing else changed (a text edit keeps the
 * comments): the line goes after a top-level `version` line, else first; an existing
 * `imports = [` gets the directory in front. undefined when the result would not import it.
 */
export function withImport(text: string): string | undefined {
  const entry = `"${CONTAINERD_DROPIN_DIR}/*.toml"`;
  const note = '# imports: added by tsadm (host/container-runtime); the file as found is config.toml.tsadm-orig\n';
  const lines = text.split('\n');
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const top = firstTable < 0 ? lines.length : firstTable;
  const importsAt = lines.slice(0, top).findIndex((l) => /^\s*imports\s*=\s*\[/.test(l));
  let edited: string;
  if (importsAt >= 0) {
    lines[importsAt] = lines[importsAt]!.replace(/^(\s*imports\s*=\s*\[)\s*(.*)$/, (_m, head: string, rest: string) => `${head}${entry}${rest === '' ? ',' : rest.startsWith(']') ? '' : ', '}${rest}`);
    edited = lines.join('\n');
  } else {
    const versionAt = lines.slice(0, top).findIndex((l) => /^\s*version\s*=/.test(l));
    lines.splice(versionAt + 1, 0, `${note}imports = [${entry}]`);
    edited = lines.join('\n');
  }
  try {
    return importsDropIn(parseToml(edited)) ? edited : undefined;
  } catch {
    return undefined;
  }
}

/** The drop-in: only the two settings, in the schema of `version`. */
export function renderContainerdDropIn(want: ContainerdWant, version: 2 | 3): string {
  const header = DROPIN_HEADER;
  if (version === 3) {
    return `${header}version = 3\n\n[plugins."io.containerd.cri.v1.images".pinned_images]\n  sandbox = "${want.sandboxImage}"\n\n`
      + `[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]\n  runtime_type = "${RUNC_V2}"\n\n`
      + `[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n  SystemdCgroup = ${String(want.systemdCgroup)}\n`;
  }
  return `${header}version = 2\n\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "${want.sandboxImage}"\n\n`
    + `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "${RUNC_V2}"\n\n`
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
  const importing = importsDropIn(config);
  if (!importing && own.systemdCgroup === want.systemdCgroup && own.sandboxImage === want.sandboxImage) return { kind: 'in-place' };
  const major = input.containerdMajor ?? (configVersion(config) >= 3 ? 2 : 1);
  const notes = input.containerdMajor === undefined ? [`containerd's version is unknown here: the drop-in uses config version ${version}, as ${CONTAINERD_CONFIG} does`] : [];
  let dropIn = renderContainerdDropIn(want, version);
  if (major < 2 && hasCriSection(config)) {
    const merged = renderMergedDropIn(want, config);
    if (merged === undefined) {
      return conflictOr(input, want, `${CONTAINERD_CONFIG} configures the CRI plugin itself in config version ${configVersion(config)}, and containerd ${major}.x replaces a plugin's whole section with an imported one (containerd/containerd#5837)`);
    }
    dropIn = merged;
  }
  if (importing) return { kind: 'drop-in', dropIn, backup: false, notes };
  const detail = `${CONTAINERD_CONFIG} does not import ${CONTAINERD_DROPIN_DIR}/*.toml, and sets ${describeOwn(own)} itself (wanted SystemdCgroup = ${String(want.systemdCgroup)}, sandbox image ${want.sandboxImage})`;
  if (!input.override && input.packaged !== true) return { kind: 'conflict', detail };
  const edited = withImport(input.configToml);
  if (edited === undefined) return conflictOr(input, want, `${detail}, and tsadm cannot add the import line to it`);
  const why = input.packaged === true ? 'it is the package\'s file, unmodified' : '--override-host-settings';
  return { kind: 'drop-in', dropIn, configToml: edited, backup: true, notes: [...notes, `Adding the import of ${CONTAINERD_DROPIN_DIR}/*.toml to ${CONTAINERD_CONFIG} (${why}); the file as found is kept at ${CONTAINERD_CONFIG_BACKUP}`] };
}

function describeOwn(own: { systemdCgroup?: boolean; sandboxImage?: string }): string {
  return `SystemdCgroup = ${own.systemdCgroup === undefined ? '(default false)' : String(own.systemdCgroup)}, sandbox image ${own.sandboxImage ?? '(containerd\'s default)'}`;
}

/** A finding that blocks the drop-in: reported, or with --override-host-settings the import-only config.toml (the original kept). */
function conflictOr(input: ContainerdInput, want: ContainerdWant, detail: string): ContainerdPlan {
  if (!input.override && input.packaged !== true) return { kind: 'conflict', detail };
  const version = dropInVersion(undefined, input.containerdMajor);
  return {
    kind: 'drop-in',
    dropIn: renderContainerdDropIn(want, version),
    configToml: renderContainerdConfig(version),
    backup: true,
    notes: [`${detail}: replaced by tsadm's import-only config.toml (${input.override ? '--override-host-settings' : 'it is the package\'s file, unmodified'}); the original is kept at ${CONTAINERD_CONFIG_BACKUP}`],
  };
}
