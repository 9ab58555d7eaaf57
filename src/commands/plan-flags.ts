/**
 * `--plan FILE` and `--plan-without-keys` on day-two commands outside the workflows whose every
 * effect the dry-run seams record (unit files written or removed, systemd actions, snapshot files
 * removed): `certs auto-renew enable|disable`, `etcd snapshot schedule|unschedule|prune`,
 * `certs approve-kubelet-serving [enable|disable]` (one pass: its decisions as approval steps; its
 * handler refuses --plan with --watch), `etcd snapshot save` (one etcd-snapshot step: apply streams
 * the snapshot), `etcd snapshot restore` (one etcd-snapshot-restore step: apply restores, refusing
 * another snapshot's bytes), `certs renew --auto` (one certs-renew-auto step: apply renews then,
 * under the Lease), `certs rotate-ca start` (the generic plan) and `certs rotate-ca node` (one
 * certs-rotate-ca-node step: apply runs the node step then). The plan is the generic one (docs/plan.md): `--plan` implies `--dry-run`, and
 * `tsadm apply FILE` does exactly its steps later, or refuses when the machine changed since.
 */
import type { Argv } from 'yargs';
import { addFlags } from '../cli/yargs-kit.js';

export function addPlanOptions<T>(y: Argv<T>): Argv<T> {
  return addFlags(y, ['plan', 'plan-without-keys']);
}
