/**
 * kubeadm's own tests as the oracle (issue 36): the cases of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/kubelet/flags_test.go at revision
 * d776c9b699d29a50d51d39ef976b1a6ee7a281ae, the only version of that file the stored index holds.
 * It writes --pod-infra-container-image for every runtime (after dockershim, 1.24+), still writes
 * --container-runtime=remote (gone in kubeadm 1.26, PR #112000: release-1.26 notes) and names
 * registry.k8s.io/pause:3.7 (registry.k8s.io is 1.25's default repository, pause 3.7 the 1.24
 * image), so it belongs to the 1.24-1.25 line and is compared with tsadm's 1.25 row
 * (src/phases/kubelet/flags-env.ts). Expected maps copied literally; tsadm writes the map as
 * KUBELET_KUBEADM_ARGS, which is parsed back into name → value here.
 */
import type { NodeRegistration } from '../../../src/config/types.js';
import { renderKubeletFlagsEnv } from '../../../src/phases/kubelet/flags-env.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { caseKey, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/kubelet/flags_test.go';
const versions = VERSION_TABLE[ledgerFile(SOURCE).minor];
/** kubeadm's test leaves Name empty and its default hostname too; tsadm's input names the host. */
const HOSTNAME = 'node-a';

function argMap(nodeRegistration: Partial<NodeRegistration>, registerTaints: boolean, pauseImage = ''): Record<string, string> {
  const nr: NodeRegistration = { ...fixtureInitConfig().init.nodeRegistration, name: HOSTNAME, taints: undefined, ...nodeRegistration };
  const line = renderKubeletFlagsEnv({ nodeRegistration: nr, hostname: HOSTNAME, pauseImage, registerTaints }, versions);
  const quoted = /^KUBELET_KUBEADM_ARGS="(.*)"\n$/.exec(line)?.[1] ?? '';
  return Object.fromEntries(quoted.split(' ').filter(Boolean).map((flag) => {
    const [name = '', ...value] = flag.replace(/^--/, '').split('=');
    return [name, value.join('=')];
  }));
}

portCases(SOURCE, {
  [caseKey('TestBuildKubeletArgMap', 'hostname override')]: () => {
    expect(argMap({ criSocket: 'unix:///var/run/containerd/containerd.sock', kubeletExtraArgs: [{ name: 'hostname-override', value: 'override-name' }] }, false)).toEqual({
      'container-runtime': 'remote',
      'container-runtime-endpoint': 'unix:///var/run/containerd/containerd.sock',
      'hostname-override': 'override-name',
    });
  },
  [caseKey('TestBuildKubeletArgMap', 'register with taints')]: () => {
    // Effects no API server accepts ('baz', 'eff') as in kubeadm's test; tsadm's type allows only real ones.
    const taints = [{ key: 'foo', value: 'bar', effect: 'baz' }, { key: 'key', value: 'val', effect: 'eff' }] as unknown as NodeRegistration['taints'];
    expect(argMap({ criSocket: 'unix:///var/run/containerd/containerd.sock', taints }, true)).toEqual({
      'container-runtime': 'remote',
      'container-runtime-endpoint': 'unix:///var/run/containerd/containerd.sock',
      'register-with-taints': 'foo=bar:baz,key=val:eff',
    });
  },
  [caseKey('TestBuildKubeletArgMap', 'pause image is set')]: () => {
    expect(argMap({ criSocket: 'unix:///var/run/containerd/containerd.sock' }, false, 'registry.k8s.io/pause:3.7')).toEqual({
      'container-runtime': 'remote',
      'container-runtime-endpoint': 'unix:///var/run/containerd/containerd.sock',
      'pod-infra-container-image': 'registry.k8s.io/pause:3.7',
    });
  },
});
