import { TMP_DIR } from '../constants.js';
import type { Host } from '../host/host.js';

/**
 * What `tsadm init` remembers between runs, for `--resume`: each completed phase with the digest
 * of its inputs and the files it left (path + sha256). Kept under /etc/kubernetes/tmp (where
 * kubeadm keeps its own run leftovers), written atomically through the host (--rootfs honoured), 0600.
 */
export const STATE_FILE = `${TMP_DIR}/tsadm-state.json`;
export const STATE_VERSION = 1;

export interface PhaseRecord {
  readonly digest: string;
  readonly finishedAt: string;
  /** Files this phase is the last writer of, as it left them. */
  readonly files: readonly { readonly path: string; readonly sha256: string }[];
}

export interface RunState {
  readonly version: typeof STATE_VERSION;
  readonly command: string;
  readonly status: 'running' | 'failed' | 'completed';
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly failedPhase?: string;
  readonly error?: string;
  readonly phases: Readonly<Record<string, PhaseRecord>>;
}

/** The recorded state, or undefined when there is none or it is unreadable (then nothing is trusted). */
export async function readState(host: Pick<Host, 'readFile'>): Promise<RunState | undefined> {
  const data = await host.readFile(STATE_FILE);
  if (!data) return undefined;
  try {
    const parsed = JSON.parse(data.toString('utf8')) as RunState;
    if (parsed.version !== STATE_VERSION || typeof parsed.phases !== 'object' || parsed.phases === null) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

export async function writeState(host: Pick<Host, 'writeFile' | 'mkdir'>, state: RunState): Promise<void> {
  await host.mkdir(TMP_DIR, 0o700);
  await host.writeFile(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, kind: 'config', description: 'tsadm run state (for --resume)' });
}
