import type { EnvVar } from '../config/types.js';
import type { EnvVarJson } from './pod.js';

/**
 * kubeadm passes the host's proxy settings into the control-plane pods: every environment
 * variable whose name ends in "_proxy" (any case) with a non-empty value, in environment order
 * (util.GetProxyEnvVars). The caller supplies the environment so rendering stays pure.
 */
export function proxyEnvFrom(env: Iterable<readonly [string, string | undefined]>): EnvVar[] {
  const out: EnvVar[] = [];
  for (const [name, value] of env) {
    if (name.toLowerCase().endsWith('_proxy') && value) out.push({ name, value });
  }
  return out;
}

/**
 * The container env: proxy variables, then the component's extraEnvs. Modern kubeadm
 * (MergeKubeadmEnvVars) lets later values win by name and sorts by name; 1.20 has no extraEnvs
 * and keeps environment order, which `sorted = false` reproduces.
 */
export function containerEnv(proxy: readonly EnvVar[], extra: readonly EnvVar[], sorted: boolean): EnvVarJson[] {
  const merged = new Map<string, string>();
  for (const e of [...proxy, ...extra]) merged.set(e.name, e.value);
  const list = [...merged.entries()].map(([name, value]) => ({ name, value }));
  if (sorted) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Go omits an empty value (omitempty); keep that shape for byte parity.
  return list.map((e) => (e.value === '' ? { name: e.name } : e));
}
