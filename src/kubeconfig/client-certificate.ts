/**
 * The client certificate a kubeconfig file carries, as kubeadm issues it both in its kubeconfig
 * phase and in `kubeadm kubeconfig user` (kubeconfigutil's client certificate spec: clientAuth
 * only, no SANs, the leaf's validity), and the kubeconfig made from it.
 */
import type { KeyObject } from 'node:crypto';
import type { Certificate } from '../pki/certificate.js';
import { encodePrivateKeyPem } from '../pki/keys.js';
import type { DistinguishedName } from '../pki/name.js';
import { randomSerial } from '../pki/serial.js';
import { signCertificate } from '../pki/sign.js';
import type { Validity } from '../certs/validity.js';
import type { VersionProfile } from '../versions/table-types.js';
import { renderKubeconfig, type KubeconfigSpec } from './render.js';

export interface ClientIssue {
  readonly subject: DistinguishedName;
  readonly validity: Validity;
  readonly versions: VersionProfile;
  readonly keyPair: { readonly publicKey: KeyObject; readonly privateKey: KeyObject };
  readonly ca: { readonly key: KeyObject; readonly cert: Certificate };
}

/** A kubeconfig (cluster, server, CA as `base` gives them) whose user is a new client certificate signed by `ca`. */
export function kubeconfigWithClientCertificate(base: Omit<KubeconfigSpec, 'auth'>, issue: ClientIssue): string {
  const cert = signCertificate({
    subject: issue.subject,
    serial: randomSerial(),
    ...issue.validity,
    isCA: false,
    leafBasicConstraints: issue.versions.pki.leafBasicConstraints,
    keyEnciphermentRsaOnly: issue.versions.pki.keyEnciphermentRsaOnly,
    extKeyUsage: ['clientAuth'],
    dnsNames: [],
    ipAddresses: [],
  }, issue.keyPair.publicKey, { privateKey: issue.ca.key, certificate: issue.ca.cert });
  return renderKubeconfig({ ...base, auth: { kind: 'client-certificate', certificatePem: cert.pem, keyPem: encodePrivateKeyPem(issue.keyPair.privateKey) } });
}
