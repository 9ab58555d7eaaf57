/**
 * The phases of `upgrade apply` that bring the cluster's objects to the target version, as init
 * of that version would have written them: upload-config (kubeadm, kubelet), kubelet-config,
 * bootstrap-token, addon (coredns, kube-proxy) and post-upgrade. Each lives in its own module;
 * this one gathers them for the workflow.
 */
export { upgradeAddonPhase } from './addons.js';
export { upgradeBootstrapTokenPhase } from './bootstrap-token.js';
export { upgradeKubeletConfigPhase } from './kubelet-config.js';
export { upgradePostUpgradePhase } from './post-upgrade.js';
export { upgradeUploadConfigPhase } from './upload-config.js';
