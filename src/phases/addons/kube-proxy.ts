import type { Logger } from '../../log/events.js';
import type { KubeApi, KubeObject } from '../../kube/types.js';
import { isDeepStrictEqual } from 'node:util';
import {
  kubeProxyConfigMap, kubeProxyConfigMapTemplate, kubeProxyDaemonSet, kubeProxyDaemonSetTemplate, kubeProxyRbac, kubeProxyServiceAccount, type EnvVar,
} from './kube-proxy-render.js';
import type { DaemonSetPatcher } from './kube-proxy-patch.js';

/**
 * The kube-proxy addon, in kubeadm's order: ServiceAccount (created once, never rewritten),
 * ConfigMap and DaemonSet (created or updated), then RBAC.
 */
export interface KubeProxyInput {
  readonly config: Record<string, unknown>;
  /** The control-plane endpoint URL kube-proxy pods talk to. */
  readonly server: string;
  readonly sign: boolean;
  readonly image: string;
  readonly proxyEnv: readonly EnvVar[];
}

export async function ensureKubeProxy(api: KubeApi, input: KubeProxyInput, log: Pick<Logger, 'info'>, patchDaemonSet?: DaemonSetPatcher): Promise<void> {
  await api.ensure(kubeProxyServiceAccount(), 'retain');
  await api.ensure(kubeProxyConfigMap(input.config, input.server, input.sign));
  const daemonSet = kubeProxyDaemonSet(input.image, input.proxyEnv);
  // The `kubeproxydaemonset` --patches (1.37+) are applied to the DaemonSet before it is sent.
  await api.ensure(patchDaemonSet ? await patchDaemonSet(daemonSet) : daemonSet);
  for (const obj of kubeProxyRbac()) await api.ensure(obj);
  log.info('Applied essential addon: kube-proxy', { prefix: 'addons' });
}

/**
 * What `--print-manifest` prints, as kubeadm's printOrCreateKubeProxyObjects prints it
 * (cmd/kubeadm/app/phases/addons/proxy/proxy.go): the ServiceAccount, the ClusterRoleBinding, the
 * Role and the RoleBinding (objects, marshalled), then the ConfigMap and the DaemonSet as the text
 * of kubeadm's templates filled in, returned before anything is added to them: the ConfigMap is
 * not signed (SignConfigMap runs on the decoded object it creates) and the DaemonSet has no proxy
 * variables of the environment (merged into the decoded object too). A DaemonSet the
 * `kubeproxydaemonset` patches change is printed as the patched object (UNSURE whether kubeadm
 * 1.37's patches reach its printout at all).
 */
export async function kubeProxyManifests(input: KubeProxyInput, opts: PrintOptions, patchDaemonSet?: DaemonSetPatcher): Promise<Array<KubeObject | string>> {
  const daemonSet = kubeProxyDaemonSet(input.image, []);
  const patched = patchDaemonSet ? await patchDaemonSet(daemonSet) : daemonSet;
  return printedKubeProxyObjects(
    kubeProxyConfigMapTemplate(input.config, input.server),
    isDeepStrictEqual(patched, daemonSet) ? kubeProxyDaemonSetTemplate(input.image) : patched,
    opts,
  );
}

/**
 * The print order of kubeadm's printOrCreateKubeProxyObjects(cmByte, dsByte, …): the four RBAC
 * and account objects marshalled, then the ConfigMap and the DaemonSet as given. Pure: kubeadm's
 * proxy_test.go "print manifest" case drives it with its own ConfigMap and DaemonSet text.
 */
export function printedKubeProxyObjects(configMap: string, daemonSet: string | KubeObject, opts: PrintOptions): Array<KubeObject | string> {
  return [...[kubeProxyServiceAccount(), ...kubeProxyRbac()].map((o) => marshalled(o, opts)), configMap, daemonSet];
}

export interface PrintOptions {
  /** The profile's controlPlane.omitEmptyCreationTimestamp (1.34+). */
  readonly omitEmptyCreationTimestamp: boolean;
}

/**
 * An object as kubeadm's MarshalToYaml prints it: up to 1.33 the zero ObjectMeta.CreationTimestamp
 * is written as `creationTimestamp: null`; from 1.34 (k8s.io/apimachinery v0.34.0's `omitzero`,
 * kubernetes PR #130989) it is omitted. A binding's subjects carry no apiGroup: proxy.go builds
 * them without one (the API server defaults it on create, which is why tsadm's objects write it
 * out), and kubeadm prints the object before it is sent (proxy_test.go "print manifest").
 */
function marshalled(obj: KubeObject, opts: PrintOptions): KubeObject {
  const subjects = (obj as { subjects?: ReadonlyArray<Record<string, unknown>> }).subjects;
  const withSubjects = subjects ? { ...obj, subjects: subjects.map(({ apiGroup: _defaulted, ...s }) => s) } : obj;
  if (opts.omitEmptyCreationTimestamp || obj.metadata.creationTimestamp !== undefined) return withSubjects;
  return { ...withSubjects, metadata: { ...obj.metadata, creationTimestamp: null } };
}
