/**
 * Kubeconfig documents exactly as kubeadm writes them (clientcmd.Write: JSON field order, i.e.
 * keys sorted, block style, "- " lists at the parent's indentation, data fields base64). Pure.
 */
import * as yaml from 'js-yaml';

export type KubeconfigAuth =
  | { readonly kind: 'client-certificate'; readonly certificatePem: string | Uint8Array; readonly keyPem: string | Uint8Array }
  | { readonly kind: 'client-certificate-files'; readonly certificateFile: string; readonly keyFile: string }
  | { readonly kind: 'token'; readonly token: string };

export interface KubeconfigSpec {
  readonly clusterName: string;
  readonly server: string;
  /** PEM of the cluster CA, embedded as certificate-authority-data. */
  readonly caPem: string | Uint8Array;
  readonly userName: string;
  /** Default "<user>@<cluster>" (kubeadm's naming). */
  readonly contextName?: string;
  readonly auth: KubeconfigAuth;
}

const b64 = (data: string | Uint8Array): string => Buffer.from(data).toString('base64');

function user(auth: KubeconfigAuth): Record<string, string> {
  switch (auth.kind) {
    case 'client-certificate':
      return { 'client-certificate-data': b64(auth.certificatePem), 'client-key-data': b64(auth.keyPem) };
    case 'client-certificate-files':
      return { 'client-certificate': auth.certificateFile, 'client-key': auth.keyFile };
    case 'token':
      return { token: auth.token };
  }
}

/** The kubeconfig object (clientcmd v1 Config) before serialization. */
export function kubeconfigObject(spec: KubeconfigSpec): Record<string, unknown> {
  const context = spec.contextName ?? `${spec.userName}@${spec.clusterName}`;
  return {
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': b64(spec.caPem), server: spec.server }, name: spec.clusterName }],
    contexts: [{ context: { cluster: spec.clusterName, user: spec.userName }, name: context }],
    'current-context': context,
    kind: 'Config',
    preferences: {},
    users: [{ name: spec.userName, user: user(spec.auth) }],
  };
}

/** Serializes any kubeconfig object the way kubeadm does. */
export function dumpKubeconfig(obj: Record<string, unknown>): string {
  return yaml.dump(obj, { sortKeys: true, lineWidth: -1, seqNoIndent: true, noRefs: true });
}

export function renderKubeconfig(spec: KubeconfigSpec): string {
  return dumpKubeconfig(kubeconfigObject(spec));
}
