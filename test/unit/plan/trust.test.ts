/** The pure rules of what `tsadm apply` trusts in a plan (issue 27, finding 4); the CLI-level refusals are in test/integration/plan-rootfs.test.ts. */
import { applyRoot, execStepProblem, planFileProblem } from '../../../src/plan/trust.js';

describe('exec steps: only the commands tsadm plans, as tsadm runs them', () => {
  test('the commands of src/host/running-system.ts and reset\'s umount pass', () => {
    expect(execStepProblem('modprobe', ['br_netfilter'])).toBeUndefined();
    expect(execStepProblem('sysctl', ['-w', 'net.ipv4.ip_forward=1'])).toBeUndefined();
    expect(execStepProblem('swapoff', ['-a'])).toBeUndefined();
    expect(execStepProblem('umount', ['/var/lib/kubelet/pods/x/volumes/y'])).toBeUndefined();
    expect(execStepProblem('umount', ['-f', '-l', '/var/lib/kubelet/pods/x'])).toBeUndefined();
  });

  test('anything else is refused, naming the command', () => {
    expect(execStepProblem('/bin/sh', ['-c', 'id'])).toBe('exec of "/bin/sh" is not a command tsadm plans (only modprobe, sysctl, swapoff, umount)');
    expect(execStepProblem('/sbin/modprobe', ['x'])).toMatch(/not a command tsadm plans/);
    expect(execStepProblem('toString', [])).toMatch(/not a command tsadm plans/);
    expect(execStepProblem('sysctl', ['-p', '/tmp/evil.conf'])).toBe('exec of "sysctl" with arguments ["-p","/tmp/evil.conf"] is not how tsadm runs it');
    expect(execStepProblem('modprobe', ['-C', '/tmp/x', 'y'])).toMatch(/is not how tsadm runs it/);
    expect(execStepProblem('swapoff', ['/dev/sda1'])).toMatch(/is not how tsadm runs it/);
    expect(execStepProblem('umount', ['-a'])).toMatch(/is not how tsadm runs it/);
    expect(execStepProblem('umount', ['--fake', '/x'])).toMatch(/is not how tsadm runs it/);
    expect(execStepProblem('swapoff', 'x')).toBe('an exec step needs a command and string arguments');
  });
});

describe('the plan file: as ssh wants a private key', () => {
  test('owned by root (or the running user), no group or world write', () => {
    expect(planFileProblem({ isFile: true, mode: 0o100600, uid: 0 }, 0)).toBeUndefined();
    expect(planFileProblem({ isFile: true, mode: 0o100644, uid: 0 }, 0)).toBeUndefined();
    expect(planFileProblem({ isFile: true, mode: 0o100600, uid: 1000 }, 1000)).toBeUndefined();
    expect(planFileProblem({ isFile: true, mode: 0o100666, uid: 0 }, 0)).toBe('it is writable by everyone (mode 0666)');
    expect(planFileProblem({ isFile: true, mode: 0o100660, uid: 0 }, 0)).toBe('it is writable by its group (mode 0660)');
    expect(planFileProblem({ isFile: true, mode: 0o100600, uid: 1000 }, 0)).toBe('it is owned by uid 1000, not by root');
    expect(planFileProblem({ isFile: false, mode: 0o10600, uid: 0 }, 0)).toBe('it is not a regular file');
  });
});

describe('the root a plan is applied to', () => {
  test('the plan\'s own root; --rootfs may only choose one for a plan made without', () => {
    expect(applyRoot('/srv/node', undefined)).toEqual({ root: '/srv/node' });
    expect(applyRoot('/srv/node', '/srv/node/')).toEqual({ root: '/srv/node' });
    expect(applyRoot('/', undefined)).toEqual({ root: '/' });
    expect(applyRoot('/', '/mnt/image')).toEqual({ root: '/mnt/image' });
    expect(applyRoot('/srv/node', '/mnt/other')).toEqual({ problem: 'the plan was made for --rootfs /srv/node, not /mnt/other' });
    expect(applyRoot('/srv/node', '/')).toEqual({ problem: 'the plan was made for --rootfs /srv/node, not /' });
  });
});
