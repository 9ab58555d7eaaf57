/**
 * kubeadm's own feature gates (ClusterConfiguration.featureGates / --feature-gates), as data,
 * and the parser of the flag's "A=true,B=false" form (kubeadm features.NewFeatureGate).
 */

interface FeatureGateSpec {
  /** Why it exists / what tsadm does with it. */
  readonly note: string;
  readonly deprecated?: string;
}

const KNOWN_FEATURE_GATES: Readonly<Record<string, FeatureGateSpec>> = {
  PublicKeysECDSA: { note: 'ECDSA-P256 keys for certificates (v1beta4: use encryptionAlgorithm)', deprecated: 'use ClusterConfiguration.encryptionAlgorithm (v1beta4) instead' },
  IPv6DualStack: { note: 'dual-stack networking (needed for two CIDRs on v1.20; GA later)' },
  RootlessControlPlane: { note: 'run control-plane components as non-root users' },
  EtcdLearnerMode: { note: 'join etcd members as learners first' },
  ControlPlaneKubeletLocalMode: { note: 'kubelets on control-plane nodes talk to the local API server' },
  NodeLocalCRISocket: { note: 'CRI socket kept in /var/lib/kubelet/instance-config.yaml' },
  WaitForAllControlPlaneComponents: { note: 'wait for every control-plane component, not only the API server' },
};

export function isKnownFeatureGate(name: string): boolean {
  return Object.hasOwn(KNOWN_FEATURE_GATES, name);
}

/** Go's strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** Parses "A=true,B=false"; errors are worded like kubeadm's. */
export function parseFeatureGates(text: string): { gates: Record<string, boolean>; errors: string[] } {
  const gates: Record<string, boolean> = {};
  const errors: string[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) {
      errors.push(`missing bool value for ${key}`);
      continue;
    }
    const value = item.slice(eq + 1).trim();
    const parsed = parseGoBool(value);
    if (parsed === undefined) {
      errors.push(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing "${value}": invalid syntax`);
      continue;
    }
    if (!isKnownFeatureGate(key)) {
      errors.push(`unrecognized feature-gate key: ${key}`);
      continue;
    }
    gates[key] = parsed;
  }
  return { gates, errors };
}
