import type { Arg, ClusterConfiguration } from '../config/types.js';
import type { VersionProfile } from '../versions/table-types.js';

export const DUAL_STACK_GATE = 'IPv6DualStack';

/**
 * Until dual-stack went GA, kubeadm forwarded the IPv6DualStack gate of ClusterConfiguration
 * to the apiserver, controller-manager and scheduler as a default --feature-gates value (the
 * user's own feature-gates extraArg still wins). No other kubeadm gate reaches the components.
 */
export function dualStackFeatureGateArg(cluster: ClusterConfiguration, versions: VersionProfile): Arg[] {
  if (!versions.controlPlane.dualStackFeatureGate) return [];
  const enabled = cluster.featureGates[DUAL_STACK_GATE];
  return enabled === undefined ? [] : [{ name: 'feature-gates', value: `${DUAL_STACK_GATE}=${enabled}` }];
}
