/**
 * The Kubernetes API seam: only what tsadm needs (create-or-update / create-or-retain with
 * "no change → no write", Node patches, token Secrets, healthz). Real (JSON over HTTPS, the kubeconfig
 * resolved by kubeconfig-connection.ts) or dry-run; every write is an `object` event.
 */
export { openKubeApi, type OpenKubeApiOptions } from './open.js';
export { RestKubeApi, type RestKubeApiOptions } from './rest-api.js';
export { DryRunKubeApi } from './dry-run-api.js';
export { transportFromKubeconfig, type RestTransport, type RestRequest, type RestResponse } from './transport.js';
export { ApiError, isApiError, isNotFound, isAlreadyExists, isConflict, isForbidden, isTransient } from './errors.js';
export { DEFAULT_RETRY, NO_RETRY, type RetryPolicy } from './retry.js';
export { configMapHash, COMPONENT_CONFIG_HASH_ANNOTATION } from './configmap-hash.js';
export type * from './types.js';
