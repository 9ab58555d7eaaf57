/**
 * A joining control plane's stacked etcd member: kubeadm's CreateStackedEtcdStaticPodManifestFile
 * (phases/etcd/local.go). Add this node's member — as a learner when EtcdLearnerMode is on for the
 * target minor — write the etcd static Pod with --initial-cluster-state=existing (the kubelet starts
 * it), promote the learner once etcd says it has caught up with the leader, then wait until every
 * member answers.
 *
 * Crash safety: the member is found by its peer URL before anything is added, so a re-run after a
 * join killed between add and promote finds it (still a learner, maybe never started), writes the
 * manifest again and promotes it; a learner found for this node is promoted whatever the gate says
 * now, so no learner is left behind. Dry-run: nothing is added, promoted or waited for.
 */
import { formatDuration } from '../../duration.js';
import { featureEnabled } from '../../config/feature-gates.js';
import type { EtcdClient } from '../../etcd-client/client.js';
import { initialClusterFor, memberByPeerURL, memberIdHex, type EtcdMember } from '../../etcd-client/members.js';
import { errorMessage } from '../../errors.js';
import { isLearnerNotReady } from '../../etcd-client/retry.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { etcdCall } from '../../etcd/endpoints.js';

/**
 * Whether a joining member starts as a learner: the EtcdLearnerMode gate at the target minor
 * (versions table: alpha off in 1.27, beta on in 1.29, GA locked on in 1.32, removed — always on —
 * from 1.33; no gate, so a plain member add, before 1.27).
 */
export function learnerModeEnabled(featureGates: Readonly<Record<string, boolean>>, versions: VersionProfile): boolean {
  return featureEnabled(featureGates, versions, 'EtcdLearnerMode');
}

interface JoinLog {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

export interface EtcdMemberJoin {
  /** Synced to the cluster's members. */
  readonly client: EtcdClient;
  readonly nodeName: string;
  readonly peerURL: string;
  /** This member's client URL (added to the endpoints the final health check asks). */
  readonly clientURL: string;
  readonly learner: boolean;
  readonly dryRun: boolean;
  readonly log: JoinLog;
  /** kubeadm waits `retries` × `intervalMs` for the cluster once the member is in. */
  readonly health: { readonly retries: number; readonly intervalMs: number };
  /** How long the client retries a member add (timeouts.etcdAPICall), for messages. */
  readonly addWaitMs: number;
  /** Runs before a member is added (not when it is already there, nor in a dry run). */
  beforeAdd?(): Promise<void>;
  /** Writes the etcd static Pod manifest with this --initial-cluster (name=peerURL per member). */
  writeManifest(initialCluster: ReadonlyArray<{ name: string; peerURL: string }>): Promise<void>;
}

export async function joinEtcdMember(j: EtcdMemberJoin): Promise<void> {
  const { client, log, peerURL, nodeName } = j;
  let members: readonly EtcdMember[] = await etcdCall(() => client.memberList(), 'list the etcd members');
  let mine = memberByPeerURL(members, peerURL);
  if (mine) {
    log.info(`etcd member ${peerURL} is already part of the cluster${mine.isLearner ? ' as a learner; it is promoted once it has caught up' : ''}; not adding it again`);
  } else if (j.dryRun) {
    log.info(`Would add etcd member${j.learner ? ' as a learner' : ''}: ${peerURL}`);
    members = [...members, { id: '0', name: nodeName, peerURLs: [peerURL], clientURLs: [], isLearner: j.learner }];
  } else {
    await j.beforeAdd?.();
    const absent = await absentVotingMembers(client, members);
    for (const line of absentMemberNotes(absent, j.addWaitMs)) log.warn(line);
    log.debug(`Adding etcd member${j.learner ? ' as learner' : ''}: ${peerURL}`);
    const added = await etcdCall(() => client.memberAdd(peerURL, { learner: j.learner }), `add the etcd member ${peerURL}${j.learner ? ' as a learner' : ''}`,
      absent.some((m) => m.name !== '') ? `a lost control plane's member blocks every member add: run \`tsadm etcd remove-member ${absent.find((m) => m.name !== '')?.name ?? ''}\` on a healthy control plane (or start that machine again), then run this join again` : undefined);
    members = added.members;
    mine = memberByPeerURL(members, peerURL) ?? added.added;
    log.info('Announced new etcd member joining to the existing etcd cluster');
  }
  const initialCluster = initialClusterFor(members, peerURL, nodeName);
  log.debug(`Updated etcd member list: ${initialCluster.map((m) => `${m.name}=${m.peerURL}`).join(',')}`);
  log.info('Creating static Pod manifest for "etcd"');
  await j.writeManifest(initialCluster);
  if (j.dryRun) {
    log.info(j.learner ? 'Would promote the new etcd member once it has caught up, and wait for it to join the cluster' : 'Would wait for the new etcd member to join the cluster');
    return;
  }
  if (mine?.isLearner) await promote(j, mine.id);
  const { retries, intervalMs } = j.health;
  // The members as they are now: one that was removed while this join waited (a lost control
  // plane) must not be waited for.
  await etcdCall(() => client.sync(), 'list the etcd members');
  client.addEndpoint(j.clientURL);
  log.info(`Waiting for the new etcd member to join the cluster. This can take up to ${formatDuration(retries * intervalMs)}`);
  await etcdCall(() => client.waitForClusterAvailable(retries, intervalMs, (statuses, attempt) => {
    const pending = statuses.filter((s) => !s.ok).map((s) => s.endpoint).join(', ');
    log.debug(`[${attempt}/${retries}] etcd cluster not available yet${pending ? ` (${pending})` : ''}`);
  }), 'wait for the etcd cluster to be available');
}

/** Voting members that do not answer on their client URL (or have not started: no client URL yet). */
async function absentVotingMembers(client: EtcdClient, members: readonly EtcdMember[]): Promise<EtcdMember[]> {
  const voting = members.filter((m) => !m.isLearner);
  const answering = await client.answering(voting);
  return voting.filter((m) => !answering.includes(m));
}

/**
 * Why a member add is about to wait. etcd adds a member (voter or learner) only while the member
 * asked is connected to every voting member (its strict reconfiguration check, on by default and in
 * kubeadm's etcd): one control plane that is down blocks every control-plane join until it returns
 * or is removed. A member that never started is another control plane joining right now. Pure.
 */
function absentMemberNotes(absent: readonly EtcdMember[], waitMs: number): string[] {
  return absent.map((m) => (m.name === ''
    ? `etcd member ${memberIdHex(m.id)} (${m.peerURLs.join(',')}) has not started yet (another control plane is joining): etcd accepts this member once it is up; waiting up to ${formatDuration(waitMs)}`
    : `etcd member "${m.name}" (${m.clientURLs.join(',') || m.peerURLs.join(',')}) does not answer: etcd adds no member while a voting member is unreachable; `
      + `waiting up to ${formatDuration(waitMs)} for it to return. If that control plane is lost for good, run \`tsadm etcd remove-member ${m.name}\` on a healthy control plane`));
}

/** kubeadm's MemberPromote: retried while etcd answers that the learner is not in sync yet, within timeouts.etcdAPICall. */
async function promote(j: EtcdMemberJoin, id: string): Promise<void> {
  const hex = memberIdHex(id);
  j.log.debug(`Promoting a learner as a voting member: ${hex}`);
  const { promoted } = await etcdCall(
    () => j.client.memberPromote(id, (err) => j.log.debug(isLearnerNotReady(err)
      ? `Promoting the learner ${hex} failed: not in sync with the leader yet; trying again`
      : `Promoting the learner ${hex} failed: ${errorMessage(err)}`)),
    `promote the etcd learner ${hex} (${j.peerURL}) to a voting member`,
    'the new member did not catch up with the leader within timeouts.etcdAPICall: check this node\'s etcd container (crictl ps -a; crictl logs); '
      + 'running the join again promotes the learner, `tsadm reset` removes it (a learner holds no vote meanwhile)',
  );
  j.log.debug(promoted ? `The learner was promoted as a voting member: ${hex}` : `Member ${hex} already promoted.`);
}
