/**
 * The upgrade's "is the manifest on disk already the target?" (kubeadm's ManifestFilesAreEqual,
 * which compares the decoded Pods since kubernetes PR #118069). Expected answers follow kubeadm:
 * two files decoding to the same v1.Pod are equal, whatever their bytes.
 */
import { sameStaticPod } from '../../../src/manifest/equal.js';
import { podToJson } from '../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { fixtureConfigWith, renderControlPlanePod } from '../../helpers/control-plane-pod.js';

const manifest = (minor: '1.33' | '1.35'): string => toKubeYaml(podToJson(renderControlPlanePod('kube-apiserver', fixtureConfigWith({}, minor), undefined, minor)));
/** The 1.35 manifest as tsadm ≤ this change (and kubeadm ≤1.33's serializer) wrote it: with `creationTimestamp: null`. */
const withNullTimestamp = (text: string): string => text.replace('\n  labels:\n', '\n  creationTimestamp: null\n  labels:\n');

describe('sameStaticPod', () => {
  const target = manifest('1.35');

  test('a 1.35 manifest written with creationTimestamp: null is the same Pod as one without it (both decode to the zero timestamp)', () => {
    const old = withNullTimestamp(target);
    expect(old).not.toBe(target);
    expect(old).toContain('\n  creationTimestamp: null\n');
    expect(sameStaticPod(Buffer.from(old), target)).toBe(true);
  });

  test('key order does not matter; identical bytes are equal even when they are not YAML', () => {
    const reordered = target.replace('apiVersion: v1\nkind: Pod\n', 'kind: Pod\napiVersion: v1\n');
    expect(reordered).not.toBe(target);
    expect(sameStaticPod(reordered, target)).toBe(true);
    expect(sameStaticPod('{ not yaml', '{ not yaml')).toBe(true);
  });

  test('a real change is a change: another flag, another version, a set timestamp, a file that is not YAML', () => {
    expect(sameStaticPod(target.replace('--allow-privileged=true', '--allow-privileged=false'), target)).toBe(false);
    expect(sameStaticPod(manifest('1.33'), target)).toBe(false);
    expect(sameStaticPod(target.replace('\n  labels:\n', '\n  creationTimestamp: "2026-01-01T00:00:00Z"\n  labels:\n'), target)).toBe(false);
    expect(sameStaticPod('{ not yaml', target)).toBe(false);
  });
});
