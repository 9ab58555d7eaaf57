import { renderStaticPod, type StaticPodComponent } from '../../../src/manifest/render.js';
import { podToJson } from '../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { SCENARIOS, golden, podConfig } from '../controlplane/scenarios.js';

/**
 * Golden files: test/fixtures/manifests/v1.20.2/<scenario>/ were written by the reference kubeadm
 * v1.20.2 (see generate.sh there). tsadm's output is byte-identical for every scenario here, for
 * the --patches scenarios (test/unit/patches/run.golden.test.ts) and for kubeadm-flags.env and
 * config.yaml (test/unit/phases/kubelet/flags-env.test.ts, config.test.ts); the yaml.v2 serializer itself is checked
 * against 254 oracle cases (test/unit/manifest/yaml.test.ts).
 *
 * Known, deliberate differences from kubeadm (none shows up in these fixtures):
 * 1. Patched manifests: kubeadm decodes the patched JSON into a typed v1.Pod and re-encodes it.
 *    tsadm emulates that round trip from a table (normalize.ts): directives, nulls and the zero
 *    values of common omitempty fields are dropped, creationTimestamp/status/resources restored.
 *    Unknown or misspelled fields are kept (kubeadm drops them) and values of the wrong type
 *    are not rejected (kubeadm fails); only apiVersion/kind/containers are checked.
 * 2. Patch files are parsed as YAML 1.2 (js-yaml): unquoted yes/no/on/off stay strings, where
 *    kubeadm's YAML 1.1 parser makes them booleans. Quote such values.
 * 3. Maps whose keys yaml.v2 compares non-transitively (e.g. "a1b", "a2", "a10" together) may
 *    be ordered differently: Go's own order depends on its sort algorithm (release-dependent).
 * 4. Missing *parent* directories of /etc/kubernetes/manifests and /var/lib/kubelet are made
 *    0755 by the host seam; kubeadm's MkdirAll(…, 0700) makes them 0700. The leaf directories
 *    are 0700 in both.
 * 5. The authorization-mode warning is logged once; kubeadm logs it once per manifest (3x).
 * 6. External CA is detected as "ca.crt present, ca.key absent" without parsing ca.crt;
 *    kubeadm also validates ca.crt and the certificates signed by it (and fails earlier).
 * 7. KubeletConfiguration: the zero-value fields Go writes are those of 1.20's types; modern
 *    kubeadm writes a few more (e.g. containerRuntimeEndpoint: "", memorySwap: {}), which the
 *    kubelet defaults identically. A zero value the user sets on an omitempty field (other than
 *    readOnlyPort) is kept where kubeadm's typed round trip drops it.
 */
describe('v1.20.2 manifests equal kubeadm v1.20.2 output byte for byte', () => {
  for (const s of SCENARIOS) {
    for (const component of s.components) {
      test(`${s.name}/${component}.yaml`, () => {
        const versions = profileFor(s.cfg.cluster.kubernetesVersion);
        const pod = renderStaticPod(component as StaticPodComponent, podConfig(s), versions, s.facts);
        expect(toKubeYaml(podToJson(pod))).toBe(golden(s.name, `${component}.yaml`));
      });
    }
  }
});
