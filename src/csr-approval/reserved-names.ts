/**
 * The names a kubelet serving certificate may never carry, whatever the requesting Node's status
 * says: the API server's cluster-wide names (pure; docs/safety.md, "Kubelet serving
 * certificates"). A Node's status.addresses are written by its own kubelet, so a node can list
 * `kubernetes.default.svc` or the kubernetes Service IP there; the cluster CA would then sign a
 * certificate that pods, which trust that CA for exactly those names, take for the API server.
 *
 * They come from the cluster's stored ClusterConfiguration (kube-system/kubeadm-config), the
 * record kubeadm and tsadm make the API server's certificate from (src/certs/alt-names.ts):
 *
 * - `kubernetes`, `kubernetes.default`, `kubernetes.default.svc`, `kubernetes.default.svc.<dnsDomain>`;
 * - the kubernetes Service IP (the first address of each networking.serviceSubnet CIDR, both
 *   families on a dual-stack cluster), and every other address of those CIDRs: a Node has no address
 *   in the Service network, each one there is a Service's;
 * - controlPlaneEndpoint's host and every apiServer.certSANs entry: these the API endpoint is reached
 *   by, but a control plane often is reached by its own address (an endpoint that is the first
 *   control plane's IP, certSANs listing each control plane), and its kubelet asks for that address.
 *   So these (only these) a control-plane Node may be given when it lists them itself: it holds the
 *   API server's key and the cluster CA's already, and the certificate gives it nothing more.
 *
 * What is not here: the API server certificate's node-specific names (each control plane's name and
 * advertise address) are that control plane's Node addresses, which the rule "no other Node lists
 * it" (AddressOfAnotherNode in policy.ts) already keeps from every other node.
 */
import { DEFAULTS } from '../constants.js';
import { TsadmError } from '../errors.js';
import { splitHostPort } from '../net/host-port.js';
import { canonicalIp, formatIp, indexedIp, parseCidr } from '../net/ip.js';
import { quoted } from '../log/escape.js';
import { isPlainObject } from '../util/plain-object.js';

/** One name no Node may claim: a DNS name (lowercase), an IP (canonical) or a CIDR (every address in it). */
export interface ReservedName {
  readonly kind: 'DNS' | 'IP' | 'CIDR';
  readonly value: string;
  /** What it is, for the denial's message ("the kubernetes Service IP", "apiServer.certSANs"). */
  readonly source: string;
  /** True when a control-plane Node that lists it among its own addresses may have it (see above). */
  readonly controlPlaneMay: boolean;
}

const IN_CLUSTER_NAMES = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];

/**
 * Pure: the reserved names of a cluster whose stored ClusterConfiguration document is CLUSTER
 * (kubeadm.k8s.io v1beta2–v1beta4 alike: these fields did not change). A field that is absent
 * takes kubeadm's default; one that is there but cannot be read is an error, never a guess: the
 * approver then decides nothing (fail closed).
 */
export function reservedNamesOf(cluster: Readonly<Record<string, unknown>>): ReservedName[] {
  const networking = objectField(cluster, 'networking');
  const apiServer = objectField(cluster, 'apiServer');
  const dnsDomain = stringField(networking, 'networking.dnsDomain') ?? DEFAULTS.dnsDomain;
  const serviceSubnet = stringField(networking, 'networking.serviceSubnet') ?? DEFAULTS.serviceSubnet;
  const out: ReservedName[] = [];
  const add = (kind: ReservedName['kind'], value: string, source: string, controlPlaneMay: boolean): void => {
    out.push({ kind, value: kind === 'DNS' ? value.toLowerCase() : value, source, controlPlaneMay });
  };

  for (const name of [...IN_CLUSTER_NAMES, `kubernetes.default.svc.${dnsDomain}`]) add('DNS', name, 'the API server\'s in-cluster name', false);
  const cidrs = serviceSubnet.split(',').map((text) => {
    const cidr = parseCidr(text.trim());
    const first = cidr && indexedIp(cidr, 1);
    if (!cidr || !first) throw unreadable('networking.serviceSubnet', serviceSubnet, 'is not a list of CIDRs');
    add('IP', formatIp(first), 'the kubernetes Service IP', false);
    return text.trim();
  });
  for (const cidr of cidrs) add('CIDR', cidr, 'the Service network (networking.serviceSubnet)', false);

  const endpoint = stringField(cluster, 'controlPlaneEndpoint');
  if (endpoint) {
    const split = splitHostPort(endpoint);
    // As kubeadm's ParseHostPort: where it does not split, the whole text is the host.
    const host = 'error' in split ? endpoint : split.host;
    const ip = canonicalIp(host);
    add(ip === undefined ? 'DNS' : 'IP', ip ?? host, 'controlPlaneEndpoint', true);
  }
  const sans = apiServer?.certSANs;
  if (sans !== undefined && sans !== null) {
    if (!Array.isArray(sans) || !sans.every((s) => typeof s === 'string')) throw unreadable('apiServer.certSANs', JSON.stringify(sans), 'is not a list of names');
    for (const san of sans) {
      const ip = canonicalIp(san);
      add(ip === undefined ? 'DNS' : 'IP', ip ?? san, 'apiServer.certSANs', true);
    }
  }
  return out;
}

function objectField(doc: Readonly<Record<string, unknown>> | undefined, key: string): Readonly<Record<string, unknown>> | undefined {
  const v = doc?.[key];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw unreadable(key, JSON.stringify(v), 'is not a mapping');
  return v;
}

function stringField(doc: Readonly<Record<string, unknown>> | undefined, path: string): string | undefined {
  const v = doc?.[path.split('.').pop() as string];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw unreadable(path, JSON.stringify(v), 'is not a string');
  return v;
}

function unreadable(field: string, value: string, why: string): TsadmError {
  return new TsadmError('E_PRECONDITION', `the stored ClusterConfiguration's ${field} ${quoted(value)} ${why}, so the names no node may claim cannot be known; no kubelet-serving request is decided`, {
    hint: 'fix it with `kubectl -n kube-system edit cm kubeadm-config` (or re-upload it with `tsadm init phase upload-config kubeadm` on a control-plane node)',
  });
}
