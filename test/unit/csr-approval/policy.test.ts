import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openssl } from '../../helpers/pki-test-utils.js';
import { decide, isDecided, withDecision, type CsrObject } from '../../../src/csr-approval/policy.js';
import type { NodeObject } from '../../../src/kube/types.js';

/**
 * The approval policy against CSRs made by openssl (an independent encoder), with the rule from
 * Kubernetes' ValidateKubeletServingCSR (pkg/apis/certificates/helpers.go) and the Node's
 * status.addresses as the oracle of what a node may ask for.
 */
let dir: string;
let keyPath: string;
let rsaKeyPath: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tsadm-csr-policy-'));
  keyPath = path.join(dir, 'ec.key');
  rsaKeyPath = path.join(dir, 'rsa.key');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyPath]);
  openssl(['genrsa', '-out', rsaKeyPath, '2048']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PEM CSR from openssl; SUBJECT in openssl's "/O=…/CN=…" form, SAN in its "DNS:a,IP:b" form. */
function opensslCsr(subject: string, san?: string, key = keyPath): string {
  const args = ['req', '-new', '-key', key, '-subj', subject];
  if (san) args.push('-addext', `subjectAltName=${san}`);
  return openssl(args);
}

const W1_ADDRESSES = [
  { type: 'InternalIP', address: '10.0.0.11' },
  { type: 'Hostname', address: 'w1' },
  { type: 'InternalDNS', address: 'w1.cluster.internal' },
];

function node(name: string, addresses: { type: string; address: string }[]): NodeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { addresses } };
}

const W1 = node('w1', W1_ADDRESSES);
const W2 = node('w2', [{ type: 'InternalIP', address: '10.0.0.12' }, { type: 'Hostname', address: 'w2' }]);
/** The cluster's Nodes as a pass lists them (the requester included). */
const CLUSTER = [W1, W2];

function csr(opts: { pem: string; username?: string; groups?: string[]; usages?: string[]; signerName?: string; conditions?: { type: string; status: string }[] }): CsrObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'csr-test' },
    spec: {
      request: Buffer.from(opts.pem).toString('base64'),
      signerName: opts.signerName ?? 'kubernetes.io/kubelet-serving',
      usages: opts.usages ?? ['digital signature', 'key encipherment', 'server auth'],
      username: opts.username ?? 'system:node:w1',
      groups: opts.groups ?? ['system:nodes', 'system:authenticated'],
    },
    ...(opts.conditions ? { status: { conditions: opts.conditions } } : {}),
  };
}

const GOOD_SUBJECT = '/O=system:nodes/CN=system:node:w1';

describe('approves', () => {
  test('a kubelet\'s own request: its subject, its Node\'s hostname and IP, the serving usages', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.0.0.11') }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'approve', node: 'w1', reason: 'TsadmNodeAddressesMatch' });
  });

  test('without key encipherment (ECDSA keys: Kubernetes accepts both usage sets), naming InternalDNS only', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1.cluster.internal'), usages: ['server auth', 'digital signature'] }), W1, CLUSTER);
    expect(d.action).toBe('approve');
  });

  test('an IPv6 address written differently in the Node status than in the CSR', () => {
    const n = node('w1', [{ type: 'InternalIP', address: 'fd00:0:0:0::11' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:fd00::11', rsaKeyPath) }), n, [n, W2]).action).toBe('approve');
  });
});

describe('denies', () => {
  test('a request from someone other than the node it names (the admin asking for w1)', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), username: 'kubernetes-admin', groups: ['system:masters'] }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'RequesterNotNode' });
  });

  test('a node user outside the system:nodes group', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), groups: ['system:authenticated'] }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'RequesterNotNode' });
  });

  test('node w2 asking for a certificate in w1\'s name', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), username: 'system:node:w2' }), node('w2', []), CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'SubjectMismatch' });
  });

  test('a subject with another organization', () => {
    const d = decide(csr({ pem: opensslCsr('/O=system:masters/CN=system:node:w1', 'DNS:w1') }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'SubjectMismatch' });
  });

  test('the IP of another node', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.0.0.12') }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'NameNotNodeAddress' });
    expect(d.action === 'deny' && d.message).toContain('IP:10.0.0.12');
  });

  test('an extra DNS name (the API server\'s name)', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,DNS:kubernetes.default.svc,IP:10.0.0.11') }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'NameNotNodeAddress' });
    expect(d.action === 'deny' && d.message).toContain('DNS:kubernetes.default.svc');
  });

  test('an IP SAN matched only by a Hostname address is not an IP address of the node', () => {
    const n = node('w1', [{ type: 'Hostname', address: '10.0.0.11' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:10.0.0.11') }), n, [n, W2])).toMatchObject({ action: 'deny', reason: 'NameNotNodeAddress' });
  });

  test('client-auth usages', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), usages: ['digital signature', 'key encipherment', 'client auth'] }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'Usages' });
  });

  test('server auth plus client auth', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), usages: ['digital signature', 'key encipherment', 'server auth', 'client auth'] }), W1, CLUSTER);
    expect(d).toMatchObject({ action: 'deny', reason: 'Usages' });
  });

  test('an e-mail or URI SAN (Kubernetes refuses them for kubelet-serving)', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,email:a@example.com') }), W1, CLUSTER)).toMatchObject({ action: 'deny', reason: 'SubjectAltNames' });
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,URI:spiffe://x/y') }), W1, CLUSTER)).toMatchObject({ action: 'deny', reason: 'SubjectAltNames' });
  });

  test('no SAN at all', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT) }), W1, CLUSTER)).toMatchObject({ action: 'deny', reason: 'SubjectAltNames' });
  });

  test('an IP that another Node also claims (a kubelet wrote a neighbour\'s IP into its own status): both are denied', () => {
    const w1 = node('w1', [...W1_ADDRESSES, { type: 'ExternalIP', address: '10.0.0.12' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.0.0.12') }), w1, [w1, W2]);
    expect(d).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode', node: 'w1' });
    expect(d.action === 'deny' && d.message).toContain('IP:10.0.0.12 (Node "w2")');
    // w2's own request for that IP is denied too: the address vouches for neither.
    const w2 = decide(csr({ pem: opensslCsr('/O=system:nodes/CN=system:node:w2', 'IP:10.0.0.12'), username: 'system:node:w2' }), W2, [w1, W2]);
    expect(w2).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode', node: 'w2' });
    expect(w2.action === 'deny' && w2.message).toContain('IP:10.0.0.12 (Node "w1")');
    // Its request for what only w2 claims is approved.
    expect(decide(csr({ pem: opensslCsr('/O=system:nodes/CN=system:node:w2', 'DNS:w2'), username: 'system:node:w2' }), W2, [w1, W2]).action).toBe('approve');
  });

  test('a DNS name another Node also claims, compared without case; an IPv6 address written differently', () => {
    const other = node('w9', [{ type: 'InternalDNS', address: 'W1.Cluster.Internal' }, { type: 'InternalIP', address: 'fd00:0::11' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1.cluster.internal') }), W1, [W1, other]);
    expect(d).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode' });
    expect(d.action === 'deny' && d.message).toContain('DNS:w1.cluster.internal (Node "w9")');
    const n = node('w1', [{ type: 'InternalIP', address: 'fd00::11' }, { type: 'Hostname', address: 'w1' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:fd00::11') }), n, [n, other])).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode' });
  });

  test('a Node that does not exist', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1') }), undefined, [W2])).toMatchObject({ action: 'deny', reason: 'NodeNotFound' });
  });

  test('a request that is not a PEM CSR', () => {
    expect(decide(csr({ pem: 'hello' }), W1, CLUSTER)).toMatchObject({ action: 'deny', reason: 'InvalidRequest' });
  });
});

describe('leaves alone', () => {
  test('requests to other signers, even ones that would be denied', () => {
    const client = csr({ pem: opensslCsr(GOOD_SUBJECT), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] });
    expect(decide(client, W1, CLUSTER)).toEqual({ action: 'skip', why: 'other-signer' });
    const custom = csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:evil'), signerName: 'example.com/custom', username: 'someone' });
    expect(decide(custom, W1, CLUSTER)).toEqual({ action: 'skip', why: 'other-signer' });
  });

  test('requests already approved, denied or failed', () => {
    for (const type of ['Approved', 'Denied', 'Failed']) {
      const c = csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:evil'), conditions: [{ type, status: 'True' }] });
      expect(isDecided(c)).toBe(true);
      expect(decide(c, W1, CLUSTER)).toEqual({ action: 'skip', why: 'decided' });
    }
  });
});

test('withDecision appends an Approved/Denied condition with status True and keeps the rest', () => {
  const c = csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1') });
  const d = decide(c, node('w1', []), CLUSTER);
  if (d.action !== 'deny') throw new Error(`expected a denial, got ${d.action}`);
  const out = withDecision(c, d, new Date('2026-01-02T03:04:05.678Z'));
  expect(out.spec).toEqual(c.spec);
  expect(out.status?.conditions).toEqual([{
    type: 'Denied', status: 'True', reason: 'NameNotNodeAddress', message: d.message, lastUpdateTime: '2026-01-02T03:04:05Z', lastTransitionTime: '2026-01-02T03:04:05Z',
  }]);
});
