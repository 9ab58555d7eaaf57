/**
 * The `certs-auto-renew` phase of init and join (--certificate-auto-renew): the same two units
 * `tsadm certs auto-renew enable` writes. Expected values are systemd's (systemd.timer(5): the
 * admin unit directory /etc/systemd/system, `RandomizedDelaySec=`, `Persistent=true`) and the
 * issue's contract: opt-in, through the host seam (a dry run lists and writes nothing, --rootfs
 * writes under the root, mode 0644 as systemd's own unit files), a second run changes nothing (the
 * files are not even replaced: same inode and mtime), and a worker join is refused before
 * anything is done. The timer runs tsadm as root: a --tsadm-path (or running tsadm) that a user
 * could change is refused before anything is written (src/host/unit-program.ts).
 */
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runPhases } from '../../../../src/engine/runner.js';
import { initPhases } from '../../../../src/workflows/init.js';
import { joinPhases } from '../../../../src/workflows/join.js';
import { checkAutoRenewTarget } from '../../../../src/phases/certs/auto-renew.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../../src/versions/resolve.js';
import type { FlagValues } from '../../../../src/flags.js';
import type { InitCtx } from '../../../../src/run/context.js';
import type { JoinCtx } from '../../../../src/phases/join/context.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { LOCAL_CONFIG, runCli } from '../../../helpers/run-cli.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';

const SERVICE = '/etc/systemd/system/tsadm-certs-renew.service';
const TIMER = '/etc/systemd/system/tsadm-certs-renew.timer';
const PHASE = 'certs-auto-renew';

/** A stand-in of the package's single executable in the root, root-owned in 0755 directories: --tsadm-path. */
const TSADM = '/usr/bin/tsadm';
let root: TempRoot;
beforeEach(() => { root = tempRoot({ [TSADM]: { content: 'tsadm', mode: 0o755 } }); });
afterEach(() => root.cleanup());

function initCtx(flags: FlagValues, dryRun = false): InitCtx {
  const { ctx } = initCtxFor(fixtureInitConfig(), root.dir, { dryRun });
  return { ...ctx, options: { ...ctx.options, flags: { 'tsadm-path': TSADM, ...flags } } };
}

/** A join context with just what the phase reads: the flags and whether this is a control-plane join. */
function joinCtx(flags: FlagValues, controlPlane: boolean, dryRun = false): JoinCtx {
  const { ctx } = initCtxFor(fixtureInitConfig(), root.dir, { dryRun });
  const { host, api, log, clock, startTime } = ctx;
  return { host, api, log, dryRun, clock, startTime, flags: { 'tsadm-path': TSADM, ...flags }, cfg: { join: controlPlane ? { controlPlane: {} } : {} } } as unknown as JoinCtx;
}

const runInit = (ctx: InitCtx): Promise<void> => runPhases(initPhases(ctx.versions), ctx, { filter: [PHASE], skip: [] });
const runJoin = (ctx: JoinCtx): Promise<void> => runPhases(joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), ctx, { filter: [PHASE], skip: [] });

describe('init: certs-auto-renew', () => {
  test('--dry-run lists both unit files (0644) and writes nothing', async () => {
    const ctx = initCtx({ 'certificate-auto-renew': true }, true);
    await runInit(ctx);
    expect(ctx.host.writes.map((w) => [w.path, w.mode])).toEqual([[SERVICE, 0o644], [TIMER, 0o644]]);
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
  });

  test('--rootfs: both units under the root, 0644, daily, randomized, persistent; a second run writes nothing', async () => {
    await runInit(initCtx({ 'certificate-auto-renew': true }));
    for (const f of [SERVICE, TIMER]) expect([f, statSync(root.at(f)).mode & 0o7777]).toEqual([f, 0o644]);
    const timer = readFileSync(root.at(TIMER), 'utf8');
    const service = readFileSync(root.at(SERVICE), 'utf8');
    expect(timer).toMatch(/^OnCalendar=daily$/m);
    expect(timer).toMatch(/^RandomizedDelaySec=3600$/m);
    expect(timer).toMatch(/^Persistent=true$/m);
    expect(timer).toMatch(/^Unit=tsadm-certs-renew\.service$/m);
    expect(service).toMatch(/^Type=oneshot$/m);
    expect(service).toMatch(/^ExecStart=\/usr\/bin\/tsadm certs renew --auto --within 90d$/m);

    const before = [SERVICE, TIMER].map((f) => { const s = statSync(root.at(f)); return [s.ino, s.mtimeMs]; });
    const again = initCtx({ 'certificate-auto-renew': true });
    await runInit(again);
    expect([SERVICE, TIMER].map((f) => { const s = statSync(root.at(f)); return [s.ino, s.mtimeMs]; })).toEqual(before);
    expect(again.host.writes.map((w) => [w.path, w.unchanged])).toEqual([[SERVICE, true], [TIMER, true]]);
    expect(again.host.actions).toEqual([]);
  });

  test('a unit file changed by hand is put back by the next run', async () => {
    await runInit(initCtx({ 'certificate-auto-renew': true }));
    const good = readFileSync(root.at(TIMER), 'utf8');
    writeFileSync(root.at(TIMER), good.replace('Persistent=true', 'Persistent=false'));
    await runInit(initCtx({ 'certificate-auto-renew': true }));
    expect(readFileSync(root.at(TIMER), 'utf8')).toBe(good);
  });

  test('a --tsadm-path another user owns is refused before anything is written, in a dry run too', async () => {
    chownSync(root.at(TSADM), 65534, 65534);
    for (const dryRun of [true, false]) {
      const ctx = initCtx({ 'certificate-auto-renew': true }, dryRun);
      const err = await tsadmErrorOf(runInit(ctx));
      expect(err.code).toBe('E_PRECONDITION');
      expect(err.message).toContain(`it would run ${TSADM} as root, and ${TSADM} is owned by uid 65534, not root`);
      expect(ctx.host.writes).toEqual([]);
    }
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
  });

  test('without --certificate-auto-renew the phase skips itself and writes nothing', async () => {
    for (const flags of [{}, { 'certificate-auto-renew': false }] as FlagValues[]) {
      const ctx = initCtx(flags);
      await runInit(ctx);
      expect(ctx.host.writes).toEqual([]);
    }
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
  });

  test('it comes after every kubeadm phase that changes something, just before show-join-command', () => {
    for (const minor of ['1.20', '1.34']) {
      const names = initPhases(profileFor(`v${minor}.0`)).map((p) => p.name);
      expect([minor, names.slice(-3)]).toEqual([minor, ['addon', PHASE, 'show-join-command']]);
    }
  });
});

describe('join: certs-auto-renew', () => {
  test('a control-plane join with the flag writes the units (dry run: listed only)', async () => {
    const ctx = joinCtx({ 'certificate-auto-renew': true }, true, true);
    await runJoin(ctx);
    expect(ctx.host.writes.map((w) => w.path)).toEqual([SERVICE, TIMER]);
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
    const real = joinCtx({ 'certificate-auto-renew': true }, true);
    await runJoin(real);
    expect(existsSync(root.at(TIMER))).toBe(true);
  });

  test('a worker join: without the flag nothing; `join phase certs-auto-renew` on a worker is a usage error, nothing written', async () => {
    const plain = joinCtx({}, false);
    await runJoin(plain);
    expect(plain.host.writes).toEqual([]);
    const worker = joinCtx({ 'certificate-auto-renew': true }, false);
    const err = await tsadmErrorOf(runJoin(worker));
    expect(err.code).toBe('E_USAGE');
    expect(err.message).toContain('--certificate-auto-renew needs --control-plane');
    expect(err.message).not.toContain('\n');
    expect(worker.host.writes).toEqual([]);
    expect(() => checkAutoRenewTarget(true, false)).toThrow('--certificate-auto-renew needs --control-plane');
    expect(() => checkAutoRenewTarget(false, false)).not.toThrow();
    expect(() => checkAutoRenewTarget(true, true)).not.toThrow();
  });

  test('`tsadm join … --certificate-auto-renew` without --control-plane is refused up front (exit 3), before discovery or any write', async () => {
    // 127.0.0.1:1: if the refusal came after discovery, the run would fail differently (connection refused).
    const r = await runCli(['join', '127.0.0.1:1', '--token', 'abcdef.0123456789abcdef', '--discovery-token-unsafe-skip-ca-verification',
      '--certificate-auto-renew', '--rootfs', root.dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('--certificate-auto-renew needs --control-plane');
    expect(r.stderr).not.toMatch(/connect|ECONNREFUSED|discovery/i);
    expect(existsSync(root.at('/etc/kubernetes'))).toBe(false);
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
  });
});

describe('the CLI', () => {
  test('`init phase certs-auto-renew --dry-run` prints both unit files and writes nothing; init and join --help show the flag', async () => {
    const config = path.join(root.dir, 'init.yaml');
    writeFileSync(config, LOCAL_CONFIG);
    const r = await runCli(['init', 'phase', PHASE, '--config', config, '--rootfs', root.dir, '--dry-run', '--tsadm-path', TSADM]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${SERVICE}\\s+0644`));
    expect(r.stdout).toMatch(new RegExp(`${TIMER}\\s+0644`));
    expect(r.stdout).toMatch(/^\s*RandomizedDelaySec=3600$/m);
    expect(r.stdout).toMatch(/^\s*ExecStart=\/usr\/bin\/tsadm certs renew --auto --within 90d$/m);
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
    // --tsadm-path is read only by the phase: listed in its help, not in the workflow's (issue 40).
    for (const cmd of ['init', 'join']) {
      const help = (await runCli([cmd, '--help'])).stdout;
      expect([cmd, help]).toEqual([cmd, expect.stringContaining('--certificate-auto-renew')]);
      const phase = (await runCli([cmd, 'phase', 'certs-auto-renew', '--help'])).stdout;
      for (const flag of ['--certificate-auto-renew', '--tsadm-path']) expect([cmd, phase]).toEqual([cmd, expect.stringContaining(flag)]);
    }
  });
});
