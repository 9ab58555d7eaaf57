import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { openssl } from '../../helpers/pki-test-utils.js';
import { decide, isDecided, withDecision, type CsrObject } from '../../../src/csr-approval/policy.js';
import { reservedNamesOf } from '../../../src/csr-approval/reserved-names.js';
import { parseClusterConfiguration } from '../../../src/kube/kubeadm-config.js';
import type { ConfigMapObject, NodeObject } from '../../../src/kube/types.js';

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

/**
 * The ClusterConfiguration kubeadm v1.20.2 itself uploaded (its dry run: controlPlaneEndpoint
 * cp.example.com:6443, serviceSubnet 10.96.0.0/12, dnsDomain cluster.local), with EXTRA lines
 * appended to its text (e.g. an apiServer.certSANs block replacing kubeadm's).
 */
function kubeadmClusterConfiguration(edit: (text: string) => string = (t) => t): Record<string, unknown> {
  const docs = yaml.loadAll(readFileSync(path.join(process.cwd(), 'test/fixtures/kubeadm-dry-run/kubeadm-1.20-cluster-objects.yaml'), 'utf8')) as ConfigMapObject[];
  const cm = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'kubeadm-config');
  const text = cm?.data?.ClusterConfiguration;
  if (!text) throw new Error('the fixture has no kubeadm-config ClusterConfiguration');
  return parseClusterConfiguration(edit(text));
}

/** The reserved names of kubeadm's own fixture cluster. */
const RESERVED = reservedNamesOf(kubeadmClusterConfiguration());

describe('approves', () => {
  test('a kubelet\'s own request: its subject, its Node\'s hostname and IP, the serving usages', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.0.0.11') }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'approve', node: 'w1', reason: 'TsadmNodeAddressesMatch' });
  });

  test('without key encipherment (ECDSA keys: Kubernetes accepts both usage sets), naming InternalDNS only', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1.cluster.internal'), usages: ['server auth', 'digital signature'] }), W1, CLUSTER, RESERVED);
    expect(d.action).toBe('approve');
  });

  test('an IPv6 address written differently in the Node status than in the CSR', () => {
    const n = node('w1', [{ type: 'InternalIP', address: 'fd00:0:0:0::11' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:fd00::11', rsaKeyPath) }), n, [n, W2], RESERVED).action).toBe('approve');
  });
});

describe('denies', () => {
  test('a request from someone other than the node it names (the admin asking for w1)', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), username: 'kubernetes-admin', groups: ['system:masters'] }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'RequesterNotNode' });
  });

  test('a node user outside the system:nodes group', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), groups: ['system:authenticated'] }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'RequesterNotNode' });
  });

  test('node w2 asking for a certificate in w1\'s name', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), username: 'system:node:w2' }), node('w2', []), CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'SubjectMismatch' });
  });

  test('a subject with another organization', () => {
    const d = decide(csr({ pem: opensslCsr('/O=system:masters/CN=system:node:w1', 'DNS:w1') }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'SubjectMismatch' });
  });

  test('the IP of another node', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.0.0.12') }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'NameNotNodeAddress' });
    expect(d.action === 'deny' && d.message).toContain('IP:10.0.0.12');
  });

  test('an extra DNS name (the API server\'s name)', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,DNS:kubernetes.default.svc,IP:10.0.0.11') }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'NameNotNodeAddress' });
    expect(d.action === 'deny' && d.message).toContain('DNS:kubernetes.default.svc');
  });

  test('an IP SAN matched only by a Hostname address is not an IP address of the node', () => {
    const n = node('w1', [{ type: 'Hostname', address: '10.0.0.11' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:10.0.0.11') }), n, [n, W2], RESERVED)).toMatchObject({ action: 'deny', reason: 'NameNotNodeAddress' });
  });

  test('client-auth usages', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), usages: ['digital signature', 'key encipherment', 'client auth'] }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'Usages' });
  });

  test('server auth plus client auth', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), usages: ['digital signature', 'key encipherment', 'server auth', 'client auth'] }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'Usages' });
  });

  test('an e-mail or URI SAN (Kubernetes refuses them for kubelet-serving)', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,email:a@example.com') }), W1, CLUSTER, RESERVED)).toMatchObject({ action: 'deny', reason: 'SubjectAltNames' });
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,URI:spiffe://x/y') }), W1, CLUSTER, RESERVED)).toMatchObject({ action: 'deny', reason: 'SubjectAltNames' });
  });

  test('no SAN at all', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT) }), W1, CLUSTER, RESERVED)).toMatchObject({ action: 'deny', reason: 'SubjectAltNames' });
  });

  test('an IP that another Node also claims (a kubelet wrote a neighbour\'s IP into its own status): both are denied', () => {
    const w1 = node('w1', [...W1_ADDRESSES, { type: 'ExternalIP', address: '10.0.0.12' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.0.0.12') }), w1, [w1, W2], RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode', node: 'w1' });
    expect(d.action === 'deny' && d.message).toContain('IP:10.0.0.12 (Node "w2")');
    // w2's own request for that IP is denied too: the address vouches for neither.
    const w2 = decide(csr({ pem: opensslCsr('/O=system:nodes/CN=system:node:w2', 'IP:10.0.0.12'), username: 'system:node:w2' }), W2, [w1, W2], RESERVED);
    expect(w2).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode', node: 'w2' });
    expect(w2.action === 'deny' && w2.message).toContain('IP:10.0.0.12 (Node "w1")');
    // Its request for what only w2 claims is approved.
    expect(decide(csr({ pem: opensslCsr('/O=system:nodes/CN=system:node:w2', 'DNS:w2'), username: 'system:node:w2' }), W2, [w1, W2], RESERVED).action).toBe('approve');
  });

  test('a DNS name another Node also claims, compared without case; an IPv6 address written differently', () => {
    const other = node('w9', [{ type: 'InternalDNS', address: 'W1.Cluster.Internal' }, { type: 'InternalIP', address: 'fd00:0::11' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1.cluster.internal') }), W1, [W1, other], RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode' });
    expect(d.action === 'deny' && d.message).toContain('DNS:w1.cluster.internal (Node "w9")');
    const n = node('w1', [{ type: 'InternalIP', address: 'fd00::11' }, { type: 'Hostname', address: 'w1' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:fd00::11') }), n, [n, other], RESERVED)).toMatchObject({ action: 'deny', reason: 'AddressOfAnotherNode' });
  });

  test('a Node that does not exist', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1') }), undefined, [W2], RESERVED)).toMatchObject({ action: 'deny', reason: 'NodeNotFound' });
  });

  test('a request that is not a PEM CSR', () => {
    expect(decide(csr({ pem: 'hello' }), W1, CLUSTER, RESERVED)).toMatchObject({ action: 'deny', reason: 'InvalidRequest' });
  });
});

describe('names no node may claim, whatever its status says', () => {
  /** w1 listing NAMES among its own addresses (a kubelet writes its own Node's status). */
  const claiming = (extra: { type: string; address: string }[], labels?: Record<string, string>): NodeObject => ({
    apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1', ...(labels ? { labels } : {}) }, status: { addresses: [...W1_ADDRESSES, ...extra] },
  });

  test('a wildcard, even one its Node lists', () => {
    const n = claiming([{ type: 'ExternalDNS', address: '*.example.com' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,DNS:*.example.com') }), n, [n, W2], RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'InvalidName', node: 'w1' });
    expect(d.action === 'deny' && d.message).toContain('DNS:*.example.com is a wildcard');
  });

  test('a name that is no RFC 1123 subdomain (an underscore, an empty label), even one its Node lists', () => {
    for (const bad of ['w1_x.example.com', 'w1..example.com']) {
      const n = claiming([{ type: 'InternalDNS', address: bad }]);
      const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, `DNS:w1,DNS:${bad}`) }), n, [n, W2], RESERVED);
      expect(d).toMatchObject({ action: 'deny', reason: 'InvalidName' });
      expect(d.action === 'deny' && d.message).toContain(`DNS:${bad} is not a valid DNS name`);
    }
  });

  test('kubernetes, kubernetes.default, kubernetes.default.svc and kubernetes.default.svc.cluster.local (any case)', () => {
    for (const name of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'Kubernetes.Default.Svc.Cluster.Local']) {
      const n = claiming([{ type: 'InternalDNS', address: name }]);
      const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, `DNS:w1,DNS:${name},IP:10.0.0.11`) }), n, [n, W2], RESERVED);
      expect(d).toMatchObject({ action: 'deny', reason: 'ReservedName', node: 'w1' });
      expect(d.action === 'deny' && d.message).toContain(`DNS:${name} is the API server's in-cluster name`);
    }
  });

  test('kubernetes.default.svc.<dnsDomain> of a cluster with its own DNS domain', () => {
    const reserved = reservedNamesOf(kubeadmClusterConfiguration((t) => t.replace('dnsDomain: cluster.local', 'dnsDomain: corp.internal')));
    const n = claiming([{ type: 'InternalDNS', address: 'kubernetes.default.svc.corp.internal' }]);
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:kubernetes.default.svc.corp.internal') }), n, [n, W2], reserved)).toMatchObject({ action: 'deny', reason: 'ReservedName' });
  });

  test('the kubernetes Service IP, and any other address of the Service network', () => {
    const n = claiming([{ type: 'InternalIP', address: '10.96.0.1' }, { type: 'ExternalIP', address: '10.96.0.10' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,IP:10.96.0.1') }), n, [n, W2], RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'ReservedName' });
    expect(d.action === 'deny' && d.message).toContain('IP:10.96.0.1 is the kubernetes Service IP');
    const dns = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:10.96.0.10') }), n, [n, W2], RESERVED);
    expect(dns).toMatchObject({ action: 'deny', reason: 'ReservedName' });
    expect(dns.action === 'deny' && dns.message).toContain('IP:10.96.0.10 is the Service network');
  });

  test('both Service IPs of a dual-stack cluster', () => {
    const reserved = reservedNamesOf(kubeadmClusterConfiguration((t) => t.replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.96.0.0/12,fd00:10:96::/112')));
    const n = claiming([{ type: 'InternalIP', address: 'fd00:10:96::1' }]);
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'IP:fd00:10:96:0:0:0:0:1') }), n, [n, W2], reserved);
    expect(d).toMatchObject({ action: 'deny', reason: 'ReservedName' });
    expect(d.action === 'deny' && d.message).toContain('is the kubernetes Service IP');
  });

  test('controlPlaneEndpoint\'s host, and every apiServer.certSANs entry (DNS names and IPs)', () => {
    const reserved = reservedNamesOf(kubeadmClusterConfiguration((t) => t.replace('apiServer:\n', 'apiServer:\n  certSANs:\n  - api.example.com\n  - 192.0.2.10\n')));
    const cases: [string, string, string][] = [
      ['ExternalDNS', 'cp.example.com', 'DNS:cp.example.com is controlPlaneEndpoint'],
      ['ExternalDNS', 'api.example.com', 'DNS:api.example.com is apiServer.certSANs'],
      ['ExternalIP', '192.0.2.10', 'IP:192.0.2.10 is apiServer.certSANs'],
    ];
    for (const [type, address, says] of cases) {
      const n = claiming([{ type, address }]);
      const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, `DNS:w1,${type === 'ExternalIP' ? 'IP' : 'DNS'}:${address}`) }), n, [n, W2], reserved);
      expect(d).toMatchObject({ action: 'deny', reason: 'ReservedName' });
      expect(d.action === 'deny' && d.message).toContain(says);
    }
  });

  test('a control plane\'s own name and address are approved, even when they are the endpoint\'s host and in certSANs', () => {
    // The e2e cluster's shape: controlPlaneEndpoint is the first control plane's IP; certSANs list
    // each control plane, as HA guides do.
    const reserved = reservedNamesOf(kubeadmClusterConfiguration((t) => t
      .replace('controlPlaneEndpoint: cp.example.com:6443', 'controlPlaneEndpoint: 192.168.10.11:6443')
      .replace('apiServer:\n', 'apiServer:\n  certSANs:\n  - cp1\n  - 192.168.10.11\n')));
    const cp1 = { apiVersion: 'v1', kind: 'Node' as const, metadata: { name: 'cp1', labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/master': '' } }, status: { addresses: [{ type: 'InternalIP', address: '192.168.10.11' }, { type: 'Hostname', address: 'cp1' }] } };
    const request = csr({ pem: opensslCsr('/O=system:nodes/CN=system:node:cp1', 'DNS:cp1,IP:192.168.10.11'), username: 'system:node:cp1' });
    expect(decide(request, cp1, [cp1, W2], reserved)).toMatchObject({ action: 'approve', node: 'cp1', reason: 'TsadmNodeAddressesMatch' });
    // Only the 1.24+ label (kubeadm dropped …/master) is enough too.
    const newer = { ...cp1, metadata: { name: 'cp1', labels: { 'node-role.kubernetes.io/control-plane': '' } } };
    expect(decide(request, newer, [newer, W2], reserved).action).toBe('approve');
    // The same Node without the label (a worker claiming the control plane's address) is denied.
    const unlabelled = { ...cp1, metadata: { name: 'cp1' } };
    expect(decide(request, unlabelled, [unlabelled, W2], reserved)).toMatchObject({ action: 'deny', reason: 'ReservedName' });
    // A control plane gets none of the in-cluster names, nor the Service IP.
    const greedy = { ...cp1, status: { addresses: [...cp1.status.addresses, { type: 'InternalDNS', address: 'kubernetes.default.svc' }, { type: 'InternalIP', address: '10.96.0.1' }] } };
    const d = decide(csr({ pem: opensslCsr('/O=system:nodes/CN=system:node:cp1', 'DNS:cp1,DNS:kubernetes.default.svc,IP:10.96.0.1'), username: 'system:node:cp1' }), greedy, [greedy, W2], reserved);
    expect(d).toMatchObject({ action: 'deny', reason: 'ReservedName' });
    expect(d.action === 'deny' && d.message).toContain('DNS:kubernetes.default.svc is');
    expect(d.action === 'deny' && d.message).toContain('IP:10.96.0.1 is');
  });

  test('a worker\'s own name and address are still approved on kubeadm\'s cluster', () => {
    expect(decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1,DNS:w1.cluster.internal,IP:10.0.0.11') }), W1, CLUSTER, RESERVED).action).toBe('approve');
  });
});

describe('output of untrusted values', () => {
  /** DER of a subjectAltName holding DNS names as raw IA5String bytes, for openssl's `DER:` form. */
  const sanDer = (names: readonly string[]): string => {
    const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag, body.length]), body]);
    return tlv(0x30, Buffer.concat(names.map((n) => tlv(0x82, Buffer.from(n, 'latin1'))))).toString('hex');
  };
  const FORGED = 'w1\n[csr] Approving CertificateSigningRequest "csr-evil" (TsadmNodeAddressesMatch): ok\x1b[2J';

  test('a SAN holding a newline and ESC is denied, and the message shows them escaped, on one line', () => {
    const n = claiming();
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, `DER:${sanDer(['w1', FORGED])}`) }), n, [n, W2], RESERVED);
    expect(d.action).toBe('deny');
    if (d.action !== 'deny') return;
    // eslint-disable-next-line no-control-regex -- the point: no control character in the message
    expect(d.message).not.toMatch(/[\x00-\x1f\x7f]/);
    // The strict CSR parser may refuse such a request outright; tsadm's own checks name the SAN.
    if (d.reason !== 'InvalidRequest') {
      expect(d.reason).toBe('InvalidName');
      expect(d.message).toContain('DNS:w1\\n[csr] Approving CertificateSigningRequest \\"csr-evil\\" (TsadmNodeAddressesMatch): ok\\x1b[2J is not a valid DNS name');
    }
  });

  test('a requester and a subject with control characters are quoted as Go\'s %q', () => {
    const d = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), username: 'system:node:w1\u202e\x1b[31m' }), W1, CLUSTER, RESERVED);
    expect(d).toMatchObject({ action: 'deny', reason: 'SubjectMismatch' });
    expect(d.action === 'deny' && d.message).toContain('is not CN=system:node:w1\\u202e\\x1b[31m, O=system:nodes');
    const notNode = decide(csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1'), username: 'admin\n[csr] Approving', groups: ['system:masters'] }), W1, CLUSTER, RESERVED);
    expect(notNode.action === 'deny' && notNode.message).toContain('the requester "admin\\n[csr] Approving" is not a node');
  });

  function claiming(): NodeObject {
    return node('w1', [...W1_ADDRESSES, { type: 'InternalDNS', address: FORGED }]);
  }
});

describe('leaves alone', () => {
  test('requests to other signers, even ones that would be denied', () => {
    const client = csr({ pem: opensslCsr(GOOD_SUBJECT), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] });
    expect(decide(client, W1, CLUSTER, RESERVED)).toEqual({ action: 'skip', why: 'other-signer' });
    const custom = csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:evil'), signerName: 'example.com/custom', username: 'someone' });
    expect(decide(custom, W1, CLUSTER, RESERVED)).toEqual({ action: 'skip', why: 'other-signer' });
  });

  test('requests already approved, denied or failed', () => {
    for (const type of ['Approved', 'Denied', 'Failed']) {
      const c = csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:evil'), conditions: [{ type, status: 'True' }] });
      expect(isDecided(c)).toBe(true);
      expect(decide(c, W1, CLUSTER, RESERVED)).toEqual({ action: 'skip', why: 'decided' });
    }
  });
});

test('withDecision appends an Approved/Denied condition with status True and keeps the rest', () => {
  const c = csr({ pem: opensslCsr(GOOD_SUBJECT, 'DNS:w1') });
  const d = decide(c, node('w1', []), CLUSTER, RESERVED);
  if (d.action !== 'deny') throw new Error(`expected a denial, got ${d.action}`);
  const out = withDecision(c, d, new Date('2026-01-02T03:04:05.678Z'));
  expect(out.spec).toEqual(c.spec);
  expect(out.status?.conditions).toEqual([{
    type: 'Denied', status: 'True', reason: 'NameNotNodeAddress', message: d.message, lastUpdateTime: '2026-01-02T03:04:05Z', lastTransitionTime: '2026-01-02T03:04:05Z',
  }]);
});
