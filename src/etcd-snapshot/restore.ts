import path from 'node:path';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/events.js';
import type { OpenedRegularFile } from '../host/safe-fs.js';
import { snapshotChunks, trustedSnapshot } from './files.js';
import { SnapshotVerifier, type SnapshotCheck } from './integrity.js';
import {
  ASIDE_DIR, CONTROL_PLANE_CONTAINERS, CONTROL_PLANE_MANIFESTS, MANIFESTS_DIR, RESTORE_RECORD_FILE, RESTORE_STATE_FILE,
  oldDataDir, parseEtcdPod, restoreCommand, restoreTool, stagedSnapshot, stagingDir, stagingParent, type EtcdPodFacts,
} from './restore-plan.js';
import { badSnapshot } from './save.js';

/**
 * `tsadm etcd snapshot restore FILE` on a control plane with stacked etcd. Steps, each detectable
 * on disk and recorded in RESTORE_STATE_FILE, so a run after a crash at any point continues:
 *   0. open FILE once and judge that descriptor (root's, writable by no one else, a regular file,
 *      not a link: trustedSnapshot), then stream it, checking it (SHA-256, bbolt), into a 0600 copy
 *      in the restore's own 0700 staging directory; the restore uses only that copy and FILE is never
 *      opened again, so swapping FILE after the check changes nothing. A loose, damaged or
 *      truncated file is refused before anything changes;
 *   1. move the four control-plane manifests from /etc/kubernetes/manifests to ASIDE_DIR and wait
 *      (CRI) until their containers are gone;
 *   2. run the etcd image's own `etcdutl` (3.5+) / `etcdctl` (3.4) `snapshot restore` on the copy,
 *      into the staging directory inside the data directory (its only mount), as a new one-member
 *      cluster made of this member (name and peer URL from etcd.yaml) — tsadm never writes etcd's
 *      files itself; the copy is removed once the tool has run;
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
  // An interrupted run's progress first: it decides whether the tool still needs the snapshot's bytes.
  const previous = await readState(host);
  const snapshot = await trustedSnapshot(host, file);
  let facts: EtcdPodFacts;
  let check: SnapshotCheck;
  try {
    // The copy goes under etcd's data directory (etcd.yaml's); without etcd.yaml the snapshot is
    // still judged first, so a damaged file is reported whatever else is missing.
    let missing: unknown;
    const found = await etcdFacts(host).catch((err: unknown) => void (missing = err));
    const judge = (c: SnapshotCheck): TsadmError | undefined => snapshotRefusal(file, c, opts.expectSha256, previous);
    // A dry run, and a run past the tool's step, only check the bytes (the state pins their SHA-256).
    const copying = !host.dryRun && (previous?.step ?? 'stopping') === 'stopping';
    check = copying && found ? await copyVerified(host, snapshot, file, found.dataDir, judge) : await verifyOnly(snapshot, file, judge);
    if (!found) throw missing;
    facts = found;
  } finally {
    await snapshot.handle.close();
  }
  log.info(`${file} is a whole etcd snapshot (${check.size} bytes, sha256 ${check.fileSha256})`, { prefix });

  // Read in every run (a dry run's read makes it a plan's precondition: applied once, a plan of a
  // restore is refused the second time, since this record has changed).
  const last = (await host.readFile(RESTORE_RECORD_FILE))?.toString('utf8');
  if (last !== undefined) log.debug(`the last restore on this machine: ${last.trim().replace(/\s+/g, ' ')}`, { prefix });
  const tool = restoreTool(facts.image);
  const now = deps.now ?? (() => new Date());
  let state: RestoreState = previous ?? { snapshot: file, sha256: check.fileSha256, oldDataDir: oldDataDir(facts.dataDir, now()), step: 'stopping' };
  const staging = stagingDir(facts.dataDir);
  const stagingRoot = stagingParent(facts.dataDir);
  const copy = stagedSnapshot(facts.dataDir);
  const command = restoreCommand(tool, copy, staging, facts);
  const base = { snapshot: file, sha256: check.fileSha256, dataDir: facts.dataDir, oldDataDir: state.oldDataDir, member: facts.name, tool, resumed: previous !== undefined };

  if (host.dryRun) {
    log.info(`would copy ${file}, checked as it is read, to ${copy} (0600, in the 0700 ${stagingRoot}) and restore from that copy only`, { prefix });
    log.info(`would move ${CONTROL_PLANE_MANIFESTS.join(', ')} from ${MANIFESTS_DIR} to ${ASIDE_DIR} and wait until their containers are gone`, { prefix });
    log.info(`would run ${command.join(' ')} from ${facts.image}`, { prefix });
    log.info(`would keep ${facts.dataDir} as ${state.oldDataDir}, put the restored data in its place, and move the manifests back`, { prefix });
    return { ...base, dryRun: true };
  }
  if (previous) log.info(`continuing the interrupted restore of ${file} (step: ${previous.step})`, { prefix });
  if (state.step === 'stopping') log.info(`copied the checked bytes to ${copy}; the restore reads only this copy`, { prefix });
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
    if (await host.stat(staging)) await host.remove(staging); // tsadm's own, from a run that stopped mid-restore
    log.info(`restoring with ${tool} from ${facts.image} as a new one-member cluster (${facts.name}=${facts.peerURL})`, { prefix });
    await deps.runTool({
      image: facts.image,
      command,
      // The staging directory alone: it holds the checked copy and receives the new data directory.
      mounts: [{ hostPath: stagingRoot, readOnly: false }],
    });
    if (!(await host.stat(path.posix.join(staging, 'member')))?.isDirectory) {
      throw new TsadmError('E_EXEC', `${tool} snapshot restore finished but ${staging}/member is missing`, { hint: 'the control plane is still stopped: see the restore tool\'s log, then run the restore again' });
    }
    await host.remove(copy); // done with: its space back before the swap
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

/** Why these bytes may not be restored (undefined: they may); the same check for a copy and a dry run. */
function snapshotRefusal(file: string, check: SnapshotCheck, expectSha256: string | undefined, previous: RestoreState | undefined): TsadmError | undefined {
  if (!check.ok) return badSnapshot(file, check);
  if (expectSha256 !== undefined && check.fileSha256 !== expectSha256) {
    return new TsadmError('E_CONFLICT', `${file} changed since the plan was made (sha256 ${check.fileSha256}, the plan has ${expectSha256}); nothing was changed`, {
      hint: 'make a new plan of the restore for the snapshot as it is now',
    });
  }
  if (previous && previous.sha256 !== check.fileSha256) {
    return new TsadmError('E_CONFLICT', `a restore of ${previous.snapshot} was interrupted on this machine; finish it before restoring another snapshot`, {
      hint: `run tsadm etcd snapshot restore ${previous.snapshot} again (it continues where it stopped)`,
    });
  }
  return undefined;
}

/** Reads the opened snapshot to its end and judges it; nothing is written. */
async function verifyOnly(snapshot: OpenedRegularFile, file: string, judge: (c: SnapshotCheck) => TsadmError | undefined): Promise<SnapshotCheck> {
  const verifier = new SnapshotVerifier();
  for await (const chunk of snapshotChunks(snapshot, file)) verifier.update(chunk);
  const check = verifier.finish();
  const refusal = judge(check);
  if (refusal) throw refusal;
  return check;
}

/**
 * Streams the opened snapshot into stagedSnapshot(dataDir) through the host's atomic streamed write,
 * judging the bytes as they go by: refused bytes are never renamed into place, and directories this
 * call made are removed again, so a refusal leaves the machine as it was. Memory stays at one chunk.
 */
async function copyVerified(host: Host, snapshot: OpenedRegularFile, file: string, dataDir: string, judge: (c: SnapshotCheck) => TsadmError | undefined): Promise<SnapshotCheck> {
  const made: string[] = [];
  // etcd's data directory is root's alone (0700); one lost with its disk is made as etcd would.
  for (const dir of [dataDir, stagingParent(dataDir)]) {
    if ((await host.stat(dir))?.isDirectory) continue;
    await host.mkdir(dir, 0o700);
    made.unshift(dir);
  }
  const verifier = new SnapshotVerifier();
  async function* judged(): AsyncGenerator<Uint8Array> {
    for await (const chunk of snapshotChunks(snapshot, file)) {
      verifier.update(chunk);
      yield chunk;
    }
    const refusal = judge(verifier.finish());
    if (refusal) throw refusal;
  }
  try {
    await host.writeFileFrom(stagedSnapshot(dataDir), judged(), {
      mode: 0o600, kind: 'other', description: 'etcd snapshot to restore (checked copy)', sha256Of: () => verifier.finish().fileSha256,
    });
  } catch (err) {
    for (const dir of made) await host.remove(dir);
    throw err;
  }
  return verifier.finish();
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
