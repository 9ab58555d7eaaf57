// Harness machines through scripts/e2e/machine.sh (the same script test/e2e/harness.ts wraps).
import path from 'node:path';
import { timed, check } from './exec.mjs';
import { REPO } from './tools.mjs';

const MACHINE_SH = path.join(REPO, 'scripts', 'e2e', 'machine.sh');

export async function up(m) {
  check(await timed(MACHINE_SH, ['up', m.name, m.ip], { timeoutMs: 5 * 60_000 }), `machine.sh up ${m.name}`);
}

export async function down(m) {
  await timed(MACHINE_SH, ['down', m.name], { timeoutMs: 5 * 60_000 });
}

/** Runs ARGV inside machine M; resolves the timed() result (no throw). */
export function exec(m, argv, timeoutMs = 10 * 60_000) {
  return timed(MACHINE_SH, ['exec', m.name, '--', ...argv], { timeoutMs });
}

export async function kubectl(cp, args) {
  return exec(cp, ['kubectl', '--kubeconfig', '/etc/kubernetes/admin.conf', ...args], 60_000);
}
