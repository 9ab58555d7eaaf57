export { certsPhase } from './phase.js';
export { CERT_ROWS, SA_BASE_NAME, certRow, type CertRow, type CertConfig } from './cert-table.js';
export { apiServerAltNames, etcdAltNames, apiServerServiceIP, type AltNames } from './alt-names.js';
export { loadCA, type LoadedCA } from './ca.js';
export { caValidity, leafValidity, type Validity } from './validity.js';
export { pkiFiles, publicKeyPath, csrPath, keyPath } from './paths.js';
export { keyPoolFor } from './run-state.js';
export type { PkiCtx } from './context.js';
