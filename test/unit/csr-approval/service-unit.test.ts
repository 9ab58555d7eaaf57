import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APPROVER_UNIT, APPROVER_UNIT_PATH, approverStatus, disableApprover, enableApprover, renderApproverUnit } from '../../../src/csr-approval/service-unit.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';
import { oracles, testWithOracles } from '../../helpers/oracle.js';

const SPEC = { tsadm: [process.execPath, path.resolve('bin/tsadm')], kubeconfig: '/etc/kubernetes/admin.conf', interval: '10s' };
const TSADM = '/usr/bin/tsadm';
const REQUEST = { tsadmPath: TSADM, kubeconfig: SPEC.kubeconfig, interval: SPEC.interval };

/** systemd's own parser (systemd-analyze verify) is the oracle of the unit's syntax, where it is installed. */
const analyze = testWithOracles([oracles.systemdAnalyze]);

analyze('systemd-analyze verify accepts the unit without a warning', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-unit-'));
  try {
    const file = path.join(dir, APPROVER_UNIT);
    writeFileSync(file, renderApproverUnit(SPEC));
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({ status: 0, stderr: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the service runs the approver with --watch, restarts always, and a stop (exit 130) is no failure', () => {
  const text = renderApproverUnit(SPEC);
  expect(text).toContain(`\nExecStart=${process.execPath} ${path.resolve('bin/tsadm')} certs approve-kubelet-serving --watch --kubeconfig /etc/kubernetes/admin.conf --interval 10s\n`);
  expect(text).toContain('\nRestart=always\n');
  expect(text).toContain('\nSuccessExitStatus=130\n');
  expect(text).toContain('\n[Install]\nWantedBy=multi-user.target\n');
});

test('a path systemd would split or expand is refused', () => {
  expect(() => renderApproverUnit({ ...SPEC, kubeconfig: '/etc/my kube/admin.conf' })).toThrow('cannot be written into a systemd ExecStart= line');
  expect(() => renderApproverUnit({ ...SPEC, kubeconfig: '/etc/%h/admin.conf' })).toThrow('cannot be written into a systemd ExecStart= line');
});

describe('enable, status, disable on a root folder with a recording service manager', () => {
  let root: string;
  let calls: string;
  const saved = process.env.TSADM_SERVICE_MANAGER;

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-unit-root-'));
    calls = path.join(root, 'calls.log');
    const manager = path.join(root, 'manager.sh');
    // is-active answers "active" once start or restart was asked for.
    writeFileSync(manager, `#!/bin/sh\necho "$1 $2" >> ${calls}\nif [ "$1" = is-active ]; then grep -qE '^(start|restart) ' ${calls}; exit $?; fi\nexit 0\n`);
    chmodSync(manager, 0o755);
    process.env.TSADM_SERVICE_MANAGER = manager;
    mkdirSync(path.join(root, 'etc'), { recursive: true });
    // A stand-in of tsadm's single executable, root-owned in root-owned 0755 directories (--tsadm-path).
    mkdirSync(path.join(root, 'usr/bin'), { recursive: true });
    writeFileSync(path.join(root, TSADM), 'tsadm', { mode: 0o755 });
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TSADM_SERVICE_MANAGER; else process.env.TSADM_SERVICE_MANAGER = saved;
    rmSync(root, { recursive: true, force: true });
  });

  test('enable writes the unit 0644 and reloads, enables, starts; status sees it; disable stops and removes it', async () => {
    const host = new RootedHost(root);
    expect(await approverStatus(host)).toEqual({ installed: false, active: false });
    const r = await enableApprover(host, REQUEST);
    expect(r).toEqual({ failed: [], unchanged: false, execStart: [TSADM] });
    const file = path.join(root, APPROVER_UNIT_PATH);
    expect(readFileSync(file, 'utf8')).toBe(renderApproverUnit({ ...SPEC, tsadm: [TSADM] }));
    expect(spawnSync('stat', ['-c', '%a', file], { encoding: 'utf8' }).stdout.trim()).toBe('644');
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([`daemon-reload ${APPROVER_UNIT}`, `enable ${APPROVER_UNIT}`, `restart ${APPROVER_UNIT}`]);

    const st = await approverStatus(host);
    expect(st).toMatchObject({ installed: true, active: true });
    expect(st.execStart).toContain('certs approve-kubelet-serving --watch');

    // Enabling again with the same unit only makes sure it runs.
    expect((await enableApprover(host, REQUEST)).unchanged).toBe(true);
    expect(readFileSync(calls, 'utf8').trim().split('\n').slice(-1)).toEqual([`start ${APPROVER_UNIT}`]);

    expect(await disableApprover(host)).toEqual({ failed: [], removed: true });
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(calls, 'utf8').trim().split('\n').slice(-3)).toEqual([`stop ${APPROVER_UNIT}`, `disable ${APPROVER_UNIT}`, `daemon-reload ${APPROVER_UNIT}`]);
    expect(await disableApprover(host)).toEqual({ failed: [], removed: false });
  });

  test('Node.js and a script: both in ExecStart=; a script in a directory others may write is refused, nothing written or called', async () => {
    for (const f of ['opt/node/bin/node', 'opt/tsadm/bin/tsadm', 'opt/tsadm/dist/tsadm.mjs']) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), f.endsWith('tsadm') ? '#!/usr/bin/env node\n' : 'x', { mode: 0o755 });
    }
    const running = { execPath: '/opt/node/bin/node', script: '/opt/tsadm/bin/tsadm' };
    const request = { kubeconfig: SPEC.kubeconfig, interval: SPEC.interval, running };
    chmodSync(path.join(root, 'opt/tsadm/dist'), 0o777);
    for (const host of [new RootedHost(root), new DryRunHost(new RootedHost(root))]) {
      const err = await tsadmErrorOf(enableApprover(host, request));
      expect(err.message).toBe(`refusing to write ${APPROVER_UNIT_PATH}: it would run /opt/tsadm/bin/tsadm as root, and /opt/tsadm/dist is writable by others (mode 0777) (under --rootfs ${root})`);
      expect(host.writes).toEqual([]);
    }
    expect(existsSync(path.join(root, APPROVER_UNIT_PATH))).toBe(false);
    expect(existsSync(calls)).toBe(false);
    chmodSync(path.join(root, 'opt/tsadm/dist'), 0o755);
    expect((await enableApprover(new RootedHost(root), request)).execStart).toEqual(['/opt/node/bin/node', '/opt/tsadm/bin/tsadm']);
    expect(readFileSync(path.join(root, APPROVER_UNIT_PATH), 'utf8')).toContain('\nExecStart=/opt/node/bin/node /opt/tsadm/bin/tsadm certs approve-kubelet-serving --watch ');
  });
});
