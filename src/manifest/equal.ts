/**
 * Whether the static Pod manifest on disk already is the target one (kubeadm's
 * staticpod.ManifestFilesAreEqual, which `upgrade apply`/`upgrade node` ask before touching a
 * component). kubeadm compared the bytes up to 1.27; since 1.28 (kubernetes PR #118069, "the
 * static pod changes detection logic is inconsistent with kubelet") it decodes both files into
 * v1.Pods and compares their hashes, as the kubelet does for its config hash. Two files that
 * decode to the same Pod must count as equal, or the upgrade writes one and then waits for a
 * mirror Pod hash the kubelet never changes.
 *
 * That matters from 1.34: kubeadm (and tsadm) up to 1.33 wrote `creationTimestamp: null`, 1.34+
 * omits it (apimachinery omitzero, PR #130989); both decode to the zero timestamp. The decode is
 * approximated by normalizePatchedPod (the typed round trip tsadm already uses after --patches),
 * with the zero timestamp omitted on both sides; comparing decoded values also ignores key order.
 * We use it for every target minor: for ≤1.27 targets it only differs from kubeadm's byte compare
 * where kubeadm would hang on that hash (kubernetes/kubeadm#2877).
 */
import { isDeepStrictEqual } from 'node:util';
import type { JsonValue } from '../json.js';
import { loadYaml } from '../yaml/read.js';
import { normalizePatchedPod } from './normalize.js';

export function sameStaticPod(current: string | Uint8Array, target: string): boolean {
  const currentText = typeof current === 'string' ? current : Buffer.from(current).toString('utf8');
  if (currentText === target) return true;
  const a = decodePod(currentText);
  const b = decodePod(target);
  return a !== undefined && b !== undefined && isDeepStrictEqual(a, b);
}

/** The Pod a manifest decodes to, or undefined when it is not YAML (then only equal bytes are equal). */
function decodePod(text: string): unknown {
  let value: unknown;
  try {
    value = loadYaml(text);
  } catch {
    return undefined;
  }
  return normalizePatchedPod(value as JsonValue, { omitEmptyCreationTimestamp: true });
}
