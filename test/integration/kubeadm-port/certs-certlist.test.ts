/**
 * kubeadm's own tests as the oracle (issue 36): the table-driven cases of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/certs/certlist_test.go, the newer of the two versions the stored index
 * holds (index id 18738705579; the index does not name its commit), compared with tsadm's
 * certificate table (src/certs/cert-table.ts). kubeadm's GetDefaultCertList is every
 * row; GetCertsWithoutEtcd the rows that are not etcd's. The assertions are kubeadm's, as written
 * in the test: CAs come before the certificates they sign, and every CA named exists.
 */
import { CERT_ROWS, type CertRow } from '../../../src/certs/cert-table.js';
import { caseKey, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/certs/certlist_test.go';
const LISTS: Record<string, readonly CertRow[]> = {
  'Default Certificate List': CERT_ROWS,
  'Cert list less etcd': CERT_ROWS.filter((r) => !r.etcd),
};

/** TestCertListOrder: a CA precedes every certificate, and each certificate's CA is the last CA seen. */
function listOrder(certs: readonly CertRow[]): void {
  let lastCA: CertRow | undefined;
  certs.forEach((cert, i) => {
    if (i > 0) expect([cert.name, lastCA !== undefined]).toEqual([cert.name, true]);
    if (cert.caName === undefined) lastCA = cert;
    else expect([cert.name, cert.caName]).toEqual([cert.name, lastCA?.name]);
  });
}

/** TestCAPointersValid: every CAName names a certificate of the list. */
function caPointers(certs: readonly CertRow[]): void {
  const names = new Set(certs.map((c) => c.name));
  for (const cert of certs) if (cert.caName !== undefined) expect([cert.name, names.has(cert.caName)]).toEqual([cert.name, true]);
}

portCases(SOURCE, Object.fromEntries(Object.entries(LISTS).flatMap(([name, certs]) => [
  [caseKey('TestCertListOrder', name), () => { expect(certs.length).toBeGreaterThan(0); listOrder(certs); }],
  [caseKey('TestCAPointersValid', name), () => { expect(certs.length).toBeGreaterThan(0); caPointers(certs); }],
])));
