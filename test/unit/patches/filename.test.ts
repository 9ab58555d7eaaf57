import { parsePatchFilename, patchTargetsFor, STATIC_POD_PATCH_TARGETS } from '../../../src/patches/filename.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';

const targets = [...STATIC_POD_PATCH_TARGETS];

describe('patch file names', () => {
  test.each([
    ['kube-apiserver.yaml', { kind: 'patch', target: 'kube-apiserver', type: 'strategic' }],
    ['kube-apiserver0+merge.yaml', { kind: 'patch', target: 'kube-apiserver', type: 'merge' }],
    ['etcd-suffix+json.json', { kind: 'patch', target: 'etcd', type: 'json' }],
    ['kube-scheduler+strategic.json', { kind: 'patch', target: 'kube-scheduler', type: 'strategic' }],
    ['kube-scheduler.yml', { kind: 'ignore', reason: 'the file extension must be one of [json yaml]' }],
    ['README.md', { kind: 'ignore', reason: 'the file extension must be one of [json yaml]' }],
    ['coredns.yaml', { kind: 'ignore', reason: 'unknown target, must be one of [etcd kube-apiserver kube-controller-manager kube-scheduler]' }],
    ['etcd+xml.yaml', { kind: 'error', reason: "unknown or missing patch type after '+', must be one of [json merge strategic]" }],
  ])('%s', (name, expected) => {
    expect(parsePatchFilename(name, targets)).toEqual(expected);
  });

  test('kubeletconfiguration is a known target from 1.25', () => {
    expect(patchTargetsFor(VERSION_TABLE['1.24'])).not.toContain('kubeletconfiguration');
    expect(patchTargetsFor(VERSION_TABLE['1.25'])).toContain('kubeletconfiguration');
  });

  test('kubeproxydaemonset is a target from 1.37 (kubeadm PR #138090), and its files are unknown before', () => {
    for (const minor of ['1.31', '1.34', '1.35', '1.36'] as const) {
      expect(patchTargetsFor(VERSION_TABLE[minor])).not.toContain('kubeproxydaemonset');
      expect(parsePatchFilename('kubeproxydaemonset+merge.yaml', patchTargetsFor(VERSION_TABLE[minor])))
        .toEqual({ kind: 'ignore', reason: 'unknown target, must be one of [etcd kube-apiserver kube-controller-manager kube-scheduler kubeletconfiguration corednsdeployment]' });
    }
    expect(patchTargetsFor(VERSION_TABLE['1.37'])).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubeletconfiguration', 'corednsdeployment', 'kubeproxydaemonset']);
    expect(parsePatchFilename('kubeproxydaemonset0+json.json', patchTargetsFor(VERSION_TABLE['1.37']))).toEqual({ kind: 'patch', target: 'kubeproxydaemonset', type: 'json' });
  });

  test('corednsdeployment is a target from 1.31 (kubeadm PR #124820), and its files are unknown before', () => {
    expect(patchTargetsFor(VERSION_TABLE['1.30'])).not.toContain('corednsdeployment');
    expect(patchTargetsFor(VERSION_TABLE['1.31'])).toContain('corednsdeployment');
    expect(patchTargetsFor(VERSION_TABLE['1.34'])).toContain('corednsdeployment');
    expect(parsePatchFilename('corednsdeployment+json.json', patchTargetsFor(VERSION_TABLE['1.30'])).kind).toBe('ignore');
    expect(parsePatchFilename('corednsdeployment0+merge.yaml', patchTargetsFor(VERSION_TABLE['1.31'])))
      .toEqual({ kind: 'patch', target: 'corednsdeployment', type: 'merge' });
  });
});
