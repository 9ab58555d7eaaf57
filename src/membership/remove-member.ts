/**
 * `tsadm etcd remove-member NODE`: take a control plane that will never come back (its disk is
 * lost, the machine is gone) out of the cluster from a healthy control plane, so that quorum
 * arithmetic counts only machines that exist: its stacked etcd member, its ClusterStatus entry
 * (v1beta2 clusters) and, with --delete-node, its Node. kubeadm leaves this to etcdctl and kubectl;
 * `tsadm reset` does the same for a machine that is still there.
 *
 * Safety: a member that answers on its client URL is alive, and is refused (reset that machine
 * instead) unless --force; a member is found by name, by the peer URL of the node's ClusterStatus
 * address, or by its hex ID (a member that never started has no name). Idempotent: a re-run after
 * the member is gone still removes the ClusterStatus entry and the Node. Dry-run: nothing is
 * removed, every step is listed.
 */
import { TsadmError, errorMessage } from '../errors.js';
import type { EtcdClient } from '../etcd-client/client.js';
import { memberIdHex, quorumOf, type EtcdMember } from '../etcd-client/members.js';
import type { EtcdTls } from '../etcd-client/transport.js';
import { etcdPeerURL, etcdTlsFromDir } from '../etcd-client/urls.js';
import { readKubeadmConfig, type ClusterStatus, type KubeadmConfig } from '../kube/kubeadm-config.js';
import { kubeadmConfigMap } from '../stored-config/render.js';
import { endpointsFromClusterStatus, endpointsFromPods } from '../etcd/endpoints.js';
import { clusterStatusWithout, kubeadmConfigWithout } from '../stored-config/cluster-status.js';
import type { Runtime } from '../run/runtime.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../constants.js';

export interface RemoveMemberOptions {
  readonly nodeName: string;
  readonly kubeconfigPath: string;
  readonly certificatesDir: string;
  /** Remove a member even though it answers. */
  readonly force: boolean;
  readonly deleteNode: boolean;
}

export interface RemoveMemberDeps {
  etcdClient(endpoints: readonly string[], tls: EtcdTls): EtcdClient;
}

export interface RemoveMemberResult {
  /** The removed (or, dry-run, to-be-removed) member; undefined when none was left. */
  readonly member?: { readonly id: string; readonly name: string; readonly peerURLs: readonly string[] };
  readonly remaining: readonly string[];
  readonly clusterStatusUpdated: boolean;
  readonly nodeDeleted: boolean;
}

/** The advertise address ClusterStatus lists for the node, if any. Pure. */
export function clusterStatusAddress(clusterStatus: ClusterStatus | undefined, nodeName: string): string | undefined {
  return clusterStatus?.apiEndpoints[nodeName]?.advertiseAddress;
}

/** The member for this node: by name, by the peer URL of its ClusterStatus address, by hex ID. Pure. */
export function findMember(members: readonly EtcdMember[], nodeName: string, address: string | undefined): EtcdMember | undefined {
  const peer = address ? etcdPeerURL(address) : undefined;
  return members.find((m) => m.name === nodeName)
    ?? (peer ? members.find((m) => m.peerURLs.includes(peer)) : undefined)
    ?? members.find((m) => memberIdHex(m.id) === nodeName.toLowerCase());
}

const LOCAL_ETCD = 'https://127.0.0.1:2379';

const label = (m: EtcdMember): string => (m.name !== '' ? `"${m.name}"` : `${memberIdHex(m.id)} (never started)`);

export async function removeMember(rt: Runtime, opts: RemoveMemberOptions, deps: RemoveMemberDeps): Promise<RemoveMemberResult> {
  const { log } = rt;
  const p = { prefix: 'remove-member' };
  const text = (await rt.host.readFile(opts.kubeconfigPath))?.toString('utf8');
  if (text === undefined) {
    throw new TsadmError('E_PRECONDITION', `no ${opts.kubeconfigPath}: this command runs on a healthy control-plane node`, { hint: 'run it on another control plane, or pass --kubeconfig with an admin kubeconfig' });
  }
  const api = await rt.api.open({ text, source: opts.kubeconfigPath }, { log });
  // The cluster's API is asked only when etcd itself does not answer the question: without an etcd
  // quorum the API serves nothing, and that is exactly when this command must still say why.
  let kubeadmConfig: Promise<KubeadmConfig | undefined> | undefined;
  const clusterConfig = (): Promise<KubeadmConfig | undefined> => (kubeadmConfig ??= readKubeadmConfig(api, { ifAbsent: 'undefined' }));

  const tls = await etcdTlsFromDir(rt.host, opts.certificatesDir);
  // This machine's etcd when it answers; else the members the etcd Pods and ClusterStatus name.
  let client = deps.etcdClient([LOCAL_ETCD], tls);
  if (!(await client.status(LOCAL_ETCD)).ok) {
    const pods = await api.list('Pod', 'kube-system', { labelSelector: 'component=etcd,tier=control-plane' }).catch(() => []);
    client = deps.etcdClient([...endpointsFromPods({ items: pods }), ...endpointsFromClusterStatus((await clusterConfig())?.clusterStatusYaml)], tls);
  }
  let members: EtcdMember[];
  try {
    members = await client.sync();
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `no etcd member answers: ${errorMessage(err)}`, {
      hint: 'run this on a healthy control plane; if the cluster has lost quorum (more than half of its control planes gone), follow "Losing more control planes than quorum allows" in /usr/share/doc/tsadm/docs/safety.md',
    });
  }
  let member = findMember(members, opts.nodeName, undefined);
  let address: string | undefined;
  let node: unknown;
  if (!member) {
    // A member that never started has no name: found through the node's ClusterStatus address.
    address = clusterStatusAddress((await clusterConfig())?.clusterStatus, opts.nodeName);
    member = findMember(members, opts.nodeName, address);
    node = await api.get('Node', opts.nodeName);
    if (!member && address === undefined && !node) {
      throw new TsadmError('E_PRECONDITION', `no etcd member, ClusterStatus entry or Node named "${opts.nodeName}"; members: ${members.map(label).sort().join(', ')}`, {
        hint: 'give the node name of the lost control plane (kubectl get nodes), or a member ID in hex for a member that never started',
      });
    }
  }

  let removed: EtcdMember | undefined;
  if (!member) {
    log.info(`No etcd member for "${opts.nodeName}" (already removed)`, p);
  } else {
    if (members.length === 1) {
      throw new TsadmError('E_PRECONDITION', `etcd member ${label(member)} is the only member of the cluster; removing it would delete the cluster's data`, { hint: 'use `tsadm reset` on that machine to tear the cluster down' });
    }
    const url = member.clientURLs[0];
    const answering = await client.answering(members);
    const alive = answering.includes(member);
    if (alive && !opts.force) {
      throw new TsadmError('E_CONFLICT', `etcd member ${label(member)} answers at ${url}: that control plane is alive`, {
        hint: 'run `tsadm reset` on that machine to take it out cleanly; pass --force only if it must go now (it stops serving as soon as it learns it was removed)',
      });
    }
    // A removal is a change etcd must commit: a majority of the voting members has to answer.
    const voting = members.filter((m) => !m.isLearner);
    const answeringVoters = answering.filter((m) => !m.isLearner);
    if (answeringVoters.length < quorumOf(voting)) {
      throw new TsadmError('E_PRECONDITION', `the etcd cluster has lost quorum: ${answeringVoters.length} of ${voting.length} members answer (${answeringVoters.map(label).join(', ') || 'none'}); no member can be removed`, {
        hint: 'bring a lost control plane back (its machine and disk), or follow "Losing more control planes than quorum allows" in /usr/share/doc/tsadm/docs/safety.md',
      });
    }
    if (rt.dryRun) {
      log.info(`Would remove etcd member ${label(member)} (${member.peerURLs.join(',')}, id ${memberIdHex(member.id)})`, p);
    } else {
      members = await client.memberRemove(member.id, url ? [url] : []);
      log.info(`Removed etcd member ${label(member)} (${member.peerURLs.join(',')}); ${members.length} member(s) remain`, p);
    }
    removed = member;
  }

  let clusterStatusUpdated = false;
  const stored = await clusterConfig();
  const status = stored?.clusterStatusYaml;
  if (stored !== undefined && status !== undefined && clusterStatusWithout(status, opts.nodeName) !== undefined) {
    const cluster = stored.clusterConfigurationYaml;
    log.info(`Removing info for node "${opts.nodeName}" from the ConfigMap "${KUBEADM_CONFIG_CM}" in the "${KUBE_SYSTEM}" Namespace`, p);
    const desired = kubeadmConfigMap(cluster, clusterStatusWithout(status, opts.nodeName) ?? status);
    await api.ensure(desired, 'update', (live) => kubeadmConfigWithout(live, desired, opts.nodeName));
    clusterStatusUpdated = true;
  }

  let nodeDeleted = false;
  node ??= await api.get('Node', opts.nodeName);
  if (opts.deleteNode && node) {
    nodeDeleted = await api.delete('Node', opts.nodeName);
    if (nodeDeleted) log.info(`Deleted Node "${opts.nodeName}"`, p);
  } else if (node) {
    log.info(`The Node "${opts.nodeName}" stays: delete it with \`kubectl delete node ${opts.nodeName}\` (or pass --delete-node)`, p);
  }
  return {
    ...(removed ? { member: { id: memberIdHex(removed.id), name: removed.name, peerURLs: removed.peerURLs } } : {}),
    // A dry run removed nothing: what would remain.
    remaining: members.filter((m) => m.id !== removed?.id).map((m) => (m.name !== '' ? m.name : memberIdHex(m.id))).sort(),
    clusterStatusUpdated,
    nodeDeleted,
  };
}

