/**
 * `config validate` (kubeadm 1.30+ ValidateConfig, util/config/common.go, and its test
 * TestValidateConfig in common_test.go): which files are valid, and that every problem of the file
 * is reported, one line each (kubeadm stops at the first; tsadm collects them).
 */
import { expect } from '@jest/globals';
import { printInitDefaults, printJoinDefaults, printResetDefaults, printUpgradeDefaults } from '../../../src/config/print.js';
import { validateConfigFile } from '../../../src/config/validate-file.js';
import { ENV } from './support.js';

const validate = (text: string) => validateConfigFile(text, 'cfg.yaml', ENV);

describe('config validate: kubeadm\'s cases', () => {
  test.each([
    ['a minimal InitConfiguration', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n'],
    // kubeadm 1.35 and 1.36 read v1beta3, deprecated (1.37 no longer does: see the API version tests below).
    ['a v1beta3 InitConfiguration (deprecated, still read)', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: v1.36.0\n'],
    ['a ResetConfiguration', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\n'],
    ['an UpgradeConfiguration', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  etcdUpgrade: false\n'],
    ['init and join documents together', `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: kube-apiserver:6443
    unsafeSkipCAVerification: true
`],
  ])('valid: %s', (_name, text) => {
    expect(validate(text).problems).toEqual([]);
  });

  test.each([
    ['an invalid node name', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nnodeRegistration:\n  name: foo bar\n', /^nodeRegistration\.name: /],
    ['an unknown API group/version', 'apiVersion: foo/bar\nkind: zzz\n', /unsupported apiVersion "foo\/bar"/],
    ['a legacy API version', 'apiVersion: kubeadm.k8s.io/v1beta1\nkind: InitConfiguration\n', /old API version/],
    ['an unknown field', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nfoo: bar\n', /foo/],
    ['an unknown field in ResetConfiguration', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nfoo: bar\n', /foo/],
    ['a YAML syntax error', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: [InitConfiguration\n', /cfg\.yaml/],
    ['no document at all', '', /no configuration document/],
  ])('invalid: %s', (_name, text, line) => {
    const { problems } = validate(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.some((p) => line.test(p))).toBe(true);
  });
});

describe('config validate: every problem, one line each', () => {
  test('problems of several documents and fields are all reported, each once', () => {
    const { problems } = validate(`apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
networking:
  serviceSubnet: 10.96.0.0/33
certificatesDir: relative/pki
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    token: not-a-token
    apiServerEndpoint: kube-apiserver:6443
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ResetConfiguration
unmountFlags: [MNT_FOO]
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: UpgradeConfiguration
node:
  imagePullPolicy: Sometimes
`);
    const expectOne = (re: RegExp): void => expect(problems.filter((p) => re.test(p))).toHaveLength(1);
    expectOne(/^networking\.serviceSubnet: /);
    expectOne(/^certificatesDir: /);
    expectOne(/^discovery\.bootstrapToken\.token: /);
    expectOne(/^discovery\.bootstrapToken\.caCertHashes: /);
    expectOne(/^unmountFlags\[0\]: unsupported value "MNT_FOO"/);
    expectOne(/^node\.imagePullPolicy: Unsupported value: "Sometimes"/);
    for (const p of problems) expect(p).not.toContain('\n');
    expect(new Set(problems).size).toBe(problems.length);
  });

  test('a document-level problem of a file read by two commands is reported once', () => {
    const { problems } = validate('apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nbogus: 1\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  file:\n    kubeConfigPath: /d.conf\n');
    expect(problems.filter((p) => p.includes('bogus'))).toHaveLength(1);
  });

  test('loader warnings are passed on; a kind meant for another command is not a warning here', () => {
    // v1beta2 for a target tsadm reads it for (v1.34.1; none from 1.35 on, as kubeadm since 1.27).
    const out = validate('apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.1\nuseHyperKubeImage: true\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\n');
    expect(out.problems).toEqual([]);
    expect(out.warnings).toEqual([expect.stringMatching(/useHyperKubeImage is ignored/)]);
  });
});

describe('config validate accepts what config print writes (kubeadm prints defaults that pass its own validation)', () => {
  test.each([
    ['init-defaults with component configs', () => printInitDefaults({ componentConfigs: ['KubeletConfiguration', 'KubeProxyConfiguration'] })],
    ['join-defaults', () => printJoinDefaults()],
    ['reset-defaults', () => printResetDefaults()],
    ['upgrade-defaults (1.34: plan.etcdUpgrade)', () => printUpgradeDefaults()],
    ['upgrade-defaults (1.31)', () => printUpgradeDefaults({ version: '1.31.0' })],
  ])('%s', (_name, print) => {
    expect(validate(print())).toEqual({ problems: [], warnings: [] });
  });
});
