/**
 * After patching, kubeadm decodes the result into a typed v1.Pod and marshals it again, which
 * drops what Go would not write: directive keys and unknown fields, null members, and zero
 * values of `omitempty` scalars/maps/lists; it also re-adds the always-present members
 * (metadata.creationTimestamp: null up to 1.33 — omitted from 1.34, see the profile's
 * controlPlane.omitEmptyCreationTimestamp —, status: {}, each container's resources). This is that
 * round trip for the fields a static pod uses, from a table of Go field kinds instead of the
 * Go types (unknown fields are kept — see the differences listed in the control-plane phase).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';

/** Non-pointer `omitempty` scalars of the v1.Pod types: false / 0 / "" disappear. */
const OMIT_ZERO_SCALARS = new Set([
  // ObjectMeta
  'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'clusterName',
  // PodSpec
  'restartPolicy', 'dnsPolicy', 'serviceAccountName', 'serviceAccount', 'nodeName', 'hostNetwork', 'hostPID', 'hostIPC',
  'hostname', 'subdomain', 'schedulerName', 'priorityClassName',
  // Container
  'image', 'workingDir', 'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy', 'stdin', 'stdinOnce', 'tty',
  // ContainerPort, EnvVar, VolumeMount
  'hostPort', 'protocol', 'hostIP', 'value', 'readOnly', 'subPath', 'subPathExpr',
  // Probe, HTTPGetAction, TCPSocketAction
  'initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold', 'host', 'scheme',
  // Toleration, volume sources
  'operator', 'effect', 'medium', 'secretName', 'fsType',
]);

/** Map-typed `omitempty` fields: an empty {} disappears (struct-typed ones stay as {}). */
const OMIT_EMPTY_MAPS = new Set(['labels', 'annotations', 'nodeSelector', 'overhead', 'limits', 'requests', 'volumeAttributes', 'options']);

/** Lists without `omitempty`: an empty [] stays. */
const KEEP_EMPTY_LISTS = new Set(['containers', 'nodeSelectorTerms']);

export interface NormalizeOptions {
  /** The profile's controlPlane.omitEmptyCreationTimestamp: the zero timestamp is omitted, not written as null. */
  readonly omitEmptyCreationTimestamp: boolean;
}

export function normalizePatchedPod(value: JsonValue, opts: NormalizeOptions): JsonObject {
  const pod = clean(value);
  if (!isJsonObject(pod)) return {};
  const metadata = isJsonObject(pod.metadata) ? pod.metadata : {};
  // clean() dropped a null one, so only a real timestamp is left here.
  if (!opts.omitEmptyCreationTimestamp && !Object.hasOwn(metadata, 'creationTimestamp')) metadata.creationTimestamp = null;
  pod.metadata = metadata;
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  if (!Object.hasOwn(spec, 'containers')) spec.containers = null;
  for (const list of ['containers', 'initContainers']) {
    const containers = spec[list];
    if (Array.isArray(containers)) for (const c of containers) if (isJsonObject(c) && !isJsonObject(c.resources)) c.resources = {};
  }
  pod.spec = spec;
  if (!isJsonObject(pod.status)) pod.status = {};
  return pod;
}

function clean(value: JsonValue, key = ''): JsonValue | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0 && !KEEP_EMPTY_LISTS.has(key)) return undefined;
    return value.map((v) => clean(v) ?? null);
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      // Directives ($patch, $retainKeys, …) are not fields; typed decoding drops them.
      if (k.startsWith('$')) continue;
      const c = v === null ? undefined : clean(v, k);
      if (c !== undefined) out[k] = c;
    }
    if (Object.keys(out).length === 0 && OMIT_EMPTY_MAPS.has(key)) return undefined;
    return out;
  }
  if ((value === false || value === 0 || value === '') && OMIT_ZERO_SCALARS.has(key)) return undefined;
  return value;
}
