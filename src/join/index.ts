/**
 * Join discovery: establish trust in a cluster before anything is written (token discovery with
 * JWS + CA pin, or a discovery file), and the TLS bootstrap kubeconfig that follows from it.
 */
export { discover, bootstrapKubeconfig, TLS_BOOTSTRAP_USER, type JoinDiscovery, type DiscoverDeps } from './discover.js';
export { discoverByToken, type TokenDiscoveryInput, type TokenDiscoveryResult, type DiscoveryDeps } from './discovery.js';
export { discoverByFile, parseDiscoveryKubeconfig, type FileDiscoveryInput, type FileDiscoveryResult } from './file-discovery.js';
export { parseClusterInfoKubeconfig, endpointURL, pemCertificates, CLUSTER_INFO_PATH } from './cluster-info.js';
export { httpsGet, isTlsVerificationError, type Trust, type HttpsGetOptions, type HttpsResponse } from './https-get.js';
