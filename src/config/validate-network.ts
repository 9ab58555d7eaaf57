/**
 * networking.* checks (kubeadm ValidateNetworking): CIDR syntax, dual-stack pairs, subnet sizes,
 * the pod subnet against the controller-manager's node mask, plus a check kubeadm lacks: the pod
 * and service ranges must not overlap (routing breaks silently when they do).
 */
import { cidrsOverlap, hostBits, parseCidr, rangeSize, type Cidr } from '../net/ip.js';
import { dns1123SubdomainErrors } from './names.js';
import type { Arg, ClusterConfiguration } from './types.js';
import type { Out } from './validate-fields.js';

/** kubeadm constants. */
const MIN_SERVICE_ADDRESSES = 10n;
const MIN_POD_ADDRESSES = 14n;
const MAX_SERVICE_HOST_BITS = 20;
const POD_NODE_MASK_MAX_DIFF = 16;

const q = (v: string): string => JSON.stringify(v);

export function validateNetworking(c: ClusterConfiguration, out: Out): void {
  const n = c.networking;
  for (const e of dns1123SubdomainErrors(n.dnsDomain)) out.push(`networking.dnsDomain: invalid value ${q(n.dnsDomain)}: ${e}`);
  const dualStackGate = c.kubernetesVersion.startsWith('v1.20.') && c.featureGates.IPv6DualStack !== true;
  const service = n.serviceSubnet === '' ? [] : parseSubnets(n.serviceSubnet, MIN_SERVICE_ADDRESSES, 'networking.serviceSubnet', dualStackGate, out);
  for (const s of service ?? []) {
    if (hostBits(s) > MAX_SERVICE_HOST_BITS) {
      // kubeadm reads the bit count from the mask (Mask.Size), so "::ffff:…/104" counts as 128-bit.
      out.push(`networking.serviceSubnet: invalid value ${q(s.text)}: specified service subnet is too large; for ${s.bits}-bit addresses, the mask must be >= ${s.bits - MAX_SERVICE_HOST_BITS}`);
    }
  }
  const pod = n.podSubnet === '' ? [] : parseSubnets(n.podSubnet, MIN_POD_ADDRESSES, 'networking.podSubnet', dualStackGate, out);
  if (pod && argValue(c.controllerManager.extraArgs, 'allocate-node-cidrs') !== 'false') {
    for (const p of pod) validatePodNodeMask(p, c.controllerManager.extraArgs, out);
  }
  for (const p of pod ?? []) {
    for (const s of service ?? []) {
      if (cidrsOverlap(p, s)) out.push(`networking.podSubnet: ${q(p.text)} overlaps with networking.serviceSubnet ${q(s.text)}`);
    }
  }
}

/** One CIDR, or two of different families (dual-stack); undefined when unparsable. */
function parseSubnets(text: string, minAddresses: bigint, path: string, needsGate: boolean, out: Out): Cidr[] | undefined {
  const parts = text.split(',');
  const subnets = parts.map((p) => parseCidr(p.trim()));
  const bad = parts.filter((_, i) => subnets[i] === undefined);
  if (bad.length > 0) {
    out.push(`${path}: invalid CIDR ${q(bad[0]?.trim() ?? text)}: couldn't parse subnet`);
    return undefined;
  }
  const cidrs = subnets as Cidr[];
  const dualStackMsg = 'expected one (IPv4 or IPv6) CIDR or two CIDRs from each family for dual-stack networking';
  if (cidrs.length > 2 || (cidrs.length === 2 && cidrs[0]?.family === cidrs[1]?.family)) {
    out.push(`${path}: invalid value ${q(text)}: ${dualStackMsg}`);
  } else if (cidrs.length === 2 && needsGate) {
    out.push(`${path}: invalid value ${q(text)}: dual-stack networking on Kubernetes v1.20 needs the feature gate IPv6DualStack=true`);
  }
  for (const c of cidrs) {
    const size = rangeSize(c);
    if (size < minAddresses) out.push(`${path}: invalid value ${q(c.text)}: subnet with ${size} address(es) is too small, the minimum is ${minAddresses}`);
  }
  return cidrs;
}

/** The pod subnet must hold at least one node range and at most 2^16 of them (kubeadm ValidatePodSubnetNodeMask). */
function validatePodNodeMask(p: Cidr, args: readonly Arg[], out: Out): void {
  const flag = p.family === 4 ? 'node-cidr-mask-size-ipv4' : 'node-cidr-mask-size-ipv6';
  const raw = argValue(args, flag) ?? argValue(args, 'node-cidr-mask-size');
  const nodeMask = raw === undefined ? (p.family === 4 ? 24 : 64) : Number(raw);
  if (!Number.isInteger(nodeMask)) {
    out.push(`controllerManager.extraArgs: could not parse the value of the kube-controller-manager flag ${flag} as an integer: ${q(raw ?? '')}`);
  } else if (p.prefix > nodeMask) {
    out.push(`networking.podSubnet: invalid value ${q(p.text)}: the size of pod subnet with mask ${p.prefix} is smaller than the size of node subnet with mask ${nodeMask}`);
  } else if (nodeMask - p.prefix > POD_NODE_MASK_MAX_DIFF) {
    out.push(`networking.podSubnet: invalid value ${q(p.text)}: pod subnet mask (${p.prefix}) and node-mask (${nodeMask}) difference is greater than ${POD_NODE_MASK_MAX_DIFF}`);
  }
}

/** The last value of an argument (later entries override earlier ones). */
function argValue(args: readonly Arg[], name: string): string | undefined {
  let v: string | undefined;
  for (const a of args) if (a.name === name) v = a.value;
  return v;
}
