/**
 * The API-side init phases (kubeadm cmd/phases/init + phases/{uploadconfig,copycerts,
 * markcontrolplane,bootstraptoken}): each creates its objects through the KubeApi seam — the
 * real cluster, or the dry-run seam that lists writes without sending them — and compares with
 * what exists first, so a second run writes nothing (upload-certs excepted: it renews by design).
 */
export { uploadConfigPhase, uploadKubeadmConfig, uploadKubeletConfig } from './upload-config.js';
export { uploadCertsPhase, uploadCerts } from './upload-certs.js';
export { markControlPlanePhase, markControlPlane, controlPlaneTaints } from './mark-control-plane.js';
export { bootstrapTokenPhase, bootstrapToken } from './bootstrap-token.js';
export { kubeletFinalizePhase, kubeletFinalizePhaseFor } from './kubelet-finalize.js';
export { showJoinCommandPhase, renderClosingText } from './show-join-command.js';
export { kubeFor, useKubeApi, ensureClusterAdminsBinding } from './api.js';
export { decryptBytes, decodeCertificateKey, generateCertificateKey, KUBEADM_CERTS_SECRET } from './upload-certs-render.js';
export { CLUSTER_INFO_CM, KUBE_PUBLIC } from './bootstrap-token-render.js';
