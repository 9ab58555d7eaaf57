/**
 * The static Pod manifests of this node at the target version, rendered by exactly the code
 * `tsadm init` runs (host facts, the component renderers, --patches, kubeadm's YAML writer), so
 * an upgraded node's manifests are byte-identical to a fresh init of the target version (kubeadm's
 * upgrade likewise calls CreateInitStaticPodManifestFiles and CreateLocalEtcdStaticPodManifestFile).
 */
import { gatherHostFacts } from '../../manifest/host-facts.js';
import { staticPodConfigFromInit } from '../../manifest/inputs.js';
import { patchedManifest } from '../../manifest/write.js';
import { toKubeYaml } from '../../yaml/write.js';
import type { InitCtx } from '../../run/context.js';
import { renderStaticPod } from '../../manifest/render.js';
import { renderEtcdPod } from '../../manifest/etcd.js';
import type { UpgradedComponent } from './static-pod-plan.js';

export interface RenderedManifest {
  /** The file's bytes as init writes them. */
  readonly text: string;
  /** The first container's image before --patches (the etcd version decision reads it, as kubeadm reads the configured tag). */
  readonly image: string;
}

export async function renderTargetManifest(view: InitCtx, component: UpgradedComponent): Promise<RenderedManifest> {
  const spc = staticPodConfigFromInit(view.cfg);
  // etcd: a new single-member cluster's spec, as kubeadm's upgrade renders it (an existing data dir makes etcd ignore --initial-cluster).
  const pod = component === 'etcd'
    ? renderEtcdPod(spc, view.versions, {})
    : renderStaticPod(component, spc, view.versions, await gatherHostFacts(view.host, view.cfg.cluster, view.versions));
  const manifest = await patchedManifest(view, component, pod, view.cfg.init.patches?.directory, view.versions);
  return { text: toKubeYaml(manifest), image: pod.spec.containers[0]?.image ?? '' };
}
