/**
 * What `certs renew --auto` renews, decided from the expiration report alone (pure): every
 * certificate or kubeconfig of the inventory that exists on this node, whose CA key is here, and
 * that expires within the window (or has expired). Nothing else is touched. External-CA entries
 * that are due are listed separately (renewing them is the operator's job). CAs are never
 * renewed; one with less than a year left is a loud warning.
 */
import type { ExpirationItem, ExpirationReport } from './expiration.js';

/** kubeadm's and k3s's window: renew what expires within 90 days. */
export const DEFAULT_WINDOW_SECONDS = 90 * 86_400;

/** A CA with less left than this is warned about by check-expiration and renew --auto. */
const CA_WARNING_SECONDS = 365 * 86_400;

/**
 * Without the API (so without the cluster-wide Lease), this machine's own files are still
 * renewed when something has expired or expires within this: otherwise a cluster whose
 * certificates ran out could never recover by itself.
 */
export const EMERGENCY_SECONDS = 7 * 86_400;

export interface AutoSelection {
  /** Names to renew (inventory names), in the report's order. */
  readonly due: readonly ExpirationItem[];
  /** Due, but signed by an external CA: not renewable here. */
  readonly external: readonly ExpirationItem[];
  /** Not due: left alone. */
  readonly notDue: readonly ExpirationItem[];
}

export function selectDue(report: Pick<ExpirationReport, 'certificates'>, windowSeconds: number): AutoSelection {
  const present = report.certificates.filter((c) => !c.missing);
  const isDue = (c: ExpirationItem): boolean => c.residualSeconds <= windowSeconds;
  return {
    due: present.filter((c) => isDue(c) && !c.externallyManaged),
    external: present.filter((c) => isDue(c) && c.externallyManaged),
    notDue: present.filter((c) => !isDue(c)),
  };
}

/** Whether renewing without the Lease is allowed: something has expired or nearly has. */
export function isEmergency(due: readonly ExpirationItem[]): boolean {
  return due.some((c) => c.residualSeconds <= EMERGENCY_SECONDS);
}

/** One line per CA with less than a year left (or expired), for a loud warning. */
export function caWarnings(report: Pick<ExpirationReport, 'certificateAuthorities'>): string[] {
  return report.certificateAuthorities
    .filter((ca) => !ca.missing && ca.residualSeconds < CA_WARNING_SECONDS)
    .map((ca) => (ca.residualSeconds <= 0
      ? `the certificate authority "${ca.name}" (${ca.path}) HAS EXPIRED; tsadm never renews a CA: replace it and every certificate it signed`
      : `the certificate authority "${ca.name}" (${ca.path}) expires in ${Math.floor(ca.residualSeconds / 86_400)} days (${ca.expirationDate?.toISOString() ?? ''}), less than a year; tsadm never renews a CA: plan its replacement (and every certificate it signed) now`));
}
