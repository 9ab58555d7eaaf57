import path from 'node:path';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/events.js';
import { checkSnapshotFile } from './files.js';
import {
  ASIDE_DIR, CONTROL_PLANE_CONTAINERS, CONTROL_PLANE_MANIFESTS, MANIFESTS_DIR, RESTORE_RECORD_FILE, RESTORE_STATE_FILE,
  oldDataDir, parseEtcdPod, restoreCommand, restoreTool, stagingDir, stagingParent, type EtcdPodFacts,
} from './restore-plan.js';
import { badSnapshot } from './save.js';

/**
 * `tsadm etcd snapshot restore FILE` on a control plane with stacked etcd. Steps, each detectable
 * on disk and recorded in RESTORE_STATE_FILE, so a run after a crash at any point continues:
 *   0. check FILE (SHA-256, bbolt): a damaged or truncated file is refused before anything changes;
 *   1. move the four control-plane manifests from /etc/kubernetes/manifests to ASIDE_DIR and wait
 *      (CRI) until their containers are gone;
 *   2. run the etcd image's own `etcdutl` (3.5+) / `etcdctl` (3.4) `snapshot restore` into a
 *      staging directory beside the data directory (the only directory it may write), as a new one-member cluster made of this
 *      member (name and peer URL from etcd.yaml) — tsadm never writes etcd's files itself;
 *   3. rename the data directory to `<dir>.tsadm-<time>` (kept) and the staging one into place;
 *   4. move the manifests back (etcd first) and wait until etcd and the API server answer.
 */
export interface ToolRun {
  readonly image: string;
  readonly command: readonly string[];
  /** Host directories the tool needs, mounted at the same paths. */
  readonly mounts: ReadonlyArray<{ readonly hostPath: string; readonly readOnly: boolean }>;
}

export interface RestoreDeps {
  /** Runs the tool from the etcd image; throws (one line) unless it exits 0. */
  runTool(run: ToolRun): Promise<void>;
  /** Resolves once no container of these names runs. */
  waitContainersGone(names: readonly string[]): Promise<void>;
  /** Resolves once etcd and the API server answer again. */
  waitControlPlane(facts: EtcdPodFacts): Promise<void>;
  readonly now?: () => Date;
}

type Step = 'stopping' | 'restored' | 'swapped';

interface RestoreState {
  readonly snapshot: string;
  readonly sha256: string;
  readonly oldDataDir: string;
  readonly step: Step;
}

export interface RestoreResult {
  readonly snapshot: string;
  /** The snapshot file's SHA-256, as checked before anything changed. */
  readonly sha256: string;
  readonly dataDir: string;
  readonly oldDataDir: string;
  readonly member: string;
  readonly tool: string;
  readonly resumed: boolean;
  readonly dryRun: boolean;
}

export interface RestoreOptions {
  /** A plan's restore: the file must still hold these bytes (checked before anything changes). */
  readonly expectSha256?: string;
}

export async function restoreSnapshot(host: Host, log: Logger, file: string, deps: RestoreDeps, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const prefix = 'restore';
  const check = await checkSnapshotFile(host, file);
  if (!check.ok) throw badSnapshot(file, check);
  if (opts.expectSha256 !== undefined && check.fileSha256 !== opts.expectSha256) {
    throw new TsadmError('E_CONFLICT', `${file} changed since the plan was made (sha256 ${check.fileSha256}, the plan has ${opts.expectSha256}); nothing was changed`, {
      hint: 'make a new plan of the restore for the snapshot as it is now',
    });
  }
  log.info(`${file} is a whole etcd snapshot (${check.size} bytes, sha256 ${check.fileSha256})`, { prefix });

  // Read in every run (a dry run's read makes it a plan's precondition: applied once, a plan of a
  // restore is refused the second time, since this record has changed).
  const last = (await host.readFile(RESTORE_RECORD_FILE))?.toString('utf8');
  if (last !== undefined) log.debug(`the last restore on this machine: ${last.trim().replace(/\s+/g, ' ')}`, { prefix });
  const previous = await readState(host);
  if (previous && previous.sha256 !== check.fileSha256) {
    throw new TsadmError('E_CONFLICT', `a restore of ${previous.snapshot} was interrupted on this machine; finish it before restoring another snapshot`, {
      hint: `run tsadm etcd snapshot restore ${previous.snapshot} again (it continues where it stopped)`,
    });
  }
  const facts = await etcdFacts(host);
  const tool = restoreTool(facts.image);
  const now = deps.now ?? (() => new Date());
  let state: RestoreState = previous ?? { snapshot: file, sha256: check.fileSha256, oldDataDir: oldDataDir(facts.dataDir, now()), step: 'stopping' };
  const staging = stagingDir(facts.dataDir);
  const stagingRoot = stagingParent(facts.dataDir);
  const command = restoreCommand(tool, file, staging, facts);
  const base = { snapshot: file, sha256: check.fileSha256, dataDir: facts.dataDir, oldDataDir: state.oldDataDir, member: facts.name, tool, resumed: previous !== undefined };

  if (host.dryRun) {
    log.info(`would move ${CONTROL_PLANE_MANIFESTS.join(', ')} from ${MANIFESTS_DIR} to ${ASIDE_DIR} and wait until their containers are gone`, { prefix });
    log.info(`would run ${command.join(' ')} from ${facts.image}`, { prefix });
    log.info(`would keep ${facts.dataDir} as ${state.oldDataDir}, put the restored data in its place, and move the manifests back`, { prefix });
    return { ...base, dryRun: true };
  }
  if (previous) log.info(`continuing the interrupted restore of ${file} (step: ${previous.step})`, { prefix });
  await writeState(host, state);

  // 1. Stop the control plane: manifests aside.
  await host.mkdir(ASIDE_DIR, 0o700);
  for (const name of CONTROL_PLANE_MANIFESTS) {
    const live = path.posix.join(MANIFESTS_DIR, name);
    const aside = path.posix.join(ASIDE_DIR, name);
    if (!(await host.stat(live))) continue;
    if (await host.stat(aside)) {
      throw new TsadmError('E_CONFLICT', `${live} and ${aside} both exist`, { hint: `keep the one you want in ${MANIFESTS_DIR}, delete the other, and run again` });
    }
    await host.rename(live, aside);
    log.info(`moved ${live} aside`, { prefix });
  }
  log.info('waiting for the control-plane containers to stop', { prefix });
  await deps.waitContainersGone(CONTROL_PLANE_CONTAINERS);

  // 2. Restore into the staging directory with etcd's own tool.
  if (state.step === 'stopping') {
    if (await host.stat(stagingRoot)) await host.remove(stagingRoot); // tsadm's own, from a run that stopped mid-restore
    await host.mkdir(stagingRoot, 0o700);
    log.info(`restoring with ${tool} from ${facts.image} as a new one-member cluster (${facts.name}=${facts.peerURL})`, { prefix });
    await deps.runTool({
      image: facts.image,
      command,
      mounts: [
        { hostPath: path.posix.dirname(file), readOnly: true },
        { hostPath: stagingRoot, readOnly: false },
      ],
    });
    if (!(await host.stat(path.posix.join(staging, 'member')))?.isDirectory) {
      throw new TsadmError('E_EXEC', `${tool} snapshot restore finished but ${staging}/member is missing`, { hint: 'the control plane is still stopped: see the restore tool\'s log, then run the restore again' });
    }
    state = { ...state, step: 'restored' };
    await writeState(host, state);
  }

  // 3. Swap the data directories (the old one is kept).
  if (state.step === 'restored') {
    const member = path.posix.join(facts.dataDir, 'member');
    // a) Keep the old data: the whole directory renamed; when it is a mount point (EBUSY, EXDEV),
    //    its member/ directory renamed inside it (etcd ignores other names in its data directory).
    if (!(await host.stat(state.oldDataDir))) {
      if (!isInside(state.oldDataDir, facts.dataDir)) {
        try {
          await host.rename(facts.dataDir, state.oldDataDir);
        } catch (err) {
          if (!isMountPointRefusal(err)) throw err;
          state = { ...state, oldDataDir: `${member}.tsadm-${path.posix.basename(state.oldDataDir).split('.tsadm-')[1] ?? 'old'}` };
          await writeState(host, state);
        }
      }
      if (isInside(state.oldDataDir, facts.dataDir) && (await host.stat(member))) await host.rename(member, state.oldDataDir);
      if (await host.stat(state.oldDataDir)) log.info(`kept the old data as ${state.oldDataDir}`, { prefix });
    }
    // b) The restored data into place.
    if (isInside(state.oldDataDir, facts.dataDir)) {
      const restored = path.posix.join(staging, 'member');
      if (await host.stat(restored)) await host.rename(restored, member);
      if (await host.stat(stagingRoot)) await host.remove(stagingRoot);
    } else {
      const movedRoot = path.posix.join(state.oldDataDir, path.posix.relative(facts.dataDir, stagingRoot));
      const restored = path.posix.join(movedRoot, path.posix.basename(staging));
      if (await host.stat(restored)) {
        if (await host.stat(facts.dataDir)) throw new TsadmError('E_CONFLICT', `${facts.dataDir} exists next to the restored ${restored}`, { hint: `move ${facts.dataDir} away and run again` });
        await host.rename(restored, facts.dataDir);
      }
      if (await host.stat(movedRoot)) await host.remove(movedRoot);
    }
    state = { ...state, step: 'swapped' };
    await writeState(host, state);
  }

  // 4. Bring the control plane back, etcd first.
  for (const name of CONTROL_PLANE_MANIFESTS) {
    const aside = path.posix.join(ASIDE_DIR, name);
    if (await host.stat(aside)) await host.rename(aside, path.posix.join(MANIFESTS_DIR, name));
  }
  log.info('control-plane manifests back; waiting for etcd and the API server', { prefix });
  await deps.waitControlPlane(facts);
  await host.writeFile(RESTORE_RECORD_FILE, `${JSON.stringify({ snapshot: file, sha256: check.fileSha256, oldDataDir: state.oldDataDir, restoredAt: now().toISOString() }, null, 2)}\n`, {
    mode: 0o600, kind: 'other', description: 'the last etcd restore',
  });
  await host.remove(RESTORE_STATE_FILE);
  if ((await host.readdir(ASIDE_DIR)).length === 0) await host.remove(ASIDE_DIR);
  log.info(`restored ${file}; the old data is in ${state.oldDataDir}`, { prefix });
  return { ...base, dryRun: false };
}

/** etcd.yaml where it is: in the manifests directory, or aside (a restore that stopped after moving it). */
async function etcdFacts(host: Host): Promise<EtcdPodFacts> {
  for (const dir of [MANIFESTS_DIR, ASIDE_DIR]) {
    const file = path.posix.join(dir, 'etcd.yaml');
    const text = (await host.readFile(file))?.toString('utf8');
    if (text !== undefined) return parseEtcdPod(text, file);
  }
  throw new TsadmError('E_PRECONDITION', `no ${MANIFESTS_DIR}/etcd.yaml: this is not a control plane with stacked etcd`, {
    hint: 'run the restore on a control plane set up by tsadm or kubeadm with local etcd',
  });
}

function isInside(p: string, dir: string): boolean {
  return p.startsWith(`${dir}/`);
}

/** rename(2) refusing a mount point (EBUSY) or a move across mounts (EXDEV). */
function isMountPointRefusal(err: unknown): boolean {
  const code = ((err as { cause?: { code?: string } } | undefined)?.cause)?.code;
  return code === 'EBUSY' || code === 'EXDEV';
}

async function readState(host: Host): Promise<RestoreState | undefined> {
  const text = (await host.readFile(RESTORE_STATE_FILE))?.toString('utf8');
  if (text === undefined) return undefined;
  try {
    const s = JSON.parse(text) as Partial<RestoreState>;
    if (typeof s.snapshot === 'string' && typeof s.sha256 === 'string' && typeof s.oldDataDir === 'string' && (s.step === 'stopping' || s.step === 'restored' || s.step === 'swapped')) {
      return { snapshot: s.snapshot, sha256: s.sha256, oldDataDir: s.oldDataDir, step: s.step };
    }
  } catch {
    // fall through
  }
  throw new TsadmError('E_PRECONDITION', `${RESTORE_STATE_FILE} is damaged`, { hint: `look at the manifests in ${ASIDE_DIR} and the data directories, put them right, delete ${RESTORE_STATE_FILE}, and run again` });
}

async function writeState(host: Host, state: RestoreState): Promise<void> {
  await host.writeFile(RESTORE_STATE_FILE, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, kind: 'other', description: 'etcd restore progress' });
}
