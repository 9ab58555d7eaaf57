/**
 * The Go CSR reader (test/fixtures/go-csr-reader): how kube-apiserver and the kubelet-serving
 * signer read a certificate request (encoding/pem's first block, crypto/x509, CheckSignature),
 * built with Go 1.26 from Debian unstable (oracles.go) into the provisioning cache, keyed by the
 * source's hash: a rebuild happens only when the source changes (a cold build takes minutes,
 * the Go build cache beside it makes later ones seconds).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/go-csr-reader');
const FILES = ['go.mod', 'main.go'];

function cacheDir(): string {
  return process.env.TSADM_CACHE_DIR || '/var/cache/tsadm';
}

/** The Go toolchain oracles.go names. */
function goBinary(): string {
  return path.join(cacheDir(), 'debian-sid', 'root', 'usr', 'lib', 'go-1.26', 'bin', 'go');
}

/** Builds the reader when this source has not been built yet; returns the executable's path. */
export function buildGoCsrReader(): string {
  const hash = createHash('sha256');
  for (const f of FILES) hash.update(f).update('\0').update(readFileSync(path.join(SOURCE, f))).update('\0');
  const dir = path.join(cacheDir(), 'go-csr-reader');
  const bin = path.join(dir, hash.digest('hex').slice(0, 16), 'go-csr-reader');
  if (existsSync(bin)) return bin;
  mkdirSync(path.dirname(bin), { recursive: true });
  const tmp = `${bin}.tmp-${process.pid}`;
  const r = spawnSync(goBinary(), ['build', '-trimpath', '-o', tmp, '.'], {
    cwd: SOURCE,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      GOCACHE: path.join(dir, 'gocache'),
      GOPATH: path.join(dir, 'gopath'),
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
      GOFLAGS: '-mod=mod',
      CGO_ENABLED: '0',
    },
  });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`building ${SOURCE} with ${goBinary()} failed: ${r.stderr || r.error?.message || `exit ${r.status}`}`);
  }
  renameSync(tmp, bin);
  return bin;
}

/** What Go read from one request. */
export interface GoCsrReading {
  readonly ok: boolean;
  readonly error?: string;
  readonly cn: string;
  readonly o: readonly string[];
  readonly dns: readonly string[];
  readonly ip: readonly string[];
  readonly email: readonly string[];
  readonly uri: readonly string[];
  readonly sigOK: boolean;
  readonly sigError?: string;
}

/** Go's readings of many PEM texts, in order, from one process of BIN. */
export function readWithGo(bin: string, pems: readonly (string | Uint8Array)[]): GoCsrReading[] {
  const input = pems.map((p) => `${JSON.stringify({ pem: Buffer.from(p).toString('base64') })}\n`).join('');
  const r = spawnSync(bin, [], { input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${bin} failed: ${r.stderr || r.error?.message || `exit ${r.status}`}`);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  if (lines.length !== pems.length) throw new Error(`${bin} answered ${lines.length} lines for ${pems.length} requests`);
  return lines.map((l) => JSON.parse(l) as GoCsrReading);
}
