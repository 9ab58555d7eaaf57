/**
 * How `certs check-expiration` prints its report, pure. The table is kubeadm's (tabwriter
 * minwidth 10, padding 3; "Jan 02, 2006 15:04 MST" in UTC; ShortHumanDuration; "!MISSING!"
 * rows), with the CA of kubeconfig certificates filled in as modern kubeadm does. json and yaml
 * are kubeadm's output.kubeadm.k8s.io/v1alpha3 CertificateExpirationInfo plus tsadm's fields
 * `path`, `expiring` and `expiringWithin` (docs/certs.md).
 */
import { toKubeYaml } from '../yaml/write.js';
import { toKyaml } from '../yaml/kyaml.js';
import { shortHumanDuration, tabwrite } from '../token/list-format.js';
import type { ExpirationItem, ExpirationReport } from './expiration.js';

export type ExpirationFormat = 'table' | 'json' | 'yaml' | 'kyaml';

const OUTPUT_API_VERSION = 'output.kubeadm.k8s.io/v1alpha3';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** Go's "Jan 02, 2006 15:04 MST" for a UTC time (certificate dates are UTC). */
export function kubeadmDate(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())}, ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

const yesNo = (b: boolean): string => (b ? 'yes' : 'no').padEnd(8);
const TAB = { minwidth: 10, padding: 3 };

function certificateRow(c: ExpirationItem): string[] {
  if (c.missing || !c.expirationDate) return [`!MISSING! ${c.name}`, '', '', '', ''];
  return [c.name, kubeadmDate(c.expirationDate), shortHumanDuration(c.residualSeconds * 1000), c.caName ?? '', yesNo(c.externallyManaged)];
}

function caRow(c: ExpirationItem): string[] {
  if (c.missing || !c.expirationDate) return [`!MISSING! ${c.name}`, '', '', ''];
  return [c.name, kubeadmDate(c.expirationDate), shortHumanDuration(c.residualSeconds * 1000), yesNo(c.externallyManaged)];
}

function formatExpirationTable(r: ExpirationReport): string {
  const certs = tabwrite([['CERTIFICATE', 'EXPIRES', 'RESIDUAL TIME', 'CERTIFICATE AUTHORITY', 'EXTERNALLY MANAGED'], ...r.certificates.map(certificateRow)], TAB);
  const cas = tabwrite([['CERTIFICATE AUTHORITY', 'EXPIRES', 'RESIDUAL TIME', 'EXTERNALLY MANAGED'], ...r.certificateAuthorities.map(caRow)], TAB);
  return `${certs}\n${cas}`;
}

/** One entry as kubeadm's output API Certificate (field order as Go marshals it) plus tsadm's fields. */
function outputCertificate(c: ExpirationItem): Record<string, unknown> {
  return {
    name: c.name,
    expirationDate: c.expirationDate ? c.expirationDate.toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
    residualTime: c.residualSeconds,
    externallyManaged: c.externallyManaged,
    ...(c.caName ? { caName: c.caName } : {}),
    missing: c.missing,
    path: c.path,
    ...(c.expiring !== undefined ? { expiring: c.expiring } : {}),
  };
}

function expirationObject(r: ExpirationReport): Record<string, unknown> {
  return {
    kind: 'CertificateExpirationInfo',
    apiVersion: OUTPUT_API_VERSION,
    ...(r.thresholdSeconds !== undefined ? { expiringWithin: r.thresholdSeconds } : {}),
    certificates: r.certificates.map(outputCertificate),
    certificateAuthorities: r.certificateAuthorities.map(outputCertificate),
  };
}

export function formatExpiration(r: ExpirationReport, format: ExpirationFormat): string {
  switch (format) {
    case 'table':
      return formatExpirationTable(r);
    case 'json':
      return `${JSON.stringify(expirationObject(r), null, 4)}\n`;
    case 'yaml':
      return toKubeYaml(expirationObject(r));
    case 'kyaml':
      return toKyaml(expirationObject(r));
  }
}
