/**
 * Fault injection for crash-safety tests: TSADM_FAULT_AFTER=N makes tsadm exit abruptly (no
 * cleanup, like a power cut or SIGKILL) right after its Nth file write or API call.
 */
let count = 0;
const limit = Number.parseInt(process.env.TSADM_FAULT_AFTER ?? '', 10);

export function checkFault(kind: 'write' | 'api', what: string): void {
  if (!Number.isFinite(limit) || limit <= 0) return;
  count += 1;
  if (count >= limit) {
    process.stderr.write(`tsadm: fault injected after ${kind} #${count} (${what})\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
