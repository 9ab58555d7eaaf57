/**
 * join's phases of the 1.30+/1.31+ flow that wait: `kubelet-wait-bootstrap` (with
 * ControlPlaneKubeletLocalMode the TLS bootstrap is waited for here, after etcd-join, instead of
 * in kubelet-start) and `wait-control-plane` (a joining control plane waits for its components
 * when WaitForAllControlPlaneComponents is on). Both decide from the cluster's gates at the
 * cluster's minor (the tree of each minor is built in src/workflows/join.ts).
 */
import type { Phase } from '../../engine/phase.js';
import type { JoinCtx } from './context.js';
import { waitControlPlanePhase } from '../kubelet/wait.js';
import { clusterFeatureEnabled, kubeletLocalMode } from './gates.js';
import { runKubeletWaitBootstrap } from './kubelet-start.js';
import { initView } from './state.js';

/** kubelet-wait-bootstrap: `experimental` (1.31–1.32) hides it and gives kubeadm's "[EXPERIMENTAL]" summary. */
export function kubeletWaitBootstrapPhase(experimental: boolean): Phase<JoinCtx> {
  return {
    name: 'kubelet-wait-bootstrap',
    summary: experimental ? '[EXPERIMENTAL] Wait for the kubelet to bootstrap itself (only used when feature gate ControlPlaneKubeletLocalMode is enabled)' : 'Wait for the kubelet to bootstrap itself',
    description: 'Wait for a healthy kubelet started by kubelet-start and for its TLS bootstrap, record the CRI socket on its Node and remove bootstrap-kubelet.conf; runs only when the cluster\'s ControlPlaneKubeletLocalMode feature gate is on (kubelet-start waits itself otherwise).',
    example: '# Waits for the TLS bootstrap of the kubelet that kubelet-start started\ntsadm join phase kubelet-wait-bootstrap --config join.yaml',
    flags: ['config', 'cri-socket', 'dry-run'],
    hidden: experimental,
    noExitCheck: 'always-runs',
    skipIf: async (ctx) => ((await kubeletLocalMode(ctx)) ? undefined : 'feature gate ControlPlaneKubeletLocalMode is off: kubelet-start waited for the TLS bootstrap'),
    run: runKubeletWaitBootstrap,
  };
}

/**
 * Join's wait-control-plane: init's phase run on this node's init-shaped view (same targets, same
 * timeout). Visible in join from 1.30, its summary prefixed "EXPERIMENTAL: " until
 * WaitForAllControlPlaneComponents went GA (kubeadm's phases/join/waitcontrolplane.go).
 */
export function joinWaitControlPlanePhase(experimental: boolean): Phase<JoinCtx> {
  return {
    name: 'wait-control-plane',
    summary: `${experimental ? 'EXPERIMENTAL: ' : ''}Wait for the control plane to start`,
    description: 'Wait until the kubelet and this node\'s kube-apiserver, kube-controller-manager and kube-scheduler report healthy; runs for a control-plane join when the cluster\'s WaitForAllControlPlaneComponents feature gate is on.',
    example: '# Waits for the control plane of this joining control-plane node\ntsadm join phase wait-control-plane --config join.yaml',
    noExitCheck: 'always-runs',
    skipIf: async (ctx) => {
      if (!ctx.cfg.join.controlPlane) return 'not a control-plane join (--control-plane is not set)';
      if (ctx.dryRun) return 'dry run: would wait for the control plane to become healthy';
      return (await clusterFeatureEnabled(ctx, 'WaitForAllControlPlaneComponents')) ? undefined : 'feature gate WaitForAllControlPlaneComponents is off';
    },
    run: async (ctx) => {
      const view = await initView(ctx, 'wait-control-plane');
      await waitControlPlanePhase.run?.(view);
    },
  };
}
