/**
 * `certs check-expiration` (kubeadm's newCmdCertsExpiration): for every inventory entry and CA,
 * when it expires, how long is left, who signed it, whether its CA is external. Reads only.
 */
import { certRow } from '../certs/cert-table.js';
import { pkiFiles } from '../certs/paths.js';
import { readCertificate } from '../certs/load.js';
import { inventory, type CertEntry } from './inventory.js';
import { entryPath, isExternallyManaged, loadEntry, type EntryFiles } from './read.js';

export interface ExpirationItem {
  readonly name: string;
  /** The file the certificate was read from (or would be). */
  readonly path: string;
  readonly missing: boolean;
  readonly expirationDate?: Date;
  /** Whole seconds until expiry (negative once expired); 0 when missing. */
  readonly residualSeconds: number;
  /** Row name of the signing CA; absent for CAs. */
  readonly caName?: string;
  readonly externallyManaged: boolean;
  /** Within the --expiring-within threshold (or already expired); only set with a threshold. */
  readonly expiring?: boolean;
}

export interface ExpirationReport {
  readonly now: Date;
  /** --expiring-within in seconds, when given. */
  readonly thresholdSeconds?: number;
  readonly certificates: readonly ExpirationItem[];
  readonly certificateAuthorities: readonly ExpirationItem[];
}

export interface CheckInputs extends EntryFiles {
  readonly externalEtcd: boolean;
  readonly now: Date;
  readonly thresholdSeconds?: number;
}

function item(name: string, path: string, notAfter: Date | undefined, external: boolean, i: CheckInputs, caName?: string): ExpirationItem {
  const residualSeconds = notAfter ? Math.floor((notAfter.getTime() - i.now.getTime()) / 1000) : 0;
  return {
    name,
    path,
    missing: notAfter === undefined,
    ...(notAfter ? { expirationDate: notAfter } : {}),
    residualSeconds,
    ...(caName ? { caName } : {}),
    externallyManaged: external,
    ...(i.thresholdSeconds !== undefined && notAfter ? { expiring: residualSeconds <= i.thresholdSeconds } : {}),
  };
}

async function certificateItem(i: CheckInputs, entry: CertEntry): Promise<ExpirationItem | undefined> {
  const loaded = await loadEntry(i, entry);
  if (!loaded && entry.kind === 'kubeconfig' && entry.onlyIfPresent) return undefined;
  const external = await isExternallyManaged(i.host, i.certDir, entry.caBaseName);
  return item(entry.name, entryPath(i, entry), loaded?.cert.notAfter, external, i, entry.caName);
}

export async function checkExpiration(i: CheckInputs): Promise<ExpirationReport> {
  const inv = inventory({ externalEtcd: i.externalEtcd });
  const certs = await Promise.all(inv.certificates.map((e) => certificateItem(i, e)));
  const cas = await Promise.all(inv.cas.map(async (ca) => {
    const file = pkiFiles(i.certDir, certRow(ca.name).baseName).cert;
    const cert = await readCertificate(i.host, file);
    return item(ca.name, file, cert?.notAfter, await isExternallyManaged(i.host, i.certDir, ca.baseName), i);
  }));
  return {
    now: i.now,
    ...(i.thresholdSeconds !== undefined ? { thresholdSeconds: i.thresholdSeconds } : {}),
    certificates: certs.filter((c): c is ExpirationItem => c !== undefined),
    certificateAuthorities: cas,
  };
}

/** Entries that expire within the threshold or have expired (missing ones are listed, not counted). */
export function expiringItems(report: ExpirationReport): ExpirationItem[] {
  return [...report.certificates, ...report.certificateAuthorities].filter((c) => c.expiring === true);
}
