/** File names under the certificate directory (kubeadm's pathForCert / pathForKey / …). */
import path from 'node:path';

export interface PkiFiles {
  readonly cert: string;
  readonly key: string;
}

export function pkiFiles(certDir: string, baseName: string): PkiFiles {
  const base = path.posix.join(certDir, baseName);
  return { cert: `${base}.crt`, key: `${base}.key` };
}

export function publicKeyPath(certDir: string, baseName: string): string {
  return `${path.posix.join(certDir, baseName)}.pub`;
}

export function csrPath(dir: string, baseName: string): string {
  return `${path.posix.join(dir, baseName)}.csr`;
}

export function keyPath(dir: string, baseName: string): string {
  return `${path.posix.join(dir, baseName)}.key`;
}
