import path from 'node:path';
import { loadYaml } from '../yaml/read.js';
import { KUBECONFIG_FILES, KUBERNETES_DIR } from '../constants.js';
import type { Host } from '../host/host.js';
import { parseCertificatePem } from '../pki/certificate.js';

/**
 * This node's name as the cluster knows it: the CN "system:node:<name>" of kubelet.conf's client
 * certificate (kubeadm's getNodeNameFromKubeletConfig, used by reset and upgrade), or undefined
 * when there is no readable kubelet.conf or its user is not a node.
 */
export async function nodeNameFromKubeletConf(host: Pick<Host, 'readFile'>): Promise<string | undefined> {
  const text = (await host.readFile(path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.kubelet)))?.toString('utf8');
  if (text === undefined) return undefined;
  try {
    const doc = (loadYaml(text) ?? {}) as {
      'current-context'?: string;
      contexts?: Array<{ name?: string; context?: { user?: string } }>;
      users?: Array<{ name?: string; user?: Record<string, string> }>;
    };
    const userName = doc.contexts?.find((c) => c.name === doc['current-context'])?.context?.user;
    const user = doc.users?.find((u) => u.name === userName)?.user ?? {};
    const pem = user['client-certificate-data'] ? Buffer.from(user['client-certificate-data'], 'base64')
      : user['client-certificate'] ? await host.readFile(user['client-certificate']) : undefined;
    if (!pem) return undefined;
    const cn = parseCertificatePem(pem, 'kubelet client certificate').subject.commonName;
    return cn?.startsWith('system:node:') ? cn.slice('system:node:'.length) : undefined;
  } catch {
    return undefined;
  }
}
