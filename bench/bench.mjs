#!/usr/bin/env node
// `npm run bench`: tsadm side by side with the reference kubeadm v1.20.2 (issue 8).
//
//   node bench/bench.mjs [--quick] [--runs N] [--cluster-runs N] [--upgrade-runs N] [--limits-runs N] [--only PART[,PART…]] [--baseline REF] [--no-join] [--out FILE]
//   (PART: micro, runtime, cluster, upgrade, limits, baseline, snapshot)
//   node bench/bench.mjs --render [FILE]   the report and waterfall.svg again from saved raw runs
//
// micro   (host, temp dirs): init phase certs all / kubeconfig all with RSA-2048 and ECDSA-P256,
//         cold start of `version` and `token generate`; default 7 pairs (--quick: 3); then the
//         cold start of both commands by bin/tsadm, the single executable (built here by
//         scripts/build-sea.mjs), kubeadm and bare `node -e 0`, 3× as many rotated rounds.
// runtime (host, temp dirs; issue 28): the same dist/ bundle under the system's older Node.js (20)
//         and the project's Node.js 24, then through bin/tsadm and as the single executable: bare
//         start, `version`, `init --dry-run`, `init phase certs all`; wall, CPU and peak RSS side by
//         side (bench/runtime.mjs). Default 7 rounds (--quick: 3).
// cluster (harness machines b1..b7 = 10.250.0.71-77): full init on a fresh machine with the e2e
//         config and, the moment it returns, the join of a second fresh machine, watched until its
//         Node is Ready (time to a 2-node cluster), with a CSR probe for the settling; then one
//         join alone and four at once on the settled control plane; every output line stamped for
//         the waterfall (bench/waterfall.mjs). Default 5 pairs (--quick: 1). Needs root and
//         `npm run provision`.
// upgrade (harness machines b5, b6 = 10.250.0.75-76): `upgrade apply v1.20.3 -y` of a v1.20.2 control
//         plane made by tsadm init, by the reference kubeadm v1.20.3 and by tsadm (bench/upgrade.mjs;
//         v1.20.3 is v1.20.2's source relabelled); default 3 pairs (--quick: 1). tsadm's side is
//         measured only when this build has `upgrade apply` ("n/a" otherwise).
// limits  (harness machines b2, b4): L_init and L_join (bench/limits.mjs); default 5 runs (--quick: 1).
// snapshot (host, temp dirs; issue 30): `tsadm etcd snapshot save` against `etcdctl snapshot save`
//         on the same real etcd holding ~40 MiB (bench/snapshot.mjs); default 7 pairs (--quick: 3).
// baseline (with --baseline REF, a git ref of this repository): certs all + kubeconfig all with
//         RSA-2048 keys by kubeadm, the tsadm of REF and this tsadm, rotating (bench/baseline.mjs).
// Runs alternate kubeadm/tsadm (order swapped each pair); reported are medians and the median of
// the per-pair ratios tsadm/kubeadm. Writes the raw runs as JSON (default bench/results/latest.json).
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { load1, requireGnuTime } from './lib/exec.mjs';
import { REPO, SCRATCH, cpuModel, snapshotTsadm, versions } from './lib/tools.mjs';
import { renderReport } from './report.mjs';
import { waterfallSvg } from './waterfall.mjs';
import { runColdStart, runMicro } from './micro.mjs';
import { runCluster } from './cluster.mjs';
import { runBaseline } from './baseline.mjs';
import { runLimits } from './limits.mjs';
import { runRuntime } from './runtime.mjs';
import { runSnapshot } from './snapshot.mjs';
import { hasUpgradeApply, runUpgrade, upgradeKubeadmVersion } from './upgrade.mjs';

function parseArgs(argv) {
  const o = { quick: false, only: undefined, join: true, out: path.join(REPO, 'bench', 'results', 'latest.json') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--no-join') o.join = false;
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--cluster-runs') o.clusterRuns = Number(argv[++i]);
    else if (a === '--upgrade-runs') o.upgradeRuns = Number(argv[++i]);
    else if (a === '--limits-runs') o.limitsRuns = Number(argv[++i]);
    else if (a === '--only') o.only = new Set(argv[++i].split(','));
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--baseline') o.baseline = argv[++i];
    else throw new Error(`unknown argument ${a} (see the header of bench/bench.mjs)`);
  }
  o.runs ??= o.quick ? 3 : 7;
  o.clusterRuns ??= o.quick ? 1 : 5;
  o.upgradeRuns ??= o.quick ? 1 : 3;
  o.limitsRuns ??= o.quick ? 1 : 5;
  if (o.only?.has('baseline') && !o.baseline) throw new Error('--only baseline needs --baseline REF');
  return o;
}

/** Full-cluster runs: one control plane and six workers, used by each tool in turn. */
const CLUSTER_MACHINES = {
  cp: { name: 'b1', ip: '10.250.0.71' },
  workers: [2, 3, 4, 5, 6, 7].map((n) => ({ name: `b${n}`, ip: `10.250.0.7${n}` })),
};
const LIMIT_MACHINES = { cp: { name: 'b2', ip: '10.250.0.72' }, worker: { name: 'b4', ip: '10.250.0.74' } };

/** Builds the single executable (scripts/build-sea.mjs) into SCRATCH; undefined when it cannot be built here. */
function buildSea(log) {
  try {
    execFileSync(process.execPath, [path.join(REPO, 'scripts', 'build-sea.mjs')], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const sea = path.join(SCRATCH, 'tsadm-sea');
    copyFileSync(path.join(REPO, 'dist', 'tsadm'), sea);
    chmodSync(sea, 0o755);
    return sea;
  } catch (err) {
    log(`the single executable could not be built, its cold start is not measured: ${String(err).split('\n')[0]}`);
    return undefined;
  }
}

/** Whether this build has `join` (yargs prints the global help for an unknown command, so look for a join-only flag). */
function hasJoin(argv) {
  try {
    return execFileSync(argv[0], [...argv.slice(1), 'join', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString().includes('--discovery-token-unsafe-skip-ca-verification');
  } catch {
    return false;
  }
}

// --render FILE: the report and the waterfall again from saved raw runs, nothing measured.
if (process.argv[2] === '--render') {
  const file = path.resolve(process.argv[3] ?? path.join(REPO, 'bench', 'results', 'latest.json'));
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  if (saved.cluster?.tsadm.some((r) => r.worker)) writeFileSync(path.join(path.dirname(file), 'waterfall.svg'), waterfallSvg(saved.cluster, saved.limits));
  process.stdout.write(renderReport(saved) + '\n');
  process.exit(0);
}
const opts = parseArgs(process.argv.slice(2));
const runs = (part) => opts.only === undefined || opts.only.has(part);
const log = (msg) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
requireGnuTime();
const tsadmArgv = snapshotTsadm();
try {
  const env = {
    date: new Date().toISOString(),
    cpu: `${cpus().length} × ${cpuModel()}`,
    memGb: Math.round(totalmem() / 2 ** 30),
    kernel: execFileSync('uname', ['-r']).toString().trim(),
    loadAtStart: load1(),
    versions: versions(tsadmArgv),
    opts: { ...opts, only: opts.only && [...opts.only], out: path.relative(REPO, opts.out) },
  };
  log(`kubeadm ${env.versions.kubeadm}, tsadm ${env.versions.tsadm}, node ${env.versions.node}; load ${env.loadAtStart}`);
  const results = { env };
  if (runs('micro')) {
    results.micro = await runMicro({ tsadmArgv, runs: opts.runs, log });
    results.coldStart = await runColdStart({ tsadmArgv, seaPath: buildSea(log), runs: opts.runs * 3, log });
  }
  if (runs('runtime')) results.runtime = await runRuntime({ runs: opts.runs, log, seaPath: buildSea(log) });
  if (runs('snapshot')) results.snapshot = await runSnapshot({ tsadmArgv, runs: opts.runs ?? (opts.quick ? 3 : 7), log });
  if (opts.baseline) results.baseline = await runBaseline({ tsadmArgv, ref: opts.baseline, runs: opts.runs, log });
  if (runs('cluster')) {
    const tsadmJoin = opts.join && hasJoin(tsadmArgv);
    if (!tsadmJoin) log('tsadm has no usable `join` command in this build: join measured for kubeadm only');
    results.tsadmJoin = tsadmJoin;
    results.cluster = await runCluster({ tsadmArgv, runs: opts.clusterRuns, log, machines: CLUSTER_MACHINES, tsadmJoin, join: opts.join });
  }
  if (runs('upgrade')) {
    const tsadmUpgrade = hasUpgradeApply(tsadmArgv);
    if (!tsadmUpgrade) log('tsadm has no `upgrade apply` command in this build: upgrade measured for kubeadm only');
    results.tsadmUpgrade = tsadmUpgrade;
    results.env.versions.kubeadmUpgrade = upgradeKubeadmVersion();
    results.upgrade = await runUpgrade({ tsadmArgv, runs: opts.upgradeRuns, log, tsadmUpgrade });
  }
  if (runs('limits')) {
    results.limits = await runLimits({ tsadmArgv, runs: opts.limitsRuns, log, machines: LIMIT_MACHINES });
  }
  results.env.loadAtEnd = load1();
  mkdirSync(path.dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  if (results.cluster?.tsadm.some((r) => r.worker)) {
    const svg = path.join(path.dirname(opts.out), 'waterfall.svg');
    writeFileSync(svg, waterfallSvg(results.cluster, results.limits));
    log(`waterfall: ${svg}`);
  }
  process.stdout.write(renderReport(results) + '\n');
  log(`raw runs: ${opts.out}`);
} finally {
  rmSync(SCRATCH, { recursive: true, force: true });
}
