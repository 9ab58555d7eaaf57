/**
 * "tsadm must never pass a removed core gate to a component" (issue 26), for every supported
 * minor from 1.35: the static pods, the kubelet configuration and the kube-proxy configuration
 * that init renders carry no --feature-gates / featureGates entry naming a Kubernetes gate removed
 * at or before that minor. In fact the only gate tsadm passes by default from 1.35 is etcd's own
 * InitialCorruptCheck (an etcd gate, not a Kubernetes one); IPv6DualStack, the one core gate
 * kubeadm ever forwarded, stopped being forwarded at 1.23 (dualStackFeatureGateArg).
 *
 * The removed gates are written here from the Kubernetes release notes, with their PRs, never
 * from src/versions/table.ts (which lists kubeadm's own gates only):
 * - 1.35, CHANGELOG-1.35.md of kubernetes/kubernetes: #134994 StrictCostEnforcementForVAP and
 *   StrictCostEnforcementForWebhooks; #133720 SizeMemoryBackedVolumes; #133742 ComponentSLIs;
 *   #132157 UserNamespacesPodSecurityStandards; #134452 locks DynamicResourceAllocation to
 *   enabled (not removed, but =false is refused, so it must not be passed either).
 * - 1.36: none of the PRs this file was given; the kubeadm gates removed in 1.36
 *   (ControlPlaneKubeletLocalMode, PR #135773) never reach a component.
 * - 1.37, CHANGELOG-1.37.md v1.37.0-alpha.1: #137755 SidecarContainers; #138907 RetryGenerateName,
 *   BtreeWatchCache, OrderedNamespaceDeletion, StreamingCollectionEncodingToJSON,
 *   StreamingCollectionEncodingToProtobuf, APIServerTracing, ResilientWatchCacheInitialization,
 *   ConsistentListFromCache; #135336 AnyVolumeDataSource; #139217 RelaxedDNSSearchValidation.
 *   From third-party release digests only (not read in a CHANGELOG): #139520 GangScheduling and
 *   WorkloadAwarePreemption (merged into GenericWorkload); #140226 PreventStaticPodAPIReferences.
 */
import { kubeProxyConfiguration } from '../../../src/phases/addons/kube-proxy-render.js';
import { renderStaticPod, STATIC_POD_COMPONENTS } from '../../../src/manifest/render.js';
import { renderKubeletConfig } from '../../../src/phases/kubelet/config.js';
import { NO_HOST_FACTS, staticPodConfigFromInit } from '../../../src/manifest/inputs.js';
import type { Container } from '../../../src/manifest/pod.js';
import { DEFAULT_PATCH, SUPPORTED_MINORS } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { isReleasedMinor } from '../../../src/versions/resolve.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

const REMOVED_AT: Readonly<Record<string, readonly string[]>> = {
  '1.35': [
    'StrictCostEnforcementForVAP', 'StrictCostEnforcementForWebhooks', 'SizeMemoryBackedVolumes', 'ComponentSLIs',
    'UserNamespacesPodSecurityStandards', 'DynamicResourceAllocation',
  ],
  '1.36': [],
  '1.37': [
    'SidecarContainers', 'RetryGenerateName', 'BtreeWatchCache', 'OrderedNamespaceDeletion', 'StreamingCollectionEncodingToJSON',
    'StreamingCollectionEncodingToProtobuf', 'APIServerTracing', 'ResilientWatchCacheInitialization', 'ConsistentListFromCache',
    'AnyVolumeDataSource', 'RelaxedDNSSearchValidation', 'GangScheduling', 'WorkloadAwarePreemption', 'PreventStaticPodAPIReferences',
  ],
};

const minorNumber = (m: string): number => Number(m.split('.')[1]);
/** Gates removed at or before this minor (a gate removed in 1.35 is still unknown in 1.37). */
const removedBy = (minor: string): Set<string> =>
  new Set(Object.entries(REMOVED_AT).filter(([m]) => minorNumber(m) <= minorNumber(minor)).flatMap(([, gates]) => gates));

/** Gate names of every --feature-gates=A=true,B=false flag of a command. */
function flagGates(command: readonly string[]): string[] {
  return command.filter((a) => a.startsWith('--feature-gates=')).flatMap((a) => a.slice('--feature-gates='.length).split(',')).map((kv) => kv.split('=')[0] ?? '');
}

const MINORS = SUPPORTED_MINORS.filter((m) => minorNumber(m) >= 35);

describe('no removed core feature gate reaches a component (1.35+)', () => {
  test('the minors checked include every supported minor from 1.35', () => {
    expect(MINORS).toEqual(expect.arrayContaining(['1.35', '1.36', '1.37']));
  });

  test('REMOVED_AT has an entry (from its CHANGELOG) for every released minor from 1.35', () => {
    expect(Object.keys(REMOVED_AT)).toEqual(MINORS.filter((m) => isReleasedMinor(m)));
  });

  describe.each(MINORS.map((m) => [m]))('Kubernetes %s', (minor) => {
    const versions = VERSION_TABLE[minor];
    const base = fixtureInitConfig();
    // IPv6DualStack set by the user in ClusterConfiguration (kubeadm forwarded it until 1.23) must not reach anything.
    const cfg = { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], featureGates: { IPv6DualStack: true } } };

    const passed: Record<string, string[]> = {};
    for (const c of STATIC_POD_COMPONENTS) {
      const pod = renderStaticPod(c, staticPodConfigFromInit(cfg), versions, NO_HOST_FACTS);
      passed[c] = flagGates((pod.spec.containers[0] as Container).command);
    }
    const kubelet = renderKubeletConfig({ cluster: cfg.cluster, user: {}, criSocket: 'unix:///run/containerd/containerd.sock', systemdResolved: false }, versions).config;
    passed.kubelet = Object.keys((kubelet.featureGates as Record<string, unknown> | undefined) ?? {});
    const proxy = kubeProxyConfiguration({ user: {}, podSubnet: '10.244.0.0/16', advertiseAddress: '192.168.10.11', featureGates: cfg.cluster.featureGates, versions }).config;
    passed['kube-proxy'] = Object.keys((proxy.featureGates as Record<string, unknown> | undefined) ?? {});

    test('no --feature-gates/featureGates entry names a gate removed at or before this minor', () => {
      const removed = removedBy(minor);
      for (const [component, gates] of Object.entries(passed)) {
        expect({ component, removed: gates.filter((g) => removed.has(g)) }).toEqual({ component, removed: [] });
      }
    });

    test('the only gate passed by default is etcd\'s own InitialCorruptCheck; IPv6DualStack is not forwarded', () => {
      expect(passed).toEqual({
        etcd: ['InitialCorruptCheck'], 'kube-apiserver': [], 'kube-controller-manager': [], 'kube-scheduler': [], kubelet: [], 'kube-proxy': [],
      });
    });
  });
});
