/**
 * Per-node step plans from what is on the node: which files a worker and a control plane change
 * at each step, what restarts and in which order, what is re-issued, and the controller-manager's
 * one-line manifest change (checked on kubeadm v1.20.2's own manifests).
 */
import { readFileSync } from 'node:fs';
import { planNodeStep, withSigningCertFile, type NodeFacts } from '../../../../src/certs-lifecycle/rotate-ca/plan.js';
import { makeChain } from '../../../helpers/cert-chain.js';
import { tsadmErrorOfCall } from '../../../helpers/tsadm-error.js';

const PKI = '/etc/kubernetes/pki';
const CM = '/etc/kubernetes/manifests/kube-controller-manager.yaml';
const KUBEADM_CM = readFileSync('test/fixtures/manifests/v1.20.2/default/kube-controller-manager.yaml', 'utf8');
const KUBEADM_CM_EXTERNAL_CA = readFileSync('test/fixtures/manifests/v1.20.2/full/kube-controller-manager.yaml', 'utf8');
const kubeconfig = (ca: string): string => [
  'apiVersion: v1', 'clusters:', '- cluster:', `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`, '    server: https://10.0.0.5:6443', '  name: kubernetes',
  'contexts:', '- context:', '    cluster: kubernetes', '    user: u', '  name: u@kubernetes', 'current-context: u@kubernetes', 'kind: Config', 'preferences: {}',
  'users:', '- name: u', '  user:', '    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem', '']
  .join('\n');

let oldCa: string;
let newCa: string;
beforeAll(async () => {
  oldCa = (await makeChain('ECDSA-P256')).ca.pem;
  newCa = (await makeChain('ECDSA-P256')).ca.pem;
});

function facts(role: NodeFacts['role'], files: Record<string, string>, more: Partial<NodeFacts> = {}): NodeFacts {
  return { role, certDir: PKI, kubeconfigDir: '/etc/kubernetes', externalEtcd: false, files: new Map(Object.entries(files)), kubeletServingFromCluster: false, ...more };
}


describe('a worker', () => {
  test('changes ca.crt and kubelet.conf, whatever else is rotated, and restarts only the kubelet', () => {
    const f = facts('worker', { [`${PKI}/ca.crt`]: oldCa, '/etc/kubernetes/kubelet.conf': kubeconfig(oldCa) });
    const items = { cluster: { old: oldCa, new: newCa }, 'front-proxy': { old: oldCa, new: newCa }, etcd: { old: oldCa, new: newCa } };
    const p = planNodeStep('trust-both', items, f);
    expect(p.changes.map((c) => [c.path, c.readers])).toEqual([[`${PKI}/ca.crt`, ['kubelet']], ['/etc/kubernetes/kubelet.conf', ['kubelet']]]);
    expect(p.changes[0]?.content).toBe(oldCa + newCa);
    expect(p.restarts).toEqual(['kubelet']);
    expect(planNodeStep('rollback', items, f).changes).toEqual([]);
    expect(planNodeStep('sign-new', items, f, {}).api).toEqual(['kubelet-client-certificate']);
    expect(planNodeStep('sign-new', items, { ...f, kubeletServingFromCluster: true }).api).toEqual(['kubelet-client-certificate', 'kubelet-serving-certificate']);
  });

  test('a worker without ca.crt is not set up as the rotation expects', () => {
    const e = tsadmErrorOfCall(() => planNodeStep('trust-both', { cluster: { old: oldCa, new: newCa } }, facts('worker', {})));
    expect([e.code, e.message]).toEqual(['E_PRECONDITION', `${PKI}/ca.crt is missing on this node`]);
  });
});

describe('a control plane', () => {
  const cp = (): Record<string, string> => ({
    [`${PKI}/front-proxy-ca.crt`]: oldCa,
    [`${PKI}/front-proxy-ca.key`]: 'OLD KEY',
    [`${PKI}/front-proxy-client.crt`]: 'leaf',
    [`${PKI}/ca.crt`]: oldCa,
    [CM]: KUBEADM_CM,
  });

  test('front-proxy alone: its CA file and the API server; sign-new adds the new key and re-issues front-proxy-client', () => {
    const items = { 'front-proxy': { old: oldCa, new: newCa } };
    const both = planNodeStep('trust-both', items, facts('control-plane', cp()));
    expect(both.changes.map((c) => c.path)).toEqual([`${PKI}/front-proxy-ca.crt`]);
    expect(both.restarts).toEqual(['kube-apiserver']);
    const sign = planNodeStep('sign-new', items, facts('control-plane', cp()), { 'front-proxy': 'NEW KEY' });
    expect(sign.changes.map((c) => [c.path, c.content])).toEqual([[`${PKI}/front-proxy-ca.crt`, newCa + oldCa], [`${PKI}/front-proxy-ca.key`, 'NEW KEY']]);
    expect(sign.reissue.map((e) => e.name)).toEqual(['front-proxy-client']);
    expect([sign.api, sign.restarts]).toEqual([[], ['kube-apiserver']]);
  });

  test('sign-new without the staged key is refused, naming what is missing and how to stage it', () => {
    const e = tsadmErrorOfCall(() => planNodeStep('sign-new', { 'front-proxy': { old: oldCa, new: newCa } }, facts('control-plane', cp())));
    expect(e.message).toBe('the new front-proxy private key is not staged on this control plane');
    expect(e.hint).toMatch(/--rotation-key/);
  });

  test('with external etcd the etcd CA is left alone', () => {
    const p = planNodeStep('sign-new', { etcd: { old: oldCa, new: newCa } }, facts('control-plane', cp(), { externalEtcd: true }));
    expect([p.changes, p.reissue, p.restarts]).toEqual([[], [], []]);
  });

  test('the cluster CA: ca.crt, the signing copy, then the manifest naming it; trust-new removes the copy after the manifest', () => {
    const items = { cluster: { old: oldCa, new: newCa } };
    const both = planNodeStep('trust-both', items, facts('control-plane', cp()));
    expect(both.changes.map((c) => c.path)).toEqual([`${PKI}/ca.crt`, `${PKI}/ca-signing.crt`, CM]);
    expect(both.restarts).toEqual(['kube-apiserver', 'kube-controller-manager', 'kubelet']);
    const after = { ...cp(), [`${PKI}/ca.crt`]: newCa, [`${PKI}/ca-signing.crt`]: newCa, [CM]: both.changes[2]?.content as string };
    const last = planNodeStep('trust-new', items, facts('control-plane', after));
    expect(last.changes.map((c) => [c.path, c.content === undefined ? 'removed' : 'written'])).toEqual([[CM, 'written'], [`${PKI}/ca-signing.crt`, 'removed']]);
    expect(last.changes[0]?.content).toBe(KUBEADM_CM);
  });
});

describe('withSigningCertFile on kubeadm v1.20.2 manifests', () => {
  test('changes exactly the one argument line', () => {
    const out = withSigningCertFile(KUBEADM_CM, `${PKI}/ca-signing.crt`, CM);
    const diff = out.split('\n').map((l, i) => [l, KUBEADM_CM.split('\n')[i]]).filter(([a, b]) => a !== b);
    expect(diff).toEqual([[`    - --cluster-signing-cert-file=${PKI}/ca-signing.crt`, `    - --cluster-signing-cert-file=${PKI}/ca.crt`]]);
  });

  test('refuses external-CA mode (an empty flag) and a manifest without the flag', () => {
    expect(tsadmErrorOfCall(() => withSigningCertFile(KUBEADM_CM_EXTERNAL_CA, 'x', CM)).message).toBe(`${CM}: --cluster-signing-cert-file is empty (external-CA mode)`);
    expect(tsadmErrorOfCall(() => withSigningCertFile('spec: {}\n', 'x', CM)).message).toBe(`${CM} has no --cluster-signing-cert-file argument`);
  });
});
