/**
 * A bundle directory (`--bundle DIR`): the node's binaries of the target version, for hosts
 * without a package repository (air-gapped, images being baked). Pure decisions only: which files
 * a bundle must hold, their checksums as listed next to them, and whether the versions they report
 * fit the cluster. src/phases/host/phase.ts reads the directory, runs `--version` and installs.
 *
 * Checksums are required, in either of the forms Kubernetes and cri-tools publish beside their
 * downloads: one `SHA256SUMS` file (sha256sum's output, `<hex>  <name>` or `<hex> *<name>`), or
 * one `<name>.sha256` per binary (the hex digest, optionally followed by the name). tsadm never
 * downloads anything.
 */
import semver from 'semver';

/** What a bundle may hold, in install order, and where each goes (the deb packages' paths). */
export const BUNDLE_BINARIES = [
  { name: 'kubelet', required: true, target: '/usr/bin/kubelet' },
  { name: 'kubectl', required: true, target: '/usr/bin/kubectl' },
  { name: 'crictl', required: false, target: '/usr/bin/crictl' },
] as const;

export const SHA256SUMS = 'SHA256SUMS';

/**
 * The most a bundle's binary may be. kubelet, the largest, is about 100–200 MB (kubectl and crictl
 * less); a file above this is not one of them, and a binary is held in memory from its read to its
 * install (it is what is hashed, run for its version and written), so the bound is also the memory
 * one file may take.
 */
export const MAX_BUNDLE_BINARY_BYTES = 512 * 1024 * 1024;

/** The most SHA256SUMS or a `<name>.sha256` may be: lines of digests (Kubernetes' lists are a few KiB). */
export const MAX_BUNDLE_SUMS_BYTES = 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/i;

/** sha256sum's output (also `./name` and BSD's `SHA256 (name) = hex`): name → digest. */
export function parseSha256Sums(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const bsd = /^SHA256 \((.+)\) = ([0-9a-f]{64})$/i.exec(line);
    const gnu = /^([0-9a-f]{64}) [ *](.+)$/i.exec(line);
    const [name, hex] = bsd ? [bsd[1], bsd[2]] : gnu ? [gnu[2], gnu[1]] : [undefined, undefined];
    if (name !== undefined && hex !== undefined) out.set(name.replace(/^\.\//, ''), hex.toLowerCase());
  }
  return out;
}

/** A `<name>.sha256` file: the digest, optionally followed by the file's name. */
function parseOneSum(text: string): string | undefined {
  const first = text.trim().split(/\s+/)[0] ?? '';
  return HEX64.test(first) ? first.toLowerCase() : undefined;
}

/**
 * The digest a bundle lists for `name`, from `<name>.sha256` or SHA256SUMS; a string describing
 * the problem when the two disagree. undefined when the bundle lists none.
 */
export function expectedDigest(name: string, sums: string | undefined, perFile: string | undefined): { hex: string } | { problem: string } | undefined {
  const fromSums = sums !== undefined ? parseSha256Sums(sums).get(name) : undefined;
  const fromFile = perFile !== undefined ? parseOneSum(perFile) : undefined;
  if (perFile !== undefined && fromFile === undefined) return { problem: `${name}.sha256 holds no SHA-256 digest` };
  if (fromSums !== undefined && fromFile !== undefined && fromSums !== fromFile) return { problem: `${SHA256SUMS} and ${name}.sha256 list different digests for ${name}` };
  const hex = fromFile ?? fromSums;
  return hex !== undefined ? { hex } : undefined;
}

/** The version a binary reports: `kubelet --version` ("Kubernetes v1.20.2"), `crictl --version` ("crictl version v1.20.0"), kubectl's JSON. */
export function reportedVersion(name: string, stdout: string): string | undefined {
  if (name === 'kubectl') {
    try {
      const v = (JSON.parse(stdout) as { clientVersion?: { gitVersion?: unknown } }).clientVersion?.gitVersion;
      return typeof v === 'string' ? semver.clean(v.replace(/^v/, '')) ?? undefined : undefined;
    } catch {
      return undefined;
    }
  }
  const m = /\bv?(\d+\.\d+\.\d+[-+.\w]*)\s*$/.exec(stdout.trim());
  return m?.[1] !== undefined ? semver.clean(m[1]) ?? undefined : undefined;
}

/** The arguments that make each binary print its version. */
export function versionArgs(name: string): string[] {
  return name === 'kubectl' ? ['version', '--client', '-o', 'json'] : ['--version'];
}

/**
 * Whether a binary of version `found` fits a cluster of version `target`; the problem, else
 * undefined. kubelet: kubeadm's KubeletVersion preflight rule (not newer than the control plane,
 * at most one minor older); kubectl: its skew policy (one minor either way); crictl: its minor
 * follows Kubernetes', a warning only (returned as `warning`).
 */
export function versionFit(name: string, found: string, target: string): { problem?: string; warning?: string } {
  const t = semver.parse(semver.clean(target.replace(/^v/, '')) ?? '');
  const f = semver.parse(found);
  if (!t || !f) return { problem: `${name} reports no version tsadm can read (${found})` };
  const minorGap = (t.major - f.major) * 100 + (t.minor - f.minor);
  if (name === 'kubelet') {
    if (semver.gt(f, t)) return { problem: `kubelet v${f.version} is newer than the cluster's v${t.version} (kubeadm's KubeletVersion check refuses it)` };
    if (minorGap > 1) return { problem: `kubelet v${f.version} is more than one minor older than the cluster's v${t.version}` };
    return {};
  }
  if (name === 'kubectl') return Math.abs(minorGap) > 1 ? { problem: `kubectl v${f.version} is more than one minor away from the cluster's v${t.version}` } : {};
  return minorGap !== 0 ? { warning: `crictl v${f.version} is not of the cluster's minor (v${t.major}.${t.minor}); crictl's minor follows Kubernetes'` } : {};
}
