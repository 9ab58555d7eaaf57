// The two tools under test, and the config both get. tsadm runs from a snapshot of dist/ so a
// concurrent `npm run build` by someone else cannot change it mid-run.
import { cpSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CACHE = process.env.TSADM_CACHE_DIR || '/var/cache/tsadm';
const K8S_BIN = path.join(CACHE, 'kubernetes-v1.20.2', 'bin');
export const KUBEADM = path.join(K8S_BIN, 'kubeadm');
/** Shared with every harness machine at the same path (machines have a private /tmp). */
export const SCRATCH = path.join(CACHE, 'e2e-scratch', `bench-${process.pid}`);

/**
 * The Node.js that runs tsadm (24, package.json engines): the project's own (the `node`
 * devDependency, which harness machines see at the same path), else the one running the bench.
 */
export const NODE = existsSync(path.join(REPO, 'node_modules', 'node', 'bin', 'node')) ? path.join(REPO, 'node_modules', 'node', 'bin', 'node') : process.execPath;

/** Copies bin/ and dist/ into SCRATCH; returns the argv prefix that runs this tsadm. */
export function snapshotTsadm() {
  if (!existsSync(path.join(REPO, 'dist', 'tsadm.mjs'))) throw new Error('dist/tsadm.mjs missing: npm run build');
  if (!existsSync(KUBEADM)) throw new Error(`${KUBEADM} missing: npm run provision`);
  mkdirSync(SCRATCH, { recursive: true });
  // Only the bundle's modules: dist/ may also hold large unrelated artefacts.
  const dist = path.join(REPO, 'dist');
  cpSync(dist, path.join(SCRATCH, 'dist'), { recursive: true, filter: (src) => src === dist || src.endsWith('.mjs') });
  cpSync(path.join(REPO, 'bin'), path.join(SCRATCH, 'bin'), { recursive: true });
  return [NODE, path.join(SCRATCH, 'bin', 'tsadm')];
}

export function versions(tsadmArgv) {
  const kubeadm = execFileSync(KUBEADM, ['version', '-o', 'short']).toString().trim();
  const tsadm = execFileSync(tsadmArgv[0], [...tsadmArgv.slice(1), 'version', '-o', 'short']).toString().trim();
  return { kubeadm, tsadm, node: execFileSync(NODE, ['--version']).toString().trim() };
}

/**
 * The e2e kubeadm config (scripts/e2e/kubeadm-config.sh) with optional extras: a fixed bootstrap
 * token, a certificatesDir, the PublicKeysECDSA gate (gives ECDSA-P256 keys in kubeadm 1.20 and tsadm).
 */
export function benchConfig({ ip, node, certDir, ecdsa = false, token }) {
  let y = execFileSync('bash', [path.join(REPO, 'scripts', 'e2e', 'kubeadm-config.sh'), ip, node]).toString();
  if (token) y = y.replace('kind: InitConfiguration\n', `kind: InitConfiguration\nbootstrapTokens:\n- token: ${token}\n  ttl: 2h0m0s\n`);
  const extra = [certDir ? `certificatesDir: ${certDir}` : '', ecdsa ? 'featureGates:\n  PublicKeysECDSA: true' : ''].filter(Boolean);
  if (extra.length) y = y.replace('kind: ClusterConfiguration\n', `kind: ClusterConfiguration\n${extra.join('\n')}\n`);
  return y;
}

export function cpuModel() {
  const m = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'));
  return m ? m[1] : 'unknown';
}
