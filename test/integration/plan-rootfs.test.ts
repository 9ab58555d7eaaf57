/**
 * Plans on a --rootfs, through the CLI: a dry run with --plan writes nothing but the plan (0600,
 * note first), `tsadm apply` writes exactly its bytes and modes into another root (certificates
 * that openssl verifies), runs again as a no-op, and refuses — naming the file — when the root
 * changed since; the review copy (--plan-without-keys) holds no key and cannot be applied; a full
 * dry-run init plan has the files, the kubelet restarts, the wait for the API server and the objects.
 */
import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FileStep, Plan } from '../../src/plan/types.js';
import { CLUSTER_PHASES, LOCAL_CONFIG, LOCAL_INIT, events, runCli } from '../helpers/run-cli.js';

const dirs: string[] = [];
const tmp = (p: string): string => {
  const d = mkdtempSync(path.join(tmpdir(), p));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
let config: string;
beforeAll(() => {
  config = path.join(tmp('tsadm-plan-cfg-'), 'config.yaml');
  writeFileSync(config, LOCAL_CONFIG);
});

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const files = (root: string): string[] => {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`/${path.relative(root, p)}`);
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
};
const readPlan = (p: string): Plan => JSON.parse(readFileSync(p, 'utf8')) as Plan;
const fileSteps = (plan: Plan): FileStep[] => plan.steps.filter((s): s is FileStep => s.type === 'file');

describe('init phase certs all --plan, then apply', () => {
  let planFile: string;
  let plan: Plan;
  let planRoot: string;
  /** The root the plan was made for, emptied: apply applies a plan to that root only (issue 27). */
  const freshPlanRoot = (): string => {
    rmSync(planRoot, { recursive: true, force: true });
    mkdirSync(planRoot);
    return planRoot;
  };

  beforeAll(async () => {
    planRoot = tmp('tsadm-plan-src-');
    planFile = path.join(tmp('tsadm-plan-'), 'certs.json');
    const r = await runCli(['init', 'phase', 'certs', 'all', '--rootfs', planRoot, '--plan', planFile, '--config', config]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Writing the plan (22 steps) to ${planFile}`);
    expect(files(planRoot)).toEqual([]); // --plan implies --dry-run
    plan = readPlan(planFile);
  }, 60_000);

  test('the plan is 0600, says it holds keys in its first key, and lists every file with mode and sha256', () => {
    expect(statSync(planFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(planFile, 'utf8');
    expect(text.split('\n')[1]).toMatch(/^ {2}"note": "CONTAINS PRIVATE KEYS AND SECRETS/);
    expect(plan.keyMaterial).toBe(true);
    expect(plan.phases[0]).toBe('certs/ca');
    const steps = fileSteps(plan);
    expect(steps).toHaveLength(22);
    for (const s of steps) {
      expect(s.path.startsWith('/etc/kubernetes/pki/')).toBe(true);
      expect(sha(Buffer.from(s.text ?? '', 'utf8'))).toBe(s.sha256);
      expect(s.mode).toBe(s.kind === 'certificate' ? '0644' : '0600');
    }
    // Nothing existed: every target is a precondition "absent".
    expect(plan.preconditions.files.filter((f) => f.state !== 'absent')).toEqual([]);
    expect(plan.preconditions.files.map((f) => f.path)).toEqual(expect.arrayContaining(steps.map((s) => s.path)));
  });

  test('apply writes exactly the planned bytes and modes; openssl verifies the chain; a second apply changes nothing', async () => {
    const root = freshPlanRoot();
    const r = await runCli(['apply', planFile, '--rootfs', root, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const steps = fileSteps(plan);
    expect(files(root)).toEqual(steps.map((s) => s.path).sort());
    for (const s of steps) {
      const real = path.join(root, s.path);
      expect(sha(readFileSync(real))).toBe(s.sha256);
      expect((statSync(real).mode & 0o777).toString(8)).toBe(s.mode.slice(1));
    }
    const pki = path.join(root, 'etc/kubernetes/pki');
    expect(execFileSync('openssl', ['verify', '-CAfile', `${pki}/ca.crt`, `${pki}/apiserver.crt`]).toString()).toContain(': OK');
    expect(execFileSync('openssl', ['verify', '-CAfile', `${pki}/etcd/ca.crt`, `${pki}/etcd/server.crt`]).toString()).toContain(': OK');
    const evs = events(r.stdout);
    expect(evs.filter((e) => e.type === 'file')).toHaveLength(22);
    expect(evs.at(-1)).toMatchObject({ type: 'result', command: 'apply', ok: true, data: { steps: 22, applied: true } });

    const again = await runCli(['apply', planFile, '--rootfs', root, '-o', 'json']);
    expect(again.code).toBe(0);
    const fileEvents = events(again.stdout).filter((e) => e.type === 'file');
    expect(fileEvents.every((e) => e.type === 'file' && e.unchanged)).toBe(true);
  }, 60_000);

  test('apply refuses, naming each difference, when the root changed since the plan; it changes nothing', async () => {
    const root = freshPlanRoot();
    mkdirSync(path.join(root, 'etc/kubernetes/pki'), { recursive: true });
    writeFileSync(path.join(root, 'etc/kubernetes/pki/ca.crt'), 'someone else\'s CA\n');
    const r = await runCli(['apply', planFile, '--rootfs', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refusing to apply the plan: 1 thing changed since it was made');
    expect(r.stderr).toMatch(/\/etc\/kubernetes\/pki\/ca\.crt: was absent when the plan was made, is a file \(sha256 [0-9a-f]{12}…, mode 0644\) now/);
    expect(files(root)).toEqual(['/etc/kubernetes/pki/ca.crt']);
  }, 30_000);

  test('apply --dry-run only checks', async () => {
    const root = freshPlanRoot();
    const r = await runCli(['apply', planFile, '--rootfs', root, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('The plan can be applied (22 steps); nothing was changed (--dry-run)');
    expect(files(root)).toEqual([]);
  });

  test('a damaged plan is refused before anything is written', async () => {
    const damaged = readPlan(planFile) as unknown as { steps: Array<{ type: string; text?: string }> };
    const step = damaged.steps.find((s) => s.type === 'file')!;
    step.text = `${step.text}tampered`;
    const file = path.join(tmp('tsadm-damaged-'), 'p.json');
    writeFileSync(file, JSON.stringify(damaged));
    const root = freshPlanRoot();
    const r = await runCli(['apply', file, '--rootfs', root]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the plan is damaged');
    expect(files(root)).toEqual([]);
  });
  test('issue 27: a plan is applied to the root it was made for; another --rootfs is refused and nothing is written there', async () => {
    freshPlanRoot();
    const other = tmp('tsadm-other-root-');
    const r = await runCli(['apply', planFile, '--rootfs', other]);
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toBe(`error: refusing to apply ${planFile}: the plan was made for --rootfs ${planRoot}, not ${other}`);
    expect(files(other)).toEqual([]);
    expect(files(planRoot)).toEqual([]);
  });

  test('issue 27: a plan file others could have written is refused before it is applied, as ssh refuses a loose key', async () => {
    const root = freshPlanRoot();
    const dir = tmp('tsadm-loose-');
    const loose = path.join(dir, 'p.json');
    writeFileSync(loose, readFileSync(planFile));
    for (const [mode, who] of [[0o666, 'everyone'], [0o620, 'its group']] as const) {
      chmodSync(loose, mode);
      const r = await runCli(['apply', loose, '--rootfs', root]);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')[0]).toBe(`error: refusing to apply the plan ${loose}: it is writable by ${who} (mode 0${mode.toString(8)})`);
      expect(files(root)).toEqual([]);
    }
    chmodSync(loose, 0o600);
    chownSync(loose, 4242, 4242);
    const foreign = await runCli(['apply', loose, '--rootfs', root]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr.split('\n')[0]).toBe(`error: refusing to apply the plan ${loose}: it is owned by uid 4242, not by root`);
    const link = path.join(dir, 'link.json');
    symlinkSync(planFile, link);
    const linked = await runCli(['apply', link, '--rootfs', root]);
    expect(linked.code).toBe(1);
    expect(linked.stderr.split('\n')[0]).toBe(`error: cannot read the plan ${link}: it is a symbolic link`);
    expect(files(root)).toEqual([]);
  });

  test('issue 27: exec steps tsadm does not plan are refused before anything runs or is written', async () => {
    const root = freshPlanRoot();
    const marker = path.join(tmp('tsadm-marker-'), 'ran');
    const hostile = readPlan(planFile) as unknown as { steps: unknown[] };
    const file = path.join(tmp('tsadm-exec-'), 'p.json');
    for (const [step, message] of [
      [{ type: 'exec', command: '/bin/sh', args: ['-c', `id > ${marker}`] }, 'steps[0]: exec of "/bin/sh" is not a command tsadm plans (only modprobe, sysctl, swapoff, umount)'],
      [{ type: 'exec', command: 'sysctl', args: ['-p', marker] }, `steps[0]: exec of "sysctl" with arguments ["-p","${marker}"] is not how tsadm runs it`],
      [{ type: 'exec', command: 'modprobe', args: ['--config', marker, 'x'] }, 'steps[0]: exec of "modprobe" with arguments'],
    ] as const) {
      writeFileSync(file, JSON.stringify({ ...hostile, steps: [step, ...hostile.steps] }), { mode: 0o600 });
      const r = await runCli(['apply', file, '--rootfs', root]);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')[0]).toContain(`error: ${file}: ${message}`);
      expect(existsSync(marker)).toBe(false);
      expect(files(root)).toEqual([]);
    }
  });
});

describe('--plan-without-keys', () => {
  test('a review copy: 0644, no private key or kubeconfig content, hashes kept; apply refuses it', async () => {
    const planFile = path.join(tmp('tsadm-review-'), 'review.json');
    const reviewRoot = tmp('tsadm-review-root-');
    const r = await runCli(['init', '--rootfs', reviewRoot, '--plan', planFile, '--plan-without-keys', ...LOCAL_INIT, '--skip-phases', CLUSTER_PHASES.join(',')]);
    expect(r.code).toBe(0);
    expect(statSync(planFile).mode & 0o777).toBe(0o644);
    const text = readFileSync(planFile, 'utf8');
    expect(text).not.toMatch(/PRIVATE KEY|client-key-data/);
    const plan = readPlan(planFile);
    expect(plan.keyMaterial).toBe(false);
    expect(plan.note).toMatch(/^Review copy/);
    const kubeconfigs = fileSteps(plan).filter((s) => s.kind === 'kubeconfig');
    expect(kubeconfigs.map((s) => s.path)).toEqual([
      '/etc/kubernetes/admin.conf', '/etc/kubernetes/kubelet.conf', '/etc/kubernetes/controller-manager.conf', '/etc/kubernetes/scheduler.conf',
    ]);
    for (const s of kubeconfigs) expect(s).toMatchObject({ redacted: true, mode: '0600', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const keys = fileSteps(plan).filter((s) => s.kind === 'private-key');
    expect(keys).toHaveLength(11);
    expect(keys.every((s) => s.redacted && s.text === undefined && s.base64 === undefined)).toBe(true);
    // What is not secret stays readable for review.
    expect(fileSteps(plan).find((s) => s.path === '/etc/kubernetes/manifests/kube-apiserver.yaml')?.text).toContain('--advertise-address=10.250.0.51');
    expect(plan.result).toBeUndefined();
    const refused = await runCli(['apply', planFile, '--rootfs', reviewRoot]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('this plan was made with --plan-without-keys');
  }, 60_000);

  test('--plan-without-keys alone is a usage error', async () => {
    const r = await runCli(['init', 'phase', 'certs', 'ca', '--plan-without-keys', '--rootfs', tmp('tsadm-usage-')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('--plan-without-keys needs --plan <file>');
  });
});

describe('a full dry-run init plan', () => {
  test('files, kubelet restarts, the wait for the API server and every API object, matching the event stream', async () => {
    const root = tmp('tsadm-fullplan-');
    const planFile = path.join(root, '..', `${path.basename(root)}.json`);
    dirs.push(planFile);
    const r = await runCli(['init', '--dry-run', '--plan', planFile, '--rootfs', root, ...LOCAL_INIT, '--ignore-preflight-errors', 'all', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(files(root)).toEqual([]);
    const plan = readPlan(planFile);
    const evs = events(r.stdout);

    // The files of the plan are the files of the event stream, in order, with the same hashes.
    const fileEvents = evs.filter((e): e is Extract<typeof e, { type: 'file' }> => e.type === 'file');
    expect(fileSteps(plan).map((s) => [s.path, s.mode, s.sha256])).toEqual(fileEvents.map((e) => [e.path, e.mode, e.sha256]));
    expect(fileSteps(plan).map((s) => s.path)).toEqual(expect.arrayContaining([
      '/etc/kubernetes/manifests/kube-apiserver.yaml', '/etc/kubernetes/manifests/etcd.yaml', '/var/lib/kubelet/config.yaml', '/etc/kubernetes/admin.conf',
    ]));

    // kubelet-start: stop, mkdir, files, restart — in that order.
    const kubelet = plan.steps.filter((s) => s.phase === 'kubelet-start').map((s) => (s.type === 'service' ? `${s.action} ${s.unit}` : s.type === 'file' || s.type === 'mkdir' ? `${s.type} ${s.path}` : s.type));
    expect(kubelet).toEqual(['stop kubelet', 'mkdir /var/lib/kubelet', 'file /var/lib/kubelet/kubeadm-flags.env', 'file /var/lib/kubelet/config.yaml', 'restart kubelet']);

    // The API server does not exist yet: one wait, right before the first object.
    const firstObject = plan.steps.findIndex((s) => s.type === 'object');
    expect(plan.steps[firstObject - 1]).toMatchObject({ type: 'wait', for: 'api-server', kubeconfig: '/etc/kubernetes/admin.conf', server: 'https://10.250.0.51:6443' });
    expect(plan.steps.filter((s) => s.type === 'wait')).toHaveLength(1);
    expect(plan.preconditions.clusters).toEqual([{ kubeconfig: '/etc/kubernetes/admin.conf', server: 'https://10.250.0.51:6443', reachable: false }]);

    // Objects: every object event of the stream is a step (would-create = create, Node would-update = patch).
    const objectEvents = evs.filter((e): e is Extract<typeof e, { type: 'object' }> => e.type === 'object');
    const objectSteps = plan.steps.filter((s): s is Extract<typeof s, { type: 'object' }> => s.type === 'object');
    expect(objectSteps.map((s) => `${s.kind} ${s.name}`)).toEqual(objectEvents.map((e) => `${e.kind} ${e.name}`));
    expect(objectSteps.find((s) => s.kind === 'ConfigMap' && s.name === 'kubeadm-config')).toMatchObject({ verb: 'create', namespace: 'kube-system', phase: 'upload-config/kubeadm' });
    const taint = objectSteps.find((s) => s.verb === 'patch' && s.phase === 'mark-control-plane');
    expect(taint).toMatchObject({ kind: 'Node', name: 'n1', diff: expect.arrayContaining([{ op: 'add', path: '/spec/taints/-', to: { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' } }]) });
    const token = objectSteps.find((s) => s.kind === 'Secret');
    expect(token).toMatchObject({ verb: 'create', namespace: 'kube-system', object: { type: 'bootstrap.kubernetes.io/token' } });

    // The result (with the join command and its token) is in the plan that holds keys.
    const result = evs.at(-1) as Extract<(typeof evs)[number], { type: 'result' }>;
    expect(plan.result?.joinCommand).toBe(result.data?.joinCommand);
    expect(String(plan.result?.joinCommand)).toMatch(/^tsadm join 10\.250\.0\.51:6443 --token [a-z0-9]{6}\.[a-z0-9]{16}/);
    // Every phase that ran (not the skipped waits) is listed.
    expect(plan.phases).toEqual(expect.arrayContaining(['preflight', 'certs/ca', 'kubelet-start', 'addon/kube-proxy', 'show-join-command']));
    expect(plan.phases).not.toContain('wait-control-plane');
  }, 60_000);
});
