import { parseKubeletServingRequest } from '../../../src/csr-approval/request.js';
import { decide, type CsrObject } from '../../../src/csr-approval/policy.js';
import { KUBELET_SERVING_SIGNER } from '../../../src/constants.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';

const key = tempFile('request.key', openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout']));
const request = (subj: string, ...extra: string[]): string => openssl(['req', '-new', '-key', key, '-subj', subj, '-addext', 'subjectAltName=DNS:w1,IP:10.0.0.11', ...extra]);
const refusal = (pem: string): string => {
  try {
    parseKubeletServingRequest(pem, 'CSR csr-1');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('parseKubeletServingRequest', () => {
  test('a kubelet-shaped request (O=system:nodes, CN=system:node:w1) is read with its names and key', () => {
    const req = parseKubeletServingRequest(request('/O=system:nodes/CN=system:node:w1'), 'CSR csr-1');
    expect(req.subject).toMatchObject({ commonName: 'system:node:w1', organization: ['system:nodes'] });
    expect(req.requested).toMatchObject({ dnsNames: ['w1'], ipAddresses: ['10.0.0.11'] });
    expect(req.keyAlgorithm).toBe('ECDSA-P256');
  });

  test.each([
    ['an OU, which the signer would copy into the certificate', '/O=system:nodes/OU=x/CN=system:node:w1', 'has an attribute other than O and CN (2.5.4.11)'],
    ['a multi-valued RDN', '/O=system:nodes+CN=system:node:w1', 'has a multi-valued RDN'],
    ['two CNs (Go keeps the last)', '/O=system:nodes/CN=system:node:w1/CN=system:node:cp1', 'two CN attributes in the subject'],
  ])('%s is refused', (_what, subj, message) => {
    expect(refusal(request(subj))).toContain(message);
  });

  test('only the PEM type kube-apiserver takes', () => {
    const pem = request('/O=system:nodes/CN=system:node:w1').replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST');
    expect(refusal(pem)).toContain('is not "CERTIFICATE REQUEST"');
  });

  test('the approver denies such a request as InvalidRequest with the parser\'s reason', () => {
    const pem = request('/O=system:nodes/CN=system:node:w1/CN=system:node:cp1');
    const csr: CsrObject = {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr-1' },
      spec: { request: Buffer.from(pem).toString('base64'), signerName: KUBELET_SERVING_SIGNER, usages: ['digital signature', 'server auth'], username: 'system:node:w1', groups: ['system:nodes'] },
    };
    const decision = decide(csr, undefined, [], []);
    expect(decision).toMatchObject({ action: 'deny', reason: 'InvalidRequest' });
    expect(decision.action === 'deny' && decision.message).toContain('two CN attributes in the subject');
  });
});
