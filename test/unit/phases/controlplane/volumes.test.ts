import { podToJson } from '../../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../../src/yaml/write.js';
import { fixtureConfigWith, renderControlPlanePod, firstContainer, fixtureCluster } from '../../../helpers/control-plane-pod.js';

describe('volumes', () => {
  test('extraVolumes replace a default of the same name; an empty pathType is written as type ""', () => {
    const controllerManager = {
      ...fixtureCluster.controllerManager,
      extraVolumes: [
        { name: 'k8s-certs', hostPath: '/srv/pki', mountPath: '/etc/kubernetes/pki', readOnly: true, pathType: 'Directory' as const },
        { name: 'plugins', hostPath: '/opt/plugins', mountPath: '/plugins', readOnly: false, pathType: '' as const },
      ],
    };
    const pod = renderControlPlanePod('kube-controller-manager', fixtureConfigWith({ controllerManager }));
    expect(pod.spec.volumes?.find((v) => v.name === 'k8s-certs')).toEqual({ hostPath: { path: '/srv/pki', type: 'Directory' }, name: 'k8s-certs' });
    expect(toKubeYaml(podToJson(pod))).toContain('  - hostPath:\n      path: /opt/plugins\n      type: ""\n    name: plugins\n');
    expect(firstContainer(pod).volumeMounts?.map((m) => m.name)).toEqual(['ca-certs', 'flexvolume-dir', 'k8s-certs', 'kubeconfig', 'plugins']);
  });
});
