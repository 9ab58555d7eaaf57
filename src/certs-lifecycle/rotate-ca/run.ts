/**
 * `tsadm certs rotate-ca start | node | status | abort` end to end over a Runtime: the state in
 * the cluster (./cluster.ts), the node-local files (./node-files.ts), restarts (../restart.ts).
 * src/commands/rotate-ca.ts only maps flags to these options.
 *
 * start, status and abort have run against a real API server (test/integration/rotate-ca-cluster.test.ts).
 * NOT YET EXERCISED AGAINST A REAL CLUSTER: node's restarts and the cluster actions of an advance; the e2e on
 * the HA harness drives them (docs/certs.md, "What the end-to-end test must show"). At sign-new a
 * control plane re-issues its kubelet's certificates itself (it holds the new CA key); a worker asks
 * through CSRs with its kubelet's own credentials (./kubelet-csr.ts), before its kubelet restarts.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_ADMIN_KUBECONFIG, KUBERNETES_DIR, KUBECONFIG_FILES, MODES, PORTS } from '../../constants.js';
import { TsadmError, errorMessage } from '../../errors.js';
import { writeFileAtomic } from '../../host/atomic-write.js';
import { nodeHostname } from '../../host/network.js';
import type { KubeApi } from '../../kube/types.js';
import { journalOf } from '../../host/journal.js';
import { parseCertificatePem } from '../../pki/certificate.js';
import { reportDryRun } from '../../run/dry-run-report.js';
import type { Runtime } from '../../run/runtime.js';
import { buildLifecycleCtx, prefixed, type LifecycleCtx } from '../context.js';
import type { Component } from '../inventory.js';
import { runProbe } from '../probe.js';
import { describeRestartStep, plannedRestarts, restartInOrder } from '../restart.js';
import { clusterConfigFor, type PathOptions } from '../run.js';
import { clusterNodes, fetchKeys, grantNodesState, readRotation, runClusterAction, updateRotation, uploadKeys } from './cluster.js';
import { generateRotationKey } from './handoff.js';
import { requestKubeletPairs } from './kubelet-csr.js';
import { applyNodeStep, localRole, makeNewMaterial, readStagedKeys, stageKeys } from './node-files.js';
import type { Reader } from './plan.js';
import {
  abortRotation, advance, advanceCheck, markDone, markStarted, nodeMayRun, nodeStepOf, startRotation, statusOf, EXIT_ROTATION_PENDING,
  type NodeRole, type Rotated, type RotationState, type StatusReport,
} from './state.js';

export interface RotateOptions extends PathOptions {
  /** --kubeconfig: admin.conf on a control plane; a worker's default is its kubelet.conf. */
  readonly kubeconfig?: string;
  /** --node-name: this node's Node name (default: the hostname, as kubeadm's). */
  readonly nodeName?: string;
}

export interface StartOptions extends RotateOptions {
  readonly items: readonly Rotated[];
  /** Seconds tokens of the old service-account key stay trusted once every node signs with the new one. */
  readonly saGraceSeconds: number;
  /** Write the rotation key to this file (0600) instead of printing it. */
  readonly rotationKeyFile?: string;
  /** --from: the new CAs from this directory instead of new ones made here. */
  readonly fromDir?: string;
  /**
   * --plan with keys: the planned key Secret is sealed with this run's rotation key, which must
   * outlive the dry run, so --rotation-key-file is written (a plain dry run writes nothing).
   */
  readonly planWithKeys?: boolean;
}

export interface NodeOptions extends RotateOptions {
  /** The rotation key start printed (control planes other than start's, during trust-both). */
  readonly rotationKey?: string;
  /** --rotation-key-file's path: what a plan names instead of the key. */
  readonly rotationKeyFile?: string;
  /** --plan: record one node step for `tsadm apply` (which runs it then) instead of the dry run's changes. */
  readonly planning?: boolean;
  /** Applying a plan: the rotation and phase it was made at; another is refused. */
  readonly expectRotation?: { readonly id: string; readonly phase: string };
}

const PREFIX = 'rotate-ca';

async function open(rt: Runtime, o: RotateOptions, worker: boolean): Promise<KubeApi> {
  const kubeconfig = o.kubeconfig ?? (worker ? path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.kubelet) : DEFAULT_ADMIN_KUBECONFIG);
  return rt.api.open({ path: kubeconfig }, { log: rt.log });
}

async function lifecycle(rt: Runtime, o: RotateOptions): Promise<LifecycleCtx> {
  const clusterConfigText = await clusterConfigFor(rt, o, PREFIX, false);
  return buildLifecycleCtx(rt, { ...o, needsAdvertiseAddress: false, ...(clusterConfigText !== undefined ? { clusterConfigText } : {}) });
}

/** start: new CAs, their keys staged here and handed off, the state recorded. Returns what it printed for -o json. */
export async function runStart(rt: Runtime, o: StartOptions): Promise<{ id: string; rotated: readonly Rotated[]; hashes: Record<string, string> }> {
  const log = prefixed(rt.log, PREFIX);
  if ((await localRole(rt.host)) !== 'control-plane') throw new TsadmError('E_PRECONDITION', 'start runs on a control plane (no kube-apiserver manifest here)', { hint: 'run it on a control plane' });
  const api = await open(rt, o, false);
  const ctx = await lifecycle(rt, o);
  const existing = await readRotation(api);
  const nodes = await clusterNodes(api);
  const id = randomBytes(4).toString('hex');
  const { material, keys } = await makeNewMaterial(ctx, o.items, o.fromDir);
  const node = o.nodeName ?? nodeHostname();
  // Refused here, before anything is written, when a rotation is under way.
  const state = startRotation(existing, { id, now: rt.startTime, startedOn: node, items: material, nodes, saGraceSeconds: o.saGraceSeconds });
  const rotationKey = generateRotationKey();
  // The key file first: a kill after the keys are uploaded must never leave them sealed under a key nobody has.
  if (o.rotationKeyFile !== undefined) {
    if (rt.dryRun && o.planWithKeys !== true) log.info(`Would write the rotation key to ${o.rotationKeyFile} (0600)`, { prefix: 'dryrun' });
    else await writeRotationKeyFile(o.rotationKeyFile, rotationKey);
  }
  // Keys next (here, then the hand-off), the state last: a kill before the state leaves no rotation, only unused keys.
  await stageKeys(rt.host, id, keys);
  await uploadKeys(api, id, keys, rotationKey, rt.startTime);
  await grantNodesState(api);
  await updateRotation(api, (live) => startRotation(live, { id, now: rt.startTime, startedOn: node, items: material, nodes, saGraceSeconds: o.saGraceSeconds }));
  log.info(`CA rotation ${id} started for ${o.items.join(', ')} on ${Object.keys(nodes).length} node(s); the new CAs' keys are staged on ${node}`);
  if (o.rotationKeyFile !== undefined) {
    log.info(`The rotation key is in ${o.rotationKeyFile}: give it to "tsadm certs rotate-ca node --rotation-key-file" on every other control plane during trust-both`);
  } else {
    // The user's only copy: printed once, like `certs certificate-key`, never logged or stored in the cluster.
    log.info('Rotation key (give it to "tsadm certs rotate-ca node --rotation-key" on every other control plane during trust-both):');
    rt.log.output(rotationKey);
  }
  for (const line of statusOf(state, rt.startTime).next) log.info(line);
  if (rt.dryRun) reportDryRun(rt.host, rt.log);
  const hashes: Record<string, string> = {};
  for (const [item, m] of Object.entries(material)) if (m.newHash) hashes[item] = m.newHash;
  return { id, rotated: o.items, hashes };
}

/**
 * --rotation-key-file: on the machine running tsadm, like --plan's file (not under --rootfs), since
 * `node --rotation-key-file` reads it from there; atomic and 0600 from the start.
 */
async function writeRotationKeyFile(file: string, key: string): Promise<void> {
  try {
    await writeFileAtomic(path.resolve(file), `${key}\n`, MODES.key);
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `cannot write --rotation-key-file ${file}: ${errorMessage(err)}`, { cause: err, hint: 'pass a path in an existing, writable directory' });
  }
}

/** The rotation key from FILE (--rotation-key-file, or the file a plan names). */
export async function readRotationKey(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    throw new TsadmError('E_USAGE', `cannot read --rotation-key-file ${file}: ${errorMessage(err)}`);
  }
}

/** node: this node to the rotation's current step, then the rotation moved on if every node is there. */
export async function runNode(rt: Runtime, o: NodeOptions): Promise<{ id: string; step: string | null; changed: number; reissued: readonly string[]; phase: string }> {
  const log = prefixed(rt.log, PREFIX);
  const role = await localRole(rt.host);
  const api = await open(rt, o, role === 'worker');
  const ctx = await lifecycle(rt, o);
  const node = o.nodeName ?? nodeHostname();
  let state = await mustRead(api);
  if (state.nodes[node] && state.nodes[node].role !== role) {
    throw new TsadmError('E_CONFLICT', `${node} is a ${state.nodes[node].role} in the rotation but looks like a ${role} here`, { hint: 'give --node-name, or run node where the Node really runs' });
  }
  if (o.expectRotation && (state.id !== o.expectRotation.id || state.phase !== o.expectRotation.phase)) {
    throw new TsadmError('E_CONFLICT', `CA rotation ${state.id} is at ${state.phase}, not ${o.expectRotation.id} at ${o.expectRotation.phase} as when the plan was made`, {
      hint: 'make a new plan with "tsadm certs rotate-ca node --plan"',
    });
  }
  const step = nodeStepOf(state.phase);
  if (rt.dryRun && o.planning === true) return planNode(rt, o, state, role, node);
  let changed = 0;
  let reissued: readonly string[] = [];
  if (step && state.nodes[node]?.done !== step) {
    mayRunHere(state, node);
    const newKeys = role === 'control-plane' ? await keysHere(rt, api, state, o) : {};
    state = await updateRotation(api, (live) => markStarted(must(live), node));
    const result = await applyNodeStep(ctx, { id: state.id, node, step, role, items: state.items, newKeys });
    changed = result.plan.changes.length;
    reissued = result.reissued;
    log.info(`${step} on ${node}: ${changed} file(s) changed, ${reissued.length} certificate(s) re-issued by the new CAs${result.backupDir ? `; the replaced files are in ${result.backupDir}` : ''}`);
    const newCluster = state.items.cluster;
    if (result.kubeletPending.length > 0 && newCluster) {
      // A worker has no CA key: its kubelet asks through CSRs (./kubelet-csr.ts), before the restart so the kubelet starts with them.
      const kubeletApi = o.kubeconfig === undefined ? api : await open(rt, {}, true);
      const requested = await requestKubeletPairs(ctx, { id: state.id, node, actions: result.kubeletPending, ca: parseCertificatePem(newCluster.new, 'new cluster CA'), api: kubeletApi, dryRun: rt.dryRun });
      reissued = [...reissued, ...requested];
      log.info(`${node}: the kubelet's ${result.kubeletPending.join(' and ')} ${rt.dryRun ? 'would be' : 'were'} issued by the new CA through CSRs`);
    }
    await restart(rt, result.plan.restarts);
    state = await updateRotation(api, (live) => markDone(must(live), node, new Date()));
  }
  state = await moveOn(rt, api, state, role);
  for (const line of statusOf(state, new Date()).next) log.info(line);
  if (rt.dryRun) reportDryRun(rt.host, rt.log);
  return { id: state.id, step: step ?? null, changed, reissued, phase: state.phase };
}

function mayRunHere(state: RotationState, node: string): void {
  const refusal = nodeMayRun(state, node);
  if (refusal) throw new TsadmError('E_PRECONDITION', `not yet on ${node}: ${refusal}`, { hint: 'run "tsadm certs rotate-ca status" for what to run where' });
}

/**
 * node --plan: the step is refused now for what would refuse it then (its turn, the new keys a
 * control plane needs), and recorded whole for apply to run: its restarts, progress marks and the
 * rotation's advance happen only then, against the cluster as it is then.
 */
async function planNode(rt: Runtime, o: NodeOptions, state: RotationState, role: NodeRole, node: string): Promise<{ id: string; step: string | null; changed: number; reissued: readonly string[]; phase: string }> {
  const step = nodeStepOf(state.phase);
  const pending = step !== undefined && state.nodes[node]?.done !== step;
  if (pending) {
    mayRunHere(state, node);
    if (role === 'control-plane' && o.rotationKeyFile === undefined) {
      const staged = await readStagedKeys(rt.host, state.id, state.items);
      if (Object.keys(state.items).some((i) => staged[i as Rotated] === undefined)) {
        throw new TsadmError('E_USAGE', 'this control plane has not staged the new keys yet: with --plan, give the rotation key as --rotation-key-file (the plan names the file, never the key)');
      }
    }
  }
  const abs = (p: string | undefined, key: string): Record<string, string> => (p === undefined ? {} : { [key]: path.resolve(p) });
  journalOf(rt.host)?.record({
    type: 'certs-rotate-ca-node', id: state.id, rotationPhase: state.phase, nodeName: node,
    ...abs(o.rotationKeyFile, 'rotationKeyFile'), ...abs(o.config, 'config'), ...abs(o.certDir, 'certDir'), ...abs(o.kubeconfigDir, 'kubeconfigDir'), ...abs(o.kubeconfig, 'kubeconfig'),
  });
  rt.log.info(pending
    ? `Would bring ${node} to ${step} of CA rotation ${state.id} when the plan is applied (its files, restarts and progress then), and move the rotation on if it is the last`
    : `${node} is done with ${state.phase}: applying the plan only moves CA rotation ${state.id} on if every node is`, { prefix: PREFIX });
  return { id: state.id, step: step ?? null, changed: 0, reissued: [], phase: state.phase };
}

function must(s: RotationState | undefined): RotationState {
  if (!s) throw new TsadmError('E_PRECONDITION', 'no CA rotation is under way', { hint: 'start one with "tsadm certs rotate-ca start" on a control plane' });
  return s;
}

async function mustRead(api: KubeApi): Promise<RotationState> {
  return must(await readRotation(api));
}

/** This control plane's new keys: staged already, or fetched from the hand-off with the rotation key and staged. */
async function keysHere(rt: Runtime, api: KubeApi, s: RotationState, o: NodeOptions): Promise<Awaited<ReturnType<typeof readStagedKeys>>> {
  const staged = await readStagedKeys(rt.host, s.id, s.items);
  const missing = Object.keys(s.items).filter((i) => staged[i as Rotated] === undefined);
  if (missing.length === 0) return staged;
  if (s.phase !== 'trust-both') {
    throw new TsadmError('E_PRECONDITION', `the new keys of ${missing.join(', ')} are not staged on this control plane, and the hand-off ended with trust-both`, {
      hint: 'copy them from the control plane that ran start (its /etc/kubernetes/tmp/tsadm-rotate-ca-<id>/new/)',
    });
  }
  if (o.rotationKey === undefined) throw new TsadmError('E_USAGE', 'this control plane has not staged the new keys yet: give --rotation-key (or --rotation-key-file), as start printed it');
  const keys = await fetchKeys(api, s.id, o.rotationKey);
  await stageKeys(rt.host, s.id, keys);
  return readStagedKeys(rt.host, s.id, s.items);
}

/** The static pods one at a time (etcd with the API server stopped around it), then the kubelet. */
async function restart(rt: Runtime, readers: readonly Reader[]): Promise<void> {
  const pods = readers.filter((r): r is Component => r !== 'kubelet');
  if (rt.dryRun) {
    for (const s of await plannedRestarts(rt.host, pods)) rt.log.info(describeRestartStep(s), { prefix: 'dryrun' });
    if (readers.includes('kubelet')) rt.log.info('Would restart the kubelet, then wait until its health check passes', { prefix: 'dryrun' });
    return;
  }
  await restartInOrder({ host: rt.host, log: prefixed(rt.log, 'restart'), probe: (p) => runProbe(p) }, pods);
  if (!readers.includes('kubelet')) return;
  const r = await rt.host.service('restart', 'kubelet');
  if (!r.ok) throw new TsadmError('E_EXEC', `could not restart the kubelet: ${r.message ?? r.via}`, { hint: 'restart it by hand, then run node again' });
  const deadline = Date.now() + 120_000;
  while ((await runProbe({ url: `http://127.0.0.1:${PORTS.kubeletHealthz}/healthz` })) !== 'up') {
    if (Date.now() > deadline) throw new TsadmError('E_TIMEOUT', 'the kubelet did not become healthy within 2 minutes of its restart', { hint: 'journalctl -u kubelet' });
    await new Promise((res) => setTimeout(res, 1000));
  }
}

/**
 * The advance: when every node is done, the cluster actions of the step, then the next phase.
 * Needs rights a worker's kubelet credentials lack, so a worker that is last leaves it to the next
 * `node` run on a control plane (status says so).
 */
async function moveOn(rt: Runtime, api: KubeApi, s: RotationState, role: string): Promise<RotationState> {
  let state = s;
  for (;;) {
    const check = advanceCheck(state, new Date());
    if (!check.ready) return state;
    if (role !== 'control-plane') {
      rt.log.info(`every node is done with ${state.phase}: run "tsadm certs rotate-ca node" on a control plane to move the rotation on`, { prefix: PREFIX });
      return state;
    }
    for (const action of check.actions) await runClusterAction({ api, log: prefixed(rt.log, PREFIX) }, state, action);
    state = await updateRotation(api, (live) => advance(must(live), new Date()));
    rt.log.info(`the rotation is now at ${state.phase}`, { prefix: PREFIX });
  }
}

/** Reported by status while the rotation is not complete: exit status 4 (1–3 stay failures of the command). */
export class RotationPendingError extends TsadmError {
  constructor(message: string, hint: string) {
    super('E_PRECONDITION', message, { hint });
  }

  override get exitCode(): number {
    return EXIT_ROTATION_PENDING;
  }
}

export async function runStatus(rt: Runtime, o: RotateOptions & { readonly json: boolean }): Promise<StatusReport> {
  const api = await open(rt, o, (await localRole(rt.host)) === 'worker');
  const state = await mustRead(api);
  const report = statusOf(state, new Date());
  rt.log.output(o.json ? JSON.stringify(report, null, 4) : formatStatus(report));
  if (report.exitCode !== 0) throw new RotationPendingError(`CA rotation ${report.id} is at ${report.phase}`, report.next[0] ?? 'see above');
  return report;
}

export function formatStatus(r: StatusReport): string {
  const width = Math.max(4, ...r.nodes.map((n) => n.name.length));
  const lines = [
    `CA rotation ${r.id}: ${r.phase} (${r.rotated.join(', ')})`,
    '',
    `${'NODE'.padEnd(width)}  ROLE           DONE         IN PROGRESS`,
    ...r.nodes.map((n) => `${n.name.padEnd(width)}  ${n.role.padEnd(13)}  ${(n.done ?? '-').padEnd(11)}  ${n.started ?? '-'}`),
    '',
    ...r.next.map((l) => `next: ${l}`),
    r.abort.allowed ? 'abort: possible ("tsadm certs rotate-ca abort")' : `abort: not possible: ${r.abort.reason}`,
  ];
  return lines.join('\n');
}

export async function runAbort(rt: Runtime, o: RotateOptions): Promise<{ id: string; phase: string }> {
  const api = await open(rt, o, false);
  const state = await updateRotation(api, (live) => abortRotation(must(live), rt.startTime));
  for (const line of statusOf(state, rt.startTime).next) rt.log.info(line, { prefix: PREFIX });
  return { id: state.id, phase: state.phase };
}
