/**
 * kubeadm.k8s.io/v1beta1 for `config migrate` only. kubeadm 1.20 and 1.21 (the oldest minors
 * tsadm targets) still read v1beta1 (util/config/common.go of 1.21: v1beta1 is refused from 1.22,
 * "v1.22: … Errors if the user tries to use v1beta1 and older"), so their `config migrate` took
 * it. v1beta2 is v1beta1 plus two fields (v1beta2 doc.go, "A list of changes since v1beta1"):
 * `certificateKey` (InitConfiguration, JoinConfiguration.controlPlane) and
 * `nodeRegistration.ignorePreflightErrors`; the rest is the same. So a v1beta1 document without
 * those fields is read as the v1beta2 document it equals. Every other command keeps refusing
 * v1beta1, as kubeadm 1.22+ does.
 */
import { toKubeYamlDocuments } from '../yaml/write.js';
import { isPlainObject } from '../util/plain-object.js';
import type { Obj } from './schema.js';
import { configInvalid } from './validate.js';
import { parseYamlDocuments } from './yaml-docs.js';

const V1BETA1 = 'kubeadm.k8s.io/v1beta1';
const V1BETA2 = 'kubeadm.k8s.io/v1beta2';

/** Fields v1beta2 added, per kind, as paths. */
const ADDED_IN_V1BETA2: Readonly<Record<string, readonly (readonly string[])[]>> = {
  InitConfiguration: [['certificateKey'], ['nodeRegistration', 'ignorePreflightErrors']],
  JoinConfiguration: [['controlPlane', 'certificateKey'], ['nodeRegistration', 'ignorePreflightErrors']],
};

function has(doc: Obj, path: readonly string[]): boolean {
  let at: unknown = doc;
  for (const key of path) {
    if (!isPlainObject(at) || !(key in at)) return false;
    at = at[key];
  }
  return true;
}

/** The file with its v1beta1 documents relabelled v1beta2; unchanged when it has none. */
export function v1beta1AsV1beta2(text: string, source: string): string {
  const parsed = parseYamlDocuments(text, source);
  const isV1 = (v: unknown): boolean => isPlainObject(v) && v.apiVersion === V1BETA1;
  if (parsed.errors.length > 0 || !parsed.documents.some((d) => isV1(d.value))) return text;
  const errors: string[] = [];
  const values = parsed.documents.map((d) => {
    if (!isPlainObject(d.value) || !isV1(d.value)) return d.value;
    const kind = typeof d.value.kind === 'string' ? d.value.kind : '';
    for (const path of ADDED_IN_V1BETA2[kind] ?? []) {
      if (has(d.value, path)) errors.push(`${path.join('.')}: unknown field (${kind} ${V1BETA1}, document ${d.index}); the field exists from ${V1BETA2}`);
    }
    return { ...d.value, apiVersion: V1BETA2 };
  });
  if (errors.length > 0) throw configInvalid(errors, source);
  return toKubeYamlDocuments(values.filter((v) => v !== null && v !== undefined));
}
