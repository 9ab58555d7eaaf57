/**
 * reset `remove-etcd-member`: remove this node's member from the stacked etcd cluster through
 * etcd's API (mutual TLS with the healthcheck-client identity), unless it is the last member.
 * Asked: this node's etcd first, then the members the etcd Pods advertise (kubeadm's
 * NewFromCluster, when an admin kubeconfig is at hand) — a learner left by a killed join answers no
 * membership call ("rpc not supported for learner") and one that never started answers nothing,
 * so its removal goes through the other members. Each call retries within
 * ResetConfiguration timeouts.etcdAPICall. Best effort, as in kubeadm: a failure is a warning with
 * the manual command. Dry-run: the member is looked up, not removed.
 */
import path from 'node:path';
import { DEFAULT_TIMEOUTS } from '../../config/defaults.js';
import { errorMessage } from '../../errors.js';
import { etcdTlsFromDir } from '../../etcd-client/urls.js';
import { memberByPeerURL } from '../../etcd-client/members.js';
import type { Phase } from '../../engine/phase.js';
import type { ResetCtx } from './context.js';
import { endpointsFromPods } from '../../etcd/endpoints.js';
import { adminApi, localEtcd } from './state.js';

/** Client URLs of the cluster's etcd members from the etcd Pods' annotation; none without a usable admin kubeconfig. */
async function clusterEtcdEndpoints(ctx: ResetCtx): Promise<string[]> {
  const api = await adminApi(ctx);
  if (!api) return [];
  try {
    return endpointsFromPods({ items: await api.list('Pod', 'kube-system', { labelSelector: 'component=etcd,tier=control-plane' }) });
  } catch (err) {
    ctx.log.debug(`could not list the etcd Pods: ${errorMessage(err)}`, { prefix: 'reset' });
    return [];
  }
}

export async function runRemoveEtcdMember(ctx: ResetCtx): Promise<void> {
  const local = await localEtcd(ctx);
  if (!local) {
    ctx.log.info('No etcd config found. Assuming external etcd', { prefix: 'reset' });
    ctx.log.info('Please, manually reset etcd to prevent further issues', { prefix: 'reset' });
    return;
  }
  const peerURL = local.peerURLs[0];
  try {
    const tls = await etcdTlsFromDir(ctx.host, ctx.cfg.reset.certificatesDir);
    // This member first (it knows the cluster), then whatever the member list says.
    // kubeadm's dry run does not contact etcd at all; tsadm looks the member up, but without
    // etcdAPICall's long retries (2 min by default), so a dry run on a machine whose etcd is down
    // answers at once.
    const callTimeoutMs = ctx.dryRun ? undefined : ctx.cfg.reset.timeouts?.etcdAPICallMs ?? DEFAULT_TIMEOUTS.etcdAPICallMs;
    const client = ctx.deps.etcdClient([...local.clientURLs, 'https://127.0.0.1:2379', ...(await clusterEtcdEndpoints(ctx))], tls, callTimeoutMs);
    const members = await client.sync();
    const me = (peerURL ? memberByPeerURL(members, peerURL) : undefined) ?? members.find((m) => m.name !== '' && m.name === local.name);
    if (!me) {
      ctx.log.warn(`this node's etcd member (${peerURL ?? local.name ?? 'unknown'}) is not in the etcd cluster; nothing to remove`, { prefix: 'reset' });
      return;
    }
    if (members.length === 1) {
      ctx.log.info('This is the only remaining etcd member in the etcd cluster, skip removing it', { prefix: 'etcd', verbosity: 1 });
      return;
    }
    // The etcd client has no dry-run variant (docs/decisions.md, decision 3): say what would go.
    if (ctx.dryRun) {
      ctx.log.info(`Would remove etcd member "${me.name}" (${me.peerURLs.join(',')}, id ${me.id})`, { prefix: 'reset' });
      return;
    }
    const remaining = await client.memberRemove(me.id, local.clientURLs);
    // A member that never started has no name yet (a learner left by a killed join, say).
    const label = me.name !== '' ? `"${me.name}"` : `${me.id} (never started${me.isLearner ? ', a learner' : ''})`;
    ctx.log.info(`Removed etcd member ${label} (${me.peerURLs.join(',')}); ${remaining.length} member(s) remain`, { prefix: 'reset' });
  } catch (err) {
    const certs = path.posix.join(ctx.cfg.reset.certificatesDir, 'etcd');
    ctx.log.warn(`failed to remove etcd member: ${errorMessage(err)}, please manually remove this etcd member using etcdctl `
      + `(etcdctl --cacert ${certs}/ca.crt --cert ${certs}/healthcheck-client.crt --key ${certs}/healthcheck-client.key member remove <id>)`, { prefix: 'reset' });
  }
}

export const removeEtcdMemberPhase: Phase<ResetCtx> = {
  name: 'remove-etcd-member',
  summary: 'Remove a local etcd member.',
  description: 'Remove the local etcd member of this control-plane node from the etcd cluster (not when it is the last one).',
  example: 'tsadm reset phase remove-etcd-member',
  flags: ['cert-dir', 'kubeconfig'],
  run: runRemoveEtcdMember,
};
