// The physical limits a bootstrapper cannot beat (issue 17), on
// fresh harness machines. Neither tool is timed here except where said; what is timed is the
// kubelet and the control-plane components themselves:
//
// L_init   every file init writes is put in place first (by tsadm's own phases, untimed, with the
//          kubelet held stopped), then the kubelet is started: time until etcd, kube-apiserver,
//          kube-controller-manager and kube-scheduler answer their health endpoints, and until
//          the controller-manager has signed a CSR (created and approved as soon as the API
//          server answers).
// L_join   on a cluster made by a full tsadm init + join (untimed), the worker's kubelet is
//          stopped and its Node deleted; with its kubelet.conf and signed client certificate in
//          place the kubelet is started again: time until the Node is registered, and Ready.
//
// The settling after each tool's init is measured in every full-cluster run (bench/cluster.mjs).
//
// All timestamps come from `date +%s.%N` inside the machines (one kernel, one clock).
import { chmodSync, copyFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCRATCH, benchConfig } from './lib/tools.mjs';
import { check } from './lib/exec.mjs';
import * as machines from './lib/machines.mjs';
import { joinArgs, runScript } from './cluster.mjs';

const LIB = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib');
const TOKEN = 'limit0.0123456789abcdef';
const CRI = '/run/containerd/containerd.sock';
const SKIP = '--skip-phases=preflight';
/**
 * ARGV run with the kubelet held where it is (bench/lib/hold-kubelet.sh, copied to SCRATCH: the
 * machines see that path); other service calls go to the machine's own service manager.
 */
function holdingKubelet(argv) {
  const hold = path.join(SCRATCH, 'hold-kubelet.sh');
  if (!existsSync(hold)) copyFileSync(path.join(LIB, 'hold-kubelet.sh'), hold);
  chmodSync(hold, 0o755);
  return ['bash', '-c', `export BENCH_REAL_SERVICE_MANAGER="$TSADM_SERVICE_MANAGER" TSADM_SERVICE_MANAGER=${hold}; exec "$@"`, 'hold', ...argv];
}

/** "name epoch" lines → { at: { name: ms since t0 }, t0: epoch ms }. */
function parseProbe(stdout) {
  const abs = Object.fromEntries(stdout.split('\n').map((l) => l.trim().split(/\s+/)).filter((p) => p.length === 2 && /^\d+\.\d+$/.test(p[1] ?? '')).map(([k, v]) => [k, Number(v) * 1000]));
  const t0 = abs.t0;
  if (t0 === undefined) throw new Error(`probe printed no t0:\n${stdout}`);
  return { t0, at: Object.fromEntries(Object.entries(abs).filter(([k]) => k !== 't0').map(([k, v]) => [k, Math.round(v - t0)])) };
}

async function bashIn(m, script, what, timeoutMs = 5 * 60_000) {
  return check(await machines.exec(m, ['bash', '-c', script], timeoutMs), what);
}

/** L_init on a fresh machine: tsadm writes every file with the kubelet held, then the kubelet starts. */
async function limitInit(tsadmArgv, cp, i, log) {
  await machines.down(cp);
  await machines.up(cp);
  const cfg = path.join(SCRATCH, `limit-init-${i}.yaml`);
  writeFileSync(cfg, benchConfig({ ip: cp.ip, node: cp.name, token: TOKEN }));
  await bashIn(cp, '$TSADM_SERVICE_MANAGER stop kubelet', 'stop kubelet');
  for (const phase of [['certs', 'all'], ['kubeconfig', 'all'], ['kubelet-start'], ['etcd', 'local'], ['control-plane', 'all']]) {
    check(await machines.exec(cp, holdingKubelet([...tsadmArgv, 'init', 'phase', ...phase, '--config', cfg])), `tsadm init phase ${phase.join(' ')}`);
  }
  const { at } = parseProbe(check(await runScript(cp, 'cp-probe.sh', ['1']), 'L_init probe').stdout);
  log(`L_init #${i}: ${JSON.stringify(at)}`);
  await machines.down(cp);
  return at;
}

/** L_join: a joined worker's kubelet restarted with its credentials in place and its Node deleted. */
async function limitJoin(tsadmArgv, cp, worker, i, log) {
  await Promise.all([machines.down(cp), machines.down(worker)]);
  await Promise.all([machines.up(cp), machines.up(worker)]);
  const cfg = path.join(SCRATCH, `limit-join-${i}.yaml`);
  writeFileSync(cfg, benchConfig({ ip: cp.ip, node: cp.name, token: TOKEN }));
  const init = check(await machines.exec(cp, [...tsadmArgv, 'init', '--config', cfg, SKIP], 10 * 60_000), 'tsadm init');
  check(await machines.exec(worker, [...tsadmArgv, 'join', ...joinArgs(init.stdout), '--cri-socket', CRI, SKIP], 10 * 60_000), 'tsadm join');
  await bashIn(worker, '$TSADM_SERVICE_MANAGER stop kubelet', 'stop kubelet');
  check(await machines.kubectl(cp, ['delete', 'node', worker.name, '--wait=true']), 'delete node');
  // The start and the watch run concurrently: the watch on the control plane, the start on the worker.
  const watch = runScript(cp, 'nodes-watch.sh', [worker.name]);
  await new Promise((res) => setTimeout(res, 300));
  const started = await bashIn(worker, 'echo "start $(date +%s.%N)"; $TSADM_SERVICE_MANAGER start kubelet >/dev/null 2>&1', 'start kubelet');
  const w = check(await watch, 'L_join watch');
  const startMs = Number(/start (\d+\.\d+)/.exec(started.stdout)?.[1]) * 1000;
  const t0 = Number(/t0 (\d+\.\d+)/.exec(w.stdout)?.[1]) * 1000;
  const rel = (name) => {
    const v = new RegExp(`${name} ${worker.name} (\\d+\\.\\d+)`).exec(w.stdout)?.[1];
    return v === undefined ? undefined : Math.round(Number(v) * 1000 - startMs);
  };
  const at = { registered: rel('registered'), ready: rel('ready'), watchLeadMs: Math.round(startMs - t0) };
  log(`L_join #${i}: ${JSON.stringify(at)}`);
  await Promise.all([machines.down(cp), machines.down(worker)]);
  return at;
}

/** machines: { cp, worker } harness machines. */
export async function runLimits({ tsadmArgv, runs, log, machines: m }) {
  const out = { init: [], join: [] };
  try {
    for (let i = 1; i <= runs; i++) {
      out.init.push(await limitInit(tsadmArgv, m.cp, i, log));
      out.join.push(await limitJoin(tsadmArgv, m.cp, m.worker, i, log));
    }
  } finally {
    await Promise.all([machines.down(m.cp), machines.down(m.worker)]);
  }
  return out;
}
