/**
 * `start --from DIR`: the new CA pairs an external CA made, read from DIR in the certificate
 * directory's layout and refused with one line when they cannot serve as the new CA. The pairs are
 * made by openssl, not by tsadm.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { providedFiles, readProvided } from '../../../../src/certs-lifecycle/rotate-ca/from-dir.js';
import { openssl } from '../../../helpers/pki-test-utils.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';

/** A little after the pairs are made (openssl starts them at the current second). */
const now = (): Date => new Date(Date.now() + 2000);
let dir: TempRoot;

/** A CA (or, with LEAF, a certificate that is no CA) by openssl: DIR/<base>.crt and .key. */
function pair(base: string, o: { leaf?: boolean; keyFrom?: string } = {}): void {
  const crt = dir.at(`/${base}.crt`);
  const key = dir.at(`/${base}.key`);
  mkdirSync(path.dirname(crt), { recursive: true });
  const keyArgs = o.keyFrom ? ['-key', o.keyFrom] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key];
  openssl(['req', '-x509', ...keyArgs, '-subj', `/CN=${base.replace('/', '-')}`, '-days', '30', '-out', crt, ...(o.leaf ? ['-addext', 'basicConstraints=critical,CA:FALSE'] : [])]);
  if (o.keyFrom) writeFileSync(key, readFileSync(o.keyFrom));
}

beforeEach(() => {
  dir = tempRoot();
});
afterEach(() => dir.cleanup());

/** The CA in use now: another openssl CA. */
function oldCa(): string {
  const other = tempRoot();
  try {
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', other.at('/k'), '-subj', '/CN=kubernetes', '-days', '30', '-out', other.at('/c')]);
    return readFileSync(other.at('/c'), 'utf8');
  } finally {
    other.cleanup();
  }
}

test('the certificate directory layout: ca, front-proxy-ca, etcd/ca, sa.key', () => {
  expect(['cluster', 'front-proxy', 'etcd', 'service-account'].map((i) => providedFiles('/d', i as never))).toEqual([
    { cert: '/d/ca.crt', key: '/d/ca.key' }, { cert: '/d/front-proxy-ca.crt', key: '/d/front-proxy-ca.key' }, { cert: '/d/etcd/ca.crt', key: '/d/etcd/ca.key' }, { key: '/d/sa.key' },
  ]);
});

test('a CA with its own key is taken as it is', async () => {
  pair('etcd/ca');
  const got = await readProvided(dir.dir, 'etcd', oldCa(), now());
  expect(got).toEqual({ cert: readFileSync(dir.at('/etcd/ca.crt'), 'utf8'), key: readFileSync(dir.at('/etcd/ca.key'), 'utf8') });
});

test('refused with one line: missing, not a CA, another key, expired, or the CA in use now', async () => {
  const old = oldCa();
  const err = async (): Promise<string> => {
    const e = await tsadmErrorOf(readProvided(dir.dir, 'cluster', old, now()));
    expect([e.code, e.message.includes('\n')]).toEqual(['E_USAGE', false]);
    return e.message;
  };
  expect(await err()).toMatch(new RegExp(`^--from: cannot read ${dir.dir}/ca.key \\(the new cluster key\\): `));
  pair('ca', { leaf: true });
  expect(await err()).toBe(`--from: ${dir.dir}/ca.crt is not a CA certificate (no basicConstraints CA:TRUE)`);
  pair('ca');
  pair('other');
  writeFileSync(dir.at('/ca.key'), readFileSync(dir.at('/other.key')));
  expect(await err()).toBe(`--from: ${dir.dir}/ca.key is not the private key of ${dir.dir}/ca.crt`);
  pair('ca');
  const later = new Date(Date.now() + 60 * 86_400_000);
  expect((await tsadmErrorOf(readProvided(dir.dir, 'cluster', old, later))).message).toMatch(new RegExp(`^--from: ${dir.dir}/ca.crt is expired on `));
  // The CA in use now given again (its key, even in a new certificate) is no rotation.
  pair('ca', { keyFrom: dir.at('/other.key') });
  expect((await tsadmErrorOf(readProvided(dir.dir, 'cluster', readFileSync(dir.at('/other.crt'), 'utf8'), now()))).message)
    .toBe(`--from: ${dir.dir}/ca.crt has the key of the cluster CA in use now: a rotation needs a new key`);
});

test('service-account: a private key, not the one in use', async () => {
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', dir.at('/sa.key')]);
  const pub = openssl(['pkey', '-in', dir.at('/sa.key'), '-pubout']);
  const e = await tsadmErrorOf(readProvided(dir.dir, 'service-account', pub, now()));
  expect(e.message).toBe(`--from: ${dir.dir}/sa.key is the service-account key in use now, not a new one`);
  writeFileSync(dir.at('/sa.key'), 'not a key');
  expect((await tsadmErrorOf(readProvided(dir.dir, 'service-account', pub, now()))).message).toMatch(/^--from: .*sa\.key.*no PEM private key found/);
});
