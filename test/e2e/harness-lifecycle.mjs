// The e2e project's globalSetup and globalTeardown (jest.config.js): when the run ends, nothing of
// the harness is left on the host, and a run that leaves something fails.
//
// Setup notes which machines exist before the run (another user's, or leftovers of an interrupted
// run). Teardown removes every machine the run made that a test file left up (`machine.sh down`),
// and, when no machine is left at all, the switch namespace, the host's link to it and the state
// dir (`machine.sh down-all`, which then downs nothing but the switch: files down their own
// machines, never the switch, since the next file may use it). Then it checks the host: no tsadm-*
// network namespace, link, machine cgroup root or harness process beyond what setup found. A
// machine a file left behind, or anything still there after the cleanup, fails the run.
// Plain JavaScript: jest loads these modules with Node's own loader, outside the ts-jest transform.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const machineSh = path.join(process.cwd(), 'scripts', 'e2e', 'machine.sh');
const KEY = '__tsadmHarnessBaseline';

function sh(file, args) {
  const r = spawnSync(file, args, { encoding: 'utf8', timeout: 10 * 60_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
}

/** Names of the machines machine.sh knows (up, stopped or broken). */
function machines() {
  const r = sh('bash', [machineSh, 'list']);
  if (!r.ok) throw new Error(`machine.sh list failed:\n${r.out}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
}

/** What of the harness is on the host: tsadm-* netns and links, machine cgroup roots, harness processes. */
function traces() {
  const netns = existsSync('/run/netns') ? readdirSync('/run/netns').filter((n) => n.startsWith('tsadm-')) : [];
  const links = sh('ip', ['-o', 'link', 'show']).stdout.split('\n').filter((l) => /tsadm/.test(l)).map((l) => l.split(':')[1]?.trim() ?? l);
  const cgroupRoots = [];
  for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const [, mnt, type] = line.split(' ');
    if (!mnt || (type !== 'cgroup' && type !== 'cgroup2')) continue;
    for (const d of readdirSync(mnt, { withFileTypes: true })) {
      if (d.isDirectory() && existsSync(path.join(mnt, d.name, 'tsadm-system'))) cgroupRoots.push(path.join(mnt, d.name));
    }
  }
  // Only the harness's own processes: the unit project's oracles (etcd, kube-apiserver) run
  // outside machines and are not the harness's; a machine's node components live in its cgroups.
  const processes = sh('ps', ['-eo', 'pid=,args=']).stdout.split('\n')
    .filter((l) => /kubelet-supervisor\.sh|machine-init\.sh|tsadm-holder-/.test(l))
    .map((l) => l.trim());
  return { netns, links, cgroupRoots, processes };
}

function harnessUsable() {
  return process.getuid?.() === 0 && existsSync(machineSh);
}

export async function globalSetup() {
  if (!harnessUsable()) return;
  globalThis[KEY] = { machines: machines(), traces: traces() };
}

export async function globalTeardown() {
  const baseline = globalThis[KEY];
  if (!baseline) return;
  const problems = [];
  const left = machines().filter((m) => !baseline.machines.includes(m));
  for (const m of left) {
    const r = sh('bash', [machineSh, 'down', m]);
    problems.push(`machine ${m} was left up by a test file${r.ok ? ' (now removed)' : `; machine.sh down failed:\n${r.out}`}`);
  }
  if (machines().length === 0) {
    const r = sh('bash', [machineSh, 'down-all']);
    if (!r.ok) problems.push(`machine.sh down-all failed:\n${r.out}`);
  }
  const now = traces();
  for (const [what, items] of Object.entries(now)) {
    const extra = items.filter((i) => !baseline.traces[what].includes(i));
    // With no machine of anyone else left, the switch itself must be gone too.
    const expected = baseline.machines.length === 0 ? [] : baseline.traces[what];
    const stale = items.filter((i) => !expected.includes(i));
    for (const i of new Set([...extra, ...stale])) problems.push(`${what}: ${i}`);
  }
  if (problems.length > 0) {
    throw new Error(`the e2e harness left traces on the host after the run (scripts/e2e/README.md, "Sharing clusters between test files, and the end of a run"):\n  ${problems.join('\n  ')}`);
  }
}
