import type { Argv } from 'yargs';
import type { FlagName } from '../flags.js';
import { addFlags, flagValuesFrom } from '../cli/yargs-kit.js';
import { verifyPhases, type PhaseFinding } from '../verify/run.js';
import { TsadmError } from '../errors.js';
import { flagsOfTree } from '../engine/phase.js';
import { buildInitContext, initPhases } from '../workflows/init.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../versions/resolve.js';
import type { CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';

/**
 * `tsadm check [phase…]`: the exit checks of init's phases on this node (or a root folder with
 * --rootfs), like the exit criteria of each stage of a deployment: certificates (chain, SANs,
 * keys, expiry), kubeconfigs, kubelet files, static pod manifests (and their pods answering),
 * API objects (when the cluster answers). Exit status 1 when a check fails.
 */
export function registerCheckCommand(y: Argv, env: CommandEnv): Argv {
  const flags: FlagName[] = [
    ...new Set<FlagName>(['config', 'rootfs', 'v', 'output', 'kubeconfig', 'kubeconfig-dir', 'upload-certs', ...flagsOfTree(initPhases(profileFor(DEFAULT_KUBERNETES_VERSION)))]),
  ].filter((f) => !['dry-run', 'plan', 'plan-without-keys', 'skip-phases', 'ignore-preflight-errors', 'csr-only', 'csr-dir', 'skip-token-print', 'skip-certificate-key-print', 'swap-off', 'restart-container-runtime', 'override-host-settings'].includes(f));
  return y.command(
    'check [phases..]',
    'Check that the result of each init phase is in place (certificates, kubeconfigs, manifests and pods, API objects)',
    (c) => addFlags(c, flags)
      .positional('phases', { type: 'string', array: true, describe: 'Phases to check, e.g. "certs", "certs/apiserver", "control-plane" (default: all)' })
      .usage(
        'tsadm check [phase…]\n\n'
        + 'Runs the exit check of each selected init phase against this node, or a root folder with --rootfs, and reports '
        + 'every finding. Certificates: present, key matches, chained to their CA, subject, usages and SANs as this '
        + 'configuration asks, valid now (warning 30 days before expiry). Other phases: running the phase again would change '
        + 'nothing (kubeconfigs, kubelet files, static pod manifests, API objects); static pods and the kubelet also answer '
        + 'on their health endpoints. Pass the same --config (or flags) as init so the expected SANs and objects match.',
      )
      .example('tsadm check', 'Check everything init made on this node')
      .example('tsadm check certs --rootfs /mnt/node', 'Check the certificates in a root folder')
      .example('tsadm check control-plane etcd -o json', 'Check the static pods, as JSON events')
      .example('tsadm check host', 'Check the host prerequisites (modules, sysctls, swap, CRI, kubelet unit, crictl), with the preflight checks\' names')
      .strict(),
    async (argv) => {
      const values = flagValuesFrom(argv, flags);
      let checks: PhaseFinding[] = [];
      await runCommand({ command: 'check', env, args: values, failureData: () => ({ checks }) }, async (rt) => {
        const ctx = await buildInitContext(values, rt);
        const named = (argv.phases ?? []).map(String);
        // The host phases are opt-in in init, so they are checked only when named (`tsadm check host`).
        const filter = named.length > 0 ? named : initPhases(ctx.versions).map((p) => p.name).filter((n) => n !== 'host');
        checks = await verifyPhases(initPhases(ctx.versions), ctx, filter, rt.log);
        const failed = checks.filter((c) => !c.ok);
        const warned = checks.filter((c) => c.ok && c.warning);
        rt.log.info(`${checks.length - failed.length - warned.length} ok, ${warned.length} warnings, ${failed.length} failed`, { prefix: 'check' });
        if (failed.length > 0) {
          throw new TsadmError('E_PRECONDITION', `${failed.length} check${failed.length > 1 ? 's' : ''} failed (first: ${failed[0]!.phase} ${failed[0]!.check}: ${failed[0]!.detail ?? ''})`, {
            details: failed.map((f) => `${f.phase}  ${f.check}: ${f.detail ?? ''}`),
            hint: 'run the failing phases again (tsadm init phase <phase>) or fix what they name',
          });
        }
        return { checks };
      });
    },
  );
}
