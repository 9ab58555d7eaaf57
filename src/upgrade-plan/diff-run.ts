/**
 * `tsadm upgrade diff [version]` (kubeadm's cmd/upgrade/diff.go): render the kube-apiserver,
 * kube-controller-manager and kube-scheduler static Pods for the target version from the
 * cluster's configuration (cluster-view.ts's target init config, the init renderers) and print a
 * unified diff against the manifests on disk. Only reads.
 *
 * As kubeadm: the manifests must exist (validateManifestsPath); the version is the cluster's
 * stored one unless `diff.kubernetesVersion` or the [version] argument says otherwise; the new
 * manifests are not patched (kubeadm's diff applies no --patches); an unchanged manifest prints
 * nothing. Unlike kubeadm, whose Go map gives a random order, the three diffs come in a fixed order.
 */
import path from 'node:path';
import type { ResolvedUpgradeConfig } from '../config/types.js';
import { TsadmError } from '../errors.js';
import { DEFAULT_RETRY } from '../kube/retry.js';
import { gatherHostFacts } from '../manifest/host-facts.js';
import { staticPodConfigFromInit } from '../manifest/inputs.js';
import type { StaticPodComponent } from '../manifest/pod.js';
import { podToJson } from '../manifest/static-pod.js';
import { manifestPath } from '../manifest/write.js';
import { renderStaticPod } from '../manifest/render.js';
import { normalizeKubernetesVersion } from '../versions/resolve.js';
import type { Runtime } from '../run/runtime.js';
import { toKubeYaml } from '../yaml/write.js';
import { readUpgradeCluster, targetInitConfig } from './cluster-view.js';
import { unifiedDiff } from './unified-diff.js';

export interface DiffOptions {
  readonly cfg: ResolvedUpgradeConfig;
  readonly kubeconfigPath: string;
  readonly hostname: string;
  /** --api-server-manifest, --controller-manager-manifest, --scheduler-manifest (default: the manifests directory). */
  readonly manifests: Partial<Record<DiffComponent, string>>;
  readonly out: NodeJS.WritableStream;
}

type DiffComponent = Exclude<StaticPodComponent, 'etcd'>;
const COMPONENTS: readonly DiffComponent[] = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

export async function runUpgradeDiff(rt: Runtime, o: DiffOptions): Promise<void> {
  const paths = COMPONENTS.map((c) => ({ component: c, file: path.posix.resolve(o.manifests[c] ?? manifestPath(c)) }));
  // kubeadm checks the manifests before anything else.
  for (const { file } of paths) {
    const st = await rt.host.stat(file);
    if (!st) throw new TsadmError('E_PRECONDITION', `the manifest file "${file}" does not exist`, { hint: 'run upgrade diff on a control-plane node, or point the --*-manifest flags at the manifests' });
    if (st.isDirectory) throw new TsadmError('E_PRECONDITION', `"${file}" is a directory`, { hint: 'point the --*-manifest flags at manifest files' });
  }
  const { upgrade } = o.cfg;
  const api = await rt.api.open({ path: o.kubeconfigPath }, { log: rt.log, retry: { ...DEFAULT_RETRY, deadlineMs: upgrade.kubernetesAPICallMs } });
  const view = await readUpgradeCluster(api, rt.host, o.hostname);
  const version = normalizeKubernetesVersion(upgrade.kubernetesVersion ?? view.storedVersion);
  const target = targetInitConfig(view, {
    version,
    ...(o.cfg.clusterOverride ? { clusterOverride: o.cfg.clusterOverride } : {}),
    ignorePreflightErrors: [],
    now: rt.startTime,
  });
  const facts = await gatherHostFacts(rt.host, target.cfg.cluster, target.versions);
  for (const { component, file } of paths) {
    const pod = renderStaticPod(component, staticPodConfigFromInit(target.cfg), target.versions, facts);
    const current = (await rt.host.readFile(file))?.toString('utf8') ?? '';
    o.out.write(unifiedDiff({ a: current, b: toKubeYaml(podToJson(pod)), fromFile: file, toFile: 'new manifest', context: upgrade.diffContextLines }));
  }
}
