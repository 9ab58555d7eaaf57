/** Object identifiers tsadm reads or writes in certificates. */
export const OID = {
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecPublicKey: '1.2.840.10045.2.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  ecdsaWithSHA384: '1.2.840.10045.4.3.3',
  ecdsaWithSHA512: '1.2.840.10045.4.3.4',
  // NIST's sigAlgs arc (RFC 9881): the same OID names the key and the signature algorithm.
  mlDsa44: '2.16.840.1.101.3.4.3.17',
  mlDsa65: '2.16.840.1.101.3.4.3.18',
  mlDsa87: '2.16.840.1.101.3.4.3.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  basicConstraints: '2.5.29.19',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  extensionRequest: '1.2.840.113549.1.9.14',
} as const;

export type ExtKeyUsage = 'serverAuth' | 'clientAuth';

export const EXT_KEY_USAGE_OIDS: Readonly<Record<ExtKeyUsage, string>> = {
  serverAuth: OID.serverAuth,
  clientAuth: OID.clientAuth,
};

/** RFC 5280 KeyUsage bit positions. */
export const KEY_USAGE_BITS = [
  'digitalSignature', 'contentCommitment', 'keyEncipherment', 'dataEncipherment',
  'keyAgreement', 'keyCertSign', 'cRLSign', 'encipherOnly', 'decipherOnly',
] as const;
export type KeyUsage = (typeof KEY_USAGE_BITS)[number];
