/**
 * Shared static-pod builders (kubeadm's util/staticpod): the pod skeleton, probes, hostPath
 * volumes. Version-dependent parts come from the VersionProfile passed in.
 */
import type { VersionProfile } from '../versions/table-types.js';
import type { JsonObject } from '../json.js';
import type { Container, HostPathMountSpec, Pod, Probe, Volume, VolumeMount } from './pod.js';

/** kubeadm's priority for system-node-critical, written as spec.priority from 1.27. */
const SYSTEM_NODE_CRITICAL_PRIORITY = 2000001000;
/** Name of the container port probes refer to when probes use named ports (1.34+). */
const PROBE_PORT_NAME = 'probe-port';

export function componentPod(
  container: Container,
  volumes: readonly Volume[],
  annotations: Readonly<Record<string, string>> | undefined,
  versions: VersionProfile,
): Pod {
  const cp = versions.controlPlane;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ...(cp.omitEmptyCreationTimestamp ? {} : { creationTimestamp: null }),
      // component/tier let `kubectl get pods -l tier=control-plane` find the mirror pods.
      labels: { component: container.name, tier: 'control-plane' },
      name: container.name,
      namespace: 'kube-system',
    },
    spec: {
      containers: [container],
      hostNetwork: true,
      ...(cp.podPriority ? { priority: SYSTEM_NODE_CRITICAL_PRIORITY } : {}),
      priorityClassName: 'system-node-critical',
      ...(cp.seccompRuntimeDefault ? { securityContext: { seccompProfile: { type: 'RuntimeDefault' as const } } } : {}),
      ...(volumes.length > 0 ? { volumes: sortByName(volumes) } : {}),
    },
    status: {},
  };
}

export interface ProbeTarget {
  /** Empty = omitted (the kubelet probes the pod IP). */
  readonly host: string;
  readonly port: number;
  readonly scheme: 'HTTP' | 'HTTPS';
}

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/**
 * kubeadm's probe timings: liveness 10/15/10/8, readiness 0/15/1/3, startup 10/15/10 with enough
 * failures to cover the control-plane timeout (ceil(timeout / 10s)).
 */
export function httpProbe(kind: ProbeKind, target: ProbeTarget, path: string, controlPlaneTimeoutMs: number, versions: VersionProfile): Probe {
  const port = versions.controlPlane.namedProbePorts ? PROBE_PORT_NAME : target.port;
  const httpGet = { ...(target.host ? { host: target.host } : {}), path, port, scheme: target.scheme };
  switch (kind) {
    case 'liveness':
      return { failureThreshold: 8, httpGet, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15 };
    case 'readiness':
      return { failureThreshold: 3, httpGet, periodSeconds: 1, timeoutSeconds: 15 };
    case 'startup': {
      const periodSeconds = 10;
      const failureThreshold = Math.ceil(controlPlaneTimeoutMs / 1000 / periodSeconds);
      return { failureThreshold, httpGet, initialDelaySeconds: periodSeconds, periodSeconds, timeoutSeconds: 15 };
    }
  }
}

/** The container port named for the probes (1.34+), or nothing. */
export function probePorts(port: number, versions: VersionProfile): Pick<Container, 'ports'> {
  return versions.controlPlane.namedProbePorts ? { ports: [{ containerPort: port, name: PROBE_PORT_NAME, protocol: 'TCP' }] } : {};
}

export function hostPathVolume(m: HostPathMountSpec): Volume {
  return { hostPath: { path: m.hostPath, type: m.pathType }, name: m.name };
}

export function volumeMount(m: HostPathMountSpec): VolumeMount {
  return { mountPath: m.mountPath, name: m.name, ...(m.readOnly ? { readOnly: true as const } : {}) };
}

/**
 * kubeadm keys volumes and mounts by name (a later one with the same name replaces the earlier,
 * which is how extraVolumes override defaults) and writes them sorted by name.
 */
export function volumesAndMounts(mounts: readonly HostPathMountSpec[]): { volumes: Volume[]; volumeMounts: VolumeMount[] } {
  const byName = new Map<string, HostPathMountSpec>();
  for (const m of mounts) byName.set(m.name, m);
  const unique = [...byName.values()];
  return { volumes: sortByName(unique.map(hostPathVolume)), volumeMounts: sortByName(unique.map(volumeMount)) };
}

/** Go's sort by strings.Compare: byte order, which for these ASCII names is code-unit order. */
function sortByName<T extends { readonly name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `<repo>/<name>:<tag>`; Kubernetes versions become tags with "+" replaced by "_". */
export function imageRef(repository: string, name: string, tag: string): string {
  return `${repository}/${name}:${tag}`;
}

export function kubernetesImageTag(version: string): string {
  return version.replaceAll('+', '_');
}

/** A Pod is plain JSON data by construction (see pod.ts); this is the one place that says so. */
export function podToJson(pod: Pod): JsonObject {
  return pod as unknown as JsonObject;
}
