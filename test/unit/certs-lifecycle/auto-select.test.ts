/**
 * What renew --auto selects, from hand-made expiration reports (the window arithmetic is the
 * oracle: seconds left against the window), and the CA warning: pure, and through
 * `certs check-expiration` on a PKI made 9.6 years ago (CAs last 10 years: kubeadm's
 * CertificateValidity for CAs, so less than a year is left), with openssl reading the CA's end date.
 */
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { caWarnings, isEmergency, selectDue } from '../../../src/certs-lifecycle/auto-select.js';
import type { ExpirationItem } from '../../../src/certs-lifecycle/expiration.js';
import { PKI, runCli, tsadmPki } from '../../helpers/certs-lifecycle.js';
import { tempRoot } from '../../helpers/temp-root.js';

jest.setTimeout(120_000);

const DAY = 86_400;
const item = (name: string, daysLeft: number | undefined, o: Partial<ExpirationItem> = {}): ExpirationItem => ({
  name,
  path: `/p/${name}`,
  missing: daysLeft === undefined,
  ...(daysLeft !== undefined ? { expirationDate: new Date(Date.UTC(2030, 0, 1) + daysLeft * DAY * 1000) } : {}),
  residualSeconds: daysLeft === undefined ? 0 : Math.round(daysLeft * DAY),
  externallyManaged: false,
  ...o,
});

describe('selectDue', () => {
  const report = {
    certificates: [
      item('apiserver', 89.9),
      item('admin.conf', 90), // exactly at the window: due (kubeadm's "within")
      item('scheduler.conf', 90.01),
      item('etcd-peer', -3), // expired
      item('front-proxy-client', 10, { externallyManaged: true }),
      item('super-admin.conf', undefined), // missing
      item('etcd-server', 364),
    ],
  };

  test('due: within the window or expired, present, CA key here; nothing else', () => {
    const s = selectDue(report, 90 * DAY);
    expect(s.due.map((c) => c.name)).toEqual(['apiserver', 'admin.conf', 'etcd-peer']);
    expect(s.external.map((c) => c.name)).toEqual(['front-proxy-client']);
    expect(s.notDue.map((c) => c.name)).toEqual(['scheduler.conf', 'etcd-server']);
  });

  test('a narrower window selects less', () => {
    expect(selectDue(report, 30 * DAY).due.map((c) => c.name)).toEqual(['etcd-peer']);
    expect(selectDue(report, 365 * DAY).due).toHaveLength(5);
  });

  test('emergency (renewal without the Lease): only when something has expired or expires within 7 days', () => {
    expect(isEmergency([item('a', 7.5), item('b', 30)])).toBe(false);
    expect(isEmergency([item('a', 6.9), item('b', 30)])).toBe(true);
    expect(isEmergency([item('a', -1)])).toBe(true);
    expect(isEmergency([])).toBe(false);
  });
});

describe('the CA warning', () => {
  test('pure: under a year left (or expired) warns; a year or more, or a missing CA, does not', () => {
    const w = caWarnings({ certificateAuthorities: [item('ca', 364), item('front-proxy-ca', 366), item('etcd-ca', -1), item('gone', undefined)] });
    expect(w).toHaveLength(2);
    expect(w[0]).toMatch(/^the certificate authority "ca" \(\/p\/ca\) expires in 364 days .*less than a year; tsadm never renews a CA/);
    expect(w[1]).toMatch(/^the certificate authority "etcd-ca" .* HAS EXPIRED/);
  });

  test('check-expiration warns on stderr for each CA of a PKI made 9.6 years ago, and its table is unchanged on stdout', async () => {
    const root = tempRoot();
    try {
      await tsadmPki(root, new Date(Date.now() - Math.round(9.6 * 365 * DAY * 1000)));
      const end = Date.parse(execFileSync('openssl', ['x509', '-noout', '-enddate', '-in', root.at(`${PKI}/ca.crt`)], { encoding: 'utf8' }).replace('notAfter=', '').trim());
      const daysLeft = Math.floor((end - Date.now()) / (DAY * 1000));
      expect(daysLeft).toBeLessThan(365);
      const r = await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml')]);
      const warnings = r.stderr.split('\n').filter((l) => l.includes('WARNING'));
      expect(warnings).toHaveLength(3);
      expect(r.stderr).toContain(`the certificate authority "ca" (/etc/kubernetes/pki/ca.crt) expires in ${daysLeft} days`);
      expect(r.stderr).toContain('"etcd-ca"');
      expect(r.stderr).toContain('"front-proxy-ca"');
      expect(r.stdout).not.toContain('WARNING');
      expect(r.stdout).toContain('CERTIFICATE AUTHORITY');
    } finally {
      root.cleanup();
    }
  });
});
