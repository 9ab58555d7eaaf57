import { tempRoot } from '../../../helpers/temp-root.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { TsadmError } from '../../../../src/errors.js';
import { waitForTlsBootstrap, kubeletConfProblem, clientCertificateFile } from '../../../../src/phases/join/tls-bootstrap.js';

describe('waiting for the TLS bootstrap', () => {
  const kubeletConf = (certFile: string) => [
    'apiVersion: v1', 'clusters:', '- cluster:', '    certificate-authority-data: Zm9v', '    server: https://10.0.0.1:6443', '  name: default-cluster',
    'contexts:', '- context:', '    cluster: default-cluster', '    namespace: default', '    user: default-auth', '  name: default-context',
    'current-context: default-context', 'kind: Config', 'preferences: {}', 'users:', '- name: default-auth', '  user:',
    `    client-certificate: ${certFile}`, `    client-key: ${certFile}`, '',
  ].join('\n');

  test('kubelet.conf counts only once the certificate it names exists', async () => {
    const root = tempRoot({ '/etc/kubernetes/kubelet.conf': kubeletConf('/var/lib/kubelet/pki/kubelet-client-current.pem') });
    try {
      const host = new RootedHost(root.dir);
      expect(clientCertificateFile(kubeletConf('/x.pem'))).toBe('/x.pem');
      expect(await kubeletConfProblem(host, '/etc/kubernetes/kubelet.conf')).toContain('kubelet-client-current.pem, which does not exist yet');
      const r2 = tempRoot({ '/etc/kubernetes/kubelet.conf': kubeletConf('/var/lib/kubelet/pki/kubelet-client-current.pem'), '/var/lib/kubelet/pki/kubelet-client-current.pem': 'pem' });
      expect(await kubeletConfProblem(new RootedHost(r2.dir), '/etc/kubernetes/kubelet.conf')).toBeUndefined();
      r2.cleanup();
    } finally {
      root.cleanup();
    }
  });

  test('gives up after the timeout with the kubelet\'s health and kubeadm\'s troubleshooting hint', async () => {
    const root = tempRoot();
    try {
      const started = Date.now();
      const err = await waitForTlsBootstrap({
        host: new RootedHost(root.dir), file: '/etc/kubernetes/kubelet.conf', timeoutMs: 300, pollMs: 50, sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        healthCheck: () => Promise.resolve({ ok: false, detail: 'ECONNREFUSED' }),
      }).catch((e: unknown) => e) as TsadmError;
      expect(err.code).toBe('E_TIMEOUT');
      expect(err.message).toBe('timed out waiting for the kubelet to perform the TLS Bootstrap after 300ms: /etc/kubernetes/kubelet.conf does not exist yet (kubelet http://127.0.0.1:10248/healthz: ECONNREFUSED)');
      expect(err.hint).toContain('journalctl -xeu kubelet');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      root.cleanup();
    }
  });
});
