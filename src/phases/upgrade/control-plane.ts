/**
 * `upgrade apply|node phase control-plane`: the static Pod control plane of this node, component
 * by component (the local etcd member first, with --etcd-upgrade, then kube-apiserver,
 * kube-controller-manager, kube-scheduler): back up the manifest, renew the component's
 * certificates, write the new manifest, wait until the kubelet runs it and it is healthy, and
 * roll back on failure (src/phases/upgrade/static-pod-upgrade.ts). A node without a
 * kube-apiserver manifest is a worker: nothing to do.
 *
 * Idempotency: the manifests are rendered by init's code for the target version and compared,
 * decoded, with the ones on disk (src/manifest/equal.ts, as kubeadm 1.28+); equal ones are left
 * alone (no backup, no renewal), so a second run at the target version changes nothing.
 */
import { MANIFESTS_DIR } from '../../constants.js';
import type { Phase } from '../../engine/phase.js';
import { checkRunning } from '../../verify/health.js';
import { wouldChange } from '../../verify/would-change.js';
import type { UpgradeCtx } from './context.js';
import { upgradeEtcd } from './etcd-upgrade.js';
import { renewCertificates } from './renew-certs.js';
import { clusterView, initView, newUpgradeRunState } from './state.js';
import { CONTROL_PLANE_COMPONENTS } from './static-pod-plan.js';
import { componentHealthTarget, newStaticPodRun, rollback, upgradeComponent } from './static-pod-upgrade.js';
import { renderTargetManifest } from './target-manifests.js';

async function runUpgradeControlPlane(ctx: UpgradeCtx): Promise<void> {
  if (!(await clusterView(ctx)).controlPlane) {
    ctx.log.info('Skipping phase. Not a control plane node.', { prefix: 'upgrade' });
    return;
  }
  const view = await initView(ctx, 'upgrade/staticpods');
  const run = newStaticPodRun(ctx, view, view.log);
  const version = view.cfg.cluster.kubernetesVersion;
  ctx.log.info(ctx.command === 'apply'
    ? `Upgrading your Static Pod-hosted control plane to version "${version}"...`
    : `Upgrading your Static Pod-hosted control plane instance to version "${version}"...`, { prefix: ctx.command === 'apply' ? 'upgrade/apply' : 'upgrade' });

  // kubeadm's dry run (DryRunStaticPodUpgrade) leaves etcd alone and only shows the new manifests.
  if (ctx.cfg.upgrade.etcdUpgrade && !ctx.dryRun) await upgradeEtcd(run);

  // kubeadm renders all three before changing any, so a rendering problem changes nothing.
  const manifests = [];
  for (const c of CONTROL_PLANE_COMPONENTS) manifests.push({ component: c, text: (await renderTargetManifest(view, c)).text });
  view.log.info(ctx.dryRun ? `Would write the new Static Pod manifests to "${MANIFESTS_DIR}"` : `Writing new Static Pod manifests to "${MANIFESTS_DIR}"`);
  for (const m of manifests) await upgradeComponent(run, m.component, m.text);

  // kubeadm renews admin.conf's certificate at the end; only when this run changed something, so
  // that running the upgrade again at the target version changes nothing.
  if (ctx.cfg.upgrade.certificateRenewal && !ctx.dryRun && run.changed.size > 0) {
    try {
      await renewCertificates(view, ['admin.conf'], view.log, false);
    } catch (err) {
      await rollback(run, 'admin.conf', 'failed to upgrade the admin.conf certificates', err);
    }
  }
  if (ctx.command === 'node') ctx.log.info('The control plane instance for this node was successfully updated!', { prefix: 'upgrade' });
}

export const upgradeControlPlanePhase: Phase<UpgradeCtx> = {
  name: 'control-plane',
  summary: 'Upgrade the control plane',
  description: 'Upgrade the static Pods of this control-plane node to the target version: the local etcd member (with --etcd-upgrade), '
    + 'then kube-apiserver, kube-controller-manager and kube-scheduler. Each changed manifest is backed up to '
    + '/etc/kubernetes/tmp/kubeadm-backup-manifests-<time>, its certificates are renewed (unless --certificate-renewal=false), '
    + 'and tsadm waits until the kubelet runs it and it is healthy; a component that does not come back is rolled back. '
    + 'Identical manifests are left alone. On a worker node nothing is done.',
  flags: ['kubeconfig', 'certificate-renewal', 'etcd-upgrade', 'patches'],
  run: runUpgradeControlPlane,
  // Done when running it again would change nothing (the manifests are the target's) and each component answers.
  verify: async (ctx, self) => {
    // A fresh run state: the views of this run are bound to its real host, the probe needs its own.
    const findings = [...(await wouldChange(self.path, self.phase, { ...ctx, state: { ...newUpgradeRunState(), ...(ctx.state.cluster ? { cluster: ctx.state.cluster } : {}) } }))];
    if (!(await clusterView(ctx)).controlPlane) return findings;
    const view = await initView(ctx, 'upgrade/staticpods');
    for (const c of CONTROL_PLANE_COMPONENTS) findings.push(...(await checkRunning(ctx, componentHealthTarget(view, c))));
    return findings;
  },
};
