import type { ClusterConfiguration, ResolvedInitConfig } from '../../../../src/config/types.js';
import { NO_HOST_FACTS, staticPodConfigFromInit, type HostFacts } from '../../../../src/manifest/inputs.js';
import type { Container, Pod } from '../../../../src/manifest/pod.js';
import { renderStaticPod, type StaticPodComponent } from '../../../../src/phases/controlplane/render.js';
import { podToJson } from '../../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../../src/yaml/write.js';
import { DEFAULT_PATCH, VERSION_TABLE, type SupportedMinor } from '../../../../src/versions/table.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';

function cfgWith(cluster: Partial<ClusterConfiguration>, minor: SupportedMinor = '1.20'): ResolvedInitConfig {
  const base = fixtureInitConfig();
  return { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], ...cluster } };
}

function render(component: StaticPodComponent, cfg: ResolvedInitConfig, facts: HostFacts = NO_HOST_FACTS, minor: SupportedMinor = '1.20'): Pod {
  return renderStaticPod(component, staticPodConfigFromInit(cfg), VERSION_TABLE[minor], facts);
}

const c0 = (pod: Pod): Container => pod.spec.containers[0] as Container;
const base = fixtureInitConfig().cluster;

describe('volumes', () => {
  test('extraVolumes replace a default of the same name; an empty pathType is written as type ""', () => {
    const controllerManager = {
      ...base.controllerManager,
      extraVolumes: [
        { name: 'k8s-certs', hostPath: '/srv/pki', mountPath: '/etc/kubernetes/pki', readOnly: true, pathType: 'Directory' as const },
        { name: 'plugins', hostPath: '/opt/plugins', mountPath: '/plugins', readOnly: false, pathType: '' as const },
      ],
    };
    const pod = render('kube-controller-manager', cfgWith({ controllerManager }));
    expect(pod.spec.volumes?.find((v) => v.name === 'k8s-certs')).toEqual({ hostPath: { path: '/srv/pki', type: 'Directory' }, name: 'k8s-certs' });
    expect(toKubeYaml(podToJson(pod))).toContain('  - hostPath:\n      path: /opt/plugins\n      type: ""\n    name: plugins\n');
    expect(c0(pod).volumeMounts?.map((m) => m.name)).toEqual(['ca-certs', 'flexvolume-dir', 'k8s-certs', 'kubeconfig', 'plugins']);
  });
});
