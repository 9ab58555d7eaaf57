export { kubeletStartPhase, makeKubeletStartPhase, runKubeletStart, type KubeletStartOptions } from './start.js';
export { waitControlPlanePhase, waitForKubeletPhase, makeWaitControlPlanePhase, makeWaitForKubeletPhase, type WaitPhaseOptions } from './wait.js';
export { renderKubeletConfig, KUBELET_CONFIG_API_VERSION, type KubeletConfigInput, type RenderedKubeletConfig } from './config.js';
export { renderKubeletFlagsEnv, kubeletDefaultFlags, criSocketFor, taintString, DOCKERSHIM_SOCKET, type KubeletFlagsInput } from './flags-env.js';
export { controlPlaneHealthTargets, kubeletHealthTarget } from './targets.js';
export { waitForHealthy, type HealthTarget, type WaitOptions, type WaitResult } from './wait-loop.js';
export { httpHealthCheck, type HealthCheck, type CheckResult } from './http-check.js';
