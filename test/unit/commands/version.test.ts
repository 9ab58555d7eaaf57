import { formatVersion } from '../../../src/commands/version.js';
import type { VersionInfo } from '../../../src/commands/version-info.js';

const INFO: VersionInfo = {
  major: '1',
  minor: '2',
  gitVersion: 'v1.2.3',
  nodeVersion: 'v20.0.0',
  platform: 'linux/amd64',
  defaultKubernetesVersion: 'v1.34.0',
  supportedKubernetesVersions: 'v1.20-v1.34',
};

describe('tsadm version -o yaml', () => {
  test('keys come out sorted, as kubeadm version -o yaml (sigs.k8s.io/yaml.Marshal) writes them', () => {
    expect(formatVersion(INFO, 'yaml')).toBe([
      'clientVersion:',
      '  defaultKubernetesVersion: v1.34.0',
      '  gitVersion: v1.2.3',
      '  major: "1"',
      '  minor: "2"',
      '  nodeVersion: v20.0.0',
      '  platform: linux/amd64',
      '  supportedKubernetesVersions: v1.20-v1.34',
      '',
    ].join('\n'));
  });
});
