/**
 * Fault injection for crash-safety tests: TSADM_FAULT_AFTER=N makes tsadm exit abruptly (no
 * cleanup, like a power cut or SIGKILL) right after its Nth file write, API call or etcd membership
 * change (member add, promote, remove).
 * TSADM_FAULT_STAGE=before-rename moves the kill point of the Nth write to the moment its temp
 * file is complete but not yet renamed over the target (a crash in the middle of a write); API
 * calls are still counted when they complete. TSADM_FAULT_TRACE=1 prints every kill point as it
 * passes ("tsadm: fault point #N: write /path"), so a test can pick N by what it hits.
 * TSADM_FAULT_AFTER_WRITE=SUFFIX kills right after the first write whose path ends with SUFFIX
 * (at the stage TSADM_FAULT_STAGE names), whatever its number: a run whose API calls vary (a
 * renewal that waited for the Lease polls it) cannot number its writes as another run did.
 */
export type FaultStage = 'done' | 'before-rename';

let count = 0;
const limit = Number.parseInt(process.env.TSADM_FAULT_AFTER ?? '', 10);
const trace = process.env.TSADM_FAULT_TRACE === '1';
const writeStage: FaultStage = process.env.TSADM_FAULT_STAGE === 'before-rename' ? 'before-rename' : 'done';
const afterWriteOf = process.env.TSADM_FAULT_AFTER_WRITE || undefined;

export function checkFault(kind: 'write' | 'api' | 'etcd', what: string, stage: FaultStage = 'done'): void {
  const armed = Number.isFinite(limit) && limit > 0;
  if (!armed && !trace && afterWriteOf === undefined) return;
  if (stage !== (kind === 'write' ? writeStage : 'done')) return;
  count += 1;
  const where = `${kind} #${count} (${what}${stage === 'done' ? '' : `, ${stage}`})`;
  if (trace) process.stderr.write(`tsadm: fault point ${where}\n`);
  if ((armed && count >= limit) || (afterWriteOf !== undefined && kind === 'write' && what.endsWith(afterWriteOf))) {
    process.stderr.write(`tsadm: fault injected after ${where}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
