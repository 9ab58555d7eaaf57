/**
 * kubeadm's own tests as the oracle (issue 36): the cases of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/addons/proxy/proxy_test.go at revision
 * 898b9f800267a757615ecfb71fc377d04d996c6b (a 1.36-cycle revision), compared with tsadm's
 * kube-proxy renderer (src/phases/addons/kube-proxy-render.ts). Expected values copied literally.
 */
import { kubeProxyDaemonSet } from '../../../src/phases/addons/kube-proxy-render.js';
import { caseKey, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/addons/proxy/proxy_test.go';

portCases(SOURCE, {
  [caseKey('TestDaemonSetsHaveSystemNodeCriticalPriorityClassName', 'KubeProxyDaemonSet19')]: () => {
    const daemonSet = kubeProxyDaemonSet('foo', []) as unknown as { spec: { template: { spec: { priorityClassName?: string } } } };
    expect(daemonSet.spec.template.spec.priorityClassName).toBe('system-node-critical');
  },
});
