/**
 * The one reader of the kubeadm-config ConfigMap (kube-system/kubeadm-config), kubeadm's record of
 * the cluster: its ClusterConfiguration and, on v1beta2 clusters, its ClusterStatus (the control
 * planes and their API endpoints). join, upgrade, reset, `etcd remove-member` and the certs
 * commands all read it here, through any KubeApi client, and get the same typed errors.
 *
 * The texts are kept exactly as stored (writers put the ClusterConfiguration back untouched); the
 * documents are parsed through the one YAML reader (src/yaml/read.ts). The stored
 * ClusterConfiguration is kubeadm's own record: callers resolve it with `apiVersionCheck: 'any'`
 * (STORED_CONFIG_API_VERSION_CHECK), so a cluster made by an older kubeadm is read whatever API
 * version it was written in.
 */
import * as yaml from 'js-yaml';
import { TsadmError, errorMessage } from '../errors.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../constants.js';
import { isPlainObject } from '../util/plain-object.js';
import { loadYaml } from '../yaml/read.js';
import { isForbidden } from './errors.js';
import type { ConfigMapObject, KubeApi } from './types.js';

/** How the cluster's stored configuration is judged when resolved: whatever API version it was stored in. */
export const STORED_CONFIG_API_VERSION_CHECK = 'any' as const;

/** One control plane of ClusterStatus. */
interface ClusterStatusEndpoint {
  readonly advertiseAddress?: string;
  readonly bindPort?: number;
}

/** ClusterStatus (kubeadm.k8s.io/v1beta2): the control planes by node name. */
export interface ClusterStatus {
  readonly apiEndpoints: Readonly<Record<string, ClusterStatusEndpoint>>;
}

export interface KubeadmConfig {
  /** ClusterConfiguration exactly as stored. */
  readonly clusterConfigurationYaml: string;
  /** Its document (a mapping). */
  readonly clusterConfiguration: Readonly<Record<string, unknown>>;
  /** ClusterStatus exactly as stored; undefined on clusters that keep none (v1beta3 and later). */
  readonly clusterStatusYaml: string | undefined;
  readonly clusterStatus: ClusterStatus | undefined;
}

export interface ReadKubeadmConfigOptions {
  /**
   * What a missing ConfigMap (or one without a ClusterConfiguration) is: an error (join, upgrade:
   * nothing can be done without it), or undefined (reset, remove-member: nothing to update).
   */
  readonly ifAbsent?: 'error' | 'undefined';
  /** Whose credentials read it, for a forbidden read (join: "the bootstrap credentials"). */
  readonly credentials?: string;
}

const FIX_HINT = 'check it with `kubectl -n kube-system get cm kubeadm-config -o yaml`; re-upload it with `tsadm init phase upload-config kubeadm` on a control-plane node';

/** Fetches and parses kube-system/kubeadm-config through API. */
export async function readKubeadmConfig(api: KubeApi, opts?: ReadKubeadmConfigOptions & { readonly ifAbsent?: 'error' }): Promise<KubeadmConfig>;
export async function readKubeadmConfig(api: KubeApi, opts: ReadKubeadmConfigOptions): Promise<KubeadmConfig | undefined>;
export async function readKubeadmConfig(api: KubeApi, opts: ReadKubeadmConfigOptions = {}): Promise<KubeadmConfig | undefined> {
  const cm = await getKubeSystemConfigMap(api, KUBEADM_CONFIG_CM, opts);
  return cm === undefined ? undefined : parseKubeadmConfig(cm, opts.ifAbsent ?? 'error');
}

/** Pure: the kubeadm-config ConfigMap CM parsed; undefined (or an error) when it holds no ClusterConfiguration. */
function parseKubeadmConfig(cm: ConfigMapObject, ifAbsent: 'error' | 'undefined' = 'error'): KubeadmConfig | undefined {
  const clusterConfigurationYaml = cm.data?.ClusterConfiguration;
  if (!clusterConfigurationYaml) {
    if (ifAbsent === 'undefined') return undefined;
    throw new TsadmError('E_PRECONDITION', `the ConfigMap ${KUBE_SYSTEM}/${KUBEADM_CONFIG_CM} has no ClusterConfiguration`, {
      hint: 'upload it with `tsadm init phase upload-config kubeadm` on a control-plane node',
    });
  }
  const clusterStatusYaml = cm.data?.ClusterStatus;
  return {
    clusterConfigurationYaml,
    clusterConfiguration: parseClusterConfiguration(clusterConfigurationYaml),
    clusterStatusYaml,
    clusterStatus: clusterStatusYaml === undefined ? undefined : clusterStatusOf(parseDocument(clusterStatusYaml, 'ClusterStatus')),
  };
}

/** Pure: a stored ClusterConfiguration's document (a mapping; {} when empty), or a typed error. */
export function parseClusterConfiguration(text: string): Record<string, unknown> {
  return parseDocument(text, 'ClusterConfiguration');
}

/**
 * A ConfigMap of kube-system (kubeadm-config, the kubelet's): a forbidden read is a typed error
 * (the credentials lack kubeadm's RBAC rules), a missing one an error or undefined as
 * opts.ifAbsent says (an error by default).
 */
export async function getKubeSystemConfigMap(api: KubeApi, name: string, opts?: ReadKubeadmConfigOptions & { readonly ifAbsent?: 'error' }): Promise<ConfigMapObject>;
export async function getKubeSystemConfigMap(api: KubeApi, name: string, opts: ReadKubeadmConfigOptions): Promise<ConfigMapObject | undefined>;
export async function getKubeSystemConfigMap(api: KubeApi, name: string, opts: ReadKubeadmConfigOptions = {}): Promise<ConfigMapObject | undefined> {
  let cm: ConfigMapObject | undefined;
  try {
    cm = await api.get<ConfigMapObject>('ConfigMap', name, KUBE_SYSTEM);
  } catch (err) {
    if (isForbidden(err)) {
      throw new TsadmError('E_API', `${opts.credentials ?? 'the credentials in use'} may not read the ConfigMap ${KUBE_SYSTEM}/${name} (forbidden)`, {
        cause: err,
        hint: 'the cluster lacks kubeadm\'s RBAC rules for reading its configuration; run `tsadm init phase upload-config all` on a control-plane node',
      });
    }
    throw err;
  }
  if (!cm && (opts.ifAbsent ?? 'error') === 'error') {
    throw new TsadmError('E_PRECONDITION', `unable to fetch the ${name} ConfigMap: it does not exist in the ${KUBE_SYSTEM} Namespace`, {
      hint: 'was the cluster made by kubeadm or tsadm init? Upload it with `tsadm init phase upload-config all` on a control-plane node',
    });
  }
  return cm;
}

function parseDocument(text: string, what: 'ClusterConfiguration' | 'ClusterStatus'): Record<string, unknown> {
  let doc: unknown;
  try {
    // The core schema, as config files are read (src/config/yaml-docs.ts): timestamps stay strings.
    doc = loadYaml(text, { schema: yaml.CORE_SCHEMA });
  } catch (err) {
    // js-yaml's message carries a multi-line excerpt; one line: where, and why.
    const why = err instanceof yaml.YAMLException ? `${err.mark ? `line ${err.mark.line + 1}, column ${err.mark.column + 1}: ` : ''}${err.reason}` : errorMessage(err);
    throw new TsadmError('E_PRECONDITION', `the stored ${what} in the ConfigMap ${KUBE_SYSTEM}/${KUBEADM_CONFIG_CM} is not valid YAML: ${why}`, { hint: FIX_HINT });
  }
  if (doc === null || doc === undefined) return {};
  if (!isPlainObject(doc)) {
    throw new TsadmError('E_PRECONDITION', `the stored ${what} in the ConfigMap ${KUBE_SYSTEM}/${KUBEADM_CONFIG_CM} is not a mapping`, { hint: FIX_HINT });
  }
  return doc;
}

function clusterStatusOf(doc: Record<string, unknown>): ClusterStatus {
  const endpoints = isPlainObject(doc.apiEndpoints) ? doc.apiEndpoints : {};
  const apiEndpoints: Record<string, ClusterStatusEndpoint> = {};
  for (const [name, e] of Object.entries(endpoints)) {
    if (!isPlainObject(e)) continue;
    apiEndpoints[name] = {
      ...(typeof e.advertiseAddress === 'string' ? { advertiseAddress: e.advertiseAddress } : {}),
      ...(typeof e.bindPort === 'number' ? { bindPort: e.bindPort } : {}),
    };
  }
  return { apiEndpoints };
}
