/**
 * etcd membership as plain data, parsed from the gRPC gateway's JSON (uint64 fields arrive as
 * decimal strings and stay strings: member IDs do not fit a JS number). Pure.
 */
export interface EtcdMember {
  /** uint64 as a decimal string. */
  readonly id: string;
  /** Empty until the member has started once. */
  readonly name: string;
  readonly peerURLs: readonly string[];
  readonly clientURLs: readonly string[];
  readonly isLearner: boolean;
}

interface RawMember {
  ID?: string | number;
  name?: string;
  peerURLs?: string[];
  clientURLs?: string[];
  isLearner?: boolean;
}

export function parseMember(raw: unknown): EtcdMember {
  const m = (raw ?? {}) as RawMember;
  return {
    id: m.ID === undefined ? '0' : String(m.ID),
    name: m.name ?? '',
    peerURLs: m.peerURLs ?? [],
    clientURLs: m.clientURLs ?? [],
    isLearner: m.isLearner === true,
  };
}

export function parseMembers(body: unknown): EtcdMember[] {
  const list = (body as { members?: unknown[] } | undefined)?.members ?? [];
  return list.map(parseMember);
}

/** The member advertising this peer URL (kubeadm compares the first peer URL; any match is safer). */
export function memberByPeerURL(members: readonly EtcdMember[], peerURL: string): EtcdMember | undefined {
  return members.find((m) => m.peerURLs.includes(peerURL));
}

/** How many voting members must answer for etcd to commit anything (learners do not vote). Pure. */
export function quorumOf(members: readonly EtcdMember[]): number {
  return Math.floor(members.filter((m) => !m.isLearner).length / 2) + 1;
}

/** etcd member IDs as kubeadm prints them (strconv.FormatUint(id, 16)). */
export function memberIdHex(id: string): string {
  return BigInt(id).toString(16);
}

/**
 * `--initial-cluster` entries for a member about to start: every member by name and first peer
 * URL; the new member has no name yet (it never started), so it gets the node name, as kubeadm's
 * AddMember does. Another member that has not started yet either (a control plane joining at the
 * same moment) has no name: it is named by its member ID in hex, as kubeadm does since 1.23 — two
 * unnamed members would otherwise merge into one "=url1,=url2" entry and etcd would refuse to
 * start ("member count is unequal").
 */
export function initialClusterFor(members: readonly EtcdMember[], peerURL: string, nodeName: string): { name: string; peerURL: string }[] {
  return members
    .filter((m) => m.peerURLs.length > 0)
    .map((m) => (m.peerURLs.includes(peerURL)
      ? { name: nodeName, peerURL }
      : { name: m.name !== '' ? m.name : memberIdHex(m.id), peerURL: m.peerURLs[0] as string }));
}

/** Client endpoints of all members (what the etcd client's Sync() switches to), de-duplicated. */
export function clientEndpoints(members: readonly EtcdMember[]): string[] {
  return [...new Set(members.flatMap((m) => m.clientURLs))];
}
