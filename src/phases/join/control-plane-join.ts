/**
 * `control-plane-join` (join --control-plane, after kubelet-start): etcd (announce this member
 * through etcd's API — as a learner under EtcdLearnerMode — then write its static pod with
 * --initial-cluster-state=existing, promote the learner and wait for the cluster — kubeadm's
 * order, so the member starts right after it is added; see etcd-member-join.ts),
 * update-status (ClusterStatus, v1beta2 clusters), mark-control-plane (labels and taints).
 * Idempotency: a member already announced is not added again; objects are compared first.
 * Dry-run: no member is added and nothing is waited for; the manifest and API writes are listed.
 */
import { formatDuration } from '../../duration.js';
import { MODES } from '../../constants.js';
import type { EndpointStatus } from '../../etcd-client/client.js';
import { memberIdHex, quorumOf, type EtcdMember } from '../../etcd-client/members.js';
import { etcdClientURL, etcdPeerURL } from '../../etcd-client/urls.js';
import { staticPodConfigFromInit } from '../../manifest/inputs.js';
import { patchedManifest, writeManifest } from '../../manifest/write.js';
import type { Phase } from '../../engine/phase.js';
import type { JoinCtx } from './context.js';
import { markControlPlane, markControlPlaneInput } from '../cluster/mark-control-plane.js';
import { uploadKubeadmConfig } from '../cluster/upload-config.js';
import { renderEtcdPod } from '../../manifest/etcd.js';
import { TsadmError } from '../../errors.js';
import type { NodeObject } from '../../kube/types.js';
import { etcdCall } from '../../etcd/endpoints.js';
import { etcdClientForCluster } from './etcd-endpoints.js';
import { joinEtcdMember, learnerModeEnabled } from './etcd-member-join.js';
import { kubeletLocalMode } from './gates.js';
import { DISCOVERY_FLAGS } from './flags.js';
import { adminApi, clusterConfig, initView } from './state.js';

const notControlPlane = (ctx: JoinCtx): string | undefined => (ctx.cfg.join.controlPlane ? undefined : 'not a control-plane join (--control-plane is not set)');

async function externalEtcd(ctx: JoinCtx): Promise<string | undefined> {
  if (!ctx.cfg.join.controlPlane) return undefined;
  const cluster = await clusterConfig(ctx);
  return cluster.init.cluster.etcd.mode === 'external' ? 'using external etcd - no local stacked instance added' : undefined;
}

/** join's etcd step: the body is joinEtcdMember (etcd-member-join.ts); this wires it to the node's config, host and cluster. */
async function runEtcdJoin(ctx: JoinCtx): Promise<void> {
  const view = await initView(ctx, 'etcd');
  const { cluster, init } = view.cfg;
  if (cluster.etcd.mode !== 'local') return;
  const nodeName = init.nodeRegistration.name;
  const advertise = init.localAPIEndpoint.advertiseAddress;
  await ctx.host.mkdir(cluster.etcd.dataDir, MODES.etcdDataDir);
  // The etcd client has no dry-run variant (docs/decisions.md, decision 3): a dry run neither waits
  // for this node's kubelet nor adds the member; it plans with the member it would add.
  await joinEtcdMember({
    client: await etcdClientForCluster(ctx),
    nodeName,
    peerURL: etcdPeerURL(advertise),
    clientURL: etcdClientURL(advertise),
    learner: learnerModeEnabled(cluster.featureGates, view.versions),
    dryRun: ctx.dryRun,
    log: view.log,
    health: ctx.deps.etcdHealthChecks,
    addWaitMs: ctx.cfg.join.timeouts.etcdAPICallMs,
    ...(view.versions.controlPlane.etcdEphemeralStorage ? { beforeAdd: () => waitForEphemeralStorage(ctx, nodeName) } : {}),
    async writeManifest(initialCluster) {
      const pod = renderEtcdPod(staticPodConfigFromInit(view.cfg), view.versions, { initialCluster });
      const manifest = await patchedManifest(view, 'etcd', pod, init.patches?.directory, view.versions);
      await writeManifest(view, 'etcd', manifest);
    },
  });
}

/**
 * The etcd pod requests ephemeral-storage (1.20–1.2x). A kubelet that has just started does not
 * know its node's ephemeral-storage yet and rejects such a static pod for good
 * (UnexpectedAdmissionError); since the member is announced before the pod starts, a rejected pod
 * would leave the cluster without quorum. So the member is added only once the Node reports it.
 */
async function waitForEphemeralStorage(ctx: JoinCtx, nodeName: string, timeoutMs = 120_000): Promise<void> {
  const api = await adminApi(ctx);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const node = await api.get<NodeObject>('Node', nodeName).catch(() => undefined);
    const allocatable = (node?.status as { allocatable?: Record<string, string> } | undefined)?.allocatable?.['ephemeral-storage'];
    if (allocatable !== undefined && allocatable !== '0') return;
    if (Date.now() >= deadline) {
      throw new TsadmError('E_TIMEOUT', `the kubelet did not report the ephemeral-storage of Node "${nodeName}" within ${formatDuration(timeoutMs)}; the etcd member was not added`, {
        hint: 'the etcd static pod requests ephemeral-storage, which the kubelet admits only once it knows the node\'s storage; check the kubelet log',
      });
    }
    ctx.log.debug(`waiting for Node "${nodeName}" to report its ephemeral-storage before adding the etcd member`, { prefix: 'etcd' });
    await ctx.deps.sleep(1000);
  }
}

/**
 * kubeadm's check-etcd refuses a join unless every member answers. tsadm goes on when a quorum of
 * the voting members answers and agrees on a leader, warning about each one that does not: a
 * control plane that is down (its member blocks etcd's member add until it returns or is removed;
 * the member add then waits for that, saying so) or one joining at this moment (no client URL yet).
 * Without a quorum nothing can be added: refused, as kubeadm does.
 */
async function runCheckEtcd(ctx: JoinCtx): Promise<void> {
  ctx.log.info('Checking that the etcd cluster is healthy', { prefix: 'check-etcd' });
  const client = await etcdClientForCluster(ctx);
  const { healthy, statuses } = await client.clusterHealth();
  if (healthy) return;
  const verdict = etcdJoinVerdict(await etcdCall(() => client.memberList(), 'list the etcd members'), statuses);
  for (const w of verdict.warnings) ctx.log.warn(w, { prefix: 'check-etcd' });
  if (!verdict.ok) {
    const bad = statuses.map((s) => `${s.endpoint}: ${s.ok ? `leader ${s.leader ?? 'unknown'}` : s.error ?? 'unhealthy'}`).join('; ');
    throw new TsadmError('E_PRECONDITION', `etcd cluster is not healthy: ${bad}`, {
      hint: 'a new member must not be added to an etcd cluster without a quorum of healthy members; fix the existing members first',
    });
  }
}

/** Whether a join may go on: a quorum of the voting members answers and agrees on a leader; a warning per absent member. Pure. */
export function etcdJoinVerdict(members: readonly EtcdMember[], statuses: readonly EndpointStatus[]): { ok: boolean; warnings: string[] } {
  const voting = members.filter((m) => !m.isLearner);
  const answering = statuses.filter((s) => s.ok && s.leader !== undefined && s.leader !== '0');
  const leaders = new Set(answering.map((s) => s.leader));
  if (leaders.size !== 1 || answering.length < quorumOf(voting)) return { ok: false, warnings: [] };
  const up = new Set(answering.map((s) => s.endpoint));
  const warnings = voting.filter((v) => !v.clientURLs.some((u) => up.has(u))).map((m) => (m.name === ''
    ? `etcd member ${memberIdHex(m.id)} (${m.peerURLs.join(',')}) has not started yet: another control plane is joining; this join goes on`
    : `etcd member "${m.name}" (${m.clientURLs.join(',')}) does not answer; ${answering.length} of ${voting.length} members do, so this join goes on, `
      + `but etcd adds this node's member only once "${m.name}" is back or removed (\`tsadm etcd remove-member ${m.name}\` on a healthy control plane)`));
  return { ok: true, warnings };
}

export const checkEtcdPhase: Phase<JoinCtx> = {
  name: 'check-etcd',
  summary: 'Check that the local etcd cluster is healthy before adding a member',
  hidden: true,
  skipIf: async (ctx) => notControlPlane(ctx) ?? (await externalEtcd(ctx)),
  run: runCheckEtcd,
};

/**
 * `etcd-join` (1.31+): with ControlPlaneKubeletLocalMode on, the stacked etcd member is added here,
 * after kubelet-start and before kubelet-wait-bootstrap, instead of in control-plane-join/etcd
 * (kubeadm's controlplanejoin.go). Hidden in kubeadm 1.31–1.34; `experimental`: the 1.31–1.32
 * summary. `always` (1.35+, the gate GA, PR #134106): visible, and the way every stacked member is
 * added (a cluster older than 1.35 still decides by its gate, since join runs the newest tree).
 */
export function etcdJoinPhase(experimental: boolean, always = false): Phase<JoinCtx> {
  return {
    name: 'etcd-join',
    summary: experimental ? '[EXPERIMENTAL] Join etcd for control plane nodes (only used when feature gate ControlPlaneKubeletLocalMode is enabled)' : 'Join etcd for control plane nodes',
    description: always
      ? 'Announce this node as a new member of the stacked etcd cluster, write its etcd static Pod manifest and wait until the cluster is available (for a cluster older than v1.35, only when its ControlPlaneKubeletLocalMode feature gate is on).'
      : 'Announce this node as a new member of the stacked etcd cluster, write its etcd static Pod manifest and wait until the cluster is available; runs only when the cluster\'s ControlPlaneKubeletLocalMode feature gate is on.',
    example: 'tsadm join phase etcd-join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash> --control-plane --apiserver-advertise-address 10.0.0.11',
    positional: '[api-server-endpoint]',
    flags: [...DISCOVERY_FLAGS, 'apiserver-advertise-address', 'control-plane', 'node-name', 'patches'],
    hidden: !always,
    skipIf: async (ctx) => notControlPlane(ctx)
      ?? ((await kubeletLocalMode(ctx)) ? undefined : 'feature gate ControlPlaneKubeletLocalMode is off: control-plane-join/etcd adds the member')
      ?? (await externalEtcd(ctx)),
    run: runEtcdJoin,
  };
}

/**
 * `control-plane-join`. `etcdDeprecated` (1.35+, PR #134106): its `etcd` child is hidden and
 * deprecated in favour of `etcd-join` (it still adds the member for a cluster whose
 * ControlPlaneKubeletLocalMode gate is off, which only clusters older than 1.35 can have).
 * `updateStatusGone` (1.31+, PR #124373): kubeadm has no `update-status` any more; tsadm keeps it
 * hidden for v1beta2 clusters (v1.20), whose ClusterStatus still needs the entry.
 */
export function controlPlaneJoinPhase(etcdDeprecated: boolean, updateStatusGone: boolean): Phase<JoinCtx> {
  const [etcd, updateStatus, mark] = CONTROL_PLANE_JOIN_CHILDREN;
  return {
    ...CONTROL_PLANE_JOIN,
    children: [
      etcdDeprecated ? { ...etcd, hidden: true, summary: `${etcd.summary} (DEPRECATED: use the etcd-join phase instead)` } : etcd,
      updateStatusGone ? { ...updateStatus, hidden: true } : updateStatus,
      mark,
    ],
  };
}

const CONTROL_PLANE_JOIN: Phase<JoinCtx> = {
  name: 'control-plane-join',
  summary: 'Join a machine as a control plane instance',
  description: 'Make this machine a control-plane instance of the cluster: a new stacked etcd member, its entry in ClusterStatus (v1beta2 clusters), the control-plane label and taint. Skipped without --control-plane.',
  example: '# Joins a machine as a control plane instance\ntsadm join phase control-plane-join all 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash> --control-plane --apiserver-advertise-address 10.0.0.11',
  positional: '[api-server-endpoint]',
  skipIf: notControlPlane,
};

const CONTROL_PLANE_JOIN_CHILDREN: readonly [Phase<JoinCtx>, Phase<JoinCtx>, Phase<JoinCtx>] = [
    {
      name: 'etcd',
      summary: 'Add a new local etcd member',
      description: 'Announce this node as a new member of the stacked etcd cluster, write its etcd static Pod manifest and wait until the cluster is available.',
      example: 'tsadm join phase control-plane-join etcd 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash> --control-plane --apiserver-advertise-address 10.0.0.11',
      positional: '[api-server-endpoint]',
      flags: [...DISCOVERY_FLAGS, 'apiserver-advertise-address', 'control-plane', 'node-name', 'patches'],
      skipIf: async (ctx) => (ctx.cfg.join.controlPlane && (await kubeletLocalMode(ctx)) ? 'feature gate ControlPlaneKubeletLocalMode is on: etcd-join added the member' : undefined) ?? (await externalEtcd(ctx)),
      run: runEtcdJoin,
    },
    {
      name: 'update-status',
      summary: 'Register the new control-plane node into the ClusterStatus maintained in the kubeadm-config ConfigMap',
      description: 'Add this node and its API endpoint to the ClusterStatus in the kubeadm-config ConfigMap (clusters of Kubernetes v1.20, kubeadm.k8s.io/v1beta2); skipped for newer clusters, which keep no ClusterStatus.',
      example: 'tsadm join phase control-plane-join update-status 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash> --control-plane --apiserver-advertise-address 10.0.0.11',
      positional: '[api-server-endpoint]',
      flags: [...DISCOVERY_FLAGS, 'apiserver-advertise-address', 'control-plane', 'node-name'],
      skipIf: async (ctx) => {
        if (!ctx.cfg.join.controlPlane) return undefined;
        const cluster = await clusterConfig(ctx);
        return cluster.versions.controlPlane.clusterStatus ? undefined : `Kubernetes ${cluster.init.cluster.kubernetesVersion} keeps no ClusterStatus`;
      },
      async run(ctx) {
        const cluster = await clusterConfig(ctx);
        const api = await adminApi(ctx);
        const { nodeRegistration, localAPIEndpoint } = cluster.init.init;
        await uploadKubeadmConfig(api, {
          clusterConfigurationYaml: cluster.clusterConfigurationYaml,
          clusterStatus: { nodeName: nodeRegistration.name, endpoint: localAPIEndpoint, apiVersion: cluster.versions.configApiVersion },
        }, ctx.log);
      },
    },
    {
      name: 'mark-control-plane',
      summary: 'Mark a node as a control-plane',
      description: 'Add the control-plane labels and taints (nodeRegistration.taints, or the version\'s default) to this node\'s Node object, keeping its other taints.',
      example: 'tsadm join phase control-plane-join mark-control-plane 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash> --control-plane' ,
      positional: '[api-server-endpoint]',
      flags: [...DISCOVERY_FLAGS, 'control-plane', 'node-name'],
      async run(ctx) {
        const cluster = await clusterConfig(ctx);
        const api = await adminApi(ctx);
        await markControlPlane(api, markControlPlaneInput(cluster.init.init.nodeRegistration, cluster.versions), ctx.log);
      },
    },
];

