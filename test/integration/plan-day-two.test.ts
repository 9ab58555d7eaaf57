/**
 * `--plan` on the day-two commands whose every effect a plan can hold (src/commands/plan-flags.ts):
 * `certs auto-renew enable|disable` and `etcd snapshot schedule|unschedule|prune`, on a --rootfs.
 * The planning run changes nothing but the plan file (0600); `tsadm apply` then makes exactly what
 * the same command run directly makes (byte for byte, same modes, in another root), and the plan
 * of a removal removes. A restore plan of a damaged file is refused. The commands whose plan is
 * one step that apply carries out (an approver pass, a snapshot save and restore, `certs renew
 * --auto`) are tested where they live: test/unit/commands/approve-kubelet-serving.test.ts,
 * test/unit/etcd-snapshot/save.test.ts, test/unit/etcd-snapshot/restore.test.ts,
 * test/unit/certs-lifecycle/auto-run.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Plan } from '../../src/plan/types.js';
import { runCli } from '../helpers/run-cli.js';

const dirs: string[] = [];
const tmp = (prefix: string): string => {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every file under a root: path → mode and content. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[`/${path.relative(root, p)}`] = `${(statSync(p).mode & 0o777).toString(8)} ${readFileSync(p, 'utf8')}`;
    }
  };
  walk(root);
  return out;
}

async function ok(args: string[]): Promise<string> {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`tsadm ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

/**
 * The units run tsadm as root, so the program they name must be root's in root's directories
 * (src/host/unit-program.ts): a stand-in of the single executable in each root, named by --tsadm-path.
 */
const TSADM = '/usr/bin/tsadm';
const TSADM_PATH = ['--tsadm-path', TSADM];
function withTsadm(root: string): void {
  mkdirSync(path.join(root, 'usr/bin'), { recursive: true });
  writeFileSync(path.join(root, TSADM), 'tsadm', { mode: 0o755 });
}

/** tree() without the stand-in executable. */
function units(root: string): Record<string, string> {
  const { [TSADM]: _tsadm, ...rest } = tree(root);
  return rest;
}

/**
 * Plans `args` on an empty root (with the stand-in tsadm when a unit is enabled), applies the plan
 * there, and runs `args` directly on a second root.
 */
async function planApplyDirect(args: string[], seed: (root: string) => Promise<unknown> | void = () => undefined) {
  const [planned, direct] = [tmp('tsadm-plan2-a-'), tmp('tsadm-plan2-b-')];
  if (args.includes('--tsadm-path') || args.includes('disable')) for (const root of [planned, direct]) withTsadm(root);
  await seed(planned);
  await seed(direct);
  const before = tree(planned);
  const planFile = path.join(tmp('tsadm-plan2-p-'), 'plan.json');
  await ok([...args, '--rootfs', planned, '--plan', planFile]);
  expect(tree(planned)).toEqual(before); // the planning run changed nothing
  expect(statSync(planFile).mode & 0o777).toBe(0o600);
  const plan = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
  await ok(['apply', planFile]);
  await ok([...args, '--rootfs', direct]);
  return { plan, planned, direct, before };
}

describe('--plan on day-two commands, then tsadm apply', () => {
  test('certs auto-renew enable: the plan holds both units; apply writes what enable writes', async () => {
    const { plan, planned, direct } = await planApplyDirect(['certs', 'auto-renew', 'enable', '--within', '60d', ...TSADM_PATH]);
    expect(plan.command).toBe('certs auto-renew enable');
    expect(plan.steps.map((s) => `${s.type} ${'path' in s ? s.path : ''}`)).toEqual([
      'file /etc/systemd/system/tsadm-certs-renew.service',
      'file /etc/systemd/system/tsadm-certs-renew.timer',
    ]);
    expect(tree(planned)).toEqual(tree(direct));
    expect(tree(planned)['/etc/systemd/system/tsadm-certs-renew.service']).toMatch(/^644 [\s\S]*ExecStart=\/usr\/bin\/tsadm certs renew --auto --within 60d\n/);
  });

  test('certs auto-renew disable: the plan removes both units, and only on apply', async () => {
    const seed = (root: string) => ok(['certs', 'auto-renew', 'enable', '--rootfs', root, ...TSADM_PATH]);
    const { plan, planned, direct } = await planApplyDirect(['certs', 'auto-renew', 'disable'], seed);
    expect(plan.steps.map((s) => s.type)).toEqual(['remove', 'remove']);
    expect(units(planned)).toEqual({});
    expect(units(direct)).toEqual({});
  });

  test('etcd snapshot schedule and unschedule: apply makes and removes what the commands do', async () => {
    const { plan, planned, direct } = await planApplyDirect(['etcd', 'snapshot', 'schedule', '--every', '6h', '--keep', '3', ...TSADM_PATH]);
    expect(plan.command).toBe('etcd snapshot schedule');
    expect(Object.keys(units(planned)).sort()).toEqual(['/etc/systemd/system/tsadm-etcd-snapshot.service', '/etc/systemd/system/tsadm-etcd-snapshot.timer']);
    expect(tree(planned)).toEqual(tree(direct));
    const planFile = path.join(tmp('tsadm-plan2-u-'), 'plan.json');
    await ok(['etcd', 'snapshot', 'unschedule', '--rootfs', planned, '--plan', planFile]);
    expect(Object.keys(units(planned))).toHaveLength(2);
    await ok(['apply', planFile]);
    expect(units(planned)).toEqual({});
  });

  test('etcd snapshot prune --keep 1: the plan deletes the older snapshots, and only on apply; other files stay', async () => {
    const dir = '/var/lib/tsadm/etcd-snapshots';
    const seed = (root: string): void => {
      mkdirSync(path.join(root, dir), { recursive: true });
      for (const name of ['etcd-snapshot-20261125T000000.000Z.db', 'etcd-snapshot-20261126T000000.000Z.db', 'etcd-snapshot-20261127T000000.000Z.db', 'notes.txt']) {
        writeFileSync(path.join(root, dir, name), name, { mode: 0o600 });
      }
    };
    const { plan, planned, direct, before } = await planApplyDirect(['etcd', 'snapshot', 'prune', '--keep', '1'], seed);
    expect(plan.steps.map((s) => `${s.type} ${'path' in s ? s.path : ''}`).sort()).toEqual([
      `remove ${dir}/etcd-snapshot-20261125T000000.000Z.db`,
      `remove ${dir}/etcd-snapshot-20261126T000000.000Z.db`,
    ]);
    expect(Object.keys(before)).toHaveLength(4);
    expect(Object.keys(tree(planned)).sort()).toEqual([`${dir}/etcd-snapshot-20261127T000000.000Z.db`, `${dir}/notes.txt`]);
    expect(tree(planned)).toEqual(tree(direct));
  });

  test('certs approve-kubelet-serving enable --plan: a dry run that records the unit and the three service actions', async () => {
    // No --rootfs on this command: the planning run is a dry run on this machine, so it writes only the plan.
    const planFile = path.join(tmp('tsadm-plan2-csr-'), 'plan.json');
    const unitBefore = existsSync('/etc/systemd/system/tsadm-kubelet-serving-approver.service');
    await ok(['certs', 'approve-kubelet-serving', 'enable', '--plan', planFile]);
    expect(existsSync('/etc/systemd/system/tsadm-kubelet-serving-approver.service')).toBe(unitBefore);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
    expect(plan.command).toBe('certs approve-kubelet-serving enable');
    expect(plan.steps.map((s) => `${s.type} ${'path' in s ? s.path : ''}${'action' in s ? `${s.action} ${s.unit}` : ''}`)).toEqual([
      'file /etc/systemd/system/tsadm-kubelet-serving-approver.service',
      'service daemon-reload tsadm-kubelet-serving-approver.service',
      'service enable tsadm-kubelet-serving-approver.service',
      `service ${unitBefore ? 'start' : 'restart'} tsadm-kubelet-serving-approver.service`,
    ]);
  });

  test('a restore plan of a file that is not a whole snapshot is refused, and no plan is written', async () => {
    const root = tmp('tsadm-plan-restore-');
    mkdirSync(path.join(root, 'backup'));
    writeFileSync(path.join(root, 'backup/x.db'), 'not a snapshot');
    const planFile = path.join(root, 'restore-plan.json');
    const r = await runCli(['etcd', 'snapshot', 'restore', '/backup/x.db', '--rootfs', root, '--plan', planFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/backup\/x\.db is not a whole etcd snapshot/);
    expect(existsSync(planFile)).toBe(false);
  });
});
