import type { Argv } from 'yargs';
import type { FlagName } from '../flags.js';
import { addFlags, flagValuesFrom } from '../cli/yargs-kit.js';
import { openKubeApi } from '../kube/open.js';
import { kubeconfigFilesOn } from '../kube/seam.js';
import { DEFAULT_RETRY, NO_RETRY } from '../kube/retry.js';
import { applyPlan } from '../plan/apply.js';
import { runRenewAuto } from '../certs-lifecycle/auto-run.js';
import { readRotationKey, runNode } from '../certs-lifecycle/rotate-ca/run.js';
import { restoreOnMachine } from '../etcd-snapshot/runner.js';
import { readPlanFile } from '../plan/file.js';
import { applyRoot } from '../plan/trust.js';
import { TsadmError } from '../errors.js';
import type { CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';

const FLAGS: readonly FlagName[] = ['rootfs', 'dry-run', 'output', 'v'];

/**
 * `tsadm apply <plan>`: carries out a plan made by `--dry-run --plan`, exactly: the same bytes
 * and modes, the same objects, the same service actions, in the same order; refuses if what the
 * plan was made against has changed. `--dry-run` only runs the checks.
 */
export function registerApplyCommand(y: Argv, env: CommandEnv): Argv {
  return y.command(
    'apply <plan>',
    'Apply a plan made with --dry-run --plan, refusing if the machine or cluster changed since',
    (c) => addFlags(c, FLAGS)
      .positional('plan', { type: 'string', describe: 'The plan file (JSON) written by --plan' })
      .usage(
        'tsadm apply <plan>\n\n'
        + 'Carries out a plan made by `tsadm init|join|reset [phase …] --dry-run --plan <file>`: writes exactly the files it lists '
        + '(content, mode), sends exactly its API objects and runs its service actions, in order. Before changing anything it '
        + 'checks that every file the plan read or writes still has the sha256 and mode it had, and that every API object it read '
        + 'still has the same resourceVersion, and refuses naming each difference. Files and objects that already are as the plan '
        + 'leaves them count as done, so an interrupted apply can be run again.\n\n'
        + 'The plan file must be owned by root and writable by no one else (as ssh wants a key); it is applied to the root it was made '
        + 'for (--rootfs may only choose the root of a plan made without one), and its commands are only those tsadm plans (/usr/share/doc/tsadm/docs/plan.md).',
      )
      .example('tsadm init --dry-run --plan plan.json && tsadm apply plan.json', 'Review, then apply an init')
      .example('tsadm apply plan.json --dry-run', 'Only check that the plan still applies')
      .example('tsadm apply plan.json -o json', 'Apply to the root the plan was made for, with JSON events')
      .strict(),
    async (argv) => {
      const flags = flagValuesFrom(argv, FLAGS);
      // The plan is read (and its owner, mode and steps checked) first: it names the root it is applied to.
      const file = String(argv.plan);
      const plan = await readPlanFile(file);
      const root = applyRoot(plan.rootfs, typeof flags.rootfs === 'string' ? flags.rootfs : undefined);
      if ('problem' in root) {
        throw new TsadmError('E_USAGE', `refusing to apply ${file}: ${root.problem}`, {
          hint: 'apply a plan to the root it was made for (leave out --rootfs), or make a new plan for this root',
        });
      }
      const checkOnly = flags['dry-run'] === true;
      // The run itself is never a dry run (--dry-run only runs the checks), on the plan's root.
      const args = { ...flags, 'dry-run': false, ...(root.root !== '/' ? { rootfs: root.root } : {}) };
      await runCommand({
        command: 'apply', env, args, runtime: { lock: 'apply' },
        afterResult: (rt, data) => {
          if (data.applied === true && typeof plan.result?.joinCommand === 'string') {
            rt.log.info(`Join a worker node with:\n${plan.result.joinCommand}`, { prefix: 'apply' });
          }
        },
      }, async (rt) => {
        const host = rt.host;
        const summary = await applyPlan(plan, {
          host,
          log: rt.log,
          // Not the run's API seam: apply opens a quick and a patient client per kubeconfig, and closes them itself.
          openApi: async (kubeconfigPath, quick) => openKubeApi({
            kubeconfigText: (await host.readFile(kubeconfigPath))?.toString('utf8'), source: kubeconfigPath, files: kubeconfigFilesOn(host, kubeconfigPath),
            log: rt.log, dryRun: false, retry: quick ? NO_RETRY : DEFAULT_RETRY,
          }),
          // A planned `certs renew --auto` runs as the command does (under the Lease), for exactly the planned certificates.
          renewAuto: async (step) => {
            await runRenewAuto(rt, {
              windowSeconds: step.windowSeconds, restart: step.restart, expectDue: step.due,
              ...(step.config !== undefined ? { config: step.config } : {}), ...(step.certDir !== undefined ? { certDir: step.certDir } : {}),
              ...(step.kubeconfigDir !== undefined ? { kubeconfigDir: step.kubeconfigDir } : {}), ...(step.kubeconfig !== undefined ? { kubeconfig: step.kubeconfig } : {}),
            });
          },
          // A planned CA rotation node step runs as the command does, for the rotation and phase it was planned at.
          rotateCaNode: async (step) => {
            await runNode(rt, {
              nodeName: step.nodeName, expectRotation: { id: step.id, phase: step.rotationPhase },
              ...(step.rotationKeyFile !== undefined ? { rotationKey: await readRotationKey(step.rotationKeyFile) } : {}),
              ...(step.config !== undefined ? { config: step.config } : {}), ...(step.certDir !== undefined ? { certDir: step.certDir } : {}),
              ...(step.kubeconfigDir !== undefined ? { kubeconfigDir: step.kubeconfigDir } : {}), ...(step.kubeconfig !== undefined ? { kubeconfig: step.kubeconfig } : {}),
            });
          },
          // A planned restore runs as the command does, for exactly the snapshot the plan checked.
          restore: async (step) => {
            await restoreOnMachine(host, rt.log, {
              file: step.snapshot, certDir: step.certDir, timeoutMs: step.timeoutSeconds * 1000, expectSha256: step.sha256,
              ...(step.criSocket !== undefined ? { criSocket: step.criSocket } : {}),
            });
          },
        }, { checkOnly });
        if (summary.applied) rt.log.info(`Applied ${summary.steps} steps from ${file}`, { prefix: 'apply' });
        else rt.log.info(`The plan can be applied (${summary.steps} steps); nothing was changed (--dry-run)`, { prefix: 'apply' });
        return { plan: file, planCommand: plan.command, steps: summary.steps, applied: summary.applied, ...(summary.applied ? plan.result ?? {} : {}) };
      });
    },
  );
}
