/**
 * One entry point from "which component" to its rendered Pod, so phases, tests and future
 * upgrade code share the dispatch. Pure.
 */
import type { HostFacts, StaticPodConfig } from './inputs.js';
import { STATIC_POD_COMPONENTS, type Pod, type StaticPodComponent } from './pod.js';
import type { VersionProfile } from '../versions/table-types.js';
import { renderEtcdPod } from './etcd.js';
import { renderApiServerPod } from './apiserver.js';
import { renderControllerManagerPod } from './controller-manager.js';
import { renderSchedulerPod } from './scheduler.js';

export { STATIC_POD_COMPONENTS, type StaticPodComponent };

export function renderStaticPod(component: StaticPodComponent, cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts): Pod {
  switch (component) {
    case 'etcd': return renderEtcdPod(cfg, versions, {});
    case 'kube-apiserver': return renderApiServerPod(cfg, versions, facts);
    case 'kube-controller-manager': return renderControllerManagerPod(cfg, versions, facts);
    case 'kube-scheduler': return renderSchedulerPod(cfg, versions, facts);
  }
}
