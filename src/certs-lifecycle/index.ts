/** Certificate lifecycle: check-expiration, renew, generate-csr, kubeconfig user (issue 7). */
export { buildLifecycleCtx, lifecycleConfig, prefixed, type LifecycleCtx, type LifecycleOptions } from './context.js';
export { inventory, renewableNames, componentsToRestart, COMPONENTS, type CertEntry, type CAEntry, type Component, type Inventory } from './inventory.js';
export { checkExpiration, expiringItems, type ExpirationItem, type ExpirationReport, type CheckInputs } from './expiration.js';
export { formatExpiration, formatExpirationTable, expirationObject, kubeadmDate, EXPIRATION_FORMATS, OUTPUT_API_VERSION, type ExpirationFormat } from './expiration-format.js';
export { parseThreshold, ExpiringError, EXIT_EXPIRING } from './threshold.js';
export { selectEntries, planRenewal, applyRenewal, type RenewOptions, type RenewResult, type RenewedCertificate } from './renew.js';
export { renewalTemplate } from './renew-template.js';
export { restartStaticPod, type RestartDeps } from './restart.js';
export { probeFromManifest, runProbe, type HttpProbe, type ProbeState } from './probe.js';
export { generateCsrs } from './generate-csr.js';
export { kubeconfigForUser, type KubeconfigUserOptions } from './kubeconfig-user.js';
export { readClientCredentials, withClientCredentials, type ClientCredentials } from './kubeconfig-credentials.js';
export { loadEntry, entryPath, isExternallyManaged, type LoadedEntry } from './read.js';
