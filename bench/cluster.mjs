// Full init and join on fresh harness machines, kubeadm and tsadm alternately (never at the same
// time: a running cluster of one tool would slow the other, so each run is torn down first).
// Every output line of both tools is stamped inside the machine (bench/lib/stamped.sh): the
// waterfall of BENCHMARKS.md is drawn from these stamps (bench/waterfall.mjs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load1 } from './lib/exec.mjs';
import { KUBEADM, REPO, SCRATCH, benchConfig } from './lib/tools.mjs';
import { lineAt, parseNodesWatch, parseStamped, segments } from './lib/timeline.mjs';
import * as machines from './lib/machines.mjs';

const LIB = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib');

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

/** A script of bench/lib run inside machine M with ARGS (as bash -c text: machines have their own /tmp). */
export function runScript(m, script, args, timeoutMs = 10 * 60_000) {
  return machines.exec(m, ['bash', '-c', readFileSync(path.join(LIB, script), 'utf8'), script, ...args], timeoutMs);
}

/** ARGV run inside M under bench/lib/stamped.sh: every output line stamped, GNU time's figures. */
async function stamped(m, argv, name) {
  const r = await runScript(m, 'stamped.sh', argv);
  const run = parseStamped(r.stdout);
  saveLog(name, { stdout: run.text, stderr: r.stderr });
  if (r.code !== 0) throw new Error(`${name} failed (exit ${r.code}):\n${run.text.split('\n').slice(-30).join('\n')}\n${r.stderr}`);
  return run;
}

/** Why the controller-manager signs when it does: its lease, its csrsigning and nodeipam start lines. */
const CONTROLLER_MANAGER_EVIDENCE = String.raw`
for f in /var/log/pods/kube-system_kube-controller-manager-*/kube-controller-manager/*.log; do
  [[ -f $f ]] || continue
  echo "container $(basename "$f") first: $(head -1 "$f" | cut -c1-40)"
  grep -hE 'successfully acquired lease|Started "csrsigning"|node_ipam_controller.go.*Sending events|Started "nodeipam"|Caches are synced for certificate-csrsigning-kubelet-client' "$f" | cut -c1-160
done
`;

const joinCommand = (argv, initText) => [...argv, 'join', ...joinArgs(initText), '--cri-socket', CRI, SKIP];
const joinFigures = (run, extraMs) => ({ wallMs: run.wallMs + extraMs, exitMs: run.wallMs, cpuMs: run.cpuMs, maxRssMb: run.maxRssMb });

/**
 * One run of TOOL on fresh machines: init on CP, and the moment it returns, the join of the first
 * worker (as automation does it), with the CSR probe and the Node watch on the control plane;
 * then, on the settled control plane, one more join alone and four joins at once.
 */
async function onePair(tool, argv, m, iteration, { join, log }) {
  const workers = join ? m.workers : [];
  await Promise.all([m.cp, ...m.workers].map((x) => machines.down(x)));
  await Promise.all([m.cp, ...workers].map((x) => machines.up(x)));
  const cfg = path.join(SCRATCH, `init-${tool}-${iteration}.yaml`);
  writeFileSync(cfg, benchConfig({ ip: m.cp.ip, node: m.cp.name, token: TOKEN }));
  const loadBefore = load1();
  const init = await stamped(m.cp, [...argv, 'init', '--config', cfg, SKIP], `${tool}-init-${iteration}`);
  const waitMs = componentWaitMs(init.text);
  const result = {
    init: { wallMs: init.wallMs, waitMs, ownMs: init.wallMs - waitMs, cpuMs: init.cpuMs, maxRssMb: init.maxRssMb, load: loadBefore, segments: segments(init) },
  };
  log(`${tool} init #${iteration}: ${(init.wallMs / 1000).toFixed(1)} s (component wait ${(waitMs / 1000).toFixed(1)} s, cpu ${(init.cpuMs / 1000).toFixed(2)} s, rss ${init.maxRssMb.toFixed(0)} MB, load ${loadBefore})`);
  if (join) {
    const [first, second, ...more] = workers;
    // Started together the moment init returned: the join, the Node watch and the CSR probe.
    const [j, watch, probe] = await Promise.all([
      stamped(first, joinCommand(argv, init.text), `${tool}-join-${iteration}`),
      runScript(m.cp, 'nodes-watch.sh', [first.name]),
      runScript(m.cp, 'cp-probe.sh', ['0']),
    ]);
    const nodes = parseNodesWatch(watch.stdout);
    const signed = /^csrSigned (\d+\.\d+)$/m.exec(probe.stdout);
    const evidence = (await machines.exec(m.cp, ['bash', '-c', CONTROLLER_MANAGER_EVIDENCE], 60_000)).stdout.trim().split('\n');
    const rel = (epochMs) => Math.round(epochMs - init.startMs);
    result.join = { ...joinFigures(j, Math.max(0, (nodes.registered[first.name] ?? j.endMs) - j.endMs)), segments: segments(j, init.startMs) };
    result.worker = {
      initEndMs: rel(init.endMs),
      joinStartMs: rel(j.startMs),
      registeredMs: rel(nodes.registered[first.name] ?? NaN),
      readyMs: rel(nodes.ready[first.name] ?? NaN),
      csrSignedMs: rel(signed ? Number(signed[1]) * 1000 : NaN),
      kubeletStartMs: rel(lineAt(j, /Starting the kubelet/)),
      initKubeletStartMs: rel(lineAt(init, /Starting the kubelet/)),
    };
    result.settling = { afterInitMs: result.worker.csrSignedMs - result.worker.initEndMs, evidence };
    log(`${tool} 2-node #${iteration}: worker registered ${(result.worker.registeredMs / 1000).toFixed(1)} s, Ready ${(result.worker.readyMs / 1000).toFixed(1)} s after init started; a CSR signed ${(result.settling.afterInitMs / 1000).toFixed(1)} s after init returned`);
    // The control plane is settled now (it has signed): one join alone, then four at once.
    const single = await stamped(second, joinCommand(argv, init.text), `${tool}-join-settled-${iteration}`);
    result.settledJoin = { ...joinFigures(single, await nodeRegistered(m.cp, second.name)), segments: segments(single) };
    const four = await Promise.all(more.map((w, k) => stamped(w, joinCommand(argv, init.text), `${tool}-join-concurrent-${iteration}-${k + 1}`)));
    const extra = await Promise.all(more.map((w) => nodeRegistered(m.cp, w.name)));
    const t0 = Math.min(...four.map((r) => r.startMs));
    result.concurrentJoins = { wallMs: four.map((r, k) => r.endMs - t0 + extra[k]), nodes: more.length };
    log(`${tool} joins #${iteration}: settled ${(result.settledJoin.wallMs / 1000).toFixed(1)} s; ${more.length} at once: all registered within ${(Math.max(...result.concurrentJoins.wallMs) / 1000).toFixed(1)} s`);
  }
  await Promise.all([m.cp, ...m.workers].map((x) => machines.down(x)));
  return result;
}

/**
 * MACHINES: { cp, workers: [6 machines] }, used by both tools in turn (torn down in between).
 * tsadmJoin: whether this tsadm has `join`. Results: { kubeadm: PairResult[], tsadm: PairResult[] }.
 */
export async function runCluster({ tsadmArgv, runs, log, machines: m, tsadmJoin, join = true }) {
  const out = { kubeadm: [], tsadm: [] };
  const argv = { kubeadm: [KUBEADM], tsadm: tsadmArgv };
  try {
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? ['tsadm', 'kubeadm'] : ['kubeadm', 'tsadm'];
      for (const t of order) {
        out[t].push(await onePair(t, argv[t], m, i + 1, { join: join && (t === 'kubeadm' || tsadmJoin), log }));
      }
    }
  } finally {
    await Promise.all([m.cp, ...m.workers].map((x) => machines.down(x)));
  }
  return out;
}
