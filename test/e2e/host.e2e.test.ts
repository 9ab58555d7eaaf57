/**
 * Issue 19 on a bare harness machine (`machine.sh up --bare`): IP forwarding left at the network
 * namespace's default, containerd running on Debian's packaged config.toml (unmodified: dpkg's
 * checksum), no kubelet unit and no kubelet or kubectl binary at all. The host phase, with the node's
 * binaries from a local bundle, makes it ready: `tsadm init phase host all` then `tsadm init` with no
 * --ignore-preflight-errors (the configuration has none either), a second host run changes nothing,
 * and reset leaves the host preparation alone and says so.
 *
 * The harness plays systemd here (scripts/e2e/README.md, "bare machines"): its kubelet supervisor
 * starts the binary named by the unit's ExecStart only once the unit and kubeadm's drop-in exist,
 * and service-manager.sh restarts containerd and enables units. The one setting this VM needs that
 * a real host does not (it lacks CAP_SYS_RESOURCE) is a runc wrapper that clamps negative
 * oom_score_adj values, so containerd's config stays the package's.
 * Needs `npm run build` (machines run bin/tsadm).
 *
 * Issue 28, on the same machine: the Debian package (`npm run package`, or $TSADM_TEST_DEB) installs
 * with `dpkg -i` (version with the commit, completion, man pages), `tsadm init` above runs through
 * the installed /usr/bin/tsadm, and `dpkg -r` removes exactly the package's files.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@jest/globals';
import {
  cacheDir, createMachine, destroyMachine, importCoreDNSStandIn, kubeadmConfig, machineExec, machineLog, provision,
  repoRoot, requireComponents, tsadm, waitClusterReady, writeSharedFile, type Machine,
} from './harness.js';
import { testDeb } from '../helpers/test-deb.js';

const HB: Machine = { name: 'hb1', ip: '10.250.0.151' };
/** A second bare machine that joins with --prepare-host: the host phase with the cluster's settings. */
const HB2: Machine = { name: 'hb2', ip: '10.250.0.152' };
const MIN = 60_000;
/** The md5 dpkg records for Debian bookworm's containerd config.toml (/var/lib/dpkg/status). */
const DEBIAN_CONFIG_MD5 = '773cf1c5a249197a8ef37a08ac168414';
const HOST_FILES = [
  '/etc/modules-load.d/k8s.conf', '/etc/sysctl.d/k8s.conf', '/etc/containerd/conf.d/k8s.toml', '/etc/containerd/config.toml',
  '/etc/containerd/config.toml.tsadm-orig', '/etc/systemd/system/kubelet.service', '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf',
  '/etc/crictl.yaml', '/usr/bin/kubelet', '/usr/bin/kubectl', '/etc/systemd/system/multi-user.target.wants/kubelet.service',
];

let configPath = '';
let initOutput = '';
let bundleDir = '';
let debPath = '';

/**
 * The .deb under test (test/helpers/test-deb.ts: $TSADM_TEST_DEB, else `npm run package` once per
 * commit, shared with test/integration/apt-repo.test.ts), copied to the shared cache, which machines see.
 */
function buildDeb(): string {
  const shared = path.join(cacheDir(), 'e2e-scratch', 'tsadm_test_amd64.deb');
  mkdirSync(path.dirname(shared), { recursive: true });
  copyFileSync(testDeb(), shared);
  return shared;
}

/** Every non-directory under /etc and /usr of machine HB (its private overlays), sorted. */
async function etcUsrFiles(): Promise<string[]> {
  return (await sh('find /etc /usr -xdev ! -type d | LC_ALL=C sort')).split('\n');
}

/** The e2e configuration without its ignorePreflightErrors: nothing may be ignored here. */
async function strictConfig(): Promise<string> {
  const text = (await kubeadmConfig(HB.ip, HB.name)).replace(/^ {2}# No registry[^\n]*\n(?: {2}#[^\n]*\n)*/m, '').replace(/^ {2}ignorePreflightErrors:\n {2}- ImagePull\n/m, '');
  expect(text).not.toContain('ignorePreflightErrors');
  return text;
}

/** A bundle as an air-gapped operator brings it: kubelet and kubectl of v1.20.2 and their SHA256SUMS. */
function makeBundle(): string {
  const dir = path.join(cacheDir(), 'e2e-scratch', 'bundle-v1.20.2');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const bin = requireComponents().binDir;
  const sums: string[] = [];
  for (const name of ['kubelet', 'kubectl']) {
    copyFileSync(path.join(bin, name), path.join(dir, name));
    sums.push(`${createHash('sha256').update(readFileSync(path.join(dir, name))).digest('hex')}  ${name}\n`);
  }
  writeFileSync(path.join(dir, 'SHA256SUMS'), sums.join(''));
  return dir;
}

async function sh(cmd: string): Promise<string> {
  return (await machineExec(HB.name, ['sh', '-c', cmd])).stdout.trim();
}

/** Content digest, mode and modification time of each host file, and containerd's PID: what "changes nothing" compares. */
async function hostState(): Promise<string> {
  const files = await sh(`for f in ${HOST_FILES.join(' ')}; do printf '%s ' "$f"; stat -L -c '%a %Y' "$f" | tr '\\n' ' '; md5sum <"$f" | cut -c1-32; done`);
  return `${files}\ncontainerd ${await pidOf('containerd')}`;
}

/** The PID the harness recorded for the machine's containerd or kubelet (machines share the host's PID namespace, so no pgrep). */
async function pidOf(what: 'containerd' | 'kubelet'): Promise<string> {
  return sh(`. /run/tsadm-machine/env && cat "$MDIR/${what}.pid"`);
}

const HOST_ARGS = (): string[] => ['init', 'phase', 'host', 'all', '--config', configPath, '--bundle', bundleDir, '--restart-container-runtime'];

beforeAll(async () => {
  await provision();
  requireComponents();
  for (const m of [HB, HB2]) await destroyMachine(m.name).catch(() => undefined);
  await Promise.all([HB, HB2].map((m) => createMachine(m.name, m.ip, { bare: true })));
  // The CoreDNS stand-in, so that preflight's image check finds every image (nothing ignored).
  await importCoreDNSStandIn(HB.name);
  configPath = writeSharedFile(`tsadm-${HB.name}.yaml`, await strictConfig());
  bundleDir = makeBundle();
  debPath = buildDeb();
}, 20 * MIN);

afterAll(async () => {
  for (const m of [HB, HB2]) await destroyMachine(m.name).catch(() => undefined);
}, 5 * MIN);

describe('a bare machine', () => {
  test('is bare: packaged containerd config, no kubelet, no unit; preflight and `tsadm check host` fail', async () => {
    expect(await sh('md5sum </etc/containerd/config.toml | cut -c1-32')).toBe(DEBIAN_CONFIG_MD5);
    expect(await sh('command -v kubelet kubectl; ls /etc/systemd/system/kubelet.service /etc/containerd/conf.d /etc/sysctl.d/k8s.conf 2>&1 | grep -c "No such file"')).toBe('3');
    const check = await tsadm(HB.name, ['check', 'host', '--config', configPath, '-o', 'json'], { reject: false, timeoutMs: 2 * MIN });
    expect(check.exitCode).not.toBe(0);
    const failed = failedChecks(check.stdout);
    expect(failed).toEqual(expect.arrayContaining(['FileExisting-kubelet', '/etc/containerd/conf.d/k8s.toml', '/etc/systemd/system/kubelet.service']));
    const preflight = await tsadm(HB.name, ['init', 'phase', 'preflight', '--config', configPath], { reject: false, timeoutMs: 3 * MIN });
    expect(preflight.exitCode).not.toBe(0);
    expect(preflight.stderr).toMatch(/KubeletVersion|FileContent--proc-sys-net-ipv4-ip_forward/);
  }, 6 * MIN);

  test('--dry-run lists every change and changes nothing', async () => {
    const r = await tsadm(HB.name, [...HOST_ARGS(), '--dry-run'], { timeoutMs: 3 * MIN });
    for (const f of ['/usr/bin/kubelet', '/etc/containerd/conf.d/k8s.toml', '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf']) expect(r.stdout + r.stderr).toContain(f);
    expect(r.stdout + r.stderr).toMatch(/restart containerd/);
    expect(await sh('md5sum </etc/containerd/config.toml | cut -c1-32')).toBe(DEBIAN_CONFIG_MD5);
    expect(await sh('ls /usr/bin/kubelet /etc/containerd/conf.d 2>&1 | grep -c "No such file"')).toBe('2');
  }, 5 * MIN);

  test('`tsadm init phase host all` prepares it: files, the packaged config.toml kept aside, containerd restarted on the new settings', async () => {
    const pidBefore = await pidOf('containerd');
    const r = await tsadm(HB.name, HOST_ARGS(), { timeoutMs: 5 * MIN });
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/Installing \/usr\/bin\/kubelet \(v1\.20\.2, sha256 verified\)/);
    expect(out).toMatch(/it is the package's file, unmodified/);
    expect(await sh('md5sum </etc/containerd/config.toml.tsadm-orig | cut -c1-32')).toBe(DEBIAN_CONFIG_MD5);
    expect(await sh('/usr/bin/kubelet --version')).toBe('Kubernetes v1.20.2');
    expect(await sh('cat /proc/sys/net/ipv4/ip_forward')).toBe('1');
    expect(await pidOf('containerd')).not.toBe(pidBefore);
    // containerd's own view of its merged configuration: the drop-in's values and the package's CNI directory.
    const dump = await sh('containerd config dump');
    expect(dump).toMatch(/sandbox_image = "registry\.local\/k8s\/pause:3\.2"/);
    expect(dump).toMatch(/bin_dir = "\/usr\/lib\/cni"/);
    expect(dump).toMatch(/SystemdCgroup = false/);
    expect(dump).toMatch(/runtime_type = "io\.containerd\.runc\.v2"/);
    expect(await sh('readlink /etc/systemd/system/multi-user.target.wants/kubelet.service')).toBe('/etc/systemd/system/kubelet.service');
    const check = await tsadm(HB.name, ['check', 'host', '--config', configPath, '-o', 'json'], { reject: false, timeoutMs: 2 * MIN });
    expect(failedChecks(check.stdout)).toEqual([]);
    expect(check.exitCode).toBe(0);
  }, 8 * MIN);

  test('a second run changes nothing: no file rewritten, nothing restarted', async () => {
    const before = await hostState();
    const r = await tsadm(HB.name, HOST_ARGS(), { timeoutMs: 5 * MIN });
    expect(r.stdout + r.stderr).not.toMatch(/Writing|Installing|Restarting|Starting containerd|Loading|Setting|Enabling/);
    expect(await hostState()).toBe(before);
  }, 6 * MIN);

  test('the Debian package installs with dpkg -i: its version names this commit, completion and man pages work', async () => {
    await machineExec(HB.name, ['dpkg', '-i', debPath], { timeoutMs: 3 * MIN });
    const info = JSON.parse((await machineExec(HB.name, ['/usr/bin/tsadm', 'version', '-o', 'json'])).stdout) as { clientVersion: Record<string, string> };
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot(), encoding: 'utf8' }).trim();
    expect(info.clientVersion).toMatchObject({ gitCommit: head, platform: 'linux/amd64' });
    expect(info.clientVersion.nodeVersion).toMatch(/^v24\./);
    expect(info.clientVersion.buildDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await sh('dpkg-query -W -f \'${Status}\' tsadm')).toBe('install ok installed');
    // bash completion from its standard directory, asking the installed executable for the words.
    const words = await sh('bash -c \'. /usr/share/bash-completion/completions/tsadm; COMP_WORDS=(tsadm ce); COMP_CWORD=1; _tsadm_completions; echo "${COMPREPLY[*]}"\'');
    expect(words.split(' ')).toEqual(['certs']);
    expect(await sh('head -1 /usr/share/zsh/vendor-completions/_tsadm')).toBe('#compdef tsadm');
    const man = await sh('MANPAGER=cat MANWIDTH=100 man tsadm 2>&1');
    expect(man).toMatch(/^TSADM\(8\)/);
    expect(man).toContain('tsadm-init(8)');
    expect(await sh('MANPAGER=cat MANWIDTH=100 man 8 tsadm-init 2>&1')).toContain('--kubernetes-version');
  }, 5 * MIN);

  test('`tsadm init` then succeeds with no --ignore-preflight-errors; the kubelet is the bundle\'s, run by its unit', async () => {
    // Through the package's executable (/usr/bin/tsadm, the machine's PATH), not bin/tsadm.
    const r = await machineExec(HB.name, ['tsadm', 'init', '--config', configPath], { reject: false, timeoutMs: 8 * MIN });
    if (r.exitCode !== 0) throw new Error(`init failed (${r.exitCode}):\n${r.stderr}\n--- kubelet\n${machineLog(HB.name)}`);
    expect(r.stderr).not.toMatch(/\[ERROR/);
    initOutput = r.stdout;
    await waitClusterReady(HB, [HB], 5 * MIN);
    expect(await sh(`tr '\\0' ' ' </proc/${await pidOf('kubelet')}/cmdline`)).toMatch(/^\/usr\/bin\/kubelet --bootstrap-kubeconfig=/);
  }, 15 * MIN);

  test('another bare machine joins with --prepare-host: the host phase takes the cluster\'s settings, then the worker is Ready', async () => {
    const arg = (re: RegExp): string => re.exec(initOutput.replace(/\\\n/g, ' '))?.[1] ?? '';
    const join = ['join', arg(/join (\S+:6443)/), '--token', arg(/--token (\S+)/), '--discovery-token-ca-cert-hash', arg(/--discovery-token-ca-cert-hash (\S+)/)];
    expect(join.every((a) => a !== '')).toBe(true);
    const r = await tsadm(HB2.name, [...join, '--cri-socket', '/run/containerd/containerd.sock', '--prepare-host', '--bundle', bundleDir, '--restart-container-runtime'], { reject: false, timeoutMs: 6 * MIN });
    if (r.exitCode !== 0) throw new Error(`join failed (${r.exitCode}):\n${r.stderr}\n--- kubelet\n${machineLog(HB2.name)}`);
    expect(r.stdout + r.stderr).toMatch(/Installing \/usr\/bin\/kubelet/);
    // The cluster's imageRepository and KubeletConfiguration chose the drop-in's values.
    const dump = (await machineExec(HB2.name, ['containerd', 'config', 'dump'])).stdout;
    expect(dump).toMatch(/sandbox_image = "registry\.local\/k8s\/pause:3\.2"/);
    expect(dump).toMatch(/SystemdCgroup = false/);
    await waitClusterReady(HB, [HB, HB2], 5 * MIN);
  }, 12 * MIN);

  test('dpkg -r removes exactly the package\'s files, and nothing init wrote', async () => {
    const owned = (await sh('dpkg-query -L tsadm')).split('\n');
    const before = await etcUsrFiles();
    await machineExec(HB.name, ['dpkg', '-r', 'tsadm'], { timeoutMs: 2 * MIN });
    const after = await etcUsrFiles();
    // Sets: /usr holds the whole Debian system (tens of thousands of files).
    const beforeSet = new Set(before);
    const afterSet = new Set(after);
    const removed = before.filter((f) => !afterSet.has(f));
    expect(removed).toEqual(owned.filter((f) => beforeSet.has(f)).sort());
    expect(removed).toEqual(expect.arrayContaining(['/usr/bin/tsadm', '/usr/share/man/man8/tsadm.8.gz', '/usr/share/bash-completion/completions/tsadm']));
    expect(after.filter((f) => !beforeSet.has(f))).toEqual([]);
    expect(removed.filter((f) => f.startsWith('/etc/'))).toEqual([]);
    expect(await sh('ls /etc/kubernetes/admin.conf /etc/kubernetes/pki/ca.key')).toBe('/etc/kubernetes/admin.conf\n/etc/kubernetes/pki/ca.key');
  }, 3 * MIN);

  test('`tsadm reset` leaves the host preparation alone and says so', async () => {
    const r = await tsadm(HB.name, ['reset', '-f'], { timeoutMs: 5 * MIN });
    expect(r.stdout).toContain('The reset process does not undo host preparation');
    expect(await sh(`ls ${HOST_FILES.join(' ')} | wc -l`)).toBe(String(HOST_FILES.length));
  }, 6 * MIN);
});

/** The names of the failed findings in `tsadm check -o json` output (its result event). */
function failedChecks(stdout: string): string[] {
  const result = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type?: string; data?: { checks?: { check: string; ok: boolean }[] } }).find((e) => e.type === 'result');
  if (!result?.data?.checks) throw new Error(`no check result in:\n${stdout}`);
  return result.data.checks.filter((c) => !c.ok).map((c) => c.check);
}
