/**
 * The local etcd member's part of the control-plane upgrade (kubeadm 1.20's
 * performEtcdStaticPodUpgrade): only a stacked member (its manifest on this node, local etcd in
 * the configuration) and only with --etcd-upgrade; a target version older than the running one
 * is refused without failing the upgrade (kubeadm's "non fatal issue"); before the manifest
 * changes, etcd's data directory is copied to /etc/kubernetes/tmp/kubeadm-backup-etcd-<time>/etcd,
 * and restored from there when even the old manifest does not bring etcd back.
 */
import path from 'node:path';
import { loadYaml } from '../../yaml/read.js';
import { MODES, TMP_DIR } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import { manifestPath } from '../../manifest/write.js';
import { waitForHealthy } from '../../health/wait-loop.js';
import { copyTree } from './copy-tree.js';
import { componentHealthTarget, upgradeComponent, type StaticPodRun } from './static-pod-upgrade.js';
import { backupDirName, etcdDecision, manifestImage } from './static-pod-plan.js';
import { renderTargetManifest } from './target-manifests.js';

const PREFIX = 'upgrade/etcd';
/** How long the health check before the change may take (kubeadm's is one etcd client call). */
const HEALTH_CHECK_MS = 10_000;

/** The data directory the running member uses: its manifest's etcd-data hostPath (what the kubelet mounts). */
function etcdDataDirOf(manifestText: string): string | undefined {
  try {
    const doc = loadYaml(manifestText) as { spec?: { volumes?: Array<{ name?: unknown; hostPath?: { path?: unknown } }> } } | null;
    const p = doc?.spec?.volumes?.find((v) => v.name === 'etcd-data')?.hostPath?.path;
    return typeof p === 'string' && p !== '' ? p : undefined;
  } catch {
    return undefined;
  }
}

async function backupData(run: StaticPodRun, dataDir: string): Promise<void> {
  const dir = backupDirName('kubeadm-backup-etcd', run.ctx.clock());
  await run.ctx.host.mkdir(TMP_DIR, MODES.manifestsDir);
  await run.ctx.host.mkdir(dir, MODES.manifestsDir);
  // kubeadm's `cp -r <dataDir> <dir>` into an existing folder: the copy is <dir>/<basename of dataDir>.
  const copy = path.posix.join(dir, path.posix.basename(dataDir));
  const files = await copyTree(run.ctx.host, dataDir, copy);
  run.ctx.state.backups = { ...run.ctx.state.backups, etcdDataDir: dir };
  run.ctx.log.info(`Backed up etcd data (${files} files) from "${dataDir}" to "${copy}"`, { prefix: PREFIX });
}

/**
 * kubeadm's rollbackEtcdData, without `cp -r`'s nesting of the backup inside the existing data
 * directory: the data directory is replaced by the backup, so files etcd wrote after the backup
 * (new WAL segments) cannot survive next to the old ones.
 */
async function restoreData(run: StaticPodRun, dataDir: string): Promise<void> {
  const dir = run.ctx.state.backups?.etcdDataDir;
  if (dir === undefined) return;
  run.ctx.log.info('Rolling back etcd data', { prefix: PREFIX });
  await run.ctx.host.remove(dataDir);
  await copyTree(run.ctx.host, path.posix.join(dir, path.posix.basename(dataDir)), dataDir);
  run.ctx.log.info('Etcd data rollback successful', { prefix: PREFIX });
}

/** kubeadm's CheckClusterHealth before touching etcd: a member that is not healthy now is not upgraded (nothing changed yet). */
async function requireHealthy(run: StaticPodRun): Promise<void> {
  const target = componentHealthTarget(run.view, 'etcd');
  const r = await waitForHealthy([target], { timeoutMs: HEALTH_CHECK_MS, check: run.check, maxIntervalMs: 500 });
  if (!r.ok) {
    throw new TsadmError('E_PRECONDITION', `etcd cluster is not healthy: ${target.url}: ${r.states[0]?.lastDetail ?? 'no answer'}; nothing was changed`, {
      hint: 'check the etcd member (crictl ps -a | grep etcd, then crictl logs CONTAINERID), or upgrade without it: --etcd-upgrade=false',
    });
  }
}

/** Upgrades the local etcd member when there is one and its target manifest differs. */
export async function upgradeEtcd(run: StaticPodRun): Promise<void> {
  const { ctx, view } = run;
  if (view.cfg.cluster.etcd.mode !== 'local') return; // kubeadm: external etcd is the user's to upgrade
  const file = manifestPath('etcd');
  const current = await ctx.host.readFile(file);
  if (current === undefined) {
    ctx.log.debug(`no ${file} on this node: no local etcd member to upgrade`, { prefix: PREFIX });
    return;
  }
  ctx.log.info('Upgrading to TLS for etcd', { prefix: PREFIX });
  const target = await renderTargetManifest(view, 'etcd');
  const text = current.toString('utf8');
  const decision = etcdDecision(manifestImage(text, file), target.image);
  if (!decision.proceed) {
    ctx.log.info(`Non fatal issue encountered during upgrade: ${decision.reason}`, { prefix: PREFIX });
    return;
  }
  const dataDir = etcdDataDirOf(text) ?? view.cfg.cluster.etcd.dataDir;
  if (target.text !== text && !ctx.dryRun) await requireHealthy(run);
  await upgradeComponent(run, 'etcd', target.text, {
    beforeChange: () => backupData(run, dataDir),
    restoreData: () => restoreData(run, dataDir),
  });
}
