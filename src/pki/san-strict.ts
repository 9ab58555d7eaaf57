/**
 * A requested subjectAltName read strictly, for the approver: Go's crypto/x509 reads DNS names,
 * e-mail addresses and URIs as any IA5String, IPs as 4 or 16 bytes, skips names of other kinds
 * and of the constructed form, and ignores bytes after the SEQUENCE. tsadm refuses everything it
 * could read differently: trailing bytes, a DNS, e-mail or URI name that is empty or holds a
 * byte outside printable ASCII, a URI Go might rewrite or refuse, an IP of another length, and
 * names of a kind no GeneralName has. The kinds tsadm never approves (e-mail, URI, otherName,
 * directoryName, …) are listed in `otherNames` for the policy to deny.
 */
import { DerError, TAG, elementsOf, readDer } from './der.js';
import { formatIp, ipFromBytes } from '../net/ip.js';

export interface StrictSan {
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** "email:…", "URI:…", "[n]" for otherName (0), x400Address (3), directoryName (4), ediPartyName (5), registeredID (8). */
  readonly otherNames: readonly string[];
}

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
// A URI Go's url.Parse reads and its String() writes back unchanged: lower-case scheme, no
// percent-escapes, no brackets, and (with an authority) a host of letters, digits, '-' and '.'.
const SAFE_URI = /^[a-z][a-z0-9+.-]*:(\/\/[A-Za-z0-9.-]+(:[0-9]+)?)?(\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)?$/;

/** Tag numbers of the GeneralName kinds that are constructed ([0], [3], [4], [5]) or primitive ([8]). */
const OTHER_KINDS: Readonly<Record<number, boolean>> = { 0: true, 3: true, 4: true, 5: true, 8: false };

export function decodeStrictSan(value: Buffer): StrictSan {
  const names = elementsOf(readDer(value, 'the subjectAltName extension'), TAG.SEQUENCE, 'the subjectAltName extension');
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  const otherNames: string[] = [];
  for (const name of names) {
    if (name.cls !== 2) throw new DerError('a subjectAltName entry that is not a context-specific GeneralName');
    const text = (kind: string): string => {
      const s = name.content.toString('latin1');
      if (name.constructed || !PRINTABLE_ASCII.test(s)) throw new DerError(`a ${kind} subjectAltName that is empty, constructed or not printable ASCII`);
      return s;
    };
    switch (name.tag) {
      case 1:
        otherNames.push(`email:${text('e-mail')}`);
        break;
      case 2:
        dnsNames.push(text('DNS'));
        break;
      case 6: {
        const uri = text('URI');
        if (!SAFE_URI.test(uri)) throw new DerError('a URI subjectAltName Go could read differently');
        otherNames.push(`URI:${uri}`);
        break;
      }
      case 7: {
        const ip = name.constructed ? undefined : ipFromBytes(name.content);
        if (!ip) throw new DerError(`an IP subjectAltName of ${name.content.length} bytes (not 4 or 16)`);
        ipAddresses.push(formatIp(ip));
        break;
      }
      default:
        if (OTHER_KINDS[name.tag] !== name.constructed) throw new DerError(`a subjectAltName of kind [${name.tag}]${name.constructed ? ' (constructed)' : ''} that no GeneralName has`);
        otherNames.push(`[${name.tag}]`);
    }
  }
  return { dnsNames, ipAddresses, otherNames };
}
