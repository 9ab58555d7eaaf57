/**
 * The Pod fields kubeadm's static pods use, shaped exactly like Go's json.Marshal output of a
 * v1.Pod: optional members are absent when Go would omit them (omitempty), so that serializing
 * one of these gives kubeadm's bytes. Builders in static-pod.ts are the only producers.
 */
import type { HostPathMount, HostPathType } from '../config/types.js';

export type StaticPodComponent = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

export const STATIC_POD_COMPONENTS: readonly StaticPodComponent[] = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

export interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: PodMetadata;
  spec: PodSpec;
  /** Always {} (Go marshals the zero PodStatus struct). */
  status: Record<string, never>;
}

interface PodMetadata {
  annotations?: Record<string, string>;
  /**
   * Go's zero metav1.Time marshals as null up to kubeadm 1.33; from 1.34 (apimachinery omitzero,
   * PR #130989) it is omitted (the profile's controlPlane.omitEmptyCreationTimestamp).
   */
  creationTimestamp?: null;
  labels: Record<string, string>;
  name: string;
  namespace: string;
}

interface PodSpec {
  containers: Container[];
  hostNetwork: boolean;
  priority?: number;
  priorityClassName: string;
  securityContext?: { seccompProfile: { type: 'RuntimeDefault' } };
  volumes?: Volume[];
}

export interface Container {
  command: string[];
  env?: EnvVarJson[];
  image: string;
  imagePullPolicy: string;
  livenessProbe?: Probe;
  name: string;
  ports?: ContainerPort[];
  readinessProbe?: Probe;
  /** Go always marshals this struct ({} when empty). */
  resources: { requests?: Record<string, string> };
  startupProbe?: Probe;
  volumeMounts?: VolumeMount[];
}

export interface EnvVarJson {
  name: string;
  value?: string;
}

interface ContainerPort {
  containerPort: number;
  name: string;
  protocol: 'TCP';
}

export interface Probe {
  failureThreshold: number;
  httpGet: HTTPGetAction;
  initialDelaySeconds?: number;
  periodSeconds: number;
  timeoutSeconds: number;
}

interface HTTPGetAction {
  /** Omitted when empty: the kubelet then probes the pod IP (kubeadm's choice for 0.0.0.0/::). */
  host?: string;
  path: string;
  port: number | string;
  scheme: 'HTTP' | 'HTTPS';
}

export interface Volume {
  hostPath: { path: string; type: HostPathType };
  name: string;
}

export interface VolumeMount {
  mountPath: string;
  name: string;
  readOnly?: true;
}

/** A hostPath volume and its mount, as kubeadm pairs them (the config's extraVolumes shape). */
export type HostPathMountSpec = HostPathMount;
