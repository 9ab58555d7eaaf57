/**
 * v1beta1 read as v1beta2 for `config migrate`: v1beta2's doc.go lists what v1beta2 added
 * ("certificateKey" in InitConfiguration and JoinConfiguration, "ignorePreflightErrors" in
 * NodeRegistrationOptions); a v1beta1 document with those fields is refused, others are relabelled.
 */
import { expect } from '@jest/globals';
import * as yaml from 'js-yaml';
import { v1beta1AsV1beta2 } from '../../../src/config/v1beta1.js';
import { configError } from './support.js';

describe('v1beta1AsV1beta2', () => {
  test('a file without v1beta1 documents is returned unchanged, byte for byte', () => {
    const text = '# comment\napiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n';
    expect(v1beta1AsV1beta2(text, 'f')).toBe(text);
  });

  test('v1beta1 documents become v1beta2 with the same content; other documents are kept', () => {
    const out = v1beta1AsV1beta2(`apiVersion: kubeadm.k8s.io/v1beta1
kind: InitConfiguration
nodeRegistration:
  name: n1
  taints: []
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
`, 'f');
    expect(yaml.loadAll(out)).toEqual([
      { apiVersion: 'kubeadm.k8s.io/v1beta2', kind: 'InitConfiguration', nodeRegistration: { name: 'n1', taints: [] } },
      { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', cgroupDriver: 'systemd' },
    ]);
  });

  test.each([
    ['InitConfiguration', 'certificateKey: abc\n', 'certificateKey'],
    ['InitConfiguration', 'nodeRegistration:\n  ignorePreflightErrors: [Swap]\n', 'nodeRegistration.ignorePreflightErrors'],
    ['JoinConfiguration', 'controlPlane:\n  certificateKey: abc\n', 'controlPlane.certificateKey'],
    ['JoinConfiguration', 'nodeRegistration:\n  ignorePreflightErrors: [Swap]\n', 'nodeRegistration.ignorePreflightErrors'],
  ])('%s: the v1beta2 field %s is refused', (kind, body, field) => {
    const err = configError(() => v1beta1AsV1beta2(`apiVersion: kubeadm.k8s.io/v1beta1\nkind: ${kind}\n${body}`, 'f'));
    expect(err.code).toBe('E_CONFIG_INVALID');
    expect(err.details).toEqual([`${field}: unknown field (${kind} kubeadm.k8s.io/v1beta1, document 1); the field exists from kubeadm.k8s.io/v1beta2`]);
  });
});
