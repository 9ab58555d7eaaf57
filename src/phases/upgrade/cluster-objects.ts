/**
 * The phases of `upgrade apply` that bring the cluster's objects to the target version, as init
 * of that version would have written them: upload-config (kubeadm, kubelet), kubelet-config,
 * bootstrap-token, addon (coredns, kube-proxy) and post-upgrade.
 */
import type { Phase } from '../../engine/phase.js';
import type { UpgradeCtx } from '../../workflows/context.js';
import { pending } from './pending.js';

export const upgradeUploadConfigPhase: Phase<UpgradeCtx> = {
  name: 'upload-config',
  summary: 'Upload the kubeadm and kubelet configurations to ConfigMaps',
  children: [
    { name: 'kubeadm', summary: 'Upload the kubeadm ClusterConfiguration to a ConfigMap', flags: ['kubeconfig'], run: () => pending('upload-config kubeadm') },
    { name: 'kubelet', summary: 'Upload the kubelet configuration to a ConfigMap', flags: ['kubeconfig'], run: () => pending('upload-config kubelet') },
  ],
};

export const upgradeKubeletConfigPhase: Phase<UpgradeCtx> = {
  name: 'kubelet-config',
  summary: 'Upgrade the kubelet configuration for this node',
  flags: ['kubeconfig', 'patches'],
  run: () => pending('kubelet-config'),
};

export const upgradeBootstrapTokenPhase: Phase<UpgradeCtx> = {
  name: 'bootstrap-token',
  summary: 'Configures bootstrap token and cluster-info RBAC rules',
  flags: ['kubeconfig'],
  run: () => pending('bootstrap-token'),
};

export const upgradeAddonPhase: Phase<UpgradeCtx> = {
  name: 'addon',
  summary: 'Upgrade the default kubeadm addons',
  children: [
    { name: 'coredns', summary: 'Upgrade the CoreDNS addon', flags: ['kubeconfig'], run: () => pending('addon coredns') },
    { name: 'kube-proxy', summary: 'Upgrade the kube-proxy addon', flags: ['kubeconfig'], run: () => pending('addon kube-proxy') },
  ],
};

export const upgradePostUpgradePhase: Phase<UpgradeCtx> = {
  name: 'post-upgrade',
  summary: 'Run post upgrade tasks',
  flags: ['kubeconfig'],
  run: () => pending('post-upgrade'),
};
