import { readFileSync } from 'node:fs';
import { readDer, oidText, DerError } from '../../../src/pki/der.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';

const bytes = (hex: string): Buffer => Buffer.from(hex.replace(/\s/g, ''), 'hex');
const refusal = (hex: string): string => {
  try {
    readDer(bytes(hex));
  } catch (err) {
    expect(err).toBeInstanceOf(DerError);
    return (err as Error).message;
  }
  throw new Error(`${hex} was accepted`);
};

describe('readDer: the distinguished encoding only', () => {
  test('a request openssl writes in DER is read whole, every element in place', () => {
    const key = tempFile('der.key', openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout']));
    const derFile = tempFile('der.csr', '');
    openssl(['req', '-new', '-key', key, '-subj', '/CN=x', '-outform', 'DER', '-out', derFile]);
    const der = readDer(readFileSync(derFile));
    expect(der.children).toHaveLength(3);
    const listing = openssl(['asn1parse', '-inform', 'DER', '-in', derFile]);
    // openssl's own listing of the subject's attribute type agrees with the OID text read here.
    expect(listing).toContain('commonName');
    const cn = der.children?.[0]?.children?.[1]?.children?.[0]?.children?.[0]?.children?.[0];
    expect(cn && oidText(cn)).toBe('2.5.4.3');
  });

  test.each([
    ['30 81 03 02 01 00', 'long-form length 3'],
    ['30 82 00 03 02 01 00', 'leading zero octet'],
    ['30 80 02 01 00 00 00', 'indefinite length'],
    ['30 03 02 01 00 00', 'trailing byte'],
    ['30 04 02 01 00', 'longer (4) than what contains it'],
    ['01 01 01', 'BOOLEAN that is not one octet 00 or FF'],
    ['02 02 00 01', 'non-minimal INTEGER'],
    ['02 02 ff 80', 'non-minimal INTEGER'],
    ['02 00', 'empty INTEGER'],
    ['03 02 01 01', 'unused bits are not zero'],
    ['03 01 01', 'bad unused-bits count'],
    ['06 02 80 01', 'non-minimal OBJECT IDENTIFIER arc'],
    ['06 01 81', 'truncated OBJECT IDENTIFIER'],
    ['24 03 04 01 00', 'constructed form of universal type 4'],
    ['10 00', 'primitive SEQUENCE or SET'],
    ['1f 22 00', 'multi-byte tag number'],
    ['05 01 00', 'NULL with content'],
  ])('%s is refused (%s)', (hex, why) => {
    expect(refusal(hex)).toContain(why);
  });

  test('what DER allows is read: short and long lengths at their bounds, FF booleans, negative integers', () => {
    expect(readDer(bytes(`04 7f ${'00'.repeat(127)}`)).content).toHaveLength(127);
    expect(readDer(bytes(`04 81 80 ${'00'.repeat(128)}`)).content).toHaveLength(128);
    expect(readDer(bytes('30 06 01 01 ff 02 01 80')).children).toHaveLength(2);
    expect(oidText(readDer(bytes('06 09 2a 86 48 86 f7 0d 01 09 0e')))).toBe('1.2.840.113549.1.9.14');
  });
});
