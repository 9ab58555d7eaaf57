/**
 * join `kubelet-start` (kubeadm's runKubeletStartJoinPhase, docs/kubeadm-reference.md §8.2): refuse when a Ready Node
 * of this name exists, write bootstrap-kubelet.conf (0600, the discovered cluster + bootstrap
 * credentials) and ca.crt when missing, the kubelet configuration from the cluster's kubelet
 * ConfigMap and kubeadm-flags.env (workers register their taints with --register-with-taints),
 * restart the kubelet, wait for its TLS bootstrap (kubelet.conf) and for its Node, record the
 * CRI socket on the Node, and delete bootstrap-kubelet.conf (also when the wait fails).
 * Everything is rendered before the kubelet is touched. Dry-run: writes and service actions are
 * listed; nothing is waited for. With the cluster's ControlPlaneKubeletLocalMode gate on (1.31+),
 * a control plane's bootstrap-kubelet.conf points at its own API endpoint and kubelet-start stops
 * after starting the kubelet: kubelet-wait-bootstrap (after etcd-join) waits and cleans up.
 */
import { formatDuration } from '../../duration.js';
import { CRI_SOCKET_ANNOTATION, KUBECONFIG_FILES, KUBERNETES_DIR, MODES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import { readClientCredentials } from '../../certs-lifecycle/kubeconfig-credentials.js';
import { bootstrapKubeconfig } from '../../discovery/discover.js';
import { parseCertificatePem } from '../../pki/certificate.js';
import { signedByProblem, validityProblem } from '../../pki/verify.js';
import { isForbidden } from '../../kube/errors.js';
import type { KubeApi, NodeObject } from '../../kube/types.js';
import type { Phase } from '../../engine/phase.js';
import type { JoinCtx } from './context.js';
import { PATCH_NODE_OPTIONS } from '../cluster/node-patch.js';
import { localAPIEndpointURL } from '../../config/endpoint.js';
import { criSocketFor } from '../kubelet/flags-env.js';
import { assertKubeletFilesWritable, prepareKubeletFiles, usesNodeLocalCriSocket, writeKubeletFilesAndRestart, type KubeletSettings, type PreparedKubelet } from '../kubelet/settings.js';
import { waitForKubeletPhase } from '../kubelet/wait.js';
import type { JoinClusterConfig } from '../../stored-config/cluster-config.js';
import { DISCOVERY_FLAGS } from './flags.js';
import { kubeletLocalMode } from './gates.js';
import { bootstrapApi, clusterConfig, discovery, initView, joinApiOptions } from './state.js';
import { waitForTlsBootstrap } from './tls-bootstrap.js';

const BOOTSTRAP_KUBELET_CONF = `${KUBERNETES_DIR}/${KUBECONFIG_FILES.bootstrapKubelet}`;
const KUBELET_CONF = `${KUBERNETES_DIR}/${KUBECONFIG_FILES.kubelet}`;

export const joinKubeletStartPhase: Phase<JoinCtx> = {
  name: 'kubelet-start',
  summary: 'Write kubelet settings, certificates and (re)start the kubelet',
  description: 'Write a file with KubeletConfiguration and an environment file with node specific kubelet settings, and then (re)start kubelet.',
  example: '# Writes the kubelet files from the cluster\'s configuration, starts the kubelet and waits for its TLS bootstrap\ntsadm join phase kubelet-start 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash>' ,
  positional: '[api-server-endpoint]',
  flags: [...DISCOVERY_FLAGS, 'cri-socket', 'node-name', 'patches'],
  run: runJoinKubeletStart,
};

/** What kubelet-start writes, rendered in full before anything is touched. */
interface JoinKubeletFiles extends PreparedKubelet {
  readonly bootstrapKubeconfig: string;
}

async function renderKubeletFiles(ctx: JoinCtx, cluster: JoinClusterConfig, localMode: boolean): Promise<JoinKubeletFiles> {
  const { init, versions } = cluster;
  const disc = await discovery(ctx);
  const prepared = await prepareKubeletFiles(ctx, {
    cluster: init.cluster,
    kubeletConfig: init.componentConfigs.kubelet,
    nodeRegistration: init.init.nodeRegistration,
    hostname: ctx.deps.hostname(),
    // A control plane gets its taints from mark-control-plane; a worker registers with them.
    registerTaints: ctx.cfg.join.controlPlane === undefined,
    versions,
    patchesDir: init.init.patches?.directory,
    probeDockerCgroupDriver: false,
  });
  // ControlPlaneKubeletLocalMode: a control plane's kubelet bootstraps against its own kube-apiserver
  // (kubeadm's kubelet.go sets every cluster's server to the LocalAPIEndpoint), so the kubelet.conf
  // the kubelet writes points there too.
  const local = localMode && ctx.cfg.join.controlPlane !== undefined ? localAPIEndpointURL(init) : undefined;
  return { ...prepared, bootstrapKubeconfig: bootstrapKubeconfig(local ? { ...disc, server: local } : disc, init.cluster.clusterName) };
}

/**
 * kubeadm refuses before the TLS bootstrap when a Ready Node already carries this name. tsadm
 * makes one exception, so that re-running a join killed after the TLS bootstrap completes it
 * instead of locking the machine out: the Node is this machine when the local kubelet.conf holds
 * a valid client certificate for system:node:<name>, signed by the CA discovery pinned.
 */
async function refuseReadyNode(ctx: JoinCtx, api: KubeApi, nodeName: string): Promise<void> {
  ctx.log.debug(`Checking for an existing Node in the cluster with name "${nodeName}" and status "Ready"`);
  let node: NodeObject | undefined;
  try {
    node = await api.get<NodeObject>('Node', nodeName);
  } catch (err) {
    // File discovery credentials may lack kubeadm's get-nodes rule: the check is advisory then.
    if (isForbidden(err)) {
      ctx.log.warn(`cannot check for an existing Node "${nodeName}": the bootstrap credentials may not read Nodes`);
      return;
    }
    throw err;
  }
  const conditions = (node?.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions ?? [];
  if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) {
    const notMine = await notThisMachinesNode(ctx, nodeName);
    if (notMine === undefined) {
      ctx.log.warn(`the Ready Node "${nodeName}" is this machine (${KUBELET_CONF} holds its credentials from this cluster): completing its join`);
      return;
    }
    ctx.log.debug(`the Ready Node "${nodeName}" is not this machine's: ${notMine}`);
    throw new TsadmError('E_CONFLICT', `a Node with name "${nodeName}" and status "Ready" already exists in the cluster. You must delete the existing Node or change the name of this new joining Node`, {
      hint: `kubectl delete node ${nodeName} (if that machine is gone), or join with --node-name <another name>`,
    });
  }
}

/**
 * Why the local kubelet.conf does not show that this machine is Node NAME, or undefined when it
 * does: it must authenticate as system:node:NAME (group system:nodes) with a current certificate
 * signed by the cluster CA that discovery pinned.
 */
async function notThisMachinesNode(ctx: JoinCtx, nodeName: string): Promise<string | undefined> {
  const text = (await ctx.host.readFile(KUBELET_CONF))?.toString('utf8');
  if (text === undefined) return `there is no ${KUBELET_CONF}`;
  const creds = readClientCredentials(text, KUBELET_CONF);
  if (typeof creds === 'string') return creds;
  const pem = creds.certPem ?? (creds.certFile ? await ctx.host.readFile(creds.certFile) : undefined);
  if (!pem) return `${KUBELET_CONF} has no client certificate`;
  try {
    const cert = parseCertificatePem(pem, KUBELET_CONF);
    const ca = parseCertificatePem((await discovery(ctx)).caPem, 'cluster CA');
    if (cert.subject.commonName !== `system:node:${nodeName}` || !cert.subject.organization.includes('system:nodes')) {
      return `its client certificate is for "${cert.subject.text}"`;
    }
    return validityProblem(cert, new Date()) ?? signedByProblem(cert, ca);
  } catch (err) {
    return (err as Error).message;
  }
}

async function runJoinKubeletStart(ctx: JoinCtx): Promise<void> {
  const cluster = await clusterConfig(ctx);
  const join = ctx.cfg.join;
  const nodeName = cluster.init.init.nodeRegistration.name;
  const api = await bootstrapApi(ctx);
  await refuseReadyNode(ctx, api, nodeName);
  const localMode = await kubeletLocalMode(ctx);
  const prepared = await renderKubeletFiles(ctx, cluster, localMode);
  const { host, log } = ctx;
  // kubeadm's join order: the configuration, the instance configuration, then the flags file.
  const { files } = prepared;
  const order = [files.config, ...(files.instanceConfig ? [files.instanceConfig] : []), files.flagsEnv];
  // Every target is checked before the first write, so a refusal leaves the node as it was.
  await host.assertWritable(BOOTSTRAP_KUBELET_CONF);
  await assertKubeletFilesWritable(host, order);

  log.debug(`writing bootstrap kubelet config file at ${BOOTSTRAP_KUBELET_CONF}`);
  await host.writeFile(BOOTSTRAP_KUBELET_CONF, prepared.bootstrapKubeconfig, { mode: MODES.kubeconfig, kind: 'kubeconfig', description: 'TLS bootstrap kubeconfig (bootstrap token)' });
  // With ControlPlaneKubeletLocalMode the TLS bootstrap completes later (the local kube-apiserver
  // needs the etcd member etcd-join adds): kubelet-wait-bootstrap waits and removes the bootstrap file.
  let keepBootstrapFile = localMode;
  try {
    if (!(await host.stat(join.caCertPath))) {
      log.debug(`writing CA certificate at ${join.caCertPath}`);
      await host.writeFile(join.caCertPath, (await discovery(ctx)).caPem, { mode: MODES.certificate, kind: 'certificate', description: 'cluster CA certificate (from discovery)' });
    }
    await writeKubeletFilesAndRestart(ctx, order);
    if (localMode) return;
    // The kubelet was not started: a dry run cannot wait for its TLS bootstrap (decision 3).
    if (ctx.dryRun) {
      log.info('Would wait for the kubelet to perform the TLS Bootstrap, then for the Node to register');
      return;
    }
    await afterKubeletStart(ctx, nodeName, prepared.settings, { restartAfterLateBootstrap: true });
  } catch (err) {
    keepBootstrapFile = false;
    throw err;
  } finally {
    // The bootstrap token must not stay on disk, whatever happened (kubeadm defers the same removal).
    if (!keepBootstrapFile) await host.remove(BOOTSTRAP_KUBELET_CONF);
  }
}

/**
 * kubelet-wait-bootstrap (ControlPlaneKubeletLocalMode): wait for a healthy kubelet (its healthz,
 * bounded by timeouts.kubeletHealthCheck), then for the TLS bootstrap kubelet-start left running,
 * record the CRI socket on the Node, and remove bootstrap-kubelet.conf whatever happened
 * (kubeadm's runKubeletWaitBootstrapPhase).
 */
export async function runKubeletWaitBootstrap(ctx: JoinCtx): Promise<void> {
  try {
    if (ctx.dryRun) {
      ctx.log.info('Would wait for the kubelet to perform the TLS Bootstrap, then for the Node to register');
      return;
    }
    const { init, versions } = await clusterConfig(ctx);
    await waitForKubeletPhase.run?.(await initView(ctx, 'kubelet-start'));
    await afterKubeletStart(ctx, init.init.nodeRegistration.name, {
      criSocket: criSocketFor(init.init.nodeRegistration.criSocket, versions),
      nodeLocalCriSocket: usesNodeLocalCriSocket(init.cluster, versions),
    });
  } finally {
    await ctx.host.remove(BOOTSTRAP_KUBELET_CONF);
  }
}

/** How long a kubelet that has its certificate may take to register before it is restarted (restartAfterLateBootstrap). */
const REGISTER_GRACE_MS = 500;

/**
 * A kubelet started before the control plane could sign its CSR bootstraps in the background
 * (kubelet 1.20, rotateCertificates on): it finishes starting up with anonymous API connections,
 * swaps them for its new certificate only every 10 s (pkg/kubelet/certificate/transport.go) and
 * backs off its registration attempts to 7 s, so it registered up to ~17 s after its certificate
 * was issued (BENCHMARKS.md; decision 30). When the kubelet already answered its healthz as its
 * certificate arrived, and has not registered within half a second, tsadm restarts it — what kubeadm's
 * kubelet-finalize does after changing the kubelet's credentials — and a kubelet that starts with
 * its certificate registers as soon as it is up. A kubelet that got its certificate while still
 * starting (a settled control plane) is left alone.
 */
async function restartAfterLateBootstrap(ctx: JoinCtx, api: KubeApi, nodeName: string, serving: boolean): Promise<void> {
  if (!serving) return;
  const deadline = Date.now() + REGISTER_GRACE_MS;
  while (Date.now() < deadline) {
    if (await api.get<NodeObject>('Node', nodeName)) return;
    await ctx.deps.sleep(100);
  }
  ctx.log.info('The kubelet got its certificate after it had started; restarting it so that it registers with the certificate at once');
  const restart = await ctx.host.service('restart', 'kubelet');
  if (!restart.ok) ctx.log.warn(`unable to restart the kubelet service: ${restart.message ?? restart.via}`, { prefix: 'kubelet-start' });
}

async function afterKubeletStart(ctx: JoinCtx, nodeName: string, settings: Pick<KubeletSettings, 'criSocket' | 'nodeLocalCriSocket'>, opts: { restartAfterLateBootstrap?: boolean } = {}): Promise<void> {
  const timeoutMs = ctx.cfg.join.timeouts.tlsBootstrapMs;
  ctx.log.info('Waiting for the kubelet to perform the TLS Bootstrap...');
  const started = Date.now();
  await waitForTlsBootstrap({
    host: ctx.host,
    file: KUBELET_CONF,
    timeoutMs,
    pollMs: ctx.deps.tlsBootstrapPollMs,
    sleep: ctx.deps.sleep,
    onProgress: (problem, elapsed) => ctx.log.info(`still waiting for the TLS Bootstrap after ${formatDuration(elapsed)} (${problem})`),
  });
  ctx.log.debug(`the kubelet wrote ${KUBELET_CONF} after ${formatDuration(Date.now() - started)}`);
  // Asked at once: whether the kubelet was already up (and talking to the API anonymously) when its certificate came.
  const serving = opts.restartAfterLateBootstrap === true && await ctx.deps.kubeletServing();
  const text = (await ctx.host.readFile(KUBELET_CONF))?.toString('utf8') ?? '';
  const api = await ctx.api.open({ text, source: KUBELET_CONF }, joinApiOptions(ctx));
  const socket = settings.criSocket;
  await restartAfterLateBootstrap(ctx, api, nodeName, serving);
  try {
    // Waits for the kubelet to register the Node (kubeadm's PatchNode waits the same way).
    await api.patchNode(nodeName, (n) => {
      if (!settings.nodeLocalCriSocket) n.metadata.annotations[CRI_SOCKET_ANNOTATION] = socket;
    }, PATCH_NODE_OPTIONS);
  } catch (err) {
    throw new TsadmError('E_TIMEOUT', `the kubelet finished the TLS Bootstrap but the Node "${nodeName}" did not register: ${(err as Error).message}`, {
      cause: err,
      hint: `check the kubelet's log; the Node must appear in \`kubectl get nodes\` within ${formatDuration(PATCH_NODE_OPTIONS.timeoutMs)}`,
    });
  }
  ctx.log.debug(settings.nodeLocalCriSocket ? `Node "${nodeName}" registered` : `preserved the CRI socket "${socket}" on Node "${nodeName}"`);
}
