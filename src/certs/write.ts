import type { Host } from '../host/host.js';
import { MODES } from '../constants.js';
import type { PkiFiles } from './paths.js';

/** Key first, then certificate, as kubeadm's WriteCertAndKey; parents are created 0755. */
export async function writeKeyAndCert(host: Host, files: PkiFiles, keyPem: string, certPem: string, name: string): Promise<void> {
  await host.writeFile(files.key, keyPem, { mode: MODES.key, kind: 'private-key', description: `"${name}" private key` });
  await host.writeFile(files.cert, certPem, { mode: MODES.certificate, kind: 'certificate', description: `"${name}" certificate` });
}

/** Only the certificate, for a key already on disk (see orphanKeyPair). */
export async function writeCertOnly(host: Host, files: PkiFiles, certPem: string, name: string): Promise<void> {
  await host.writeFile(files.cert, certPem, { mode: MODES.certificate, kind: 'certificate', description: `"${name}" certificate` });
}
