import { podToJson } from '../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { fixtureConfigWith, renderControlPlanePod, firstContainer, fixtureCluster } from '../../helpers/control-plane-pod.js';

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

  test('kube-controller-manager mounts the flex-volume dir until 1.35, from a user --flex-volume-plugin-dir too; nothing from 1.36 (kubeadm PR #136423)', () => {
    const names = (minor: '1.35' | '1.36' | '1.37', extraArgs: { name: string; value: string }[] = []): { volumes: string[]; mounts: string[] } => {
      const pod = renderControlPlanePod('kube-controller-manager', fixtureConfigWith({ controllerManager: { ...fixtureCluster.controllerManager, extraArgs } }, minor), undefined, minor);
      return { volumes: (pod.spec.volumes ?? []).map((v) => v.name), mounts: (firstContainer(pod).volumeMounts ?? []).map((m) => m.name) };
    };
    expect(names('1.35')).toEqual({ volumes: ['ca-certs', 'flexvolume-dir', 'k8s-certs', 'kubeconfig'], mounts: ['ca-certs', 'flexvolume-dir', 'k8s-certs', 'kubeconfig'] });
    const pod135 = renderControlPlanePod('kube-controller-manager', fixtureConfigWith({ controllerManager: { ...fixtureCluster.controllerManager, extraArgs: [{ name: 'flex-volume-plugin-dir', value: '/opt/flex' }] } }, '1.35'), undefined, '1.35');
    expect(pod135.spec.volumes?.find((v) => v.name === 'flexvolume-dir')).toEqual({ hostPath: { path: '/opt/flex', type: 'DirectoryOrCreate' }, name: 'flexvolume-dir' });
    for (const minor of ['1.36', '1.37'] as const) {
      expect(names(minor)).toEqual({ volumes: ['ca-certs', 'k8s-certs', 'kubeconfig'], mounts: ['ca-certs', 'k8s-certs', 'kubeconfig'] });
      expect(names(minor, [{ name: 'flex-volume-plugin-dir', value: '/opt/flex' }]).volumes).not.toContain('flexvolume-dir');
    }
  });
});
