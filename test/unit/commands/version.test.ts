import { formatVersion } from '../../../src/commands/version.js';
import type { VersionInfo } from '../../../src/version.js';

const INFO: VersionInfo = {
  major: '1',
  minor: '2',
  gitVersion: 'v1.2.3',
  gitCommit: 'faecb196815e248d3ecfb03c680a4507229c2a56',
  gitTreeState: 'clean',
  buildDate: '2021-01-13T13:25:59Z',
  nodeVersion: 'v24.0.0',
  platform: 'linux/amd64',
  defaultKubernetesVersion: 'v1.34.0',
  supportedKubernetesVersions: 'v1.20-v1.34',
};

describe('tsadm version -o yaml', () => {
  test('keys come out sorted, as kubeadm version -o yaml (sigs.k8s.io/yaml.Marshal) writes them', () => {
    expect(formatVersion(INFO, 'yaml')).toBe([
      'clientVersion:',
      '  buildDate: "2021-01-13T13:25:59Z"',
      '  defaultKubernetesVersion: v1.34.0',
      '  gitCommit: faecb196815e248d3ecfb03c680a4507229c2a56',
      '  gitTreeState: clean',
      '  gitVersion: v1.2.3',
      '  major: "1"',
      '  minor: "2"',
      '  nodeVersion: v24.0.0',
      '  platform: linux/amd64',
      '  supportedKubernetesVersions: v1.20-v1.34',
      '',
    ].join('\n'));
  });
});

describe('tsadm version (text and json)', () => {
  // kubeadm v1.20.2's own `kubeadm version` line (GoVersion/Compiler replaced by NodeVersion):
  // kubeadm version: &version.Info{Major:"1", Minor:"20", GitVersion:"v1.20.2", GitCommit:"faecb196815e248d3ecfb03c680a4507229c2a56", GitTreeState:"clean", BuildDate:"2021-01-13T13:25:59Z", GoVersion:"go1.15.5", Compiler:"gc", Platform:"linux/amd64"}
  test('the text form carries kubeadm\'s fields in kubeadm\'s order', () => {
    expect(formatVersion(INFO, '')).toBe(
      'tsadm version: &version.Info{Major:"1", Minor:"2", GitVersion:"v1.2.3", GitCommit:"faecb196815e248d3ecfb03c680a4507229c2a56", ' +
        'GitTreeState:"clean", BuildDate:"2021-01-13T13:25:59Z", NodeVersion:"v24.0.0", Platform:"linux/amd64", DefaultKubernetesVersion:"v1.34.0"}\n',
    );
  });

  test('json keeps kubeadm\'s key order under clientVersion', () => {
    const parsed = JSON.parse(formatVersion(INFO, 'json')) as { clientVersion: Record<string, string> };
    expect(Object.keys(parsed.clientVersion).slice(0, 6)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate']);
    expect(formatVersion(INFO, 'short')).toBe('v1.2.3\n');
  });
});
