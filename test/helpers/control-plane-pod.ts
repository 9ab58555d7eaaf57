/**
 * Shared by the static pod tests of the control plane (manifest args/env and the control-plane renderers of src/manifest):
 * the fixture configuration at a chosen minor, rendered into a control-plane component's Pod.
 */
import type { ClusterConfiguration, ResolvedInitConfig } from '../../src/config/types.js';
import { NO_HOST_FACTS, staticPodConfigFromInit, type HostFacts } from '../../src/manifest/inputs.js';
import type { Container, Pod } from '../../src/manifest/pod.js';
import { renderStaticPod, type StaticPodComponent } from '../../src/manifest/render.js';
import { DEFAULT_PATCH, type SupportedMinor } from '../../src/versions/minors.js';
import { VERSION_TABLE } from '../../src/versions/table.js';
import { fixtureInitConfig } from './config-fixture.js';

/** The fixture configuration at the minor's default patch, with these cluster fields replaced. */
export function fixtureConfigWith(cluster: Partial<ClusterConfiguration>, minor: SupportedMinor = '1.20'): ResolvedInitConfig {
  const base = fixtureInitConfig();
  return { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], ...cluster } };
}

export function renderControlPlanePod(component: StaticPodComponent, cfg: ResolvedInitConfig, facts: HostFacts = NO_HOST_FACTS, minor: SupportedMinor = '1.20'): Pod {
  return renderStaticPod(component, staticPodConfigFromInit(cfg), VERSION_TABLE[minor], facts);
}

export const firstContainer = (pod: Pod): Container => pod.spec.containers[0] as Container;
/** The first container's command line without the binary: its flags. */
export const commandFlags = (pod: Pod): string[] => firstContainer(pod).command.slice(1);
/** The fixture's ClusterConfiguration, for spreading into a test's changes. */
export const fixtureCluster = fixtureInitConfig().cluster;
