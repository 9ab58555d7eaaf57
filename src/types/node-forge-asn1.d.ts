// node-forge ships types for its index only; lib/asn1.js exports the same object as forge.asn1.
declare module 'node-forge/lib/asn1.js' {
  import type forge from 'node-forge';
  const asn1: typeof forge.asn1;
  export default asn1;
}
