/**
 * Reads a kubeadm config file: parses its YAML documents, identifies each by apiVersion/kind,
 * checks it against the schema of its version and brings the kinds the command uses to the
 * normalized shape. Kinds meant for another command (a JoinConfiguration given to init) are
 * ignored with a warning, so one file can serve init and join as with kubeadm.
 */
import type { ApiVersionUse } from './schema-kubeadm.js';
import { isPlainObject } from '../util/plain-object.js';
import { checkSchema, hasPath, type Obj } from './schema.js';
import { COMPONENT_SCHEMAS } from './schema-components.js';
import {
  COMPONENT_KINDS,
  KUBEADM_GROUP,
  KUBEADM_SCHEMAS,
  KUBEADM_VERSIONS,
  OLD_KUBEADM_VERSIONS,
  type KubeadmKind,
  type KubeadmVersion,
} from './schema-kubeadm.js';
import { normalizeCluster, normalizeInit, normalizeJoin, normalizeReset, type Findings } from './upconvert.js';
import { parseYamlDocuments, type ParsedYaml } from './yaml-docs.js';
import type { NCluster, NInit, NJoin, NReset } from './normalized.js';

export type ConfigCommand = 'init' | 'join' | 'reset' | 'upgrade';

/** The kinds each command reads; kubeadm ignores the others. */
const USED_KINDS: Readonly<Record<ConfigCommand, readonly string[]>> = {
  init: ['InitConfiguration', 'ClusterConfiguration', 'KubeletConfiguration', 'KubeProxyConfiguration'],
  join: ['JoinConfiguration'],
  reset: ['ResetConfiguration'],
  // v1beta4 UpgradeConfiguration; a v1beta2/v1beta3 ClusterConfiguration is kubeadm ≤1.30's
  // "reconfigure while upgrading" file (src/config/upgrade.ts decides what to do with each).
  upgrade: ['UpgradeConfiguration', 'ClusterConfiguration'],
};

export interface ConfigDocuments {
  init?: NInit;
  cluster?: NCluster;
  join?: NJoin;
  reset?: NReset;
  /** The UpgradeConfiguration as written (schema-checked, without apiVersion/kind). */
  upgrade?: Obj;
  /** The API version the ClusterConfiguration was written in (upgrade treats old ones differently). */
  clusterVersion?: KubeadmVersion;
  kubelet?: Obj;
  kubeProxy?: Obj;
  /**
   * Every kubeadm document of the file (whichever command reads it) with its API version, in file
   * order: kubeadm checks each against the versions its minor reads (src/config/api-versions.ts).
   */
  apiVersions?: ApiVersionUse[];
}

export interface ReadDocuments extends Findings {
  readonly docs: ConfigDocuments;
}

export function readConfigDocuments(text: string, source: string, command: ConfigCommand): ReadDocuments {
  return readParsedDocuments(parseYamlDocuments(text, source), source, command);
}

/** readConfigDocuments of documents already parsed (src/config/yaml-docs.ts). */
export function readParsedDocuments(parsed: ParsedYaml, source: string, command: ConfigCommand): ReadDocuments {
  const f: Findings = { errors: [...parsed.errors], warnings: [] };
  const docs: ConfigDocuments = {};
  const seen = new Map<string, number>();
  for (const doc of parsed.documents) {
    const at = `document ${doc.index}, line ${doc.line}`;
    if (!isPlainObject(doc.value)) {
      f.errors.push(`${source}: ${at}: expected a mapping with apiVersion and kind`);
      continue;
    }
    const { apiVersion, kind } = doc.value;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion === '' || kind === '') {
      f.errors.push(`${source}: ${at}: kind and apiVersion are mandatory information that must be specified`);
      continue;
    }
    const first = seen.get(kind);
    if (first !== undefined) {
      f.errors.push(`kind: "${kind}" is specified twice in the YAML file (documents ${first} and ${doc.index})`);
      continue;
    }
    seen.set(kind, doc.index);
    readOne(doc.value, apiVersion, kind, at, command, docs, f);
  }
  return { docs, ...f };
}

function readOne(value: Obj, apiVersion: string, kind: string, at: string, command: ConfigCommand, docs: ConfigDocuments, f: Findings): void {
  const component = COMPONENT_KINDS[kind];
  if (component) {
    if (apiVersion !== component.apiVersion) {
      f.errors.push(`apiVersion: unsupported apiVersion "${apiVersion}" for ${kind} (${at}); use ${component.apiVersion}`);
      return;
    }
    if (!USED_KINDS[command].includes(kind)) {
      f.warnings.push(`ignored ${kind} document (${at}): "${command}" does not use it`);
      return;
    }
    // The types of known fields are checked (as kubeadm's decoding does); values and other
    // fields are left for the kubelet and kube-proxy to validate.
    const checked = checkSchema(value, COMPONENT_SCHEMAS[kind] ?? 'any', `${kind}, ${apiVersion}`);
    f.errors.push(...checked.errors);
    docs[component.key] = structuredClone(value);
    return;
  }
  const [group, version] = apiVersion.split('/');
  if (group !== KUBEADM_GROUP || version === undefined) {
    f.errors.push(`apiVersion: unsupported apiVersion "${apiVersion}" (kind ${kind}, ${at}); tsadm reads ${KUBEADM_GROUP}/v1beta2, v1beta3 and v1beta4 documents`);
    return;
  }
  if (version === 'v1') {
    // kubeadm 1.37 adds v1 as a placeholder (a copy of v1beta4) "flagged as experimental" that
    // "cannot be used yet" (PR #136016); tsadm reads none of it.
    f.errors.push(`apiVersion: ${KUBEADM_GROUP}/v1 is not usable yet (kind ${kind}, ${at}): kubeadm 1.37 registers it as an experimental placeholder and keeps it disabled; use ${KUBEADM_GROUP}/v1beta4`);
    return;
  }
  if (!(KUBEADM_VERSIONS as readonly string[]).includes(version)) {
    const old = OLD_KUBEADM_VERSIONS.includes(version);
    f.errors.push(old
      ? `apiVersion: "${apiVersion}" is an old API version that is no longer supported (${at}); convert it with 'kubeadm config migrate' from an older kubeadm`
      : `apiVersion: unknown kubeadm API version "${apiVersion}" (${at}); use v1beta2, v1beta3 or v1beta4`);
    return;
  }
  const v = version as KubeadmVersion;
  const schema = KUBEADM_SCHEMAS[v][kind as KubeadmKind];
  if (!schema) {
    const known = Object.keys(KUBEADM_SCHEMAS[v]).join(', ');
    f.errors.push(`kind: unknown kind "${kind}" for ${apiVersion} (${at}); known kinds: ${known}`);
    return;
  }
  const checked = checkSchema(value, schema, `${kind} ${apiVersion}`, (path) => versionsKnowing(kind as KubeadmKind, path, v));
  f.errors.push(...checked.errors);
  (docs.apiVersions ??= []).push({ kind, version: v });
  if (!USED_KINDS[command].includes(kind)) {
    f.warnings.push(`ignored ${kind} document (${at}): "${command}" does not use it`);
    return;
  }
  const clean = checked.value as Obj;
  if (kind === 'InitConfiguration') docs.init = normalizeInit(clean, v);
  else if (kind === 'ClusterConfiguration') {
    docs.cluster = normalizeCluster(clean, v, f);
    docs.clusterVersion = v;
  } else if (kind === 'UpgradeConfiguration') {
    const { apiVersion: _a, kind: _k, ...rest } = clean;
    docs.upgrade = rest;
  }
  else if (kind === 'JoinConfiguration') docs.join = normalizeJoin(clean, v);
  else if (kind === 'ResetConfiguration') docs.reset = normalizeReset(clean);
}

/** Other API versions in which `kind` has the field `path` (to explain a version mix-up). */
function versionsKnowing(kind: KubeadmKind, path: string, except: KubeadmVersion): string | undefined {
  const found = KUBEADM_VERSIONS.filter((v) => v !== except).filter((v) => {
    const schema = KUBEADM_SCHEMAS[v][kind];
    return schema !== undefined && hasPath(schema, path);
  });
  return found.length > 0 ? found.map((v) => `${KUBEADM_GROUP}/${v}`).join(' and ') : undefined;
}
