import { createHash } from 'node:crypto';

/** Annotation kubeadm puts on component-config ConfigMaps it wrote (upgrade detects user edits by it). */
export const COMPONENT_CONFIG_HASH_ANNOTATION = 'kubeadm.kubernetes.io/component-config.hash';

/**
 * kubeadm's ChecksumForConfigMap (componentconfigs/checksums.go): SHA-256 over the `data` values
 * in key order, then the `binaryData` values (decoded bytes) in key order.
 */
export function configMapHash(data: Readonly<Record<string, string>>, binaryData: Readonly<Record<string, string>> = {}): string {
  const h = createHash('sha256');
  for (const k of Object.keys(data).sort()) h.update(data[k] as string, 'utf8');
  for (const k of Object.keys(binaryData).sort()) h.update(Buffer.from(binaryData[k] as string, 'base64'));
  return `sha256:${h.digest('hex')}`;
}
