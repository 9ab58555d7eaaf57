/** The pure rules of what `tsadm apply` trusts in a plan (issue 27, finding 4); the CLI-level refusals are in test/integration/plan-rootfs.test.ts. */
import { applyRoot, approvalStepProblem, execStepProblem, liveApprovalProblem } from '../../../src/plan/trust.js';

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

describe('approval steps: only what tsadm\'s approver decides', () => {
  const csr = (signerName: string) => ({ kind: 'CertificateSigningRequest', metadata: { name: 'csr-1' }, spec: { signerName } });
  const step = (o: Record<string, unknown> = {}) => ({
    type: 'object', verb: 'approval', kind: 'CertificateSigningRequest', name: 'csr-1',
    decision: { type: 'Approved', reason: 'TsadmNodeAddressesMatch', message: 'm' }, object: csr('kubernetes.io/kubelet-serving'), ...o,
  });

  test('a kubelet-serving request, approved or denied, is one tsadm plans', () => {
    expect(approvalStepProblem(step())).toBeUndefined();
    expect(approvalStepProblem(step({ decision: { type: 'Denied', reason: 'RequesterNotNode', message: 'm' } }))).toBeUndefined();
  });

  test.each([
    ['another signer (a client certificate)', step({ object: csr('kubernetes.io/kube-apiserver-client') }), 'an approval of a request to signer "kubernetes.io/kube-apiserver-client" is not one tsadm plans (only kubernetes.io/kubelet-serving)'],
    ['no signer', step({ object: { kind: 'CertificateSigningRequest', metadata: { name: 'csr-1' } } }), 'an approval of a request to signer "undefined" is not one tsadm plans (only kubernetes.io/kubelet-serving)'],
    ['a step naming another object than it writes', step({ name: 'csr-2' }), 'an approval step must be of the CertificateSigningRequest it names'],
    ['another kind', step({ kind: 'Secret' }), 'an approval step must be of the CertificateSigningRequest it names'],
    ['a condition that is no decision', step({ decision: { type: 'Failed', reason: 'x', message: 'm' } }), 'an approval step must approve or deny'],
  ])('%s is refused', (_what, s, problem) => {
    expect(approvalStepProblem(s)).toBe(problem);
  });

  test('the live request must still exist and be to the kubelet-serving signer', () => {
    expect(liveApprovalProblem({ spec: { signerName: 'kubernetes.io/kubelet-serving' } }, 'csr-1')).toBeUndefined();
    expect(liveApprovalProblem(undefined, 'csr-1')).toBe('CertificateSigningRequest csr-1 is gone');
    expect(liveApprovalProblem({ spec: { signerName: 'kubernetes.io/kube-apiserver-client' } }, 'csr-1')).toBe('CertificateSigningRequest csr-1 is not to signer kubernetes.io/kubelet-serving');
  });
});
