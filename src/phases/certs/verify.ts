import { createPublicKey } from 'node:crypto';
import { errorMessage } from '../../errors.js';
import { signedByProblem, validityProblem, keyMatchesCertificate } from '../../pki/verify.js';
import type { CheckFinding } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { CERT_ROWS, SA_BASE_NAME, type CertRow } from '../../certs/cert-table.js';
import { leafProblems } from '../../certs/leaf-problems.js';
import { pkiFiles, publicKeyPath } from '../../certs/paths.js';
import { readCertificate, readPrivateKey } from '../../certs/load.js';

const DAY = 24 * 3600 * 1000;
/** kubeadm's `certs check-expiration` flags nothing; 30 days is when renewals are usually planned. */
const EXPIRY_WARNING_MS = 30 * DAY;

/**
 * The exit check of a certs leaf, with the reasons spelled out: each certificate exists, parses,
 * has its key, chains to its CA, has the subject, usages and SANs this configuration asks for,
 * and is valid now (a warning 30 days before it expires). A CA without its key is accepted as an
 * external CA.
 */
export async function verifyCertificate(ctx: InitCtx, row: CertRow): Promise<CheckFinding[]> {
  // With external etcd the etcd certificates are not this node's to make (the phase skips them).
  if (row.etcd && ctx.cfg.cluster.etcd.mode !== 'local') return [];
  const now = ctx.clock();
  const dir = ctx.cfg.cluster.certificatesDir;
  const files = pkiFiles(dir, row.baseName);
  const check = `${files.cert}`;
  try {
    const cert = await readCertificate(ctx.host, files.cert);
    if (!cert) return [{ check, ok: false, detail: 'missing' }];
    const key = await readPrivateKey(ctx.host, files.key);
    const problems: string[] = [];
    let caText = 'self-signed';
    if (!row.caName) {
      if (!cert.isCA) problems.push('not a CA certificate');
      const self = signedByProblem(cert, cert);
      if (self) problems.push(self);
      const validity = validityProblem(cert, now);
      if (validity) problems.push(validity);
      if (key && !keyMatchesCertificate(cert, key)) problems.push('the private key does not match the certificate');
    } else {
      if (!key) problems.push(`its key ${files.key} is missing`);
      const caFiles = pkiFiles(dir, CERT_ROWS.find((r) => r.name === row.caName)!.baseName);
      const ca = await readCertificate(ctx.host, caFiles.cert);
      if (!ca) problems.push(`its CA ${caFiles.cert} is missing`);
      else problems.push(...leafProblems(cert, key, row.config(ctx.cfg, ctx.versions), ca, now, caFiles.cert));
      caText = `signed by ${caFiles.cert}`;
    }
    if (problems.length > 0) return [{ check, ok: false, detail: problems.join('; ') }];
    const left = cert.notAfter.getTime() - now.getTime();
    const sans = [...cert.dnsNames, ...cert.ipAddresses];
    const detail = `${caText}, CN=${cert.subject.commonName ?? ''}${sans.length ? `, SANs ${sans.join(' ')}` : ''}, expires ${cert.notAfter.toISOString()}${!key && !row.caName ? ' (no key: external CA)' : ''}`;
    return [{ check, ok: true, detail, ...(left < EXPIRY_WARNING_MS ? { warning: true as const, detail: `${detail}: expires in ${Math.floor(left / DAY)} days` } : {}) }];
  } catch (err) {
    return [{ check, ok: false, detail: errorMessage(err) }];
  }
}

/** The exit check of certs/sa: sa.key and sa.pub exist and are one key pair. */
export async function verifyServiceAccountKey(ctx: InitCtx): Promise<CheckFinding[]> {
  const dir = ctx.cfg.cluster.certificatesDir;
  const { key: keyFile } = pkiFiles(dir, SA_BASE_NAME);
  const pubFile = publicKeyPath(dir, SA_BASE_NAME);
  try {
    const key = await readPrivateKey(ctx.host, keyFile);
    const pub = await ctx.host.readFile(pubFile);
    if (!key) return [{ check: keyFile, ok: false, detail: 'missing' }];
    if (!pub) return [{ check: pubFile, ok: false, detail: 'missing' }];
    const derived = createPublicKey(key).export({ type: 'spki', format: 'der' });
    const given = createPublicKey(pub).export({ type: 'spki', format: 'der' });
    return derived.equals(given)
      ? [{ check: keyFile, ok: true, detail: `key pair with ${pubFile}` }]
      : [{ check: pubFile, ok: false, detail: `is not the public key of ${keyFile}` }];
  } catch (err) {
    return [{ check: keyFile, ok: false, detail: errorMessage(err) }];
  }
}
