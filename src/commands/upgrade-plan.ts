/**
 * `tsadm upgrade plan [version]` and `tsadm upgrade diff [version]`: the two upgrade commands
 * that only read (kubeadm's cmd/upgrade/plan.go and diff.go). This maps the command line; the
 * logic is in src/upgrade-plan (plan-run.ts, diff-run.ts).
 */
import { hostname as osHostname } from 'node:os';
import type { Argv, ArgumentsCamelCase } from 'yargs';
import type { FlagName } from '../flags.js';
import { addFlags, flagValuesFrom } from '../cli/yargs-kit.js';
import { resolveUpgradeConfig } from '../config/load-upgrade.js';
import type { UpgradeCommand } from '../config/types.js';
import { runUpgradeDiff } from '../upgrade-plan/diff-run.js';
import { runUpgradePlan } from '../upgrade-plan/plan-run.js';
import type { PlanFormat } from '../upgrade-plan/plan-render.js';
import { readConfigFile, type CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { TsadmError } from '../errors.js';
import { addTemplateFlags, refuseTemplateFormat } from './output-flags.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

const PLAN_FLAGS: readonly FlagName[] = ['config', 'kubeconfig', 'allow-experimental-upgrades', 'allow-release-candidate-upgrades', 'ignore-preflight-errors', 'print-config', 'rootfs', 'v'];
const DIFF_FLAGS: readonly FlagName[] = ['config', 'kubeconfig', 'api-server-manifest', 'controller-manager-manifest', 'scheduler-manifest', 'context-lines', 'rootfs', 'v'];

export function registerUpgradePlan(u: Argv, env: CommandEnv): Argv {
  return u
    .command(
      'plan [version]',
      'Check which versions are available to upgrade to and validate whether your current cluster is upgradeable. tsadm never asks the internet: without [version] it offers the newest patches it knows',
      (o) =>
        // Not the workflow --output (an event stream): kubeadm's plan printers (its PrintFlags).
        addFlags(addTemplateFlags(addFlags(o, PLAN_FLAGS)).positional('version', { type: 'string', describe: 'The version to check, e.g. v1.20.3' }), ['output@upgrade-plan', 'etcd-upgrade@upgrade-plan'])
          .strict(),
      (argv) => runPlan(argv as Args, env),
    )
    .command(
      'diff [version]',
      'Show what differences would be applied to existing static pod manifests. See also: tsadm upgrade apply --dry-run',
      (o) => addFlags(o, DIFF_FLAGS).positional('version', { type: 'string', describe: 'The version to diff against (default: the cluster\'s)' }).strict(),
      (argv) => runDiff(argv as Args, env),
    );
}

async function runPlan(argv: Args, env: CommandEnv): Promise<void> {
  const format = planFormat(typeof argv.output === 'string' ? argv.output : 'text');
  const { cfg, flags } = await resolve(argv, PLAN_FLAGS, 'plan');
  // A json/yaml document must be the only thing on stdout: progress lines go to stderr then.
  const runEnv: CommandEnv = format === 'text' ? env : { ...env, io: { ...env.io, stdout: env.io.stderr } };
  await runCommand({ env: runEnv, args: flags, eventOutput: false, runtime: { plain: true } }, async (rt) => {
    for (const w of cfg.warnings) rt.log.warn(w);
    await runUpgradePlan(rt, {
      cfg, kubeconfigPath: kubeconfig(flags.kubeconfig), format, hostname: hostname(), out: env.io.stdout,
      ...(typeof argv['etcd-upgrade'] === 'boolean' ? { etcdUpgrade: argv['etcd-upgrade'] } : {}),
    });
  });
}

async function runDiff(argv: Args, env: CommandEnv): Promise<void> {
  const { cfg, flags } = await resolve(argv, DIFF_FLAGS, 'diff');
  const manifest = (name: FlagName): string | undefined => (typeof flags[name] === 'string' ? flags[name] : undefined);
  await runCommand({ env, args: flags, eventOutput: false, runtime: { plain: true } }, async (rt) => {
    for (const w of cfg.warnings) rt.log.warn(w);
    await runUpgradeDiff(rt, {
      cfg,
      kubeconfigPath: kubeconfig(flags.kubeconfig),
      hostname: hostname(),
      manifests: {
        ...(manifest('api-server-manifest') ? { 'kube-apiserver': manifest('api-server-manifest') } : {}),
        ...(manifest('controller-manager-manifest') ? { 'kube-controller-manager': manifest('controller-manager-manifest') } : {}),
        ...(manifest('scheduler-manifest') ? { 'kube-scheduler': manifest('scheduler-manifest') } : {}),
      },
      out: env.io.stdout,
    });
  });
}

async function resolve(argv: Args, names: readonly FlagName[], command: UpgradeCommand): Promise<{ cfg: ReturnType<typeof resolveUpgradeConfig>; flags: ReturnType<typeof flagValuesFrom> }> {
  const flags = flagValuesFrom(argv, names);
  const configPath = typeof flags.config === 'string' ? flags.config : undefined;
  const configText = await readConfigFile(configPath);
  const version = typeof argv.version === 'string' ? argv.version : undefined;
  const cfg = resolveUpgradeConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(configPath !== undefined ? { configPath } : {}),
    flags,
    ...(version !== undefined ? { version } : {}),
  }, command);
  return { cfg, flags };
}

function kubeconfig(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : DEFAULT_ADMIN_KUBECONFIG;
}

function hostname(): string {
  return osHostname().trim().toLowerCase();
}

const PLAN_FORMATS: readonly PlanFormat[] = ['text', 'json', 'yaml', 'kyaml'];

/** kubeadm's PrintFlags for `upgrade plan -o`: text, json, yaml, kyaml; the template printers are refused by name. */
function planFormat(output: string): PlanFormat {
  refuseTemplateFormat(output);
  if (!(PLAN_FORMATS as readonly string[]).includes(output)) {
    throw new TsadmError('E_USAGE', `unable to match a printer suitable for the output format "${output}", allowed formats are: ${PLAN_FORMATS.join(',')}`, { hint: `use -o ${PLAN_FORMATS.join('|')}` });
  }
  return output as PlanFormat;
}
