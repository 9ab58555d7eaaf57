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
    ['upgrade-defaults (the default, 1.37: plan.etcdUpgrade)', () => printUpgradeDefaults()],
    ['init-defaults of 1.35', () => printInitDefaults({ componentConfigs: [], version: '1.35' })],
    ['init-defaults of 1.36', () => printInitDefaults({ componentConfigs: [], version: '1.36' })],
    ['upgrade-defaults (1.31)', () => printUpgradeDefaults({ version: '1.31.0' })],
  ])('%s', (_name, print) => {
    expect(validate(print())).toEqual({ problems: [], warnings: [] });
  });
});

/**
 * kubeadm 1.36's `config validate --allow-deprecated-api` (PR #135148): validateSupportedVersion
 * warns about a deprecated API version unless the flag is given ("By default the command will
 * print a warning for a deprecated API unless the flag is passed", its release note); a version
 * the target no longer reads (v1beta3 for 1.37, PR #136016) is an error either way.
 */
describe('config validate and the API versions of the target', () => {
  const v3 = (version: string): string => `apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: ${version}\n`;
  const warning = 'your configuration file uses a deprecated API spec: "kubeadm.k8s.io/v1beta3" (kind: "ClusterConfiguration"). Please use \'tsadm config migrate --old-config old-config-file --new-config new-config-file\', which will write the new, similar spec using a newer API version.';

  test('a deprecated version (v1beta3 for 1.36) is valid, with kubeadm\'s warning', () => {
    expect(validate(v3('v1.36.0'))).toEqual({ problems: [], warnings: [warning] });
  });

  test('--allow-deprecated-api: valid without the warning', () => {
    expect(validateConfigFile(v3('v1.36.0'), 'cfg.yaml', ENV, { allowDeprecatedApi: true })).toEqual({ problems: [], warnings: [] });
  });

  test('a version the target no longer reads is a problem, with or without the flag', () => {
    const problem = "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (ClusterConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config cfg.yaml --new-config NEW'";
    expect(validate(v3('v1.37.0')).problems).toEqual([problem]);
    expect(validateConfigFile(v3('v1.37.0'), 'cfg.yaml', ENV, { allowDeprecatedApi: true }).problems).toEqual([problem]);
  });

  test('a join file (no target before discovery) is judged by the default target, 1.37', () => {
    const join = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    token: abcdef.0123456789abcdef\n    apiServerEndpoint: kube-apiserver:6443\n    unsafeSkipCAVerification: true\n';
    expect(validate(join).problems).toEqual([
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (JoinConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config cfg.yaml --new-config NEW'",
    ]);
    expect(validate(join.replace('v1beta3', 'v1beta4'))).toEqual({ problems: [], warnings: [] });
  });

  test('kubeadm.k8s.io/v1 is a problem: disabled in kubeadm 1.37', () => {
    expect(validate('apiVersion: kubeadm.k8s.io/v1\nkind: UpgradeConfiguration\n').problems).toEqual([
      'apiVersion: kubeadm.k8s.io/v1 is not usable yet (kind UpgradeConfiguration, document 1, line 1): kubeadm 1.37 registers it as an experimental placeholder and keeps it disabled; use kubeadm.k8s.io/v1beta4',
    ]);
  });

  test('etcd.external.httpEndpoints: valid for 1.35, an unknown field for 1.34', () => {
    const file = (version: string): string => `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: ${version}\netcd:\n  external:\n    endpoints: [http://10.0.0.1:2379]\n    httpEndpoints: [http://10.0.0.1:2381]\n`;
    expect(validate(file('v1.35.0'))).toEqual({ problems: [], warnings: [] });
    expect(validate(file('v1.34.1')).problems).toEqual([
      'etcd.external.httpEndpoints: unknown field (ClusterConfiguration kubeadm.k8s.io/v1beta4 of Kubernetes v1.34.1; the field exists from Kubernetes 1.35 on, kubeadm PR #134890)',
    ]);
  });

  test('an UpgradeConfiguration is validated: its unknown fields and values are problems', () => {
    expect(validate('apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\nplan:\n  bogus: 1\ndiff:\n  contextLines: many\n').problems).toEqual([
      'plan.bogus: unknown field (UpgradeConfiguration kubeadm.k8s.io/v1beta4)',
      'diff.contextLines: expected an integer, got string "many" (UpgradeConfiguration kubeadm.k8s.io/v1beta4)',
    ]);
  });
});
