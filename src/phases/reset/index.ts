/**
 * The reset phases (kubeadm 1.20 cmd/phases/reset): preflight (confirmation), update-cluster-status,
 * remove-etcd-member, cleanup-node.
 */
export { resetPreflightPhase } from './preflight.js';
export { updateClusterStatusPhase } from './update-cluster-status.js';
export { removeEtcdMemberPhase } from './remove-etcd-member.js';
export { cleanupNodePhase } from './cleanup-node.js';
export { cleanupPlan, mountsUnder, unsafeDirReason, KUBECONFIGS_TO_DELETE, NOT_CLEANED_TEXT, type CleanupPlan } from './plan.js';
export { parseEtcdManifest, type LocalEtcdMember } from './etcd-manifest.js';
export { clusterStatusWithout } from './cluster-status.js';
export { realResetDeps, readAnswer, type ResetDeps } from './deps.js';
export { newResetRunState, type ResetRunState } from './state.js';
