/**
 * Resolved config → kubeadm's external documents for a given API version, with the field names
 * and omission rules of kubeadm's Go types (`omitempty` fields left out when empty, struct
 * fields such as `apiServer: {}` always present, `taints: null` when unset). The YAML text is
 * src/yaml/write.ts's.
 */
import { formatDuration } from '../duration.js';
import { argsToMap } from './upconvert.js';
import type { Arg, BootstrapToken, ClusterConfiguration, ControlPlaneComponent, EnvVar, HostPathMount, InitConfiguration, JoinConfiguration, NodeRegistration, ResetConfiguration, Timeouts } from './types.js';

export type KubeadmApiVersion = 'kubeadm.k8s.io/v1beta2' | 'kubeadm.k8s.io/v1beta3' | 'kubeadm.k8s.io/v1beta4';
type Doc = Record<string, unknown>;

const isV4 = (v: KubeadmApiVersion): boolean => v === 'kubeadm.k8s.io/v1beta4';

/** Adds `key: value` unless the value is empty (Go's omitempty). */
function put(doc: Doc, key: string, value: unknown): void {
  if (value === undefined || value === '' || value === false || value === 0) return;
  if (Array.isArray(value) && value.length === 0) return;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) return;
  doc[key] = value;
}

function extraArgs(args: readonly Arg[], apiVersion: KubeadmApiVersion): unknown {
  if (args.length === 0) return undefined;
  return isV4(apiVersion) ? args.map((a) => ({ name: a.name, value: a.value })) : argsToMap(args);
}

function volumes(vs: readonly HostPathMount[]): Doc[] {
  return vs.map((v) => {
    const doc: Doc = { name: v.name, hostPath: v.hostPath, mountPath: v.mountPath };
    put(doc, 'readOnly', v.readOnly);
    put(doc, 'pathType', v.pathType);
    return doc;
  });
}

function envs(es: readonly EnvVar[]): Doc[] {
  return es.map((e) => ({ name: e.name, value: e.value }));
}

function component(c: ControlPlaneComponent, apiVersion: KubeadmApiVersion): Doc {
  const doc: Doc = {};
  put(doc, 'extraArgs', extraArgs(c.extraArgs, apiVersion));
  put(doc, 'extraVolumes', volumes(c.extraVolumes));
  if (isV4(apiVersion)) put(doc, 'extraEnvs', envs(c.extraEnvs));
  return doc;
}

export function clusterToExternal(c: ClusterConfiguration, apiVersion: KubeadmApiVersion): Doc {
  const v4 = isV4(apiVersion);
  const doc: Doc = { apiVersion, kind: 'ClusterConfiguration' };
  const apiServer = component(c.apiServer, apiVersion);
  put(apiServer, 'certSANs', [...c.apiServer.certSANs]);
  if (!v4) apiServer.timeoutForControlPlane = formatDuration(c.apiServer.timeoutForControlPlaneMs);
  doc.apiServer = apiServer;
  put(doc, 'certificatesDir', c.certificatesDir);
  put(doc, 'clusterName', c.clusterName);
  put(doc, 'controlPlaneEndpoint', c.controlPlaneEndpoint);
  doc.controllerManager = component(c.controllerManager, apiVersion);
  const dns: Doc = apiVersion === 'kubeadm.k8s.io/v1beta2' ? { type: 'CoreDNS' } : {};
  put(dns, 'imageRepository', c.dns.imageRepository);
  put(dns, 'imageTag', c.dns.imageTag);
  if (v4) put(dns, 'disabled', c.dns.disabled);
  doc.dns = dns;
  doc.etcd = etcd(c, apiVersion);
  put(doc, 'featureGates', { ...c.featureGates });
  put(doc, 'imageRepository', c.imageRepository);
  put(doc, 'kubernetesVersion', c.kubernetesVersion);
  const networking: Doc = {};
  put(networking, 'dnsDomain', c.networking.dnsDomain);
  put(networking, 'podSubnet', c.networking.podSubnet);
  put(networking, 'serviceSubnet', c.networking.serviceSubnet);
  doc.networking = networking;
  doc.scheduler = component(c.scheduler, apiVersion);
  if (v4) {
    const proxy: Doc = {};
    put(proxy, 'disabled', c.proxy.disabled);
    doc.proxy = proxy;
    doc.encryptionAlgorithm = c.encryptionAlgorithm;
    doc.certificateValidityPeriod = formatDuration(c.certificateValidityMs);
    doc.caCertificateValidityPeriod = formatDuration(c.caCertificateValidityMs);
  }
  return doc;
}

function etcd(c: ClusterConfiguration, apiVersion: KubeadmApiVersion): Doc {
  const e = c.etcd;
  if (e.mode === 'external') {
    const external: Doc = { endpoints: [...e.endpoints] };
    // omitempty, v1beta4 only (kubeadm 1.35+; load.ts refuses it for an older target).
    if (isV4(apiVersion)) put(external, 'httpEndpoints', [...(e.httpEndpoints ?? [])]);
    return { external: { ...external, caFile: e.caFile, certFile: e.certFile, keyFile: e.keyFile } };
  }
  const local: Doc = {};
  put(local, 'imageRepository', e.imageRepository);
  put(local, 'imageTag', e.imageTag);
  local.dataDir = e.dataDir;
  put(local, 'extraArgs', extraArgs(e.extraArgs, apiVersion));
  if (isV4(apiVersion)) put(local, 'extraEnvs', envs(e.extraEnvs));
  put(local, 'serverCertSANs', [...e.serverCertSANs]);
  put(local, 'peerCertSANs', [...e.peerCertSANs]);
  return { local };
}

function nodeRegistration(n: NodeRegistration, apiVersion: KubeadmApiVersion): Doc {
  const doc: Doc = {};
  put(doc, 'name', n.name);
  put(doc, 'criSocket', n.criSocket);
  // No omitempty on taints: nil is written as null ("apply the default"), [] as [] ("none").
  doc.taints = n.taints === undefined ? null : n.taints.map((t) => {
    const taint: Doc = { key: t.key };
    put(taint, 'value', t.value);
    taint.effect = t.effect;
    return taint;
  });
  put(doc, 'kubeletExtraArgs', extraArgs(n.kubeletExtraArgs, apiVersion));
  put(doc, 'ignorePreflightErrors', [...n.ignorePreflightErrors]);
  if (apiVersion !== 'kubeadm.k8s.io/v1beta2') put(doc, 'imagePullPolicy', n.imagePullPolicy);
  if (isV4(apiVersion) && n.imagePullSerial !== undefined) doc.imagePullSerial = n.imagePullSerial;
  return doc;
}

function token(t: BootstrapToken): Doc {
  const doc: Doc = { token: t.token };
  put(doc, 'description', t.description);
  if (t.expires !== undefined) doc.expires = t.expires;
  else doc.ttl = formatDuration(t.ttlMs);
  put(doc, 'usages', [...t.usages]);
  put(doc, 'groups', [...t.groups]);
  return doc;
}

/** v1beta4 `timeouts` (every field written, as kubeadm's defaulted documents have them). */
export function timeoutsToExternal(t: Timeouts): Doc {
  return {
    controlPlaneComponentHealthCheck: formatDuration(t.controlPlaneComponentHealthCheckMs),
    discovery: formatDuration(t.discoveryMs),
    etcdAPICall: formatDuration(t.etcdAPICallMs),
    kubeletHealthCheck: formatDuration(t.kubeletHealthCheckMs),
    kubernetesAPICall: formatDuration(t.kubernetesAPICallMs),
    tlsBootstrap: formatDuration(t.tlsBootstrapMs),
    // tsadm has no upgrade; kubeadm's default is written so the document matches kubeadm's.
    upgradeManifests: '5m0s',
  };
}

export function initToExternal(i: InitConfiguration, apiVersion: KubeadmApiVersion): Doc {
  const doc: Doc = { apiVersion, kind: 'InitConfiguration' };
  put(doc, 'bootstrapTokens', i.bootstrapTokens.map(token));
  doc.localAPIEndpoint = { advertiseAddress: i.localAPIEndpoint.advertiseAddress, bindPort: i.localAPIEndpoint.bindPort };
  doc.nodeRegistration = nodeRegistration(i.nodeRegistration, apiVersion);
  put(doc, 'certificateKey', i.certificateKey);
  if (apiVersion !== 'kubeadm.k8s.io/v1beta2') {
    put(doc, 'skipPhases', [...i.skipPhases]);
    if (i.patches) doc.patches = { directory: i.patches.directory };
  }
  if (isV4(apiVersion)) {
    put(doc, 'dryRun', i.dryRun);
    doc.timeouts = timeoutsToExternal(i.timeouts);
  }
  return doc;
}

export function joinToExternal(j: JoinConfiguration, apiVersion: KubeadmApiVersion): Doc {
  const doc: Doc = { apiVersion, kind: 'JoinConfiguration' };
  put(doc, 'caCertPath', j.caCertPath);
  const discovery: Doc = {};
  const bt = j.discovery.bootstrapToken;
  if (bt) {
    const b: Doc = { token: bt.token };
    put(b, 'apiServerEndpoint', bt.apiServerEndpoint);
    put(b, 'caCertHashes', [...bt.caCertHashes]);
    put(b, 'unsafeSkipCAVerification', bt.unsafeSkipCAVerification);
    discovery.bootstrapToken = b;
  }
  if (j.discovery.file) discovery.file = { kubeConfigPath: j.discovery.file.kubeConfigPath };
  put(discovery, 'tlsBootstrapToken', j.discovery.tlsBootstrapToken);
  if (!isV4(apiVersion)) discovery.timeout = formatDuration(j.discovery.timeoutMs);
  doc.discovery = discovery;
  doc.nodeRegistration = nodeRegistration(j.nodeRegistration, apiVersion);
  if (j.controlPlane) {
    const cp: Doc = { localAPIEndpoint: { ...j.controlPlane.localAPIEndpoint } };
    put(cp, 'certificateKey', j.controlPlane.certificateKey);
    doc.controlPlane = cp;
  }
  if (apiVersion !== 'kubeadm.k8s.io/v1beta2') {
    put(doc, 'skipPhases', [...j.skipPhases]);
    if (j.patches) doc.patches = { directory: j.patches.directory };
  }
  if (isV4(apiVersion)) {
    put(doc, 'dryRun', j.dryRun);
    doc.timeouts = timeoutsToExternal(j.timeouts);
  }
  return doc;
}

/** v1beta4 ResetConfiguration (the kind exists in v1beta4 only); `timeouts` is kubeadm's defaulted block. */
export function resetToExternal(r: ResetConfiguration, t: Timeouts): Doc {
  const doc: Doc = { apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'ResetConfiguration' };
  put(doc, 'certificatesDir', r.certificatesDir);
  put(doc, 'cleanupTmpDir', r.cleanupTmpDir);
  put(doc, 'criSocket', r.criSocket);
  put(doc, 'dryRun', r.dryRun);
  put(doc, 'force', r.force);
  put(doc, 'ignorePreflightErrors', [...r.ignorePreflightErrors]);
  put(doc, 'skipPhases', [...r.skipPhases]);
  put(doc, 'unmountFlags', [...(r.unmountFlags ?? [])]);
  doc.timeouts = timeoutsToExternal(t);
  return doc;
}
