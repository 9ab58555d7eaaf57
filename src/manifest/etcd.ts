/**
 * Local etcd static pod (kubeadm's phases/etcd/local.go GetEtcdPodSpec / getEtcdCommand).
 */
import path from 'node:path';
import semver from 'semver';
import type { Arg, LocalEtcd } from '../config/types.js';
import { PORTS } from '../constants.js';
import { TsadmError } from '../errors.js';
import { argValue, argsModeOf, buildArgs } from './args.js';
import { containerEnv } from './env.js';
import { imageRepository, isIPv6Address, loopbackFor, type StaticPodConfig } from './inputs.js';
import { joinHostPort } from '../net/host-port.js';
import type { Pod, Probe } from './pod.js';
import { componentPod, hostPathVolume, httpProbe, imageRef, probePorts, volumeMount, type ProbeTarget } from './static-pod.js';
import type { VersionProfile } from '../versions/table-types.js';

export const ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION = 'kubeadm.kubernetes.io/etcd.advertise-client-urls';

/** A member of an existing etcd cluster (join: the new member's initial cluster). */
interface EtcdMember {
  readonly name: string;
  readonly peerURL: string;
}

export interface EtcdRenderOptions {
  /** Members of the cluster this member joins; empty/absent = a new single-member cluster. */
  readonly initialCluster?: readonly EtcdMember[];
}

export function renderEtcdPod(cfg: StaticPodConfig, versions: VersionProfile, opts: EtcdRenderOptions): Pod {
  const { cluster, endpoint } = cfg;
  const etcd = cluster.etcd;
  if (etcd.mode !== 'local') {
    throw new TsadmError('E_PRECONDITION', 'etcd static pod manifest cannot be generated for cluster using external etcd', {
      hint: 'the etcd phase is skipped with external etcd; remove etcd.external from the config to run a local etcd',
    });
  }
  const certsDir = path.posix.join(cluster.certificatesDir, 'etcd');
  // cfg.CertificatesDir+"/etcd" in kubeadm: plain concatenation, kept for byte parity.
  const certsHostPath = `${cluster.certificatesDir}/etcd`;
  const data = { name: 'etcd-data', hostPath: etcd.dataDir, mountPath: etcd.dataDir, readOnly: false, pathType: 'DirectoryOrCreate' as const };
  const certs = { name: 'etcd-certs', hostPath: certsHostPath, mountPath: certsHostPath, readOnly: false, pathType: 'DirectoryOrCreate' as const };
  const probe = etcdProbeTarget(etcd, endpoint.advertiseAddress);
  const timeout = cluster.apiServer.timeoutForControlPlaneMs;
  // Unlike the other components, etcd does not get the host's proxy variables.
  const env = containerEnv([], etcd.extraEnvs, versions.controlPlane.sortedEnv);
  const tag = etcd.imageTag || versions.images.etcdTag;
  return componentPod(
    {
      command: ['etcd', ...buildArgs(etcdDefaultArgs(cfg, etcd, versions, tag, certsDir, opts.initialCluster ?? []), etcd.extraArgs, argsModeOf(versions))],
      ...(env.length > 0 ? { env } : {}),
      image: imageRef(etcd.imageRepository || imageRepository(cluster, versions), 'etcd', tag),
      imagePullPolicy: 'IfNotPresent',
      ...etcdProbes(probe, timeout, versions),
      name: 'etcd',
      ...probePorts(probe.port, versions),
      resources: {
        requests: {
          cpu: '100m',
          ...(versions.controlPlane.etcdEphemeralStorage ? { 'ephemeral-storage': '100Mi' } : {}),
          memory: '100Mi',
        },
      },
      // etcd writes to both, so neither is read-only; kubeadm lists data before certs.
      volumeMounts: [volumeMount(data), volumeMount(certs)],
    },
    [hostPathVolume(data), hostPathVolume(certs)],
    { [ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION]: clientURL(endpoint.advertiseAddress) },
    versions,
  );
}

function etcdDefaultArgs(cfg: StaticPodConfig, etcd: LocalEtcd, versions: VersionProfile, tag: string, certsDir: string, members: readonly EtcdMember[]): Arg[] {
  const { endpoint, nodeName } = cfg;
  const adv = endpoint.advertiseAddress;
  const loopback = loopbackFor(adv);
  const cp = versions.controlPlane;
  const initialCluster = members.length === 0
    ? [{ name: 'initial-cluster', value: `${nodeName}=${peerURL(adv)}` }]
    : [
      { name: 'initial-cluster', value: members.map((m) => `${m.name}=${m.peerURL}`).join(',') },
      { name: 'initial-cluster-state', value: 'existing' },
    ];
  // etcd 3.6 renamed the experimental flags; kubeadm 1.34–1.35 picks the spelling the etcd image
  // understands. From 1.36 local etcd older than 3.6 is unsupported and kubeadm always writes the
  // 3.6 spelling, whatever imageTag the user pinned: it neither refuses nor warns about an older
  // tag (PR #135701 removed the branch; its description calls such a tag unsupported).
  const etcd36 = cp.etcdOnly36 || (cp.etcd36Flags && etcdAtLeast36(tag));
  return [
    { name: 'name', value: nodeName },
    { name: 'listen-client-urls', value: `https://${joinHostPort(loopback, PORTS.etcdClient)},${clientURL(adv)}` },
    { name: 'advertise-client-urls', value: clientURL(adv) },
    { name: 'listen-peer-urls', value: peerURL(adv) },
    { name: 'initial-advertise-peer-urls', value: peerURL(adv) },
    { name: 'data-dir', value: etcd.dataDir },
    { name: 'cert-file', value: path.posix.join(certsDir, 'server.crt') },
    { name: 'key-file', value: path.posix.join(certsDir, 'server.key') },
    { name: 'trusted-ca-file', value: path.posix.join(certsDir, 'ca.crt') },
    { name: 'client-cert-auth', value: 'true' },
    { name: 'peer-cert-file', value: path.posix.join(certsDir, 'peer.crt') },
    { name: 'peer-key-file', value: path.posix.join(certsDir, 'peer.key') },
    { name: 'peer-trusted-ca-file', value: path.posix.join(certsDir, 'ca.crt') },
    { name: 'peer-client-cert-auth', value: 'true' },
    { name: 'snapshot-count', value: '10000' },
    { name: 'listen-metrics-urls', value: `http://${joinHostPort(loopback, PORTS.etcdMetrics)}` },
    ...initialCluster,
    ...(cp.etcdCorruptCheckFlag
      ? [etcd36 ? { name: 'feature-gates', value: 'InitialCorruptCheck=true' } : { name: 'experimental-initial-corrupt-check', value: 'true' }]
      : []),
    ...(cp.etcdWatchProgressFlag
      ? [{ name: etcd36 ? 'watch-progress-notify-interval' : 'experimental-watch-progress-notify-interval', value: '5s' }]
      : []),
  ];
}

function etcdAtLeast36(tag: string): boolean {
  const v = semver.coerce(tag);
  // An unparsable custom tag: trust the version profile (it is this minor's default etcd).
  return v === null || semver.gte(v, '3.6.0');
}

function clientURL(address: string): string {
  return `https://${joinHostPort(address, PORTS.etcdClient)}`;
}

function peerURL(address: string): string {
  return `https://${joinHostPort(address, PORTS.etcdPeer)}`;
}

/**
 * Where the kubelet probes etcd: the first listen-metrics-urls URL if the user set one,
 * else http on the loopback at 2381 (staticpod.GetEtcdProbeEndpoint).
 */
export function etcdProbeTarget(etcd: LocalEtcd, advertiseAddress: string): ProbeTarget {
  const localhost = isIPv6Address(advertiseAddress) ? '::1' : '127.0.0.1';
  const fallback: ProbeTarget = { host: localhost, port: PORTS.etcdMetrics, scheme: 'HTTP' };
  const urls = argValue(etcd.extraArgs, 'listen-metrics-urls');
  if (urls === undefined) return fallback;
  const first = urls.split(',')[0] ?? '';
  // Go's url.Parse + Hostname()/Port(): keep an explicit port even when it is the scheme default.
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]*)(?::([^/?#]*))?/.exec(first);
  if (!m) return fallback;
  const scheme = m[1]?.toLowerCase() === 'https' ? 'HTTPS' : 'HTTP';
  const hostname = (m[2] ?? '').replace(/^\[(.*)\]$/, '$1') || localhost;
  const portText = m[3] ?? '';
  const port = /^\d+$/.test(portText) && Number(portText) >= 1 && Number(portText) <= 65535 ? Number(portText) : PORTS.etcdMetrics;
  return { host: hostname, port, scheme };
}

function etcdProbes(target: ProbeTarget, timeoutMs: number, versions: VersionProfile): { livenessProbe: Probe; readinessProbe?: Probe; startupProbe: Probe } {
  switch (versions.controlPlane.etcdProbes) {
    case 'health':
      return {
        livenessProbe: httpProbe('liveness', target, '/health', timeoutMs, versions),
        startupProbe: httpProbe('startup', target, '/health', timeoutMs, versions),
      };
    case 'health-serializable':
      // Liveness must not fail on a full disk or a lost quorum (restarting would not help).
      return {
        livenessProbe: httpProbe('liveness', target, '/health?exclude=NOSPACE&serializable=true', timeoutMs, versions),
        startupProbe: httpProbe('startup', target, '/health?serializable=false', timeoutMs, versions),
      };
    case 'livez-readyz':
      return {
        livenessProbe: httpProbe('liveness', target, '/livez', timeoutMs, versions),
        readinessProbe: httpProbe('readiness', target, '/readyz', timeoutMs, versions),
        startupProbe: httpProbe('startup', target, '/readyz', timeoutMs, versions),
      };
  }
}
