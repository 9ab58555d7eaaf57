// Full init and join on fresh harness machines, kubeadm and tsadm alternately (never at the same
// time: a running cluster of one tool would slow the other, so each pair is torn down first).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { load1, timePrefix } from './lib/exec.mjs';
import { KUBEADM, REPO, SCRATCH, benchConfig } from './lib/tools.mjs';
import * as machines from './lib/machines.mjs';

const TOKEN = 'bench0.0123456789abcdef';
const CRI = '/run/containerd/containerd.sock';
/** Both tools get the same skip: the reference kubeadm's preflight needs crictl, absent here. */
const SKIP = '--skip-phases=preflight';

/** Keeps each command's output (with -v 1 timestamps where the tool prints them) for later reading. */
function saveLog(name, r) {
  const dir = path.join(REPO, 'bench', 'results', 'logs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.log`), `${r.stdout}\n--- stderr\n${r.stderr}`);
}

/** Milliseconds in a Go duration string ("7.12s", "712ms", "1m2.5s"). */
export function goDurationMs(text) {
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, µs: 1e-3, us: 1e-3, ns: 1e-6 };
  let ms = 0;
  for (const [, n, u] of text.matchAll(/([\d.]+)(h|ms|m|s|µs|us|ns)/g)) ms += Number(n) * unit[u];
  return ms;
}

/**
 * Time the tool spent waiting on components, from its own log: the control-plane wait
 * ("[apiclient] All control plane components are healthy after 12.3 seconds", both tools) plus
 * tsadm's separate kubelet wait ("[kubelet-check] The kubelet is healthy after 7.1s"; kubeadm
 * 1.20 has no such phase: its kubelet start-up falls inside the control-plane wait).
 */
export function componentWaitMs(output) {
  const cp = /All control plane components are healthy after ([\d.]+) seconds/.exec(output);
  const kubelet = /The kubelet is healthy after (\S+)/.exec(output);
  return (cp ? Number(cp[1]) * 1000 : NaN) + (kubelet ? goDurationMs(kubelet[1]) : 0);
}

/** Worker join arguments from the init output ("kubeadm join …" / "tsadm join …", backslash-continued). */
export function joinArgs(output) {
  const lines = output.replace(/\\\r?\n/g, ' ').split('\n').map((l) => l.trim());
  const line = lines.filter((l) => /^(kubeadm|tsadm) join /.test(l) && !l.includes('--control-plane')).pop();
  if (!line) throw new Error('no worker join command in the init output');
  return line.split(/\s+/).slice(2);
}

/** Polls until the Node object exists; resolves the extra milliseconds it took (0 if already). */
async function nodeRegistered(cp, name, timeoutMs = 120_000) {
  const start = Date.now();
  for (;;) {
    const r = await machines.kubectl(cp, ['get', 'node', name, '-o', 'name']);
    if (r.code === 0 && r.stdout.includes(`node/${name}`)) return Date.now() - start;
    if (Date.now() - start > timeoutMs) return NaN;
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** One init (+ join when joinable) by TOOL on fresh machines CP and WORKER. */
async function onePair(tool, argv, cp, worker, iteration, { join, log }) {
  await Promise.all([machines.down(cp), machines.down(worker)]);
  await machines.up(cp);
  if (join) await machines.up(worker);
  const cfg = path.join(SCRATCH, `init-${tool}-${iteration}.yaml`);
  writeFileSync(cfg, benchConfig({ ip: cp.ip, node: cp.name, token: TOKEN }));
  const loadBefore = load1();
  const init = await machines.exec(cp, [...timePrefix(), ...argv, 'init', '--config', cfg, SKIP], 10 * 60_000);
  saveLog(`${tool}-init-${iteration}`, init);
  if (init.code !== 0) throw new Error(`${tool} init failed:\n${(init.stdout + init.stderr).split('\n').slice(-30).join('\n')}`);
  const waitMs = componentWaitMs(init.stdout + init.stderr);
  const result = {
    init: { wallMs: init.innerWallMs, waitMs, ownMs: init.innerWallMs - waitMs, cpuMs: init.cpuMs, maxRssMb: init.maxRssMb, load: loadBefore },
  };
  log(`${tool} init #${iteration}: ${(init.innerWallMs / 1000).toFixed(1)} s (component wait ${(waitMs / 1000).toFixed(1)} s, cpu ${(init.cpuMs / 1000).toFixed(2)} s, rss ${init.maxRssMb.toFixed(0)} MB, load ${loadBefore})`);
  if (join) {
    const args = joinArgs(init.stdout);
    const j = await machines.exec(worker, [...timePrefix(), ...argv, 'join', ...args, '--cri-socket', CRI, SKIP], 10 * 60_000);
    saveLog(`${tool}-join-${iteration}`, j);
    if (j.code !== 0) throw new Error(`${tool} join failed:\n${(j.stdout + j.stderr).split('\n').slice(-30).join('\n')}`);
    const extra = await nodeRegistered(cp, worker.name);
    result.join = { wallMs: j.innerWallMs + extra, exitMs: j.innerWallMs, cpuMs: j.cpuMs, maxRssMb: j.maxRssMb };
    log(`${tool} join #${iteration}: ${(j.innerWallMs / 1000).toFixed(1)} s + ${extra} ms to Node registered (cpu ${(j.cpuMs / 1000).toFixed(2)} s, rss ${j.maxRssMb.toFixed(0)} MB)`);
  }
  await Promise.all([machines.down(cp), machines.down(worker)]);
  return result;
}

/**
 * MACHINES: { kubeadm: {cp, worker}, tsadm: {cp, worker} }. tsadmJoin: whether this tsadm has `join`.
 * Results: { kubeadm: PairResult[], tsadm: PairResult[] }.
 */
export async function runCluster({ tsadmArgv, runs, log, machines: m, tsadmJoin, join = true }) {
  const out = { kubeadm: [], tsadm: [] };
  const argv = { kubeadm: [KUBEADM], tsadm: tsadmArgv };
  try {
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? ['tsadm', 'kubeadm'] : ['kubeadm', 'tsadm'];
      for (const t of order) {
        out[t].push(await onePair(t, argv[t], m[t].cp, m[t].worker, i + 1, { join: join && (t === 'kubeadm' || tsadmJoin), log }));
      }
    }
  } finally {
    for (const t of ['kubeadm', 'tsadm']) await Promise.all([machines.down(m[t].cp), machines.down(m[t].worker)]);
  }
  return out;
}
