/**
 * Kubeconfig documents exactly as kubeadm writes them (clientcmd.Write: the v1 Config as JSON,
 * then sigs.k8s.io/yaml, i.e. src/yaml/write.ts; data fields base64). Pure.
 */
import { toKubeYaml } from '../yaml/write.js';

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

export function renderKubeconfig(spec: KubeconfigSpec): string {
  return toKubeYaml(kubeconfigObject(spec));
}
