// Node.js 20 against Node.js 24 (issue 28): the same bundle (a snapshot of dist/) started by each
// runtime, side by side, for start-up and memory. bin/tsadm refuses a Node older than 24, so both
// run dist/tsadm.mjs directly (the CLI entry with the same fast path, src/entry.ts). Every round
// runs each case under both runtimes, the first of the two swapping each round.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { check, load1, timePrefix, timed } from './lib/exec.mjs';
import { NODE, SCRATCH } from './lib/tools.mjs';

/** The older runtime: $TSADM_BENCH_OLD_NODE, else the system's node when it is older than 24. */
function oldNode() {
  for (const candidate of [process.env.TSADM_BENCH_OLD_NODE, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!candidate || !existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version']).toString().trim();
    if (Number(version.slice(1).split('.')[0]) < 24) return { path: candidate, version };
  }
  return undefined;
}

/** The cases: argv tails after `<node>`; init --dry-run writes nothing but plans into a fresh --rootfs. */
function cases(entry) {
  return {
    'node -e 0': () => ['-e', '0'],
    'tsadm version': () => [entry, 'version'],
    'tsadm init --dry-run': (dir) => [entry, 'init', '--dry-run', '--rootfs', dir, '--kubernetes-version', 'v1.20.2',
      '--apiserver-advertise-address', '10.250.0.71', '--node-name', 'b1', '--cri-socket', '/run/containerd/containerd.sock',
      '--ignore-preflight-errors', 'all'],
    'tsadm init phase certs all': (dir) => [entry, 'init', 'phase', 'certs', 'all', '--rootfs', dir, '--kubernetes-version', 'v1.20.2',
      '--apiserver-advertise-address', '10.250.0.71', '--node-name', 'b1'],
  };
}

/** Results: { runtimes: { old, new }, cases: { [case]: { old: Run[], new: Run[] } } }, or undefined without an older Node. */
export async function runRuntime({ runs, log }) {
  const old = oldNode();
  if (!old) {
    log('no Node.js older than 24 here (set TSADM_BENCH_OLD_NODE): runtime comparison skipped');
    return undefined;
  }
  const runtimes = { old: { path: old.path, version: old.version }, new: { path: NODE, version: execFileSync(NODE, ['--version']).toString().trim() } };
  const entry = path.join(SCRATCH, 'dist', 'tsadm.mjs');
  const all = cases(entry);
  const out = { runtimes, cases: {} };
  for (const [name, argvOf] of Object.entries(all)) {
    out.cases[name] = { old: [], new: [] };
    for (let i = 0; i < runs; i++) {
      for (const which of i % 2 ? ['new', 'old'] : ['old', 'new']) {
        const dir = mkdtempSync(path.join(SCRATCH, 'runtime-'));
        try {
          const r = check(await timed(timePrefix()[0], [...timePrefix().slice(1), runtimes[which].path, ...argvOf(dir)]), `${runtimes[which].version} ${name}`);
          out.cases[name][which].push({ wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssMb: r.maxRssMb, load: load1() });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      log(`${name} #${i + 1}: ${runtimes.old.version} ${out.cases[name].old[i].wallMs.toFixed(0)} ms, ${runtimes.new.version} ${out.cases[name].new[i].wallMs.toFixed(0)} ms`);
    }
  }
  return out;
}
