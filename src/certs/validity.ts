/**
 * Validity periods and serials per version (versions.pki): 1.20 starts CAs "now" with serial 0
 * and starts leaves at the CA's NotBefore; modern kubeadm backdates both by 5 minutes from the
 * command's start and uses random serials. Times are whole seconds, as X.509 stores them.
 */
import type { ClusterConfiguration } from '../config/types.js';
import { randomSerial } from '../pki/serial.js';
import type { Certificate } from '../pki/certificate.js';
import type { VersionProfile } from '../versions/table-types.js';

export interface Validity {
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export interface ValidityInputs {
  readonly startTime: Date;
  readonly versions: Pick<VersionProfile, 'pki'>;
  readonly cluster: Pick<ClusterConfiguration, 'certificateValidityMs' | 'caCertificateValidityMs'>;
}

const seconds = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

export function caValidity(i: ValidityInputs): Validity {
  const start = i.startTime.getTime();
  return { notBefore: seconds(start - i.versions.pki.backdateMs), notAfter: seconds(start + i.cluster.caCertificateValidityMs) };
}

export function leafValidity(i: ValidityInputs, ca: Certificate): Validity {
  const start = i.startTime.getTime();
  const notBefore = i.versions.pki.leafNotBefore === 'ca-not-before' ? ca.notBefore : seconds(start - i.versions.pki.backdateMs);
  return { notBefore, notAfter: seconds(start + i.cluster.certificateValidityMs) };
}

export function caSerial(versions: Pick<VersionProfile, 'pki'>): bigint {
  return versions.pki.caSerialZero ? 0n : randomSerial();
}
