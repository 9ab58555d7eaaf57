/**
 * `upgrade apply|node phase control-plane`: the static Pod control plane of this node, component
 * by component (etcd first when its version changes, then kube-apiserver, kube-controller-manager,
 * kube-scheduler): back up the manifest, renew the component's certificates, write the new
 * manifest, wait until the kubelet runs it and it is healthy, and roll back on failure.
 */
import type { Phase } from '../../engine/phase.js';
import type { UpgradeCtx } from '../../workflows/context.js';
import { pending } from './pending.js';

export const upgradeControlPlanePhase: Phase<UpgradeCtx> = {
  name: 'control-plane',
  summary: 'Upgrade the control plane',
  flags: ['kubeconfig', 'certificate-renewal', 'etcd-upgrade', 'patches'],
  run: () => pending('upgrade control-plane'),
};
