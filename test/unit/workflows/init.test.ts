/**
 * The init phase trees production builds: `initPhases(profile)` for a target minor, as `tsadm init`
 * runs it (src/workflows/init.ts). kubeadm's own trees are the oracle: v1.20.2's
 * cmd/kubeadm/app/cmd/init.go and cmd/kubeadm/app/cmd/phases/init/*.go, and the generated
 * `kubeadm init` reference of the modern releases (docs/kubeadm-reference.md §1.1).
 */
import { FLAG_NAMES } from '../../../src/flags.js';
import { flatten, validateTree, type Phase } from '../../../src/engine/phase.js';
import { computeSelection } from '../../../src/engine/selection.js';
import { SUPPORTED_MINORS, type SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { initPhases } from '../../../src/workflows/init.js';
import type { InitCtx } from '../../../src/run/context.js';

const treeOf = (minor: SupportedMinor): Phase<InitCtx>[] => initPhases(VERSION_TABLE[minor]);
const paths = (tree: readonly Phase<InitCtx>[]): string[] => flatten(tree).map((f) => f.path);
const child = (tree: readonly Phase<InitCtx>[], name: string): Phase<InitCtx> => {
  const found = tree.find((p) => p.name === name);
  if (!found) throw new Error(`no phase ${name} in [${tree.map((p) => p.name).join(', ')}]`);
  return found;
};

/** kubeadm's API-facing phases after the control plane is up, in its order (same names in 1.20 and modern). */
const KUBEADM_API_PHASES = [
  'upload-config', 'upload-config/kubeadm', 'upload-config/kubelet', 'upload-certs', 'mark-control-plane', 'bootstrap-token',
  'kubelet-finalize', 'addon', 'addon/coredns', 'addon/kube-proxy',
];

/** kubeadm's name for kubelet-finalize's one child: 1.20 source; renamed in 1.31 (reference docs of 1.31 and 1.34). */
const KUBEADM_FINALIZE_CHILD: Partial<Record<SupportedMinor, string>> = {
  '1.20': 'experimental-cert-rotation',
  '1.31': 'enable-client-cert-rotation',
  '1.34': 'enable-client-cert-rotation',
};

describe('initPhases(profile): the tree `tsadm init` runs', () => {
  test.each(SUPPORTED_MINORS.map((m) => [m]))('%s: valid (kebab-case, leaves run, declared flags exist)', (minor) => {
    expect(() => validateTree(treeOf(minor), FLAG_NAMES)).not.toThrow();
  });

  test('1.20: kubelet-start before the static pods, as kubeadm v1.20.2 appends its phases', () => {
    // host: tsadm's own opt-in host preparation (src/phases/host), ahead of kubeadm's phases.
    const top = treeOf('1.20').map((p) => p.name).filter((n) => n !== 'host');
    expect(top.indexOf('kubelet-start')).toBeLessThan(top.indexOf('control-plane'));
    expect(top.indexOf('control-plane')).toBeLessThan(top.indexOf('etcd'));
    expect(top.slice(0, 6)).toEqual(['preflight', 'certs', 'kubeconfig', 'kubelet-start', 'control-plane', 'etcd']);
  });

  test('modern minors: etcd, control-plane, then kubelet-start (kubeadm 1.33+ run order)', () => {
    for (const minor of ['1.33', '1.34'] as const) {
      expect(treeOf(minor).map((p) => p.name).filter((n) => n !== 'host').slice(0, 6)).toEqual(['preflight', 'certs', 'kubeconfig', 'etcd', 'control-plane', 'kubelet-start']);
    }
  });

  test('the API phases carry kubeadm\'s names, in kubeadm\'s order, for every minor', () => {
    for (const minor of SUPPORTED_MINORS) {
      const api = paths(treeOf(minor)).filter((p) => KUBEADM_API_PHASES.includes(p));
      expect([minor, api]).toEqual([minor, KUBEADM_API_PHASES]);
    }
  });

  test('kubeadm\'s aliases of the API phases', () => {
    const tree = treeOf('1.20');
    expect(child(tree, 'upload-config').aliases).toEqual(['uploadconfig']);
    expect(child(tree, 'mark-control-plane').aliases).toEqual(['mark-master']);
    expect(child(tree, 'bootstrap-token').aliases).toEqual(['bootstraptoken']);
  });

  test('every phase that talks to the API declares --kubeconfig', () => {
    const apiRoots = ['upload-config', 'upload-certs', 'mark-control-plane', 'bootstrap-token', 'addon', 'show-join-command'];
    for (const minor of ['1.20', '1.34'] as const) {
      const leaves = flatten(treeOf(minor)).filter((f) => f.phase.run && apiRoots.includes(f.path.split('/')[0] as string));
      expect(leaves.length).toBeGreaterThanOrEqual(7);
      for (const f of leaves) expect([minor, f.path, f.phase.flags?.includes('kubeconfig')]).toEqual([minor, f.path, true]);
    }
  });

  test('kubelet-finalize has one child; kubeadm\'s name for it in that minor selects it (--skip-phases, phase commands)', () => {
    for (const [minor, name] of Object.entries(KUBEADM_FINALIZE_CHILD) as Array<[SupportedMinor, string]>) {
      const tree = treeOf(minor);
      const finalize = child(tree, 'kubelet-finalize');
      expect(finalize.children).toHaveLength(1);
      const [only] = flatten([finalize]).slice(1);
      const skipped = computeSelection(tree, [], [`kubelet-finalize/${name}`]);
      expect([minor, skipped.get(only?.path as string)]).toEqual([minor, false]);
      expect([minor, skipped.get('addon/coredns')]).toEqual([minor, true]);
    }
  });

  test('1.31+: the child is named enable-client-cert-rotation, as kubeadm names it since 1.31', () => {
    for (const minor of ['1.31', '1.34'] as const) {
      expect(child(treeOf(minor), 'kubelet-finalize').children?.map((c) => c.name)).toEqual(['enable-client-cert-rotation']);
    }
  });

  test('modern minors end with show-join-command, as kubeadm 1.34 does', () => {
    expect(treeOf('1.34').at(-1)?.name).toBe('show-join-command');
  });
});
