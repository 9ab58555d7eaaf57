// Host-side benchmarks (no machine needed): certs all, kubeconfig all, cold start.
// Every run gets a fresh directory; kubeadm and tsadm alternate, the first of a pair swapping each run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, load1, timePrefix, timed } from './lib/exec.mjs';
import { KUBEADM, NODE, SCRATCH, benchConfig } from './lib/tools.mjs';

/**
 * Each case: name and setup(dir) → { prepare?: untimed argv tail, run: timed argv tail }.
 * kubeconfig all needs the CAs: `certs all` by the same tool prepares them, untimed.
 */
function cases() {
  const phase = (ecdsa, what) => (dir) => {
    const cfg = path.join(dir, 'config.yaml');
    writeFileSync(cfg, benchConfig({ ip: '10.250.0.71', node: 'b1', certDir: path.join(dir, 'pki'), ecdsa }));
    const certs = ['init', 'phase', 'certs', 'all', '--config', cfg];
    return what === 'certs'
      ? { run: certs }
      : { prepare: certs, run: ['init', 'phase', 'kubeconfig', 'all', '--config', cfg, '--kubeconfig-dir', path.join(dir, 'kc')] };
  };
  return [
    { name: 'certs all (RSA-2048)', setup: phase(false, 'certs'), rss: true },
    { name: 'kubeconfig all (RSA-2048)', setup: phase(false, 'kubeconfig') },
    { name: 'certs all (ECDSA-P256)', setup: phase(true, 'certs'), rss: true },
    { name: 'kubeconfig all (ECDSA-P256)', setup: phase(true, 'kubeconfig') },
    { name: 'version (cold start)', setup: () => ({ run: ['version'] }), rss: true },
    { name: 'token generate (cold start)', setup: () => ({ run: ['token', 'generate'] }) },
  ];
}

async function once(tool, argv, c) {
  const dir = mkdtempSync(path.join(SCRATCH, 'micro-'));
  try {
    const { prepare, run } = c.setup(dir);
    if (prepare) check(await timed(argv[0], [...argv.slice(1), ...prepare]), `${tool} ${prepare.join(' ')}`);
    const r = check(await timed(timePrefix()[0], [...timePrefix().slice(1), ...argv, ...run]), `${tool} ${run.join(' ')}`);
    return { wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssMb: r.maxRssMb, load: load1() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Results: { [case]: { kubeadm: Run[], tsadm: Run[] } } with runs in pair order. */
export async function runMicro({ tsadmArgv, runs, log }) {
  const out = {};
  const tools = { kubeadm: [KUBEADM], tsadm: tsadmArgv };
  for (const c of cases()) {
    out[c.name] = { kubeadm: [], tsadm: [], rss: Boolean(c.rss) };
    const n = c.name.includes('cold start') ? runs * 2 : runs;
    for (let i = 0; i < n; i++) {
      const order = i % 2 ? ['tsadm', 'kubeadm'] : ['kubeadm', 'tsadm'];
      for (const t of order) out[c.name][t].push(await once(t, tools[t], c));
      log(`${c.name} #${i + 1}: kubeadm ${out[c.name].kubeadm[i].wallMs.toFixed(0)} ms, tsadm ${out[c.name].tsadm[i].wallMs.toFixed(0)} ms (load ${load1()})`);
    }
  }
  return out;
}

/**
 * Cold start against bare Node (issue 17: `version` and `token generate` within 1.2× of
 * `node -e 0`; the single executable SEA at least as fast as bin/tsadm). Every round runs each
 * command once, in an order rotated every round. Results: { [command]: Run[] } in round order.
 */
export async function runColdStart({ tsadmArgv, seaPath, runs, log }) {
  const commands = {
    'node -e 0': [NODE, '-e', '0'],
    'tsadm version': [...tsadmArgv, 'version'],
    'tsadm token generate': [...tsadmArgv, 'token', 'generate'],
    'kubeadm version': [KUBEADM, 'version'],
    'kubeadm token generate': [KUBEADM, 'token', 'generate'],
    ...(seaPath ? { 'tsadm SEA version': [seaPath, 'version'], 'tsadm SEA token generate': [seaPath, 'token', 'generate'] } : {}),
  };
  const names = Object.keys(commands);
  const out = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      const argv = commands[name];
      const r = check(await timed(timePrefix()[0], [...timePrefix().slice(1), ...argv]), name);
      out[name].push({ wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssMb: r.maxRssMb, load: load1() });
    }
    log(`cold start #${i + 1}: ${names.map((n) => `${n} ${out[n][i].wallMs.toFixed(0)}`).join(', ')} ms`);
  }
  return out;
}
