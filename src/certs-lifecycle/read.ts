/**
 * Reading the certificate (and key) behind an inventory entry through the host: a PKI file pair,
 * or the current user's client credentials of a kubeconfig. A missing file is `undefined`; a
 * file that exists but cannot be used is E_CONFLICT naming the file.
 */
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { parseCertificatePem, type Certificate } from '../pki/certificate.js';
import { parsePrivateKeyPem } from '../pki/keys.js';
import { pkiFiles } from '../certs/paths.js';
import { readCertificate, readPrivateKey } from '../certs/load.js';
import type { CertEntry, KubeconfigEntry } from './inventory.js';
import { readClientCredentials } from './kubeconfig-credentials.js';

export interface EntryFiles {
  readonly host: Host;
  readonly certDir: string;
  readonly kubeconfigDir: string;
}

/** The file an entry's certificate is read from (the .crt, or the kubeconfig). */
export function entryPath(d: Pick<EntryFiles, 'certDir' | 'kubeconfigDir'>, entry: CertEntry): string {
  return entry.kind === 'pki' ? pkiFiles(d.certDir, entry.baseName).cert : path.posix.join(d.kubeconfigDir, entry.file);
}

export interface LoadedEntry {
  readonly entry: CertEntry;
  readonly path: string;
  readonly cert: Certificate;
  /** Undefined when the key file is missing (check-expiration does not need it). */
  readonly key: KeyObject | undefined;
  /** The kubeconfig's text, for entries kept in a kubeconfig. */
  readonly kubeconfigText?: string;
}

export async function loadEntry(d: EntryFiles, entry: CertEntry): Promise<LoadedEntry | undefined> {
  if (entry.kind === 'pki') {
    const files = pkiFiles(d.certDir, entry.baseName);
    const cert = await readCertificate(d.host, files.cert);
    if (!cert) return undefined;
    return { entry, path: files.cert, cert, key: await readPrivateKey(d.host, files.key) };
  }
  return loadKubeconfigEntry(d, entry);
}

async function loadKubeconfigEntry(d: EntryFiles, entry: KubeconfigEntry): Promise<LoadedEntry | undefined> {
  const file = path.posix.join(d.kubeconfigDir, entry.file);
  const data = await d.host.readFile(file);
  if (data === undefined) return undefined;
  const text = data.toString('utf8');
  const creds = readClientCredentials(text, file);
  if (typeof creds === 'string') throw conflict(file, creds);
  // Files referenced by path (the kubelet's style) are relative to the kubeconfig's directory.
  const resolve = (p: string): string => (p.startsWith('/') ? p : path.posix.join(d.kubeconfigDir, p));
  const certPem = creds.certPem ?? (creds.certFile ? await d.host.readFile(resolve(creds.certFile)) : undefined);
  if (!certPem) throw conflict(file, `kubeConfig file ${file} does not have an embedded client certificate`);
  const keyPem = creds.keyPem ?? (creds.keyFile ? await d.host.readFile(resolve(creds.keyFile)) : undefined);
  return {
    entry,
    path: file,
    cert: parse(file, () => parseCertificatePem(certPem, `${file} (client certificate)`)),
    key: keyPem ? parse(file, () => parsePrivateKeyPem(keyPem, `${file} (client key)`)) : undefined,
    kubeconfigText: text,
  };
}

function parse<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw conflict(file, (err as Error).message);
  }
}

function conflict(file: string, message: string): TsadmError {
  return new TsadmError('E_CONFLICT', message, { hint: `fix or remove ${file}` });
}

/** External CA: the CA certificate is there but its key is not, so tsadm cannot sign with it. */
export async function isExternallyManaged(host: Host, certDir: string, caBaseName: string): Promise<boolean> {
  const files = pkiFiles(certDir, caBaseName);
  return (await host.stat(files.cert)) !== undefined && (await host.stat(files.key)) === undefined;
}
