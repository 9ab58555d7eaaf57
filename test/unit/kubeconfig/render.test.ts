import { currentCluster } from '../../../src/kubeconfig/read.js';
import { renderKubeconfig } from '../../../src/kubeconfig/render.js';

const CA = '-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n';

describe('renderKubeconfig', () => {
  test('kubeadm\'s layout: sorted keys, lists at parent indentation, embedded base64 data', () => {
    const text = renderKubeconfig({
      clusterName: 'kubernetes',
      server: 'https://cp.example.com:6443',
      caPem: CA,
      userName: 'kubernetes-admin',
      auth: { kind: 'client-certificate', certificatePem: 'CERT', keyPem: 'KEY' },
    });
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    expect(text).toBe([
      'apiVersion: v1',
      'clusters:',
      '- cluster:',
      `    certificate-authority-data: ${b64(CA)}`,
      '    server: https://cp.example.com:6443',
      '  name: kubernetes',
      'contexts:',
      '- context:',
      '    cluster: kubernetes',
      '    user: kubernetes-admin',
      '  name: kubernetes-admin@kubernetes',
      'current-context: kubernetes-admin@kubernetes',
      'kind: Config',
      'preferences: {}',
      'users:',
      '- name: kubernetes-admin',
      '  user:',
      `    client-certificate-data: ${b64('CERT')}`,
      `    client-key-data: ${b64('KEY')}`,
      '',
    ].join('\n'));
  });

  test('scalars follow yaml.v2 (clientcmd.Write): YAML 1.1 words double-quoted, long spaced values folded at column 80', () => {
    const text = renderKubeconfig({
      clusterName: 'on',
      server: 'https://cp.example.com:6443',
      caPem: CA,
      userName: 'yes',
      auth: { kind: 'token', token: `${'word '.repeat(20)}end` },
    });
    expect(text).toContain('\n  name: "on"\n');
    expect(text).toContain('current-context: yes@on\n');
    expect(text).toContain('\n- name: "yes"\n');
    // yaml.v2 breaks a plain scalar at the first space past column 80 and indents the rest.
    expect(text).toContain(`\n    token: ${'word '.repeat(14)}word\n      ${'word '.repeat(5)}end\n`);
  });

  test('token and file-based users (bootstrap-kubelet.conf, kubelet-finalize)', () => {
    const token = renderKubeconfig({ clusterName: 'c', server: 'https://[fd00::1]:6443', caPem: CA, userName: 'tls-bootstrap-token-user', auth: { kind: 'token', token: 'abcdef.0123456789abcdef' } });
    expect(token).toContain('    server: https://[fd00::1]:6443\n');
    expect(token).toContain("- name: tls-bootstrap-token-user\n  user:\n    token: abcdef.0123456789abcdef\n");
    const files = renderKubeconfig({ clusterName: 'c', server: 's', caPem: CA, userName: 'u', auth: { kind: 'client-certificate-files', certificateFile: '/var/lib/kubelet/pki/kubelet-client-current.pem', keyFile: '/var/lib/kubelet/pki/kubelet-client-current.pem' } });
    expect(files).toContain('    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem\n    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem\n');
  });

  test('currentCluster reads back server and CA of the current context', () => {
    const text = renderKubeconfig({ clusterName: 'k', server: 'https://x:6443', caPem: `\n${CA}\n`, userName: 'u', auth: { kind: 'token', token: 't' } });
    expect(currentCluster(text)).toEqual({ server: 'https://x:6443', caData: Buffer.from(CA.trim()) });
    expect(currentCluster('kind: Config\ncurrent-context: nope\n')).toBe('its CurrentContext is not among its contexts');
    // Invalid for Go's YAML reader and js-yaml alike (js-yaml 5 reads ': : :' as nested empty keys).
    expect(currentCluster('a: b: c')).toMatch(/not valid YAML/);
  });
});
