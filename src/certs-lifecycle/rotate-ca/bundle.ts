/**
 * Trust bundles of a CA rotation, pure: several CA certificates (or service-account public keys)
 * in one PEM file, the one that signs first, each once.
 *
 * Why the order matters: kubeadm and tsadm read the first certificate of ca.crt as "the CA" and
 * pair it with ca.key (parseCertificatePem in src/pki/certificate.ts; kubeadm's
 * TryLoadCertFromDisk takes certs[0]), so the certificate whose key is in ca.key always comes
 * first; the API server, etcd and the kubelet read the whole file as a pool, in any order.
 */
import { TsadmError } from '../../errors.js';
import { parseCertificateDer, type Certificate } from '../../pki/certificate.js';
import { spkiDer, parsePublicKeyPem } from '../../pki/keys.js';
import { decodePem, encodePem } from '../../pki/pem.js';

/** Every CERTIFICATE block of a PEM text, in order; anything else in the text is ignored. */
export function parseBundle(pem: string | Uint8Array, label: string): Certificate[] {
  const certs = decodePem(pem).filter((b) => b.type === 'CERTIFICATE').map((b, i) => parseCertificateDer(b.der, `${label} (certificate ${i + 1})`));
  if (certs.length === 0) throw new TsadmError('E_PRECONDITION', `${label}: no PEM certificate found`, { hint: `restore ${label}` });
  return certs;
}

/**
 * One PEM text holding FIRST, then every certificate of REST not already in it (compared by DER),
 * each written the way Go's encoding/pem writes it. Input texts may themselves be bundles.
 */
export function bundlePem(first: string, ...rest: readonly string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const text of [first, ...rest]) {
    for (const block of decodePem(text).filter((b) => b.type === 'CERTIFICATE')) {
      const key = block.der.toString('base64');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(encodePem('CERTIFICATE', block.der));
    }
  }
  if (out.length === 0) throw new TsadmError('E_INTERNAL', 'a CA bundle with no certificate');
  return out.join('');
}

/**
 * The same for service-account public keys (sa.pub): the API server's --service-account-key-file
 * reads every key in the file (client-go's keyutil.ParsePublicKeysPEM), so one file carries old and new.
 * Keys are compared by their SubjectPublicKeyInfo; each is written as "PUBLIC KEY" (PKIX), as kubeadm writes sa.pub.
 */
export function publicKeyBundlePem(first: string, ...rest: readonly string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const text of [first, ...rest]) {
    for (const block of decodePem(text).filter((b) => b.type === 'PUBLIC KEY' || b.type === 'RSA PUBLIC KEY')) {
      const der = spkiDer(parsePublicKeyPem(encodePem(block.type, block.der), 'service-account public key'));
      const key = der.toString('base64');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(encodePem('PUBLIC KEY', der));
    }
  }
  if (out.length === 0) throw new TsadmError('E_INTERNAL', 'a public key bundle with no key');
  return out.join('');
}

/** Whether two PEM texts hold the same certificates (or keys) in the same order, whatever their line layout. */
export function samePemBlocks(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const blocks = (t: string | Uint8Array): string[] => decodePem(t).map((x) => `${x.type}:${x.der.toString('base64')}`);
  const x = blocks(a);
  const y = blocks(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
