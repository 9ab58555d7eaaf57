import path from 'node:path';
import { loadYaml } from '../../yaml/read.js';
import { toKubeYaml } from '../../yaml/write.js';
import { KUBECONFIG_FILES, KUBELET_DIR, MODES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';

/**
 * kubelet-finalize: once the kubelet has its own rotating client certificate, kubelet.conf is
 * pointed at kubelet-client-current.pem (instead of the embedded init-time certificate) and the
 * kubelet is restarted. Idempotent: an already-pointed kubelet.conf is left alone, no restart.
 */
export interface RewriteResult {
  readonly text: string;
  readonly changed: boolean;
}

/** Pure: the kubeconfig with user `system:node:<name>` using the PEM file for both cert and key. */
export function pointAtRotatingCert(kubeconfigText: string, nodeName: string, pemPath: string, kubeconfigPath: string): RewriteResult {
  const doc = loadYaml(kubeconfigText) as { users?: Array<{ name: string; user?: Record<string, unknown> }> } | undefined;
  const userName = `system:node:${nodeName}`;
  const entry = doc?.users?.find((u) => u.name === userName);
  if (!doc || !entry) {
    throw new TsadmError('E_PRECONDITION', `the file "${kubeconfigPath}" does not contain authentication for user "${nodeName}"`, {
      hint: 'kubelet.conf was not written by tsadm/kubeadm for this node name; regenerate it with `tsadm init phase kubeconfig kubelet`',
    });
  }
  const user = entry.user ?? {};
  if (user['client-certificate'] === pemPath && user['client-key'] === pemPath && !user['client-certificate-data'] && !user['client-key-data']) {
    return { text: kubeconfigText, changed: false };
  }
  const { 'client-certificate-data': _c, 'client-key-data': _k, ...rest } = user;
  entry.user = { ...rest, 'client-certificate': pemPath, 'client-key': pemPath };
  return { text: toKubeYaml(doc), changed: true };
}

async function runCertRotation(ctx: InitCtx): Promise<void> {
  const certDir = ctx.cfg.init.nodeRegistration.kubeletExtraArgs.find((a) => a.name === 'cert-dir')?.value;
  const pemPath = path.posix.join(certDir ?? path.posix.join(KUBELET_DIR, 'pki'), 'kubelet-client-current.pem');
  if (!(await ctx.host.stat(pemPath))?.isFile) {
    ctx.log.debug(`Assuming that kubelet client certificate rotation is disabled: ${pemPath} does not exist`, { prefix: 'kubelet-finalize' });
    return;
  }
  ctx.log.debug(`Assuming that kubelet client certificate rotation is enabled: found "${pemPath}"`, { prefix: 'kubelet-finalize' });
  const kubeconfigPath = path.posix.join(ctx.options.kubeconfigDir, KUBECONFIG_FILES.kubelet);
  const text = await ctx.host.readFile(kubeconfigPath);
  if (!text) {
    throw new TsadmError('E_PRECONDITION', `could not load "${kubeconfigPath}": no such file`, { hint: 'run `tsadm init phase kubeconfig kubelet` first' });
  }
  const result = pointAtRotatingCert(text.toString('utf8'), ctx.cfg.init.nodeRegistration.name, pemPath, kubeconfigPath);
  if (!result.changed) {
    ctx.log.debug(`"${kubeconfigPath}" already points to ${pemPath}`, { prefix: 'kubelet-finalize' });
    return;
  }
  ctx.log.info(`Updating "${kubeconfigPath}" to point to a rotatable kubelet client certificate and key`, { prefix: 'kubelet-finalize' });
  await ctx.host.writeFile(kubeconfigPath, result.text, { mode: MODES.kubeconfig, kind: 'kubeconfig', description: 'kubelet kubeconfig' });
  const restart = await ctx.host.service('restart', 'kubelet');
  if (!restart.ok) ctx.log.warn(`unable to restart the kubelet service momentarily: ${restart.message ?? restart.via}`, { prefix: 'kubelet-finalize' });
}

type FinalizeName = VersionProfile['kubelet']['finalizePhase'];
const FINALIZE_NAMES: readonly FinalizeName[] = ['experimental-cert-rotation', 'enable-client-cert-rotation'];

/**
 * The child was renamed in 1.31 (experimental-cert-rotation → enable-client-cert-rotation):
 * named as the target minor names it, with the other spelling as an alias so either works.
 */
export function kubeletFinalizePhaseFor(versions: Pick<VersionProfile, 'kubelet'>): Phase<InitCtx> {
  const name = versions.kubelet.finalizePhase;
  return {
    name: 'kubelet-finalize',
    summary: 'Updates settings relevant to the kubelet after TLS bootstrap',
    description: 'Update the settings of the kubelet that depend on its TLS bootstrap having happened.',
    example: '  # Updates settings relevant to the kubelet after TLS bootstrap\n  tsadm init phase kubelet-finalize all --config',
    children: [
      {
        name,
        aliases: FINALIZE_NAMES.filter((n) => n !== name),
        summary: 'Enable kubelet client certificate rotation',
        description: 'Point kubelet.conf at the rotating client certificate /var/lib/kubelet/pki/kubelet-client-current.pem '
          + 'instead of the embedded one, so the kubelet renews its own client certificate.',
        example: `  # Enables client certificate rotation of the kubelet.\n  tsadm init phase kubelet-finalize ${name} --config config.yaml`,
        flags: ['config', 'cert-dir'],
        run: runCertRotation,
      },
    ],
  };
}

