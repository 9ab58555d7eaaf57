/**
 * The pure parts of plans: building from a journal (order, wait before the first write to a
 * cluster that did not answer, redaction), object and Node diffs, the Node patch replay, and
 * the shape checks of a plan file.
 */
import { createHash } from 'node:crypto';
import { buildPlan } from '../../../src/plan/build.js';
import { NOTE_NO_SECRETS, NOTE_WITH_KEYS, NOTE_WITHOUT_KEYS } from '../../../src/plan/types.js';
import { diffNode, diffObject, nodePatchConflicts, replayNodePatch } from '../../../src/plan/diff.js';
import { validatePlan } from '../../../src/plan/file.js';
import { PlanJournal } from '../../../src/host/journal.js';
import type { MutableNode } from '../../../src/kube/types.js';
import type { NodeView } from '../../../src/plan/types.js';

const meta = { command: 'init', phases: ['a', 'b'], rootfs: '/', createdAt: new Date('2024-01-02T03:04:05Z'), tsadmVersion: '0.1.0', result: { joinCommand: 'tsadm join x --token abc.def' } };
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

function journal(): PlanJournal {
  const j = new PlanJournal();
  j.noteFile('/etc/kubernetes/pki/ca.crt', { state: 'file', sha256: sha('ca'), mode: 0o644 });
  j.noteFile('/proc/sys/net/ipv4/ip_forward', { state: 'file', sha256: sha('1'), mode: 0o644 });
  j.noteFile('/etc/kubernetes/admin.conf', { state: 'absent' });
  j.record({ type: 'file', path: '/etc/kubernetes/pki/sa.key', mode: 0o600, kind: 'private-key', description: 'sa key', sha256: sha('KEY'), content: Buffer.from('KEY'), unchanged: false }, 'certs/sa');
  j.record({ type: 'file', path: '/etc/kubernetes/x.bin', mode: 0o644, kind: 'config', description: 'binary', sha256: createHash('sha256').update(Buffer.from([0, 1, 2])).digest('hex'), content: Buffer.from([0, 1, 2]), unchanged: false }, 'b');
  j.record({ type: 'service', action: 'restart', unit: 'kubelet' }, 'kubelet-start');
  j.noteCluster('/etc/kubernetes/admin.conf', 'https://10.0.0.1:6443', true);
  j.noteCluster('/etc/kubernetes/admin.conf', 'https://10.0.0.1:6443', false); // a later failed read wins
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abc', namespace: 'kube-system' }, data: { 'token-secret': 'ZGVm' } };
  j.record({ type: 'object', verb: 'create', kubeconfig: '/etc/kubernetes/admin.conf', object: secret, placeholderUid: 'dry-run-1' }, 'bootstrap-token');
  j.record({
    type: 'object', verb: 'update', kubeconfig: '/etc/kubernetes/admin.conf', object: { ...secret, data: { 'token-secret': 'bmV3' } },
    existing: { ...secret, metadata: { ...secret.metadata, resourceVersion: '7' } },
  }, 'bootstrap-token');
  return j;
}

describe('buildPlan', () => {
  test('with keys: steps in order, a wait before the first write to a cluster that did not answer, result kept', () => {
    const plan = buildPlan(journal(), meta, { keys: true });
    expect(Object.keys(plan)[0]).toBe('note');
    expect(plan.steps.map((s) => s.type)).toEqual(['file', 'file', 'service', 'wait', 'object', 'object']);
    expect(plan.steps[0]).toMatchObject({ phase: 'certs/sa', path: '/etc/kubernetes/pki/sa.key', mode: '0600', text: 'KEY', size: 3 });
    expect(plan.steps[1]).toMatchObject({ base64: 'AAEC' });
    expect(plan.steps[3]).toEqual({ phase: 'bootstrap-token', type: 'wait', for: 'api-server', kubeconfig: '/etc/kubernetes/admin.conf', server: 'https://10.0.0.1:6443', timeoutSeconds: 240 });
    expect(plan.steps[4]).toMatchObject({ verb: 'create', placeholderUid: 'dry-run-1', object: { data: { 'token-secret': 'ZGVm' } } });
    expect(plan.steps[5]).toMatchObject({ verb: 'update', diff: [{ op: 'replace', path: '/data/token-secret', from: 'ZGVm', to: 'bmV3' }] });
    // Kernel files are never preconditions; first sight of the others is, sorted by path.
    expect(plan.preconditions.files).toEqual([
      { path: '/etc/kubernetes/admin.conf', state: 'absent' },
      { path: '/etc/kubernetes/pki/ca.crt', state: 'file', sha256: sha('ca'), mode: '0644' },
    ]);
    expect(plan.result).toEqual(meta.result);
  });

  test('without keys: private keys, Secret values (in objects and diffs) and the result are replaced by hashes', () => {
    const plan = buildPlan(journal(), meta, { keys: false });
    expect(plan.keyMaterial).toBe(false);
    expect(plan.steps[0]).toMatchObject({ redacted: true, sha256: sha('KEY') });
    expect(plan.steps[0]).not.toHaveProperty('text');
    expect(plan.steps[4]).toMatchObject({ object: { data: { 'token-secret': `sha256:${sha('ZGVm')}` } } });
    expect(plan.steps[5]).toMatchObject({ diff: [{ from: `sha256:${sha('ZGVm')}`, to: `sha256:${sha('bmV3')}` }] });
    expect(JSON.stringify(plan)).not.toMatch(/ZGVm|bmV3|"KEY"|--token/);
    expect(plan.result).toBeUndefined();
  });

  test('the note says what the plan holds: keys and secrets, none, or a review copy', () => {
    expect(buildPlan(journal(), meta, { keys: true }).note).toBe(NOTE_WITH_KEYS);
    expect(buildPlan(journal(), meta, { keys: false }).note).toBe(NOTE_WITHOUT_KEYS);
    // A timer's unit file, its systemd actions, a renewal step: nothing a review copy would hide.
    const quiet = (): PlanJournal => {
      const j = new PlanJournal();
      j.record({ type: 'file', path: '/etc/systemd/system/tsadm-etcd-snapshot.timer', mode: 0o644, kind: 'config', description: 'timer', sha256: sha('T'), content: Buffer.from('T'), unchanged: false });
      j.record({ type: 'service', action: 'enable', unit: 'tsadm-etcd-snapshot.timer' });
      j.record({ type: 'certs-renew-auto', windowSeconds: 3600, restart: true, due: ['apiserver'], pending: [], kubeconfig: '/etc/kubernetes/admin.conf' });
      return j;
    };
    const plain = { ...meta, command: 'etcd snapshot schedule', result: { unit: 'tsadm-etcd-snapshot.timer', sha256: sha('x'), keep: 5 } };
    expect(buildPlan(quiet(), plain, { keys: true }).note).toBe(NOTE_NO_SECRETS);
    // A result naming a credential, or holding a bootstrap token anywhere, is key material.
    for (const result of [{ joinCommand: 'tsadm join x' }, { certificateKey: sha('k') }, { printed: ['see abcdef.0123456789abcdef'] }, { kubeconfig: { clusters: ['x'] } }]) {
      expect(buildPlan(quiet(), { ...plain, result }, { keys: true }).note).toBe(NOTE_WITH_KEYS);
    }
    // One private key among the steps is enough.
    const withKey = quiet();
    withKey.record({ type: 'file', path: '/etc/kubernetes/pki/sa.key', mode: 0o600, kind: 'private-key', description: 'sa key', sha256: sha('KEY'), content: Buffer.from('KEY'), unchanged: false });
    expect(buildPlan(withKey, plain, { keys: true }).note).toBe(NOTE_WITH_KEYS);
  });
});

test('a CA rotation node step and a symbolic link go into the plan as recorded; the node step names a key file, never a key', () => {
  const j = new PlanJournal();
  j.record({ type: 'symlink', path: '/var/lib/kubelet/pki/kubelet-client-current.pem', target: 'kubelet-client-2026-11-29-15-00-00.pem' }, 'rotate');
  j.record({ type: 'certs-rotate-ca-node', id: 'ab12cd34', rotationPhase: 'trust-both', nodeName: 'cp2', rotationKeyFile: '/var/lib/operator/rotation.key', kubeconfig: '/etc/kubernetes/admin.conf' });
  const plan = buildPlan(j, { ...meta, command: 'certs rotate-ca node', result: {} }, { keys: true });
  expect(plan.steps).toEqual([
    { phase: 'rotate', type: 'symlink', path: '/var/lib/kubelet/pki/kubelet-client-current.pem', target: 'kubelet-client-2026-11-29-15-00-00.pem' },
    { type: 'certs-rotate-ca-node', id: 'ab12cd34', rotationPhase: 'trust-both', nodeName: 'cp2', rotationKeyFile: '/var/lib/operator/rotation.key', kubeconfig: '/etc/kubernetes/admin.conf' },
  ]);
  expect(plan.note).toBe(NOTE_NO_SECRETS);
});

describe('object and Node diffs', () => {
  test('diffObject names only the fields tsadm sets that differ', () => {
    const existing = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', uid: 'u', resourceVersion: '3', labels: { keep: 'me' } }, data: { a: '1', b: '2' } };
    const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: '1', b: '3', 'c/d': 'new' } };
    expect(diffObject(existing, desired)).toEqual([
      { op: 'replace', path: '/data/b', from: '2', to: '3' },
      { op: 'add', path: '/data/c~1d', to: 'new' },
    ]);
  });

  const before: NodeView = { labels: { a: '1', gone: 'x' }, annotations: {}, taints: [{ key: 'old', effect: 'NoSchedule' }] };
  const after: NodeView = { labels: { a: '1', role: '' }, annotations: { cri: 'sock' }, taints: [{ key: 'master', effect: 'NoSchedule' }] };

  test('diffNode', () => {
    expect(diffNode(before, after)).toEqual([
      { op: 'remove', path: '/metadata/labels/gone', from: 'x' },
      { op: 'add', path: '/metadata/labels/role', to: '' },
      { op: 'add', path: '/metadata/annotations/cri', to: 'sock' },
      { op: 'add', path: '/spec/taints/-', to: { key: 'master', effect: 'NoSchedule' } },
      { op: 'remove', path: '/spec/taints', from: { key: 'old', effect: 'NoSchedule' } },
    ]);
  });

  test('replayNodePatch changes what the plan changes and keeps what others set since', () => {
    const live: MutableNode = {
      metadata: { name: 'n', labels: { a: '1', gone: 'x', kubelet: 'set' }, annotations: { other: 'y' } },
      spec: { taints: [{ key: 'old', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
    };
    replayNodePatch(live, before, after);
    expect(live.metadata.labels).toEqual({ a: '1', kubelet: 'set', role: '' });
    expect(live.metadata.annotations).toEqual({ other: 'y', cri: 'sock' });
    expect(live.spec.taints).toEqual([{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, { key: 'master', effect: 'NoSchedule' }]);
  });

  test('nodePatchConflicts: only the keys the patch changes, and not when they already have the planned value', () => {
    expect(nodePatchConflicts({ labels: { a: '2', gone: 'x' }, annotations: {}, taints: [] }, before, after)).toEqual([]);
    expect(nodePatchConflicts({ labels: { role: 'x' }, annotations: { cri: 'sock' }, taints: [] }, before, after)).toEqual([
      'label role is "x", the plan expected absent',
    ]);
  });
});

const ROTATE_STEP = { type: 'certs-rotate-ca-node', id: 'ab12cd34', rotationPhase: 'trust-both', nodeName: 'cp2', rotationKeyFile: '/var/lib/operator/rotation.key' };
const RESTORE_STEP = { type: 'etcd-snapshot-restore', snapshot: '/backup/a.db', sha256: sha('a'), certDir: '/etc/kubernetes/pki', timeoutSeconds: 300 };

describe('validatePlan', () => {
  const good = buildPlan(journal(), meta, { keys: true });
  test.each<[string, unknown, RegExp]>([
    ['not an object', [], /not a JSON object/],
    ['foreign kind', { ...good, kind: 'Other' }, /apiVersion\/kind are tsadm\/v1alpha1\/Other/],
    ['relative path', { ...good, steps: [{ type: 'file', path: 'etc/x', mode: '0644', sha256: sha('') }] }, /steps\[0\]\.path must be an absolute host path/],
    ['bad mode', { ...good, steps: [{ type: 'mkdir', path: '/x', mode: '644' }] }, /steps\[0\]\.mode must be octal/],
    ['unknown step', { ...good, steps: [{ type: 'rm -rf' }] }, /steps\[0\] has no known type/],
    ...([
      ['restore of a relative snapshot', { snapshot: 'a.db' }],
      ['restore without the snapshot\'s sha256', { sha256: 'abc' }],
      ['restore with a relative certDir', { certDir: 'pki' }],
      ['restore without a timeout', { timeoutSeconds: 0 }],
      ['restore with an empty CRI socket', { criSocket: '' }],
    ] as const).map(([n, bad]) => [n, { ...good, steps: [{ ...RESTORE_STEP, ...bad }] }, /steps\[0\]: a restore needs an absolute snapshot path and certDir, the snapshot's sha256 and a timeout/] as [string, unknown, RegExp]),
    ['a symlink without a target', { ...good, steps: [{ type: 'symlink', path: '/x', target: '' }] }, /steps\[0\]\.target must name what the link points to/],
    ['a relative symlink path', { ...good, steps: [{ type: 'symlink', path: 'x', target: 'y' }] }, /steps\[0\]\.path must be an absolute host path/],
    ...([
      ['a rotation node step without its phase', { rotationPhase: undefined }],
      ['a rotation node step with a relative key file', { rotationKeyFile: 'rotation.key' }],
    ] as const).map(([n, bad]) => [n, { ...good, steps: [{ ...ROTATE_STEP, ...bad }] }, /steps\[0\]: a CA rotation node step needs id, rotationPhase and nodeName, and absolute paths/] as [string, unknown, RegExp]),
  ])('%s is refused', (_n, data, want) => {
    expect(() => validatePlan(data)).toThrow(want);
  });
  test('a built plan passes', () => {
    expect(validatePlan(JSON.parse(JSON.stringify(good)))).toEqual(JSON.parse(JSON.stringify(good)));
  });
  test('a symlink and a CA rotation node step pass', () => {
    const steps = [{ type: 'symlink', path: '/var/lib/kubelet/pki/kubelet-client-current.pem', target: 'kubelet-client-2026-11-29-15-00-00.pem' }, ROTATE_STEP];
    expect(validatePlan({ ...good, steps }).steps).toEqual(steps);
  });
  test('a restore step passes, with or without a CRI socket', () => {
    for (const step of [RESTORE_STEP, { ...RESTORE_STEP, criSocket: 'unix:///run/containerd/containerd.sock' }]) {
      expect(validatePlan({ ...good, steps: [step] }).steps).toEqual([step]);
    }
  });
});
