/** Reading existing PKI files through the host; a file that exists but does not parse is a conflict. */
import type { KeyObject } from 'node:crypto';
import { TsadmError, isTsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { parseCertificatePem, type Certificate } from '../pki/certificate.js';
import { parsePrivateKeyPem, parsePublicKeyPem } from '../pki/keys.js';
import type { PkiFiles } from './paths.js';

export interface ExistingPair {
  readonly cert: Certificate | undefined;
  readonly key: KeyObject | undefined;
}

export async function readCertificate(host: Host, file: string): Promise<Certificate | undefined> {
  const data = await host.readFile(file);
  return data === undefined ? undefined : unreadable(file, () => parseCertificatePem(data, file));
}

export async function readPrivateKey(host: Host, file: string): Promise<KeyObject | undefined> {
  const data = await host.readFile(file);
  return data === undefined ? undefined : unreadable(file, () => parsePrivateKeyPem(data, file));
}

export async function readPublicKey(host: Host, file: string): Promise<KeyObject | undefined> {
  const data = await host.readFile(file);
  return data === undefined ? undefined : unreadable(file, () => parsePublicKeyPem(data, file));
}

export async function readPair(host: Host, files: PkiFiles): Promise<ExistingPair> {
  const [cert, key] = await Promise.all([readCertificate(host, files.cert), readPrivateKey(host, files.key)]);
  return { cert, key };
}

/** Parse failures of files that exist become E_CONFLICT: tsadm will not overwrite them. */
function unreadable<T>(file: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!isTsadmError(err)) throw err;
    throw new TsadmError('E_CONFLICT', err.message, { cause: err, hint: `remove ${file} to let tsadm create it, or replace it with a valid file` });
  }
}
