/**
 * The pure end of `rotate-ca status`: the text report and the exit status of a rotation that is
 * not complete (4, apart from the command's own failures 1–3). Its API half is the e2e's.
 */
import { formatStatus, RotationPendingError } from '../../../../src/certs-lifecycle/rotate-ca/run.js';
import { markDone, markStarted, startRotation, statusOf } from '../../../../src/certs-lifecycle/rotate-ca/state.js';

const T0 = new Date('2026-11-29T10:00:00Z');

test('one row per node with its done and interrupted steps, what to run next, and whether abort is possible', () => {
  let s = startRotation(undefined, { id: 'ab12cd34', now: T0, startedOn: 'cp1', items: { cluster: { old: 'o', new: 'n' } }, nodes: { cp1: 'control-plane', 'worker-long-name': 'worker' }, saGraceSeconds: 0 });
  s = markStarted(markDone(s, 'cp1', T0), 'worker-long-name');
  expect(formatStatus(statusOf(s, T0)).split('\n')).toEqual([
    'CA rotation ab12cd34: trust-both (cluster)',
    '',
    'NODE              ROLE           DONE         IN PROGRESS',
    'cp1               control-plane  trust-both   -',
    'worker-long-name  worker         -            trust-both',
    '',
    'next: run "tsadm certs rotate-ca node" on worker-long-name (worker, interrupted during trust-both: run it again)',
    'abort: possible ("tsadm certs rotate-ca abort")',
  ]);
});

test('a pending rotation exits 4', () => {
  const e = new RotationPendingError('CA rotation x is at sign-new', 'run node on cp2');
  expect([e.exitCode, e.code, e.message, e.hint]).toEqual([4, 'E_PRECONDITION', 'CA rotation x is at sign-new', 'run node on cp2']);
});
