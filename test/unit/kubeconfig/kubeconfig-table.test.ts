/**
 * Which API server kubelet.conf of the first control plane points at: the local advertise
 * address when ControlPlaneKubeletLocalMode is on (a gate from 1.31, alpha and off; beta and on
 * in 1.33, PR #129956: kubeadm's kubeconfig.go uses the LocalAPIEndpoint for the kubelet then),
 * else the control-plane endpoint. The other files do not depend on the gate.
 */
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { KUBECONFIG_ROWS } from '../../../src/kubeconfig/kubeconfig-table.js';
import type { SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';

const kubeletRow = KUBECONFIG_ROWS.find((r) => r.name === 'kubelet')!;
const server = (minor: SupportedMinor, gates: Record<string, boolean>) => {
  const base = fixtureInitConfig();
  return kubeletRow.server({ ...base, cluster: { ...base.cluster, featureGates: gates } }, VERSION_TABLE[minor]);
};

describe('kubelet.conf server (ControlPlaneKubeletLocalMode)', () => {
  test('before the gate exists (1.20, 1.30): the control-plane endpoint, whatever is set', () => {
    expect(server('1.20', {})).toBe('control-plane-endpoint');
    expect(server('1.30', { ControlPlaneKubeletLocalMode: true })).toBe('control-plane-endpoint');
  });
  test('1.31/1.32: off by default, the gate turns it on', () => {
    expect(server('1.31', {})).toBe('control-plane-endpoint');
    expect(server('1.32', {})).toBe('control-plane-endpoint');
    expect(server('1.31', { ControlPlaneKubeletLocalMode: true })).toBe('local');
  });
  test('1.33/1.34: on by default, the gate turns it off', () => {
    expect(server('1.33', {})).toBe('local');
    expect(server('1.34', {})).toBe('local');
    expect(server('1.33', { ControlPlaneKubeletLocalMode: false })).toBe('control-plane-endpoint');
  });
  test('admin.conf and controller-manager.conf do not follow the gate', () => {
    const base = fixtureInitConfig();
    const cfg = { ...base, cluster: { ...base.cluster, featureGates: { ControlPlaneKubeletLocalMode: true } } };
    expect(KUBECONFIG_ROWS.find((r) => r.name === 'admin')!.server(cfg, VERSION_TABLE['1.33'])).toBe('control-plane-endpoint');
    expect(KUBECONFIG_ROWS.find((r) => r.name === 'controller-manager')!.server(cfg, VERSION_TABLE['1.33'])).toBe('local');
  });
});
