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

/** The cases: tsadm's arguments (none: bare `node -e 0`); init --dry-run plans into a fresh --rootfs. */
const CASES = {
  'node -e 0': undefined,
  'tsadm version': () => ['version'],
  'tsadm init --dry-run': (dir) => ['init', '--dry-run', '--rootfs', dir, '--kubernetes-version', 'v1.20.2',
    '--apiserver-advertise-address', '10.250.0.71', '--node-name', 'b1', '--cri-socket', '/run/containerd/containerd.sock',
    '--ignore-preflight-errors', 'all'],
  'tsadm init phase certs all': (dir) => ['init', 'phase', 'certs', 'all', '--rootfs', dir, '--kubernetes-version', 'v1.20.2',
    '--apiserver-advertise-address', '10.250.0.71', '--node-name', 'b1'],
};

/** Results: { runtimes: { old, new }, cases: { [case]: { old: Run[], new: Run[] } } }, or undefined without an older Node. */
export async function runRuntime({ runs, log, seaPath }) {
  const old = oldNode();
  if (!old) {
    log('no Node.js older than 24 here (set TSADM_BENCH_OLD_NODE): runtime comparison skipped');
    return undefined;
  }
  // Recorded relative to the checkout: saved results must not name this machine's paths.
  const runtimes = { old: { path: old.path, version: old.version }, new: { path: path.relative(process.cwd(), NODE) || NODE, version: execFileSync(NODE, ['--version']).toString().trim() } };
  const entry = path.join(SCRATCH, 'dist', 'tsadm.mjs');
  // old/new: the bundle itself under each Node; launcher: Node 24 through bin/tsadm (its V8 flags);
  // sea: the single executable, when the bench built one.
  const argvOf = {
    old: (args) => [old.path, ...(args ? [entry, ...args] : ['-e', '0'])],
    new: (args) => [NODE, ...(args ? [entry, ...args] : ['-e', '0'])],
    launcher: (args) => [NODE, ...(args ? [path.join(SCRATCH, 'bin', 'tsadm'), ...args] : ['-e', '0'])],
    ...(seaPath ? { sea: (args) => (args ? [seaPath, ...args] : [NODE, '-e', '0']) } : {}),
  };
  const kinds = Object.keys(argvOf);
  const out = { runtimes, kinds, cases: {} };
  for (const [name, argsOf] of Object.entries(CASES)) {
    out.cases[name] = Object.fromEntries(kinds.map((k) => [k, []]));
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(i + k) % kinds.length];
        const dir = mkdtempSync(path.join(SCRATCH, 'runtime-'));
        try {
          const argv = argvOf[kind](argsOf?.(dir));
          const r = check(await timed(timePrefix()[0], [...timePrefix().slice(1), ...argv]), `${kind} ${name}`);
          out.cases[name][kind].push({ wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssMb: r.maxRssMb, load: load1() });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      log(`${name} #${i + 1}: ${kinds.map((k) => `${k} ${out.cases[name][k][i].wallMs.toFixed(0)} ms`).join(', ')}`);
    }
  }
  return out;
}
