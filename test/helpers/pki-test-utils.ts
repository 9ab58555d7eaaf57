/** Shared by the pki, certs and kubeconfig tests: openssl, file listings, running phase groups. */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runPhases } from '../../src/engine/runner.js';
import { certsPhase } from '../../src/phases/certs/phase.js';
import { kubeconfigPhase } from '../../src/phases/kubeconfig/phase.js';
import type { InitCtx } from '../../src/run/context.js';
import type { ClusterConfiguration, InitConfiguration, ResolvedInitConfig } from '../../src/config/types.js';
import { fixtureInitConfig } from './config-fixture.js';

/**
 * The fixture node cp1 at 10.0.0.5 behind the endpoint cp.example.com, with ECDSA keys unless a
 * test asks for RSA (RSA generation dominates test time); cluster and init fields override.
 */
export const pkiTestConfig = (cluster: Partial<ClusterConfiguration> = {}, init: Partial<InitConfiguration> = {}): ResolvedInitConfig => fixtureInitConfig({
  cluster: { controlPlaneEndpoint: 'cp.example.com', encryptionAlgorithm: 'ECDSA-P256', ...cluster },
  init: { localAPIEndpoint: { advertiseAddress: '10.0.0.5', bindPort: 6443 }, ...init },
});

/** Runs openssl with args; stdin optional. Throws with stderr on failure. */
export function openssl(args: readonly string[], input?: string | Buffer): string {
  const r = spawnSync('openssl', [...args], { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

export function opensslText(file: string): string {
  return openssl(['x509', '-in', file, '-noout', '-text']);
}

/** The SAN line of `openssl x509 -text`, e.g. "DNS:a, DNS:b, IP Address:10.0.0.1". */
export function sanLine(file: string): string {
  const text = openssl(['x509', '-in', file, '-noout', '-ext', 'subjectAltName']);
  return text.split('\n').slice(1).join(' ').trim();
}

export function subjectOf(file: string): string {
  return openssl(['x509', '-in', file, '-noout', '-subject', '-nameopt', 'RFC2253']).replace(/^subject=/, '').trim();
}

export function verifyWith(caFile: string, certFile: string): boolean {
  const r = spawnSync('openssl', ['verify', '-CAfile', caFile, certFile], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes(': OK');
}

/** Every file under dir (relative path → mode, content), sorted. */
export function listTree(dir: string): Map<string, { mode: number; content: Buffer; mtimeMs: number; ino: number }> {
  const out = new Map<string, { mode: number; content: Buffer; mtimeMs: number; ino: number }>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), { mode: st.mode & 0o7777, content: readFileSync(p), mtimeMs: st.mtimeMs, ino: st.ino });
    }
  };
  walk(dir);
  return out;
}

export function dirMode(p: string): number {
  return statSync(p).mode & 0o7777;
}

export async function runCerts(ctx: InitCtx, filter: readonly string[] = ['certs']): Promise<void> {
  await runPhases([certsPhase], ctx, { filter, skip: ctx.cfg.init.skipPhases });
}

export async function runKubeconfigs(ctx: InitCtx, filter: readonly string[] = ['kubeconfig']): Promise<void> {
  await runPhases([kubeconfigPhase], ctx, { filter, skip: ctx.cfg.init.skipPhases });
}

export function hasCommand(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function tempFile(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-pki-'));
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
}
