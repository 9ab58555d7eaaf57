/**
 * The join-only phases (kubeadm cmd/phases/join): preflight with discovery, the control-plane
 * preparation, kubelet-start with the TLS bootstrap, and control-plane-join. Shared logic
 * (certs, kubeconfig, static pods, kubelet files, mark-control-plane) comes from the init phases.
 */
export { joinPreflightPhase, sharedCertificateFiles } from './preflight.js';
export { controlPlanePreparePhase } from './control-plane-prepare.js';
export { joinKubeletStartPhase, runJoinKubeletStart, BOOTSTRAP_KUBELET_CONF, KUBELET_CONF } from './kubelet-start.js';
export { controlPlaneJoinPhase, checkEtcdPhase, runEtcdJoin } from './control-plane-join.js';
export { decryptKubeadmCerts, type DownloadedFile } from './download-certs.js';
export { buildJoinClusterConfig, fetchClusterConfigTexts, storedKubernetesVersion, type JoinClusterConfig, type ClusterConfigTexts } from './cluster-config.js';
export { realJoinDeps, type JoinDeps } from './deps.js';
export { newJoinRunState, discovery, clusterConfig, initView, type JoinRunState } from './state.js';
export { joinDoneText } from './closing.js';
export { waitForTlsBootstrap, kubeletConfProblem, clientCertificateFile } from './tls-bootstrap.js';
export { endpointsFromPods, endpointsFromClusterStatus } from './etcd-endpoints.js';
