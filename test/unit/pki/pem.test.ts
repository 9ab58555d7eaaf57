import { readFileSync } from 'node:fs';
import { decodePem, decodeSinglePem, encodePem } from '../../../src/pki/pem.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';

const TYPE = ['CERTIFICATE REQUEST'];
const refusal = (text: string): string => {
  try {
    decodeSinglePem(text, TYPE);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('decodeSinglePem', () => {
  const key = tempFile('pem.key', openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout']));
  const pem = openssl(['req', '-new', '-key', key, '-subj', '/CN=x']);
  const derFile = tempFile('pem.der', '');
  openssl(['req', '-in', tempFile('pem.csr', pem), '-outform', 'DER', '-out', derFile]);
  const der = readFileSync(derFile);

  test('openssl\'s request, with CRLF line ends or blank lines around, is its DER', () => {
    expect(decodeSinglePem(pem, TYPE).der.equals(der)).toBe(true);
    expect(decodeSinglePem(`\n${pem.replace(/\n/g, '\r\n')}\n \n`, TYPE).der.equals(der)).toBe(true);
    expect(decodeSinglePem(encodePem('CERTIFICATE REQUEST', der), TYPE)).toEqual({ type: 'CERTIFICATE REQUEST', der });
  });

  test.each([
    ['one invalid base64 character', (p: string) => p.replace(/\n(.{10})/, '\n$1!'), 'invalid base64 in the PEM block (a character outside'],
    ['a space inside a line', (p: string) => p.replace(/\n(.{10})/, '\n$1 '), 'invalid base64'],
    ['a second block', (p: string) => p + p, 'a second PEM block after the first'],
    ['text after the block', (p: string) => `${p}x`, 'text after the PEM block'],
    ['text before the block', (p: string) => `x\n${p}`, 'text before the PEM block'],
    ['leading spaces (Go takes a BEGIN only at the start of a line)', (p: string) => `  ${p}`, 'text before the PEM block'],
    ['a header', (p: string) => p.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n'), 'PEM headers are not allowed'],
    ['another type', (p: string) => p.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST'), 'PEM block type "NEW CERTIFICATE REQUEST" is not "CERTIFICATE REQUEST"'],
    ['no END line', (p: string) => p.replace(/-----END.*/, ''), 'no "-----END CERTIFICATE REQUEST-----" line'],
    ['a blank line inside', (p: string) => p.replace(/\n(.{64})\n/, '\n$1\n\n'), 'a blank line inside the PEM block'],
    ['a character short', (p: string) => p.replace(/.\n-----END/, '\n-----END'), 'invalid base64 in the PEM block'],
    ['nothing at all', () => 'hello', 'no PEM block'],
  ])('%s is refused', (_why, mutate, message) => {
    const text = mutate(pem);
    expect(refusal(text)).toContain(message);
  });

  test('non-zero padding bits (which Node\'s decoder drops) are refused', () => {
    const b64 = der.toString('base64');
    // A base64 text of a length that is 2 mod 3 ends in one '=' whose last character carries 2 padding bits.
    const last = b64.replace(/=+$/, '');
    const withBits = b64.endsWith('=') ? `${last.slice(0, -1)}${String.fromCharCode(last.charCodeAt(last.length - 1) + 1)}${b64.slice(last.length)}` : b64;
    const text = `-----BEGIN CERTIFICATE REQUEST-----\n${withBits}\n-----END CERTIFICATE REQUEST-----\n`;
    if (withBits === b64) expect(decodeSinglePem(text, TYPE).der.equals(der)).toBe(true);
    else expect(refusal(text)).toContain('not the canonical encoding');
  });

  test('decodePem (certificates and keys) stays lenient: text around blocks, every block', () => {
    expect(decodePem(`junk\n${pem}${pem}`)).toHaveLength(2);
  });
});
