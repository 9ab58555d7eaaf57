export { kubeconfigPhase } from './phase.js';
export {
  controlPlaneEndpointURL, localAPIEndpointURL, apiEndpointURL, resolveControlPlaneEndpoint, controlPlaneEndpointFor, parseHostPort, httpsURL,
  type ControlPlaneEndpoint, type HostPort,
} from './endpoint.js';
export { renderKubeconfig, kubeconfigObject, dumpKubeconfig, type KubeconfigSpec, type KubeconfigAuth } from './render.js';
export { currentCluster, type KubeconfigCluster } from './read.js';
export { KUBECONFIG_ROWS, type KubeconfigRow } from './kubeconfig-table.js';
export { kubeconfigPath, serverFor } from './ensure.js';
export { caCertHash } from '../../pki/index.js';
