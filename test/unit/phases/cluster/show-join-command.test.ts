import { renderClosingText, renderInitDone } from '../../../../src/phases/cluster/show-join-command.js';
import { fixtureText } from '../../../helpers/kubeadm-fixtures.js';

describe('closing text of init (kubeadm\'s initDoneTempl)', () => {
  const target = { endpoint: '10.250.0.11:6443', caCertHashes: ['sha256:9ba9cee3dbd9546c872952bce82c382282d2857453e7a61f44ee4e70b3987d93'] };
  const base = { target, tokens: ['6y93s7.6izlgr6grp9t59gz'], kubeconfigPath: '/etc/kubernetes/admin.conf', controlPlaneEndpoint: '10.250.0.11:6443', uploadCerts: false, certificateKey: undefined, skipTokenPrint: false, skipCertificateKeyPrint: false };

  test('byte-identical to a real kubeadm v1.20.2 init (controlPlaneEndpoint set, no --upload-certs), with "tsadm join"', () => {
    const expected = fixtureText('kubeadm-1.20-init-done.txt').replaceAll('kubeadm join', 'tsadm join');
    expect(renderClosingText(base).text).toBe(expected);
  });

  test('no controlPlaneEndpoint: only the worker command', () => {
    const text = renderClosingText({ ...base, controlPlaneEndpoint: '' }).text;
    expect(text).not.toContain('control-plane nodes');
    expect(text).toContain('/addons/\n\nThen you can join any number of worker nodes');
  });

  test('--upload-certs: the control-plane command carries the certificate key, with the two-hour warning', () => {
    const { text, controlPlane, worker } = renderClosingText({ ...base, uploadCerts: true, certificateKey: 'ab'.repeat(32) });
    expect(controlPlane).toBe(`tsadm join 10.250.0.11:6443 --token 6y93s7.6izlgr6grp9t59gz \\\n    --discovery-token-ca-cert-hash ${target.caCertHashes[0]} \\\n    --control-plane --certificate-key ${'ab'.repeat(32)}`);
    expect(worker).toBe(`tsadm join 10.250.0.11:6443 --token 6y93s7.6izlgr6grp9t59gz \\\n    --discovery-token-ca-cert-hash ${target.caCertHashes[0]} `);
    expect(text).toContain('You can now join any number of the control-plane node running the following command on each as root:\n\n  tsadm join');
    expect(text).toContain('"tsadm init phase upload-certs --upload-certs" to reload certs afterward.\n\nThen you can join');
  });

  test('--skip-token-print and --skip-certificate-key-print withhold the secrets', () => {
    const { text } = renderClosingText({ ...base, uploadCerts: true, certificateKey: 'ab'.repeat(32), skipTokenPrint: true, skipCertificateKeyPrint: true });
    expect(text).not.toContain('6y93s7');
    expect(text).not.toContain('abab');
    expect(text).toContain('--token <value withheld>');
    expect(text).toContain('--certificate-key <value withheld>');
  });

  test('one closing text per token, as kubeadm prints it', () => {
    expect(renderClosingText({ ...base, tokens: ['aaaaaa.0123456789abcdef', 'bbbbbb.0123456789abcdef'] }).text.match(/initialized successfully/g)).toHaveLength(2);
    expect(renderInitDone({ kubeconfigPath: '/k', controlPlaneEndpoint: '', uploadCerts: false, joinControlPlaneCommand: 'x', joinWorkerCommand: 'w' }).endsWith('as root:\n\nw\n')).toBe(true);
  });
});
