/**
 * The rotation's state machine: start, per-node progress, the advance by the last node with the
 * cluster-wide actions of the step it closes, the service-account grace, abort allowed and refused
 * with its reason, status with what to run where and its exit code, and the ConfigMap encoding.
 */
import {
  abortCheck, abortRotation, advance, advanceCheck, decodeState, encodeState, markDone, markStarted, nodeMayRun, parseRotated,
  startRotation, statusOf, type RotationState,
} from '../../../../src/certs-lifecycle/rotate-ca/state.js';
import { tsadmErrorOfCall } from '../../../helpers/tsadm-error.js';

/** FN throws a TsadmError of CODE whose message matches RE. */
function expectTsadmError(fn: () => unknown, code: string, re: RegExp): void {
  const err = tsadmErrorOfCall(fn);
  expect([err.code, err.message]).toEqual([code, expect.stringMatching(re)]);
}

const T0 = new Date('2026-11-29T10:00:00Z');
const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000);
const M = { old: 'OLD', new: 'NEW' };

function start(items: RotationState['items'] = { cluster: M }, saGraceSeconds = 3600): RotationState {
  return startRotation(undefined, { id: 'r1', now: T0, startedOn: 'cp1', items, nodes: { cp1: 'control-plane', cp2: 'control-plane', w1: 'worker' }, saGraceSeconds });
}

/** Every node does the current step, in the order status recommends. */
function allDo(s: RotationState, now: Date): RotationState {
  let x = s;
  for (const n of ['cp1', 'cp2', 'w1']) x = markDone(markStarted(x, n), n, now);
  return x;
}

describe('start', () => {
  test('begins at trust-both with every node to do it, and refuses a second rotation while one is under way', () => {
    const s = start();
    expect(s.phase).toBe('trust-both');
    expect(statusOf(s, T0).next).toEqual([
      'run "tsadm certs rotate-ca node" on cp1 (control-plane)',
      'run "tsadm certs rotate-ca node" on cp2 (control-plane)',
      'run "tsadm certs rotate-ca node" on w1 (worker)',
    ]);
    expectTsadmError(() => startRotation(s, { id: 'r2', now: T0, startedOn: 'cp2', items: { cluster: M }, nodes: { cp1: 'control-plane' }, saGraceSeconds: 0 }), 'E_CONFLICT', /r1.*trust-both/);
  });

  test('a finished rotation may be followed by a new one; a cluster without a control plane may not rotate', () => {
    let s = start({ 'front-proxy': M });
    for (let i = 0; i < 3; i++) s = advance(allDo(s, T0), T0);
    expect(s.phase).toBe('complete');
    expect(startRotation(s, { id: 'r2', now: T0, startedOn: 'cp1', items: { cluster: M }, nodes: { cp1: 'control-plane' }, saGraceSeconds: 0 }).id).toBe('r2');
    expectTsadmError(() => startRotation(undefined, { id: 'r3', now: T0, startedOn: 'w1', items: { cluster: M }, nodes: { w1: 'worker' }, saGraceSeconds: 0 }), 'E_PRECONDITION', /no control-plane/);
  });
});

describe('advance', () => {
  test('only once every node has done the step; the last one learns the cluster actions of the step it closes', () => {
    let s = start();
    s = markDone(s, 'cp1', at(1));
    expect(advanceCheck(s, at(1))).toEqual({ ready: false, reason: 'trust-both is still to do on cp2, w1' });
    expectTsadmError(() => advance(s, at(1)), 'E_PRECONDITION', /cp2, w1/);
    s = markDone(markDone(s, 'cp2', at(2)), 'w1', at(3));
    const check = advanceCheck(s, at(3));
    expect(check).toEqual({
      ready: true,
      next: 'sign-new',
      actions: [{ kind: 'cluster-info', trust: 'both' }, { kind: 'wait-root-ca-published' }, { kind: 'restart-addons' }, { kind: 'delete-key-secrets' }],
    });
    s = advance(s, at(3));
    expect([s.phase, s.phaseSince]).toEqual(['sign-new', at(3).toISOString()]);
  });

  test('in sign-new workers wait for every control plane', () => {
    let s = advance(allDo(start(), T0), T0);
    expect(nodeMayRun(s, 'w1')).toBe('control planes sign with the new CA first; still to do: cp1, cp2');
    expect(nodeMayRun(s, 'cp2')).toBeUndefined();
    s = markDone(markDone(s, 'cp1', T0), 'cp2', T0);
    expect(nodeMayRun(s, 'w1')).toBeUndefined();
    expectTsadmError(() => nodeMayRun(s, 'w9'), 'E_PRECONDITION', /w9 is not part of CA rotation r1/);
  });

  test('with the service-account key, sign-new ends only after the grace counted from the last node done', () => {
    let s = advance(allDo(start({ cluster: M, 'service-account': M }, 3600), T0), T0);
    s = allDo(s, at(10));
    const early = advanceCheck(s, at(69));
    expect(early).toEqual({ ready: false, reason: `tokens signed with the old service-account key stay trusted until ${at(70).toISOString()}`, notBefore: at(70) });
    expect(statusOf(s, at(69)).next).toEqual([`wait: tokens signed with the old service-account key stay trusted until ${at(70).toISOString()}, then run "tsadm certs rotate-ca node" on any node`]);
    expect(advanceCheck(s, at(70))).toEqual({ ready: true, next: 'trust-new', actions: [{ kind: 'reissue-legacy-sa-tokens' }] });
  });

  test('the whole way: trust-new closes with cluster-info on the new CA alone, and status exits 0 only when complete', () => {
    let s = start();
    const codes: number[] = [];
    for (const phase of ['trust-both', 'sign-new', 'trust-new']) {
      expect(s.phase).toBe(phase);
      codes.push(statusOf(s, T0).exitCode);
      s = allDo(s, T0);
      if (phase === 'trust-new') expect(advanceCheck(s, T0)).toEqual({ ready: true, next: 'complete', actions: [{ kind: 'cluster-info', trust: 'new' }, { kind: 'wait-root-ca-published' }, { kind: 'restart-addons' }] });
      s = advance(s, T0);
    }
    expect(codes).toEqual([4, 4, 4]);
    expect(statusOf(s, T0)).toMatchObject({ phase: 'complete', exitCode: 0, next: [] });
  });
});

describe('abort', () => {
  test('allowed during trust-both; the rollback has every node go back, then the rotation is aborted', () => {
    let s = markDone(start(), 'cp1', T0);
    expect(abortCheck(s)).toEqual({ allowed: true });
    s = abortRotation(s, at(5));
    expect(s.phase).toBe('rollback');
    expect(Object.values(s.nodes).map((n) => n.done)).toEqual([undefined, undefined, undefined]);
    s = allDo(s, at(6));
    expect(advanceCheck(s, at(6))).toEqual({ ready: true, next: 'aborted', actions: [{ kind: 'cluster-info', trust: 'old' }, { kind: 'wait-root-ca-published' }, { kind: 'restart-addons' }, { kind: 'delete-key-secrets' }] });
    s = advance(s, at(6));
    expect(statusOf(s, at(6))).toMatchObject({ phase: 'aborted', exitCode: 4 });
  });

  test('allowed in sign-new until a node begins it, then refused naming it, also after a kill midway', () => {
    let s = advance(allDo(start(), T0), T0);
    expect(abortCheck(s)).toEqual({ allowed: true });
    s = markStarted(s, 'cp2');
    const refused = abortCheck(s);
    expect(refused).toEqual({ allowed: false, reason: 'cp2 already signs with the new CA (sign-new begun); finish the rotation with "tsadm certs rotate-ca node" on every node' });
    expectTsadmError(() => abortRotation(s, T0), 'E_PRECONDITION', /cp2 already signs/);
    expect(statusOf(s, T0).abort).toEqual(refused);
    expect(statusOf(s, T0).next[0]).toBe('run "tsadm certs rotate-ca node" on cp1 (control-plane)');
    expect(statusOf(s, T0).next[1]).toBe('run "tsadm certs rotate-ca node" on cp2 (control-plane, interrupted during sign-new: run it again)');
  });

  test('refused in trust-new and once finished', () => {
    let s = advance(allDo(advance(allDo(start(), T0), T0), T0), T0);
    expect(abortCheck(s)).toEqual({ allowed: false, reason: 'the old CA is being removed (trust-new); finish the rotation with "tsadm certs rotate-ca node" on every node' });
    s = advance(allDo(s, T0), T0);
    expect(abortCheck(s)).toEqual({ allowed: false, reason: 'the rotation is complete; start a new one to change the CAs again' });
  });
});

describe('encoding and --ca', () => {
  test('the state survives the ConfigMap round trip; damage is refused naming the field', () => {
    const s = markStarted(start({ cluster: M, etcd: M }), 'cp1');
    expect(decodeState(encodeState(s))).toEqual(s);
    expectTsadmError(() => decodeState('{'), 'E_CONFLICT', /not JSON/);
    expectTsadmError(() => decodeState(encodeState({ ...s, phase: 'sideways' as never })), 'E_CONFLICT', /unknown phase "sideways"/);
    expectTsadmError(() => decodeState(encodeState({ ...s, items: { bogus: M } as never })), 'E_CONFLICT', /unknown item bogus/);
    expectTsadmError(() => decodeState(encodeState({ ...s, nodes: { cp1: { role: 'boss' } } as never })), 'E_CONFLICT', /node cp1 has no role/);
  });

  test('--ca takes a list or all, in the canonical order, and refuses unknown names', () => {
    expect(parseRotated('etcd,cluster')).toEqual(['cluster', 'etcd']);
    expect(parseRotated('all')).toEqual(['cluster', 'front-proxy', 'etcd', 'service-account']);
    expectTsadmError(() => parseRotated('cluster,kubelet'), 'E_USAGE', /unknown "kubelet"/);
    expectTsadmError(() => parseRotated(''), 'E_USAGE', /empty/);
  });
});
