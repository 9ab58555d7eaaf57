/**
 * The tool's version, what `tsadm version` prints, and the User-Agent of every request. Kept free
 * of heavy imports: the launcher answers `version` (text, short, json) from this module alone,
 * without loading the CLI (src/fast-path.ts); the network transports (API, discovery, etcd) import
 * it for USER_AGENT. It sits in the lowest layer (docs/architecture.md, "Layers").
 */
import { TsadmError } from './errors.js';
import { DEFAULT_PATCH, NEWEST_MINOR, SUPPORTED_MINORS } from './versions/minors.js';

declare const __TSADM_VERSION__: string | undefined;
declare const __TSADM_BUILD__: BuildStamp | undefined;

/** The tool's version; injected by the bundler, read from package.json in tests. */
export const TSADM_VERSION = typeof __TSADM_VERSION__ === 'string' ? __TSADM_VERSION__ : '0.0.0-dev';

/** What scripts/lib/build-info.mjs stamps into a build: kubeadm's fields from git and the clock. */
interface BuildStamp {
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
}

/**
 * The build's stamp; an unbundled run (tests) gets what an unstamped kubeadm prints: no commit, no
 * tree state, the Unix epoch as its build date (k8s.io/component-base/version/base.go).
 */
const BUILD: BuildStamp =
  typeof __TSADM_BUILD__ === 'object' && __TSADM_BUILD__ !== null
    ? __TSADM_BUILD__
    : { gitVersion: `v${TSADM_VERSION}`, gitCommit: '', gitTreeState: '', buildDate: '1970-01-01T00:00:00Z' };

/** Node's arch names in Go's spelling (GOARCH), which Kubernetes tools print. */
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386' };

/** This machine as Go names it: "linux/amd64", "linux/arm64". */
function goPlatform(): string {
  return `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`;
}

/**
 * The User-Agent of every request tsadm sends (API server, discovery, etcd), in the form
 * kubeadm uses ("kubeadm/v1.20.2 (linux/amd64) …"). The API server names the field manager of
 * what a request writes after the part before the first "/", so managedFields and audit logs
 * show "tsadm" rather than "unknown".
 */
export const USER_AGENT = `tsadm/v${TSADM_VERSION} (${goPlatform()})`;

export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly nodeVersion: string;
  readonly platform: string;
  readonly defaultKubernetesVersion: string;
  readonly supportedKubernetesVersions: string;
}

export function versionInfo(): VersionInfo {
  const [major = '0', minor = '0'] = TSADM_VERSION.split('.');
  return {
    major,
    minor,
    gitVersion: BUILD.gitVersion,
    gitCommit: BUILD.gitCommit,
    gitTreeState: BUILD.gitTreeState,
    buildDate: BUILD.buildDate,
    nodeVersion: process.version,
    platform: goPlatform(),
    defaultKubernetesVersion: DEFAULT_PATCH[NEWEST_MINOR],
    // Released minors only: a preview row after NEWEST_MINOR takes named pre-releases alone (src/versions/release.ts).
    supportedKubernetesVersions: `v${SUPPORTED_MINORS[0]}-v${NEWEST_MINOR}`,
  };
}

/** Output formats this module renders without the YAML writer (src/yaml/write.ts). */
export const LIGHT_VERSION_FORMATS: readonly string[] = ['', 'short', 'json'];

/** Pure: the text kubeadm-style `version` prints; `yaml` is rendered by the caller's dumper. */
export function formatVersion(info: VersionInfo, output: string, dumpYaml?: (value: unknown) => string): string {
  switch (output) {
    case '':
      return `tsadm version: &version.Info{Major:"${info.major}", Minor:"${info.minor}", GitVersion:"${info.gitVersion}", GitCommit:"${info.gitCommit}", GitTreeState:"${info.gitTreeState}", BuildDate:"${info.buildDate}", NodeVersion:"${info.nodeVersion}", Platform:"${info.platform}", DefaultKubernetesVersion:"${info.defaultKubernetesVersion}"}\n`;
    case 'short':
      return `${info.gitVersion}\n`;
    case 'json':
      return `${JSON.stringify({ clientVersion: info }, null, 2)}\n`;
    case 'yaml':
      if (dumpYaml) return dumpYaml({ clientVersion: info });
      throw new TsadmError('E_INTERNAL', 'version: no YAML dumper given');
    default:
      throw new TsadmError('E_USAGE', `invalid output format: ${output}`, { hint: 'use -o json, yaml or short' });
  }
}
