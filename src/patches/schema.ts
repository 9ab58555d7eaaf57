/**
 * The patch metadata strategic merge needs: which lists merge (and by which key) instead of
 * being replaced. Kubernetes reads it from Go struct tags (patchStrategy/patchMergeKey); this
 * table carries the tags of the v1.Pod types a static pod can contain. Everything not listed
 * behaves as an untagged field: objects merge member by member, lists are replaced.
 */

interface FieldPatchMeta {
  /** 'merge' for lists merged element-wise, 'replace' for objects replaced whole, '' otherwise. */
  readonly strategy: 'merge' | 'replace' | '';
  /** List elements are matched by this member ('' for lists of primitives). */
  readonly mergeKey: string;
  /** Schema of the field's value (or of its elements, for lists). */
  readonly schema: PatchSchema;
}

export interface PatchSchema {
  /** Name used in error messages ("Pod", "Container", …). */
  readonly name: string;
  field(name: string): FieldPatchMeta;
}

interface FieldSpec {
  readonly strategy?: 'merge';
  readonly mergeKey?: string;
  readonly type?: string;
}

class TableSchema implements PatchSchema {
  constructor(readonly name: string, private readonly fields: Readonly<Record<string, FieldSpec>>, private readonly types: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>>) {}

  field(name: string): FieldPatchMeta {
    const spec = Object.hasOwn(this.fields, name) ? this.fields[name] : undefined;
    const type = spec?.type;
    const schema = type && this.types[type] ? new TableSchema(type, this.types[type], this.types) : untyped(name);
    return { strategy: spec?.strategy ?? '', mergeKey: spec?.mergeKey ?? '', schema };
  }
}

/** A schema with no tags anywhere below it (maps, KubeletConfiguration, unknown fields). */
export function untyped(name = 'object'): PatchSchema {
  return { name, field: (f) => ({ strategy: '', mergeKey: '', schema: untyped(f) }) };
}

const merge = (mergeKey: string, type?: string): FieldSpec => ({ strategy: 'merge', mergeKey, ...(type ? { type } : {}) });

/** Tags from k8s.io/api/core/v1 and apimachinery's ObjectMeta (types.go, 1.20–1.34). */
const POD_TYPES: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  Pod: { metadata: { type: 'ObjectMeta' }, spec: { type: 'PodSpec' }, status: { type: 'PodStatus' } },
  ObjectMeta: { ownerReferences: merge('uid'), finalizers: { strategy: 'merge' } },
  PodSpec: {
    volumes: merge('name'),
    initContainers: merge('name', 'Container'),
    containers: merge('name', 'Container'),
    ephemeralContainers: merge('name', 'Container'),
    imagePullSecrets: merge('name'),
    hostAliases: merge('ip'),
    topologySpreadConstraints: merge('topologyKey'),
    resourceClaims: merge('name'),
    schedulingGates: merge('name'),
  },
  Container: {
    ports: merge('containerPort'),
    env: merge('name'),
    volumeMounts: merge('mountPath'),
    volumeDevices: merge('devicePath'),
  },
  PodStatus: { conditions: merge('type'), podIPs: merge('ip') },
};

/** Tags of k8s.io/api/apps/v1's Deployment around the pod template (types.go, 1.31–1.34). */
const DEPLOYMENT_TYPES: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  ...POD_TYPES,
  Deployment: { metadata: { type: 'ObjectMeta' }, spec: { type: 'DeploymentSpec' }, status: { type: 'DeploymentStatus' } },
  DeploymentSpec: { template: { type: 'PodTemplateSpec' } },
  PodTemplateSpec: { metadata: { type: 'ObjectMeta' }, spec: { type: 'PodSpec' } },
  DeploymentStatus: { conditions: merge('type') },
};

/** Tags of k8s.io/api/apps/v1's DaemonSet around the pod template (types.go, 1.37). */
const DAEMONSET_TYPES: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  ...POD_TYPES,
  DaemonSet: { metadata: { type: 'ObjectMeta' }, spec: { type: 'DaemonSetSpec' }, status: { type: 'DaemonSetStatus' } },
  DaemonSetSpec: { template: { type: 'PodTemplateSpec' } },
  PodTemplateSpec: { metadata: { type: 'ObjectMeta' }, spec: { type: 'PodSpec' } },
  DaemonSetStatus: { conditions: merge('type') },
};

export const POD_PATCH_SCHEMA: PatchSchema = new TableSchema('Pod', POD_TYPES.Pod as Record<string, FieldSpec>, POD_TYPES);

/** The CoreDNS Deployment's schema (the `corednsdeployment` target: kubeadm patches an apps/v1 Deployment). */
export const DEPLOYMENT_PATCH_SCHEMA: PatchSchema = new TableSchema('Deployment', DEPLOYMENT_TYPES.Deployment as Record<string, FieldSpec>, DEPLOYMENT_TYPES);

/** The kube-proxy DaemonSet's schema (the `kubeproxydaemonset` target: kubeadm patches an apps/v1 DaemonSet). */
export const DAEMONSET_PATCH_SCHEMA: PatchSchema = new TableSchema('DaemonSet', DAEMONSET_TYPES.DaemonSet as Record<string, FieldSpec>, DAEMONSET_TYPES);
