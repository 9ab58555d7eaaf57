import path from 'node:path';
import type { Argv } from 'yargs';
import { DEFAULT_TIMEOUTS } from '../config/defaults.js';
import { DEFAULT_ADMIN_KUBECONFIG, DEFAULT_CERT_DIR } from '../constants.js';
import { TsadmError } from '../errors.js';
import { EtcdClient } from '../etcd-client/client.js';
import { removeMember } from '../membership/remove-member.js';
import { addFlags } from '../cli/yargs-kit.js';
import type { CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';
import { SNAPSHOT_COMMAND_DESCRIPTION, snapshotCommands } from './etcd-snapshot.js';

/**
 * `tsadm etcd remove-member NODE`: remove a lost control plane's stacked etcd member (and its
 * ClusterStatus entry; its Node with --delete-node) from a healthy control plane
 * (src/membership/remove-member.ts). kubeadm has no such command: its HA guide uses etcdctl.
 */
export function registerEtcdCommand(y: Argv, env: CommandEnv): Argv {
  return y.command('etcd', 'Manage the stacked etcd members of the control planes', (e) =>
    e
      .command(
        'remove-member <node-name>',
        'Remove a lost control plane\'s etcd member from the cluster (run on a healthy control plane)',
        (c) =>
          addFlags(c.positional('node-name', { type: 'string', describe: 'The node name of the lost control plane (or the hex ID of a member that never started)' }), [
            'force@remove-member', 'delete-node', 'kubeconfig@remove-member', 'cert-dir@etcd-client', 'dry-run@remove-member', 'rootfs', 'output@etcd', 'v@short',
          ])
            .usage(
              'tsadm etcd remove-member <node-name>\n\n'
              + 'A control plane whose machine or disk is lost keeps its etcd member: the cluster still counts it, so one more '
              + 'failure can cost the quorum. Run this on a healthy control plane to remove that member, the node\'s entry in '
              + 'the kubeadm-config ClusterStatus (v1.20 clusters) and, with --delete-node, its Node. A member that still answers '
              + 'is refused: reset that machine instead (`tsadm reset` removes its own member). Safe to run again.',
            )
            .example('tsadm etcd remove-member cp2 --delete-node', 'Forget the lost control plane cp2')
            .strict(),
        async (argv) => {
          const nodeName = String(argv['node-name'] ?? '');
          if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(nodeName)) throw new TsadmError('E_USAGE', `"${nodeName}" is not a node name`, { hint: 'give the lost control plane\'s node name, as `kubectl get nodes` shows it' });
          await runCommand({ command: 'etcd remove-member', env, args: argv }, async (rt) => {
            const result = await removeMember(rt, {
              nodeName,
              kubeconfigPath: path.resolve(typeof argv.kubeconfig === 'string' ? argv.kubeconfig : DEFAULT_ADMIN_KUBECONFIG),
              certificatesDir: path.resolve(typeof argv['cert-dir'] === 'string' ? argv['cert-dir'] : DEFAULT_CERT_DIR),
              force: argv.force === true,
              deleteNode: argv['delete-node'] === true,
            }, {
              // Each membership call retried within kubeadm's default timeouts.etcdAPICall (a member
              // that joined less than 5 s ago makes etcd refuse removals for a moment).
              etcdClient: (endpoints, tls) => new EtcdClient(endpoints, { tls, callTimeoutMs: DEFAULT_TIMEOUTS.etcdAPICallMs }),
            });
            return { ...result };
          });
        },
      )
      .command('snapshot', SNAPSHOT_COMMAND_DESCRIPTION, (s) => snapshotCommands(s, env))
      .demandCommand(1, 'specify a subcommand: remove-member, snapshot')
      .strict(),
  );
}
