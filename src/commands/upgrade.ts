import type { Argv } from 'yargs';
import { registerWorkflow } from '../cli/yargs-kit.js';
import { upgradeApplyWorkflow, upgradeNodeWorkflow } from '../workflows/upgrade.js';
import { registerUpgradePlan } from './upgrade-plan.js';
import type { CommandEnv } from '../run/runtime.js';

/**
 * `tsadm upgrade`: kubeadm's upgrade commands. `apply` and `node` are phase workflows (generated
 * from their trees like init and join); `plan` and `diff` only read.
 */
export function registerUpgradeCommand(y: Argv, env: CommandEnv): Argv {
  const wrap = async (fn: () => Promise<void>): Promise<void> => fn();
  return y.command('upgrade', 'Upgrade your cluster smoothly to a newer version with this command', (u) => {
    registerWorkflow(u, upgradeApplyWorkflow(env), wrap);
    registerWorkflow(u, upgradeNodeWorkflow(env), wrap);
    registerUpgradePlan(u, env);
    return u.demandCommand(1, 'specify an upgrade command: apply, diff, node, plan').strict();
  });
}
