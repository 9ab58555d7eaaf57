// `node bench/bench.mjs --only baseline --baseline REF`: this tsadm against an earlier tsadm (a
// git ref of this repository) and the reference kubeadm, side by side in one run, on the
// key-heavy cases: `init phase certs all` then `init phase kubeconfig all` with RSA-2048 keys,
// timed together (14 private keys: 13 in certs, 4 client keys in kubeconfigs minus reuse).
// Made for issue 14, which replaced the hand-assembled RSA generator of the earlier builds with
// OpenSSL's own (`crypto.generateKeyPair('rsa')`); comparing against a ref before that change
// measures what OpenSSL key generation costs.
//
// The baseline is checked out into the cache (a detached git worktree), installed with its own
// lockfile (`npm ci`) and built with its own build script, once per commit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, load1, timePrefix, timed } from './lib/exec.mjs';
import { CACHE, KUBEADM, REPO, SCRATCH, benchConfig } from './lib/tools.mjs';

/** Builds (once per commit) and returns the argv that runs the tsadm of `ref`. */
export function baselineTsadm(ref, log) {
  const sha = execFileSync('git', ['-C', REPO, 'rev-parse', '--verify', `${ref}^{commit}`]).toString().trim();
  const dir = path.join(CACHE, 'bench-baselines', sha);
  const bin = ['node', path.join(dir, 'bin', 'tsadm')];
  if (existsSync(path.join(dir, '.built'))) return { sha, argv: bin };
  log(`building baseline ${ref} (${sha.slice(0, 12)}) in ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  execFileSync('git', ['-C', REPO, 'worktree', 'prune']);
  mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('git', ['-C', REPO, 'worktree', 'add', '--detach', dir, sha], { stdio: 'ignore' });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
  execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'ignore' });
  writeFileSync(path.join(dir, '.built'), `${sha}\n`);
  return { sha, argv: bin };
}

/** certs all + kubeconfig all (RSA-2048) in a fresh directory, timed as one. */
async function once(tool, argv) {
  const dir = mkdtempSync(path.join(SCRATCH, 'baseline-'));
  try {
    const cfg = path.join(dir, 'config.yaml');
    writeFileSync(cfg, benchConfig({ ip: '10.250.0.71', node: 'b1', certDir: path.join(dir, 'pki') }));
    const script = [
      `${argv.map((a) => `'${a}'`).join(' ')} init phase certs all --config '${cfg}' >/dev/null`,
      `${argv.map((a) => `'${a}'`).join(' ')} init phase kubeconfig all --config '${cfg}' --kubeconfig-dir '${path.join(dir, 'kc')}' >/dev/null`,
    ].join(' && ');
    const r = check(await timed(timePrefix()[0], [...timePrefix().slice(1), 'bash', '-c', script]), `${tool} certs all + kubeconfig all`);
    return { wallMs: r.wallMs, cpuMs: r.cpuMs, load: load1() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Results: { ref, sha, runs: { kubeadm: Run[], baseline: Run[], tsadm: Run[] } }, rotating the order each round. */
export async function runBaseline({ tsadmArgv, ref, runs, log }) {
  const { sha, argv } = baselineTsadm(ref, log);
  mkdirSync(SCRATCH, { recursive: true });
  const tools = { kubeadm: [KUBEADM], baseline: argv, tsadm: tsadmArgv };
  const names = Object.keys(tools);
  const out = { kubeadm: [], baseline: [], tsadm: [] };
  for (let i = 0; i < runs; i++) {
    const order = names.map((_, k) => names[(k + i) % names.length]);
    for (const t of order) out[t].push(await once(t, tools[t]));
    log(`certs+kubeconfig RSA #${i + 1}: ${names.map((t) => `${t} ${out[t][i].wallMs.toFixed(0)} ms`).join(', ')} (load ${load1()})`);
  }
  return { ref, sha, runs: out };
}
