// `upgrade apply` of a single control plane, the reference kubeadm v1.20.3 against tsadm, on fresh
// harness machines (b5 = 10.250.0.75 for kubeadm's runs, b6 = 10.250.0.76 for tsadm's).
//
// "v1.20.3" is NOT Kubernetes v1.20.3: it is the same v1.20.2 source rebuilt under the version
// label v1.20.3 (scripts/e2e/README.md, "v1.20.3: the same code, relabelled"). The upgrade does all
// its steps for real (manifests, certificate renewal, waiting for each component's restart,
// ConfigMaps, addons); the code of the components is the same on both sides.
//
// Each run: a fresh machine (with the CoreDNS stand-in image, see UPGRADE_FLAGS), `tsadm init`
// v1.20.2 with the e2e config (untimed; the same starting cluster for both tools, so the upgrading
// tool is the only variable), wait until the Node is Ready and the control plane, kube-proxy and
// CoreDNS run, pre-load the v1.20.3 images (as an operator would
// on a host that cannot pull), then time `<tool> upgrade apply v1.20.3 -y` (wall, CPU, max RSS) and
// check the cluster really is at v1.20.3 afterwards (a failed upgrade is an error, never a time).
// Runs alternate kubeadm/tsadm, the first of a pair swapping each pair, never both at once.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { load1, timePrefix } from './lib/exec.mjs';
import { CACHE, REPO, SCRATCH, benchConfig } from './lib/tools.mjs';
import * as machines from './lib/machines.mjs';

const FROM = 'v1.20.2';
/** The relabelled build of v1.20.2's source (see the header). */
const TO = 'v1.20.3';
const KUBEADM_TO = path.join(CACHE, `kubernetes-${TO}`, 'bin', 'kubeadm');
const IMAGES_TO = path.join(CACHE, `images-${TO}`);
const CRICTL_SHIM = path.join(REPO, 'scripts', 'e2e', 'crictl-shim.sh');

/**
 * Both tools get the same flags and the same machine. kubeadm 1.20's `upgrade apply` always
 * pre-pulls the control-plane images through crictl, so the machine gets the harness's crictl
 * stand-in (scripts/e2e/crictl-shim.sh), and it waits for a ready CoreDNS replica after updating
 * CoreDNS, so the machine gets the CoreDNS stand-in image before init (scripts/e2e/images/
 * coredns-standin.c; this environment has no CoreDNS). With both, no preflight error is ignored.
 */
const UPGRADE_FLAGS = ['-y'];
const STANDINS = path.join(CACHE, 'images-standins');

const UPGRADE_MACHINES = { kubeadm: { name: 'b5', ip: '10.250.0.75' }, tsadm: { name: 'b6', ip: '10.250.0.76' } };

/** `kubeadm version -o short` of the upgrading kubeadm. */
export function upgradeKubeadmVersion() {
  return execFileSync(KUBEADM_TO, ['version', '-o', 'short']).toString().trim();
}

/** Whether this tsadm has `upgrade apply` (yargs prints the global help for an unknown command, so look for an apply-only flag). */
export function hasUpgradeApply(argv) {
  try {
    return execFileSync(argv[0], [...argv.slice(1), 'upgrade', 'apply', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString().includes('--etcd-upgrade');
  } catch {
    return false;
  }
}

function saveLog(name, r) {
  const dir = path.join(REPO, 'bench', 'results', 'logs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.log`), `${r.stdout}\n--- stderr\n${r.stderr}`);
}

function fail(what, r) {
  return new Error(`${what} failed (exit ${r.code}):\n${(r.stdout + r.stderr).split('\n').slice(-30).join('\n')}`);
}

async function kubectlJson(m, args) {
  const r = await machines.kubectl(m, [...args, '-o', 'json']);
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

/** Node Ready, etcd/apiserver/controller-manager/scheduler mirror pods, kube-proxy and a CoreDNS replica Running: what `upgrade apply` wants. */
async function waitReady(m, timeoutMs = 5 * 60_000) {
  const start = Date.now();
  for (;;) {
    const node = await kubectlJson(m, ['get', 'node', m.name]);
    const pods = await kubectlJson(m, ['-n', 'kube-system', 'get', 'pods']);
    const ready = node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const running = new Set((pods?.items ?? []).filter((p) => p.status.phase === 'Running').map((p) => p.metadata.name));
    const cp = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every((c) => running.has(`${c}-${m.name}`));
    const dns = (await kubectlJson(m, ['-n', 'kube-system', 'get', 'deployment', 'coredns']))?.status?.readyReplicas > 0;
    if (ready && cp && dns && [...running].some((n) => n.startsWith('kube-proxy-'))) return;
    if (Date.now() - start > timeoutMs) throw new Error(`${m.name}: Node Ready and control plane Running not reached in ${timeoutMs / 1000} s`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

/** Imports every archive of DIR into M's containerd (namespace k8s.io, the CRI's). */
async function importImages(m, dir) {
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.tar')).sort()) {
    const r = await machines.exec(m, ['ctr', '-n', 'k8s.io', 'images', 'import', path.join(dir, f)], 5 * 60_000);
    if (r.code !== 0) throw fail(`importing ${f} into ${m.name}`, r);
  }
}

/** What the cluster on M says its version is: API server gitVersion, and the apiserver manifest's image tag. */
async function clusterAt(m) {
  const v = await machines.kubectl(m, ['version', '-o', 'json']);
  const server = v.code === 0 ? JSON.parse(v.stdout).serverVersion?.gitVersion : undefined;
  const manifest = await machines.exec(m, ['cat', '/etc/kubernetes/manifests/kube-apiserver.yaml'], 60_000);
  const image = /^\s*image:\s*\S+:(\S+)\s*$/m.exec(manifest.stdout)?.[1];
  return { server, image };
}

/** One upgrade by TOOL (argv) on a fresh machine M. */
async function oneRun(tool, argv, m, tsadmArgv, iteration, log) {
  await machines.down(m);
  await machines.up(m);
  await importImages(m, STANDINS);
  const cfg = path.join(SCRATCH, `upgrade-${tool}-${iteration}.yaml`);
  writeFileSync(cfg, benchConfig({ ip: m.ip, node: m.name }));
  const init = await machines.exec(m, [...tsadmArgv, 'init', '--config', cfg, '--skip-phases=preflight'], 10 * 60_000);
  saveLog(`upgrade-${tool}-init-${iteration}`, init);
  if (init.code !== 0) throw fail(`tsadm init on ${m.name}`, init);
  await waitReady(m);
  await importImages(m, IMAGES_TO);
  const shim = await machines.exec(m, ['ln', '-sfn', CRICTL_SHIM, '/usr/local/bin/crictl'], 60_000);
  if (shim.code !== 0) throw fail('installing the crictl stand-in', shim);
  const was = await clusterAt(m);
  if (was.server !== FROM || was.image !== FROM) throw new Error(`${m.name} is not at ${FROM} before the upgrade: ${JSON.stringify(was)}`);

  const loadBefore = load1();
  const r = await machines.exec(m, [...timePrefix(), ...argv, 'upgrade', 'apply', TO, ...UPGRADE_FLAGS], 20 * 60_000);
  saveLog(`upgrade-${tool}-apply-${iteration}`, r);
  if (r.code !== 0) throw fail(`${tool} upgrade apply ${TO}`, r);
  const is = await clusterAt(m);
  if (is.server !== TO || is.image !== TO) throw new Error(`${tool} upgrade apply exited 0 but ${m.name} is not at ${TO}: ${JSON.stringify(is)}`);
  const result = { wallMs: r.innerWallMs, cpuMs: r.cpuMs, maxRssMb: r.maxRssMb, load: loadBefore };
  log(`${tool} upgrade apply #${iteration}: ${(r.innerWallMs / 1000).toFixed(1)} s (cpu ${(r.cpuMs / 1000).toFixed(2)} s, rss ${r.maxRssMb.toFixed(0)} MB, load ${loadBefore})`);
  await machines.down(m);
  return result;
}

/**
 * tsadmUpgrade: whether this tsadm has `upgrade apply` (else only kubeadm's runs are made).
 * Results: { kubeadm: Run[], tsadm: Run[] }, Run = { wallMs, cpuMs, maxRssMb, load }.
 */
export async function runUpgrade({ tsadmArgv, runs, log, tsadmUpgrade }) {
  const out = { kubeadm: [], tsadm: [] };
  const argv = { kubeadm: [KUBEADM_TO], tsadm: tsadmArgv };
  try {
    for (let i = 0; i < runs; i++) {
      const order = (i % 2 ? ['tsadm', 'kubeadm'] : ['kubeadm', 'tsadm']).filter((t) => t === 'kubeadm' || tsadmUpgrade);
      for (const t of order) out[t].push(await oneRun(t, argv[t], UPGRADE_MACHINES[t], tsadmArgv, i + 1, log));
    }
  } finally {
    for (const m of Object.values(UPGRADE_MACHINES)) await machines.down(m);
  }
  return out;
}
