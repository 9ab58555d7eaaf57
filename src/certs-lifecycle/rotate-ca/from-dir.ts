/**
 * `start --from DIR`: the new CAs come from an external CA instead of being made here. DIR has
 * the certificate directory's layout (ca.crt/ca.key, front-proxy-ca.crt/.key, etcd/ca.crt/.key,
 * sa.key), read from the machine running tsadm like --config (not under --rootfs). Each pair is
 * checked before anything is written, with one line saying what is wrong: a CA certificate, its
 * key, valid now, and not the CA being replaced.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { TsadmError, errorMessage } from '../../errors.js';
import { parseCertificatePem, type Certificate } from '../../pki/certificate.js';
import { encodePublicKeyPem, parsePrivateKeyPem, parsePublicKeyPem } from '../../pki/keys.js';
import { keyMatchesCertificate, validityProblem } from '../../pki/verify.js';
import type { Rotated } from './state.js';

/** A new CA pair given by the user: the certificate (none for service-account) and the key, PEM. */
export interface ProvidedCA {
  readonly cert?: string;
  readonly key: string;
}

const BASE: Readonly<Record<Exclude<Rotated, 'service-account'>, string>> = { cluster: 'ca', 'front-proxy': 'front-proxy-ca', etcd: 'etcd/ca' };

/** The files of ITEM under DIR. */
export function providedFiles(dir: string, item: Rotated): { cert?: string; key: string } {
  if (item === 'service-account') return { key: path.join(dir, 'sa.key') };
  return { cert: path.join(dir, `${BASE[item]}.crt`), key: path.join(dir, `${BASE[item]}.key`) };
}

async function readText(file: string, item: Rotated): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new TsadmError('E_USAGE', `--from: cannot read ${file} (the new ${item} ${file.endsWith('.key') ? 'key' : 'CA'}): ${errorMessage(err)}`, { hint: 'put each new CA in --from as ca.crt/ca.key, front-proxy-ca.crt/.key, etcd/ca.crt/.key, sa.key' });
  }
}

/** Reads and checks the new pair of ITEM from DIR. OLD: the CA certificate (or service-account public key) in use now, PEM. */
export async function readProvided(dir: string, item: Rotated, old: string, now: Date): Promise<ProvidedCA> {
  const files = providedFiles(dir, item);
  const key = await readText(files.key, item);
  const provided = files.cert === undefined ? { key } : { cert: await readText(files.cert, item), key };
  checkProvided(item, provided, files, old, now);
  return provided;
}

/** Throws a one-line E_USAGE when the pair is not a usable new CA for ITEM. */
function checkProvided(item: Rotated, p: ProvidedCA, files: { cert?: string; key: string }, old: string, now: Date): void {
  const fail = (what: string): never => {
    throw new TsadmError('E_USAGE', `--from: ${what}`, { hint: `give the new ${item} CA's certificate and its own private key` });
  };
  let key;
  try {
    key = parsePrivateKeyPem(p.key, files.key);
  } catch (err) {
    return fail(errorMessage(err));
  }
  if (item === 'service-account') {
    if (encodePublicKeyPem(key) === encodePublicKeyPem(parsePublicKeyPem(old, 'current service-account public key'))) fail(`${files.key} is the service-account key in use now, not a new one`);
    return;
  }
  let cert: Certificate;
  try {
    cert = parseCertificatePem(p.cert ?? '', files.cert);
  } catch (err) {
    return fail(errorMessage(err));
  }
  if (!cert.isCA) fail(`${files.cert} is not a CA certificate (no basicConstraints CA:TRUE)`);
  if (cert.keyUsage !== undefined && !cert.keyUsage.includes('keyCertSign')) fail(`${files.cert} may not sign certificates (its key usage lacks keyCertSign)`);
  if (!keyMatchesCertificate(cert, key)) fail(`${files.key} is not the private key of ${files.cert}`);
  const expired = validityProblem(cert, now);
  if (expired) fail(`${files.cert} is ${expired}`);
  if (parseCertificatePem(old, 'current CA').spki.equals(cert.spki)) fail(`${files.cert} has the key of the ${item} CA in use now: a rotation needs a new key`);
}
