/**
 * kubeadm's own tests as the oracle (issue 36): the cases of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/addons/proxy/proxy_test.go at revision
 * 898b9f800267a757615ecfb71fc377d04d996c6b (a 1.36-cycle revision), compared with tsadm's
 * kube-proxy renderer (src/phases/addons/kube-proxy-render.ts). Expected values copied literally.
 */
import { manifestsText } from '../../../src/phases/addons/addon-phase.js';
import { printedKubeProxyObjects } from '../../../src/phases/addons/kube-proxy.js';
import * as yaml from 'js-yaml';
import { kubeProxyDaemonSet, kubeProxyDaemonSetTemplate } from '../../../src/phases/addons/kube-proxy-render.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { caseKey, ledgerFile, portCases } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/addons/proxy/proxy_test.go';

/** TestPrintOrCreateKubeProxyObjects "print manifest": wantOut as dedent.Dedent leaves it (no indentation to strip). */
const PRINT_WANT_OUT = `---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kube-proxy
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubeadm:node-proxier
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:node-proxier
subjects:
- kind: ServiceAccount
  name: kube-proxy
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: kube-proxy
  namespace: kube-system
rules:
- apiGroups:
  - ""
  resourceNames:
  - kube-proxy
  resources:
  - configmaps
  verbs:
  - get
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kube-proxy
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kube-proxy
subjects:
- kind: Group
  name: system:bootstrappers:kubeadm:default-node-token
---
foo
---
bar
`;

portCases(SOURCE, {
  // kubeadm passes cmByte "\nfoo\n" and dsByte "\nbar\n" for its templates' text; the objects
  // are marshalled as kubeadm of the ledger's minor marshals them (no creationTimestamp from 1.34).
  [caseKey('TestPrintOrCreateKubeProxyObjects', 'print manifest')]: () => {
    const { omitEmptyCreationTimestamp } = VERSION_TABLE[ledgerFile(SOURCE).minor].controlPlane;
    expect(manifestsText(printedKubeProxyObjects('\nfoo\n', '\nbar\n', { omitEmptyCreationTimestamp }))).toBe(PRINT_WANT_OUT);
  },
  // The template filled in with Image "foo", decoded as kubeadm's test decodes it; and the object
  // tsadm creates from it.
  [caseKey('TestDaemonSetsHaveSystemNodeCriticalPriorityClassName', 'KubeProxyDaemonSet19')]: () => {
    type DaemonSet = { kind: string; spec: { template: { spec: { priorityClassName?: string } } } };
    const decoded = yaml.load(kubeProxyDaemonSetTemplate('foo')) as DaemonSet;
    expect(decoded.kind).toBe('DaemonSet');
    expect(decoded.spec.template.spec.priorityClassName).toBe('system-node-critical');
    expect((kubeProxyDaemonSet('foo', []) as unknown as DaemonSet).spec.template.spec.priorityClassName).toBe('system-node-critical');
  },
});
