/**
 * The bundle's pure rules: digests in the forms published beside Kubernetes' and cri-tools'
 * downloads (sha256sum output, BSD tags, one <name>.sha256 per binary), the versions each binary
 * reports (outputs copied from kubelet/kubectl v1.20.2 and crictl v1.20.0), and kubeadm's
 * KubeletVersion rule / kubectl's skew policy.
 */
import { expectedDigest, parseSha256Sums, reportedVersion, versionFit } from '../../../../src/phases/host/bundle.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

test('SHA256SUMS: GNU text and binary mode, ./ prefixes, BSD tags; other lines ignored', () => {
  const sums = parseSha256Sums(`${A}  kubelet\n${B} *./kubectl\nSHA256 (crictl) = ${A.toUpperCase()}\nnot a line\n`);
  expect(Object.fromEntries(sums)).toEqual({ kubelet: A, kubectl: B, crictl: A });
});

test('expectedDigest: either source; disagreement and an empty .sha256 are problems; none is undefined', () => {
  expect(expectedDigest('kubelet', `${A}  kubelet\n`, undefined)).toEqual({ hex: A });
  expect(expectedDigest('kubelet', undefined, `${B}\n`)).toEqual({ hex: B });
  expect(expectedDigest('kubelet', `${A}  kubelet\n`, `${A}  kubelet\n`)).toEqual({ hex: A });
  expect(expectedDigest('kubelet', `${A}  kubelet\n`, B)).toEqual({ problem: 'SHA256SUMS and kubelet.sha256 list different digests for kubelet' });
  expect(expectedDigest('kubelet', undefined, 'oops')).toEqual({ problem: 'kubelet.sha256 holds no SHA-256 digest' });
  expect(expectedDigest('kubelet', `${A}  kubectl\n`, undefined)).toBeUndefined();
});

test('reportedVersion of each binary\'s own output', () => {
  expect(reportedVersion('kubelet', 'Kubernetes v1.20.2\n')).toBe('1.20.2');
  expect(reportedVersion('crictl', 'crictl version v1.20.0\n')).toBe('1.20.0');
  expect(reportedVersion('kubectl', '{\n  "clientVersion": {\n    "major": "1",\n    "minor": "20",\n    "gitVersion": "v1.20.2",\n    "gitCommit": "faecb196815e248d3ecfb03c680a4507229c2a56"\n  }\n}\n')).toBe('1.20.2');
  expect(reportedVersion('kubectl', 'Client Version: v1.20.2')).toBeUndefined();
  expect(reportedVersion('kubelet', 'garbage')).toBeUndefined();
});

test('versionFit: kubelet not newer than the cluster and at most one minor older; kubectl one minor either way; crictl warns', () => {
  expect(versionFit('kubelet', '1.20.2', 'v1.20.2')).toEqual({});
  expect(versionFit('kubelet', '1.19.7', 'v1.20.2')).toEqual({});
  expect(versionFit('kubelet', '1.20.3', 'v1.20.2').problem).toMatch(/newer than the cluster's v1.20.2/);
  expect(versionFit('kubelet', '1.18.0', 'v1.20.2').problem).toMatch(/more than one minor older/);
  expect(versionFit('kubectl', '1.21.0', 'v1.20.2')).toEqual({});
  expect(versionFit('kubectl', '1.22.0', 'v1.20.2').problem).toMatch(/more than one minor away/);
  expect(versionFit('crictl', '1.20.0', 'v1.20.2')).toEqual({});
  expect(versionFit('crictl', '1.26.0', 'v1.20.2').warning).toMatch(/not of the cluster's minor/);
});
