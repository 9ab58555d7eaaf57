/**
 * kubeadm's own feature gates (ClusterConfiguration.featureGates / --feature-gates): the one
 * place that answers "is this gate on for this target" (featureEnabled), validates a gate map
 * against the target minor, and parses the flag's "A=true,B=false" form (kubeadm
 * features.NewFeatureGate). Which gates exist at a minor, their defaults, stages and locks are
 * version facts: the `featureGates` of each row of src/versions/table.ts.
 */
import { SUPPORTED_MINORS } from '../versions/minors.js';
import { VERSION_TABLE } from '../versions/table.js';
import type { FeatureGateFact, VersionProfile } from '../versions/table-types.js';

/** The gate's facts at this minor, or undefined when kubeadm of that minor does not have it (never had it, or removed it). */
export function featureGateAt(versions: Pick<VersionProfile, 'featureGates'>, name: string): FeatureGateFact | undefined {
  const fact = Object.hasOwn(versions.featureGates, name) ? versions.featureGates[name] : undefined;
  return fact?.removed ? undefined : fact;
}

/**
 * Whether the gated behaviour is on for this target (kubeadm's features.Enabled at that minor):
 * the configured value when the gate exists there, else its default. Before kubeadm had the gate
 * the behaviour is off; after kubeadm removed it, it stays as the gate's last default (on for a
 * graduated gate such as EtcdLearnerMode from 1.33, off for a deprecated one).
 */
export function featureEnabled(gates: Readonly<Record<string, boolean>>, versions: VersionProfile, name: string): boolean {
  const fact = Object.hasOwn(versions.featureGates, name) ? versions.featureGates[name] : undefined;
  if (fact === undefined) return false;
  // A removed gate keeps its last default; a locked (GA) one its default whatever the map says
  // (validation refuses setting it against the default, so this only guards an unvalidated map).
  if (fact.removed || fact.locked) return fact.default;
  return Object.hasOwn(gates, name) ? gates[name] === true : fact.default;
}

/** Gates known to kubeadm of some supported minor (the flag parser's check; the target minor is checked by validateFeatureGates). */
export function isKnownFeatureGate(name: string): boolean {
  return SUPPORTED_MINORS.some((minor) => featureGateAt(VERSION_TABLE[minor], name) !== undefined);
}

/**
 * Problems of a gate map at the target minor, one line each, worded as kubeadm: a gate that
 * minor does not know, a locked (GA) gate set against its default.
 */
export function validateFeatureGates(gates: Readonly<Record<string, boolean>>, versions: VersionProfile): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(gates)) {
    const fact = featureGateAt(versions, name);
    if (fact === undefined) {
      out.push(`featureGates: unrecognized feature-gate key "${name}" (kubeadm ${versions.minor} does not have it)`);
    } else if (fact.locked === true && value !== fact.default) {
      out.push(`featureGates: cannot set feature gate ${name} to ${value}, feature is locked to ${fact.default}`);
    }
  }
  return out;
}

/** Warnings for deprecated gates that are set (kubeadm's CheckDeprecatedFlags / NewFeatureGate warning). */
export function featureGateWarnings(gates: Readonly<Record<string, boolean>>, versions: VersionProfile): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(gates)) {
    const fact = featureGateAt(versions, name);
    if (fact?.stage !== 'deprecated') continue;
    out.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.${fact.deprecation ? ` ${fact.deprecation}` : ''}`);
  }
  return out;
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
