export { controlPlanePhase, runControlPlaneComponent } from './phase.js';
export { renderApiServerPod, apiServerWarnings, authorizationModes, ADVERTISE_ADDRESS_ANNOTATION } from './apiserver.js';
export { renderControllerManagerPod } from './controller-manager.js';
export { renderSchedulerPod } from './scheduler.js';
export { renderStaticPod, STATIC_POD_COMPONENTS, type StaticPodComponent } from './render.js';
export { controlPlaneMounts, externalEtcdCertMounts, type ControlPlaneComponentName } from './volumes.js';
