/**
 * The one gate of every test that needs an oracle this machine may lack: the reference kubeadm,
 * a real kube-apiserver/etcd, etcd 3.4/3.5, containerd 1/2, the built CLI, openssl, strace, man,
 * zsh, systemd-analyze, an older Node, postject. A suite (or a single test) names what it needs;
 * when something is missing it
 *   - FAILS under CI=true, with a test named after the missing oracles whose error says where it
 *     was looked for and how to get it (a CI run can never pass with its oracle suites skipped);
 *   - otherwise registers one skipped test whose name says the same (visible in jest's output).
 *
 *   describeWithOracles([oracles.kubeadm])('x against kubeadm', () => { ... });
 *   testWithOracles([oracles.zsh])('the zsh script is valid zsh', () => { ... });
 *   if (haveOracles([oracles.kubeadm])) { ...the comparison with kubeadm... }   // inside a test
 *
 * Paths follow $TSADM_CACHE_DIR (default /var/cache/tsadm), like scripts/e2e/provision.sh.
 * Host facts that are not oracles (a kernel without /proc/config.gz, a host with systemd) use
 * testOnHost: skipped with the reason in every mode, since no provisioning can change them.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const K8S_VERSION = 'v1.20.2';
const PROVISION = 'bash scripts/e2e/provision.sh';

/** Something a test compares tsadm against; `missing()` says what is absent and how to get it. */
export interface Oracle {
  readonly name: string;
  /** undefined when present; else "<what> (<where looked>); get it: <how>". */
  missing(): string | undefined;
}

/** The provisioning cache, read at call time: $TSADM_CACHE_DIR, default /var/cache/tsadm. */
function oracleCacheDir(): string {
  return process.env.TSADM_CACHE_DIR || '/var/cache/tsadm';
}

function kubeBin(name: string): string {
  return path.join(oracleCacheDir(), `kubernetes-${K8S_VERSION}`, 'bin', name);
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An oracle that is one file: present when it exists (and is executable, for programs). */
export function fileOracle(name: string, file: () => string, howToGet: string, opts: { program?: boolean } = {}): Oracle {
  return {
    name,
    missing: () => {
      const p = file();
      const ok = opts.program === false ? existsSync(p) : executable(p);
      return ok ? undefined : `${name} missing (${p}); get it: ${howToGet}`;
    },
  };
}

/** An oracle that is one or more programs found on $PATH (and, optionally, a command that must work). */
function commandOracle(name: string, cmds: readonly string[], howToGet: string, works?: readonly string[]): Oracle {
  return {
    name,
    missing: () => {
      if (spawnSync('sh', ['-c', `command -v ${cmds.join(' ')}`], { stdio: 'ignore' }).status !== 0) return `${name} missing (${cmds.join(', ')} not all on PATH); get it: ${howToGet}`;
      if (works !== undefined && spawnSync(works[0] as string, works.slice(1), { stdio: 'ignore' }).status !== 0) return `${name} does not work here (${works.join(' ')} failed)`;
      return undefined;
    },
  };
}

/** An oracle needing several others (all must be present). */
function allOf(name: string, parts: readonly Oracle[]): Oracle {
  return {
    name,
    missing: () => {
      const why = parts.map((p) => p.missing()).filter((w): w is string => w !== undefined);
      return why.length === 0 ? undefined : why.join('; ');
    },
  };
}

const hostEtcd = fileOracle('etcd (host, 3.4)', () => process.env.TSADM_ETCD_BIN ?? '/usr/bin/etcd', `apt-get install -y etcd-server (${PROVISION} does)`);
const kubeApiServer = fileOracle(`kube-apiserver ${K8S_VERSION}`, () => kubeBin('kube-apiserver'), PROVISION);

export const oracles = {
  /** The reference kubeadm v1.20.2 built by scripts/e2e/provision.sh. */
  kubeadm: fileOracle(`reference kubeadm ${K8S_VERSION}`, () => kubeBin('kubeadm'), PROVISION),
  /** A real kube-apiserver v1.20.2 and the host's etcd (test/helpers/apiserver.ts starts them). */
  apiServer: allOf('real API server', [kubeApiServer, hostEtcd]),
  /** The provisioned kubectl v1.20.2. */
  kubectl: fileOracle(`kubectl ${K8S_VERSION}`, () => kubeBin('kubectl'), PROVISION),
  /** The built CLI: dist/tsadm.mjs (npm run build), or $TSADM_TEST_BIN. */
  built: fileOracle(
    'built CLI',
    () => process.env.TSADM_TEST_BIN ?? path.join(REPO, 'dist', 'tsadm.mjs'),
    'npm run build',
    { program: false },
  ),
  openssl: commandOracle('openssl', ['openssl'], 'apt-get install -y openssl'),
  /** strace, allowed to trace here (ptrace). */
  strace: commandOracle('strace', ['strace'], 'apt-get install -y strace', ['strace', '-f', '-o', '/dev/null', 'true']),
  man: commandOracle('man and groff', ['man', 'groff'], 'apt-get install -y man-db groff'),
  zsh: commandOracle('zsh', ['zsh'], 'apt-get install -y zsh'),
  /** systemd's unit parser (systemd-analyze verify); the package, not systemd as PID 1. */
  systemdAnalyze: commandOracle('systemd-analyze', ['systemd-analyze'], 'apt-get install -y systemd', ['systemd-analyze', '--version']),
  /** Debian's archive tools for scripts/apt-repo.mjs and a private apt client (test/integration/apt-repo.test.ts). */
  aptRepo: commandOracle('apt-ftparchive, gpg and apt', ['apt-ftparchive', 'gpg', 'gpgv', 'apt-get', 'dpkg-deb', 'flock'], 'apt-get install -y apt-utils gpg'),
  /** The project's Node 24 (the `node` devDependency). */
  projectNode: fileOracle('the project\'s Node 24', () => path.join(REPO, 'node_modules', 'node', 'bin', 'node'), 'npm ci'),
  /**
   * Go 1.26 from Debian unstable (provision stage debian-sid), which builds the CSR reader
   * test/fixtures/go-csr-reader (test/helpers/go-csr-reader.ts): crypto/x509 as kube-apiserver reads requests.
   */
  go: fileOracle('Go 1.26 (debian-sid)', () => path.join(oracleCacheDir(), 'debian-sid', 'root', 'usr', 'lib', 'go-1.26', 'bin', 'go'), `${PROVISION} (stage debian-sid)`),
  /** postject, which scripts/build-sea.mjs injects the single executable with. */
  postject: fileOracle('postject', () => path.join(REPO, 'node_modules', 'postject', 'package.json'), 'npm ci', { program: false }),
} satisfies Record<string, Oracle>;

/** What the gate does for a set of needs in an environment: run, fail (CI) or skip. */
export type Gate = { readonly mode: 'run' } | { readonly mode: 'fail' | 'skip'; readonly title: string; readonly message: string };

/** Pure decision of the gate: CI=true turns a missing oracle into a failure. */
export function gate(needs: readonly Oracle[], env: NodeJS.ProcessEnv = process.env): Gate {
  const why = needs.map((o) => ({ name: o.name, why: o.missing() })).filter((m): m is { name: string; why: string } => m.why !== undefined);
  if (why.length === 0) return { mode: 'run' };
  const names = why.map((m) => m.name).join(', ');
  const message = why.map((m) => m.why).join('; ');
  if (env.CI === 'true') {
    return { mode: 'fail', title: `oracle missing under CI=true: ${names}`, message: `missing oracle(s) under CI=true: ${message}` };
  }
  return { mode: 'skip', title: `SKIPPED (missing: ${message})`, message };
}

type Describe = (name: string, fn: () => void) => void;
type TestBody = Parameters<typeof test>[1];

/** `describe` as a gated suite sees it: callable, and `.each` like jest's. */
export interface GatedDescribe {
  (name: string, fn: () => void): void;
  each: typeof describe.each;
}

/** `test` as a gated test sees it: callable, and `.each` like jest's. */
export interface GatedTest {
  (name: string, fn: TestBody, timeout?: number): void;
  each: typeof test.each;
}

/** The failing (CI) or skipped test that stands for a gated test or suite named NAME. */
function standIn(name: string | undefined, g: Exclude<Gate, { mode: 'run' }>): void {
  const title = name === undefined ? g.title : `${name} [${g.title}]`;
  if (g.mode === 'fail') {
    test(title, () => {
      throw new Error(g.message);
    });
  } else {
    test.skip(title, () => undefined);
  }
}

/**
 * `describe` when every oracle of NEEDS is present (OUTER, default describe, e.g. a composed
 * gate); else each suite declared with it holds one failing (CI=true) or skipped test naming what
 * is missing (once per `.each` table, not per row).
 *
 *   describeWithOracles([oracles.kubeadm])('x against kubeadm', () => { ... });
 */
export function describeWithOracles(needs: readonly Oracle[], outer: Describe = describe): GatedDescribe {
  const g = gate(needs);
  if (g.mode === 'run') {
    const run = (name: string, fn: () => void): void => outer(name, fn);
    return Object.assign(run, { each: describe.each });
  }
  const stand = (name: string): void => describe(name, () => standIn(undefined, g));
  const each = ((..._table: unknown[]) => (name: string) => stand(name)) as unknown as typeof describe.each;
  return Object.assign((name: string, _fn: () => void): void => stand(name), { each });
}

/** `test` when every oracle of NEEDS is present; else a failing (CI=true) or skipped test saying why. */
export function testWithOracles(needs: readonly Oracle[]): GatedTest {
  const g = gate(needs);
  if (g.mode === 'run') return test;
  const each = ((..._table: unknown[]) => (name: string) => standIn(name, g)) as unknown as typeof test.each;
  return Object.assign((name: string): void => standIn(name, g), { each });
}

/**
 * Inside a test: true when every oracle of NEEDS is present, for the oracle half of a test whose
 * other half needs none. Missing: throws under CI=true (the test fails, naming it), false elsewhere.
 */
export function haveOracles(needs: readonly Oracle[]): boolean {
  const g = gate(needs);
  if (g.mode === 'fail') throw new Error(g.message);
  return g.mode === 'run';
}

/**
 * `test` when CONDITION holds; otherwise skipped (in every mode) with WHY. Only for facts of the
 * host that provisioning cannot change (the kernel's config, the init system), never for oracles.
 */
export function testOnHost(condition: boolean, why: string): GatedTest {
  if (condition) return test;
  const each = ((..._table: unknown[]) => (name: string) => test.skip(`${name} [SKIPPED on this host: ${why}]`, () => undefined)) as unknown as typeof test.each;
  return Object.assign((name: string): void => test.skip(`${name} [SKIPPED on this host: ${why}]`, () => undefined), { each });
}
