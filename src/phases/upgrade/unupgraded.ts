/**
 * kubeadm's UnupgradedControlPlaneInstances (1.28+): which other control-plane instances still
 * run an old kube-apiserver. It can only be asked once this instance is upgraded: an instance
 * counts as upgraded when its kube-apiserver Pod runs the same image as this node's.
 */
import { TsadmError } from '../../errors.js';
import type { KubeApi, KubeObject } from '../../kube/types.js';

const KUBE_APISERVER = 'kube-apiserver';

interface PodView {
  readonly metadata: { readonly name: string };
  readonly spec?: { readonly nodeName?: string; readonly containers?: ReadonlyArray<{ readonly name?: string; readonly image?: string }> };
}

/** Pure: the nodes whose kube-apiserver image differs from `nodeName`'s, sorted (kubeadm sorts them too). */
export function unupgradedInstances(pods: readonly PodView[], nodeName: string): string[] {
  if (pods.length === 0) throw new TsadmError('E_PRECONDITION', 'cannot find kube-apiserver Pod by label selector: component=kube-apiserver', { hint: 'are the control-plane mirror Pods registered? check `kubectl -n kube-system get pods -l component=kube-apiserver`' });
  const imageByNode = new Map<string, string>();
  for (const pod of pods) {
    const container = pod.spec?.containers?.find((c) => c.name === KUBE_APISERVER);
    if (!container?.image) throw new TsadmError('E_PRECONDITION', `cannot find container by name "${KUBE_APISERVER}" for Pod kube-system/${pod.metadata.name}`, { hint: 'the kube-apiserver static Pod is not one kubeadm or tsadm wrote' });
    imageByNode.set(pod.spec?.nodeName ?? '', container.image);
  }
  const upgraded = imageByNode.get(nodeName);
  if (upgraded === undefined) throw new TsadmError('E_PRECONDITION', `cannot find the kube-apiserver Pod of this node (${nodeName})`, { hint: 'is this a control-plane node whose mirror Pod is registered?' });
  return [...imageByNode].filter(([node, image]) => node !== nodeName && image !== upgraded).map(([node]) => node).sort();
}

export async function unupgradedControlPlanes(api: KubeApi, nodeName: string): Promise<string[]> {
  const pods = await api.list<KubeObject & PodView>('Pod', 'kube-system', { labelSelector: `component=${KUBE_APISERVER}` });
  return unupgradedInstances(pods, nodeName);
}
