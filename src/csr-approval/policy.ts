/**
 * Which kubelet serving-certificate requests tsadm approves (pure: a CSR and the Node it names in,
 * a decision out). With `serverTLSBootstrap: true` the kubelet asks the signer
 * kubernetes.io/kubelet-serving for its port-10250 certificate, and nothing in a kubeadm cluster
 * approves those (kubernetes/kubeadm#1223). Approving blindly would let any node credential get
 * a cluster-CA certificate for any name or IP, so a request is approved only when everything in
 * it is something the cluster already says about the requesting node (docs/safety.md,
 * "Kubelet serving certificates"):
 *
 * - the requester is the node itself: spec.username `system:node:<name>`, groups include system:nodes;
 * - the subject is exactly CN=system:node:<name>, O=system:nodes;
 * - at least one DNS or IP SAN, no e-mail, URI or other SANs (Kubernetes' own rule);
 * - every DNS SAN a valid DNS name: an RFC 1123 subdomain as Kubernetes validates names, compared
 *   without case (DNS is), and no wildcard: a Node's address names one host;
 * - every DNS SAN is one of the Node's Hostname/InternalDNS/ExternalDNS addresses, every IP SAN one
 *   of its InternalIP/ExternalIP addresses (status.addresses; the Node must exist);
 * - none of them is one of the API server's cluster-wide names (reserved-names.ts: kubernetes,
 *   kubernetes.default.svc…, the Service network, controlPlaneEndpoint's host, apiServer.certSANs),
 *   which pods trust the cluster CA for: the Node writes its own status.addresses, so listing them
 *   there proves nothing. A control-plane Node (labelled node-role.kubernetes.io/control-plane or
 *   …/master, labels NodeRestriction keeps a kubelet from setting) may have the endpoint and certSANs
 *   entries it lists itself: it holds the API server's key already;
 * - no other Node lists any of those names or IPs among its own addresses. A kubelet writes its
 *   own Node's status, so a node credential can claim another node's IP there; an address that
 *   two Nodes claim vouches for neither, and both nodes' requests are denied until one of them
 *   stops claiming it (the kubelet asks again with a new request);
 * - the usages are the serving ones. Kubernetes' rule (ValidateKubeletServingCSR in
 *   pkg/apis/certificates/helpers.go, which kube-controller-manager's kubelet-serving signer
 *   applies before it signs) takes exactly {digital signature, key encipherment, server auth} or
 *   exactly {digital signature, server auth} (no key encipherment, for ECDSA/Ed25519 keys), and
 *   O exactly [system:nodes], CN beginning with system:node:. Anything else the signer would not
 *   sign anyway, so denying it loses nothing.
 *
 * Every other kubelet-serving request is denied, with the rule it broke; other signers' requests
 * and requests already approved, denied or failed are left alone.
 */
import { KUBELET_SERVING_SIGNER } from '../constants.js';
import { parseIp, formatIp } from '../net/ip.js';
import { cidrContains, parseCidr } from '../net/ip.js';
import type { CertificateRequest } from '../pki/csr.js';
import { parseKubeletServingRequest } from './request.js';
import { isDNS1123Subdomain } from '../pki/hostnames.js';
import { errorMessage } from '../errors.js';
import { escaped, neutralised, quoted } from '../log/escape.js';
import type { KubeObject, NodeObject } from '../kube/types.js';
import type { ReservedName } from './reserved-names.js';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

/** The two usage sets ValidateKubeletServingCSR accepts (compared as sets). */
const SERVING_USAGES: readonly (readonly string[])[] = [
  ['digital signature', 'key encipherment', 'server auth'],
  ['digital signature', 'server auth'],
];

const DNS_ADDRESS_TYPES: ReadonlySet<string> = new Set(['Hostname', 'InternalDNS', 'ExternalDNS']);
const IP_ADDRESS_TYPES: ReadonlySet<string> = new Set(['InternalIP', 'ExternalIP']);

/** The labels kubeadm puts on a control-plane Node (…/master until 1.24); NodeRestriction keeps a kubelet from setting either. */
const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

interface CsrCondition {
  readonly type: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastUpdateTime?: string;
  readonly lastTransitionTime?: string;
}

/** certificates.k8s.io/v1 CertificateSigningRequest: the fields tsadm reads. */
export interface CsrObject extends KubeObject {
  readonly kind: 'CertificateSigningRequest';
  readonly spec: {
    /** Base64 of the PEM request, as on the wire. */
    readonly request: string;
    readonly signerName: string;
    readonly usages?: readonly string[];
    readonly username?: string;
    readonly groups?: readonly string[];
    readonly [field: string]: unknown;
  };
  readonly status?: { readonly conditions?: readonly CsrCondition[]; readonly certificate?: string; readonly [field: string]: unknown };
}

interface NodeAddress {
  readonly type: string;
  readonly address: string;
}

/** Why a request is denied: the rule it broke. `reason` is the condition's CamelCase reason. */
type DenyReason =
  | 'RequesterNotNode'
  | 'InvalidRequest'
  | 'SubjectMismatch'
  | 'SubjectAltNames'
  | 'InvalidName'
  | 'Usages'
  | 'NodeNotFound'
  | 'NameNotNodeAddress'
  | 'ReservedName'
  | 'AddressOfAnotherNode';

export type Decision =
  | { readonly action: 'approve'; readonly node: string; readonly reason: 'TsadmNodeAddressesMatch'; readonly message: string }
  | { readonly action: 'deny'; readonly node?: string; readonly reason: DenyReason; readonly message: string }
  | { readonly action: 'skip'; readonly why: 'other-signer' | 'decided' };

/** The node a CSR's requester is ("w1" for system:node:w1), or undefined when the requester is no node. */
export function requestingNode(csr: CsrObject): string | undefined {
  const user = csr.spec.username ?? '';
  if (!user.startsWith(NODE_USER_PREFIX)) return undefined;
  const name = user.slice(NODE_USER_PREFIX.length);
  return name === '' ? undefined : name;
}

/** True when the CSR already carries an Approved, Denied or Failed condition. */
export function isDecided(csr: CsrObject): boolean {
  return (csr.status?.conditions ?? []).some((c) => (c.type === 'Approved' || c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False');
}

/**
 * The decision on CSR, given NODE: the Node object named by the requester (undefined when it
 * does not exist), OTHERS: the cluster's other Nodes (a list may include NODE itself; it is
 * left out by name), and RESERVED: the names no Node may claim (reservedNamesOf). Callers look
 * the Node up by requestingNode(csr).
 *
 * Every value from the request or a Node enters the message escaped (Go's %q, src/log/escape.ts):
 * the message is printed and written into the CSR's condition, where `kubectl describe` shows it.
 */
export function decide(csr: CsrObject, node: NodeObject | undefined, others: readonly NodeObject[], reserved: readonly ReservedName[]): Decision {
  if (csr.spec.signerName !== KUBELET_SERVING_SIGNER) return { action: 'skip', why: 'other-signer' };
  if (isDecided(csr)) return { action: 'skip', why: 'decided' };
  const deny = (reason: DenyReason, message: string, name?: string): Decision => ({ action: 'deny', reason, message: `tsadm: ${message}`, ...(name ? { node: name } : {}) });

  const name = requestingNode(csr);
  if (name === undefined || !(csr.spec.groups ?? []).includes(NODES_GROUP)) {
    return deny('RequesterNotNode', `the requester ${quoted(csr.spec.username ?? '')} is not a node (a kubelet-serving request must come from system:node:<name> in group ${NODES_GROUP})`);
  }
  let req: CertificateRequest;
  try {
    req = parseKubeletServingRequest(Buffer.from(csr.spec.request, 'base64'), `CSR ${csr.metadata.name}`);
  } catch (err) {
    return deny('InvalidRequest', `spec.request is not a PEM certificate request (${neutralised(errorMessage(err)).replace(/\n/g, '\\n')})`, name);
  }
  const user = `${NODE_USER_PREFIX}${name}`;
  const { commonName, organization } = req.subject;
  if (commonName !== user || organization.length !== 1 || organization[0] !== NODES_GROUP) {
    return deny('SubjectMismatch', `the subject ${quoted(req.subject.text)} is not CN=${escaped(user)}, O=${NODES_GROUP} (the requesting node)`, name);
  }
  const { dnsNames, ipAddresses, otherNames } = req.requested;
  if (otherNames.length > 0) return deny('SubjectAltNames', `subject alternative names other than DNS names and IPs are not allowed: ${otherNames.map(escaped).join(', ')}`, name);
  if (dnsNames.length === 0 && ipAddresses.length === 0) return deny('SubjectAltNames', 'a DNS or IP subject alternative name is required', name);
  const invalid = dnsNames.flatMap((d) => {
    const why = invalidDnsName(d);
    return why ? [`DNS:${escaped(d)} ${why}`] : [];
  });
  if (invalid.length > 0) return deny('InvalidName', `${invalid.join('; ')}: a kubelet serving certificate names its node's own host names only`, name);
  const usages = csr.spec.usages ?? [];
  if (!SERVING_USAGES.some((set) => sameSet(set, usages))) {
    return deny('Usages', `usages [${usages.map(escaped).join(', ')}] are not the serving ones (digital signature, server auth, optionally key encipherment)`, name);
  }
  if (!node) return deny('NodeNotFound', `Node ${quoted(name)} does not exist, so its addresses cannot vouch for the names asked for`, name);

  const addresses = nodeAddresses(node);
  const dnsAllowed = new Set(addresses.filter((a) => DNS_ADDRESS_TYPES.has(a.type)).map((a) => a.address.toLowerCase()));
  const ipAllowed = new Set(addresses.filter((a) => IP_ADDRESS_TYPES.has(a.type)).map((a) => canonical(a.address)));
  const strangers = [
    ...dnsNames.filter((d) => !dnsAllowed.has(d.toLowerCase())).map((d) => `DNS:${escaped(d)}`),
    ...ipAddresses.filter((ip) => !ipAllowed.has(canonical(ip))).map((ip) => `IP:${escaped(ip)}`),
  ];
  if (strangers.length > 0) {
    return deny('NameNotNodeAddress', `${strangers.join(', ')} ${strangers.length === 1 ? 'is' : 'are'} not among Node ${quoted(name)}'s status.addresses`, name);
  }
  const taken = reservedAmong(dnsNames, ipAddresses, reserved, isControlPlane(node));
  if (taken.length > 0) {
    return deny('ReservedName', `${taken.join(', ')}: no node may have a serving certificate for the API server's names, whatever its status.addresses say`, name);
  }
  const shared = claimedByOthers(name, dnsNames, ipAddresses, others);
  if (shared.length > 0) {
    return deny('AddressOfAnotherNode', `${shared.join(', ')} ${shared.length === 1 ? 'is' : 'are'} also among the status.addresses of another Node; an address two Nodes claim vouches for neither`, name);
  }
  const names = [...dnsNames.map((d) => `DNS:${escaped(d)}`), ...ipAddresses.map((ip) => `IP:${escaped(ip)}`)];
  return { action: 'approve', node: name, reason: 'TsadmNodeAddressesMatch', message: `tsadm: requested by Node ${quoted(name)} for its own addresses (${names.join(', ')})` };
}

/**
 * Why D is no name a Node's certificate may carry, or undefined when it may: a wildcard, or no
 * RFC 1123 subdomain (IsDNS1123Subdomain, what Kubernetes accepts as a node or host name). Case is
 * ignored, as DNS and the address comparison below ignore it.
 */
function invalidDnsName(d: string): string | undefined {
  if (d.includes('*')) return 'is a wildcard';
  return isDNS1123Subdomain(d.toLowerCase()) ? undefined : 'is not a valid DNS name (RFC 1123 subdomain)';
}

/** True when NODE carries a control-plane label (any value: kubeadm sets it empty). */
function isControlPlane(node: NodeObject): boolean {
  const labels = node.metadata.labels ?? {};
  return CONTROL_PLANE_LABELS.some((l) => Object.hasOwn(labels, l));
}

/**
 * The requested names among RESERVED, each as "DNS:x is <source>". A control-plane Node may have
 * the entries marked controlPlaneMay (the endpoint's host, certSANs): it lists them itself, which
 * the caller has checked, and it holds the API server's key already.
 */
function reservedAmong(dnsNames: readonly string[], ipAddresses: readonly string[], reserved: readonly ReservedName[], controlPlane: boolean): string[] {
  const applies = reserved.filter((r) => !(controlPlane && r.controlPlaneMay));
  const out: string[] = [];
  for (const d of dnsNames) {
    const hit = applies.find((r) => r.kind === 'DNS' && r.value === d.toLowerCase());
    if (hit) out.push(`DNS:${escaped(d)} is ${hit.source}`);
  }
  for (const ip of ipAddresses) {
    const parsed = parseIp(ip);
    // An exact IP before a CIDR: "the kubernetes Service IP" says more than "the Service network".
    const hit = applies.find((r) => r.kind === 'IP' && r.value === canonical(ip))
      ?? applies.find((r) => {
        const cidr = r.kind === 'CIDR' ? parseCidr(r.value) : undefined;
        return cidr !== undefined && parsed !== undefined && cidrContains(cidr, parsed);
      });
    if (hit) out.push(`IP:${escaped(ip)} is ${hit.source}`);
  }
  return out;
}

/**
 * CSR with the decision's condition added (Approved or Denied, status True), for the approval
 * subresource. NOW: the condition's timestamps (RFC 3339, seconds).
 */
export function withDecision(csr: CsrObject, decision: Extract<Decision, { action: 'approve' | 'deny' }>, now: Date): CsrObject {
  const ts = `${now.toISOString().slice(0, 19)}Z`;
  const condition: CsrCondition = {
    type: decision.action === 'approve' ? 'Approved' : 'Denied',
    status: 'True',
    reason: decision.reason,
    message: decision.message,
    lastUpdateTime: ts,
    lastTransitionTime: ts,
  };
  return { ...csr, status: { ...(csr.status ?? {}), conditions: [...(csr.status?.conditions ?? []), condition] } };
}

/** The requested names that a Node other than NAME lists among its addresses, each as "DNS:x (Node y)". */
function claimedByOthers(name: string, dnsNames: readonly string[], ipAddresses: readonly string[], others: readonly NodeObject[]): string[] {
  const out: string[] = [];
  for (const other of others) {
    if (other.metadata.name === name) continue;
    const addresses = nodeAddresses(other);
    const dns = new Set(addresses.filter((a) => DNS_ADDRESS_TYPES.has(a.type)).map((a) => a.address.toLowerCase()));
    const ips = new Set(addresses.filter((a) => IP_ADDRESS_TYPES.has(a.type)).map((a) => canonical(a.address)));
    for (const d of dnsNames) if (dns.has(d.toLowerCase())) out.push(`DNS:${escaped(d)} (Node ${quoted(other.metadata.name)})`);
    for (const ip of ipAddresses) if (ips.has(canonical(ip))) out.push(`IP:${escaped(ip)} (Node ${quoted(other.metadata.name)})`);
  }
  return out;
}

function nodeAddresses(node: NodeObject): NodeAddress[] {
  const list = (node as { status?: { addresses?: unknown } }).status?.addresses;
  if (!Array.isArray(list)) return [];
  return list.filter((a): a is NodeAddress => typeof (a as NodeAddress | null)?.type === 'string' && typeof (a as NodeAddress).address === 'string');
}

function canonical(ip: string): string {
  const parsed = parseIp(ip);
  return parsed ? formatIp(parsed) : ip;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
