/**
 * The ledger of kubeadm's own table-driven unit tests ported as oracles (issue 36): every case of
 * every source file read, whether it maps onto a tsadm input, and whether tsadm's pure renderer
 * gives what kubeadm's test states. Each port test file runs exactly its 'match' cases (checked by
 * `portCases` in ./support.ts), and ./ledger.test.ts checks docs/kubeadm-test-port.md against the
 * counts and reasons below, so the document cannot drift from the tests.
 *
 * Outcomes:
 * - match: ported, and tsadm's output equals kubeadm's expectation (the case runs in the port file);
 * - differs: ported or compared, and tsadm's output differs; `reason` says why (older revision,
 *   on purpose, or an open bug); the case is not executed;
 * - unmapped: no tsadm input or pure function it maps onto (effects through a fake clientset,
 *   temp directories, Go templates, internal helpers); `reason` says which.
 */
import type { SupportedMinor } from '../../../src/versions/minors.js';

type Outcome = 'match' | 'differs' | 'unmapped';

interface LedgerCase {
  /** Go test function. */
  readonly test: string;
  /** The t.Run name (or a label for unnamed table rows, in brackets). */
  readonly name: string;
  readonly outcome: Outcome;
  readonly reason?: string;
}

export interface LedgerFile {
  /** Path in kubernetes/kubernetes. */
  readonly path: string;
  /** The stored revision read (the index keeps one version per file; see the document). */
  readonly commit: string;
  /** The tsadm minor whose row the cases are compared with. */
  readonly minor: SupportedMinor;
  /** The jest file that runs the 'match' cases. */
  readonly portFile: string;
  readonly cases: readonly LedgerCase[];
}

const m = (test: string, name: string): LedgerCase => ({ test, name, outcome: 'match' });
// A case that differs is written { test, name, outcome: 'differs', reason } (none at present).
const u = (test: string, name: string, reason: string): LedgerCase => ({ test, name, outcome: 'unmapped', reason });

const FILE_WRITE = 'writes manifests into a temp directory through CreateStaticPodFiles; tsadm writes through the host seam (covered by test/unit/phases/controlplane/phase.test.ts), not a pure renderer';
const FAKE_CLIENT = 'drives a fake clientset (objects already in the cluster); tsadm does this through the API seam, not a pure function';

const FILES = 'reads or writes files in a temp directory (CA, keys, CSRs, kubeconfigs) through kubeadm\'s own helpers; tsadm does this through the host seam, tested in its phase tests, not a pure function';
const GO_INTERNAL = 'a Go helper of kubeadm\'s certificate list (tree building, visiting) that tsadm has no counterpart of: its table is a flat list in order (src/certs/cert-table.ts)';
const REAL_HOST = 'real files, directories and ports of the machine running the test; tsadm\'s checks run on the host seam and are tested with a temp root in test/unit/phases/preflight/checks.test.ts';
const MINIMUMS = 'kubeadm\'s check takes the minimum as a parameter and runs against the real machine; tsadm\'s NumCPU and Mem checks have kubeadm\'s fixed minimums and no parameter (tested in test/unit/phases/preflight/checks.test.ts)';
const TEMPLATE = 'checks only that Go\'s text/template parses and executes kubeadm\'s template with dummy data; tsadm\'s templates are TypeScript template literals (src/phases/addons/coredns-template.ts, kube-proxy-render.ts), which cannot fail that way: their filled-in text is compared byte for byte with kubeadm\'s printout instead (the print-manifest cases here and in dns_test.go)';
const API_BY_BUILD = 'judges API versions by kubeadm\'s own build (deprecated, experimental with allowExperimental: v1beta4 was experimental in this 1.30-cycle file); tsadm judges them by the target minor (src/config/api-versions.ts) and has no experimental API, so the case has no tsadm input';
const COREFILE_MIGRATION = 'runs CoreDNS\'s corefile-migration library on a Corefile in a fake clientset; tsadm does not rewrite Corefiles on purpose: it keeps a customised one and warns (src/phases/upgrade/corefile-migration.ts, docs/kubeadm-reference.md)';

export const LEDGER: readonly LedgerFile[] = [
  {
    path: 'cmd/kubeadm/app/phases/controlplane/manifests_test.go',
    commit: '898b9f800267a757615ecfb71fc377d04d996c6b',
    minor: '1.36',
    portFile: 'test/integration/kubeadm-port/controlplane-manifests.test.ts',
    cases: [
      m('TestGetStaticPodSpecs', 'KubeAPIServer'),
      m('TestGetStaticPodSpecs', 'KubeControllerManager'),
      m('TestGetStaticPodSpecs', 'KubeScheduler'),
      u('TestCreateStaticPodFilesAndWrappers', 'KubeAPIServer KubeControllerManager KubeScheduler', FILE_WRITE),
      u('TestCreateStaticPodFilesAndWrappers', 'KubeAPIServer', FILE_WRITE),
      u('TestCreateStaticPodFilesAndWrappers', 'KubeControllerManager', FILE_WRITE),
      u('TestCreateStaticPodFilesAndWrappers', 'KubeScheduler', FILE_WRITE),
      u('TestCreateStaticPodFilesWithPatches', '[single case]', 'applies a patch directory on disk; tsadm\'s --patches is tested in test/unit/patches'),
      m('TestGetAPIServerCommand', 'testing defaults'),
      m('TestGetAPIServerCommand', 'ipv6 advertise address'),
      m('TestGetAPIServerCommand', 'an external etcd with custom ca, certs and keys'),
      m('TestGetAPIServerCommand', 'an insecure etcd'),
      m('TestGetAPIServerCommand', 'test APIServer.ExtraArgs works as expected'),
      m('TestGetAPIServerCommand', 'authorization-mode extra-args ABAC'),
      m('TestGetAPIServerCommand', 'authorization-mode extra-args Webhook'),
      m('TestGetAPIServerCommand', 'authorization-config extra-args'),
      m('TestGetAPIServerCommand', 'authorization-config and authorization-mode extra-args'),
      m('TestGetControllerManagerCommand', 'custom cluster name for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'custom certs dir for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'custom cluster-cidr for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'custom service-cluster-ip-range for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'custom extra-args for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'custom IPv6 networking for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'IPv6 networking custom extra-args for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'dual-stack networking for <cpVersion>'),
      m('TestGetControllerManagerCommand', 'dual-stack networking custom extra-args for <cpVersion>'),
      m('TestGetControllerManagerCommandExternalCA', 'caKeyPresent-false for <cpVersion>'),
      m('TestGetControllerManagerCommandExternalCA', 'caKeyPresent true for <cpVersion>'),
      m('TestGetSchedulerCommand', 'scheduler defaults'),
      m('TestGetAuthzModes', 'default if empty'),
      m('TestGetAuthzModes', 'default non empty'),
      m('TestGetAuthzModes', 'single unspecified returning default'),
      m('TestGetAuthzModes', 'multiple ignored'),
      m('TestGetAuthzModes', 'single mode'),
      m('TestGetAuthzModes', 'multiple special order'),
      m('TestIsValidAuthzMode', 'Node'),
      m('TestIsValidAuthzMode', 'RBAC'),
      m('TestIsValidAuthzMode', 'ABAC'),
      m('TestIsValidAuthzMode', 'AlwaysAllow'),
      m('TestIsValidAuthzMode', 'Webhook'),
      m('TestIsValidAuthzMode', 'AlwaysDeny'),
      m('TestIsValidAuthzMode', 'Foo'),
      u('TestCompareAuthzModes', 'modes match', 'internal helper of kubeadm\'s warning; tsadm compares the joined mode strings (authorizationModes in src/manifest/apiserver.ts)'),
      u('TestCompareAuthzModes', 'modes order does not match', 'as "modes match"'),
      u('TestCompareAuthzModes', 'modes do not match; A has less modes', 'as "modes match"'),
      u('TestCompareAuthzModes', 'modes do not match; B has less modes', 'as "modes match"'),
    ],
  },
  {
    path: 'cmd/kubeadm/app/phases/etcd/local_test.go',
    commit: '6bb6c9934294d8265197c9dfc4c9dd3adaca147a',
    minor: '1.33',
    portFile: 'test/integration/kubeadm-port/etcd-local.test.ts',
    cases: [
      m('TestGetEtcdPodSpec', '[single case]'),
      u('TestCreateLocalEtcdStaticPodManifestFile', '[local etcd manifest]', 'kubeadm renders a bare ClusterConfiguration (empty imageRepository gives "image: /etcd:<DefaultEtcdVersion>", zero timeouts) that tsadm never renders, since tsadm renders only the defaulted configuration; the command, probes and volumes of that manifest are covered by the TestGetEtcdCommand cases and test/unit/manifest/etcd.test.ts'),
      m('TestCreateLocalEtcdStaticPodManifestFile', '[external etcd]'),
      u('TestCreateLocalEtcdStaticPodManifestFileWithPatches', '[single case]', 'applies a patch directory on disk; tsadm\'s --patches is tested in test/unit/patches'),
      m('TestGetEtcdCommand', 'Default args - with empty etcd initial cluster'),
      m('TestGetEtcdCommand', 'Default args - With an existing etcd cluster'),
      m('TestGetEtcdCommand', 'Extra args'),
      m('TestGetEtcdCommand', 'IPv6 advertise address'),
    ],
  },
  {
    path: 'cmd/kubeadm/app/phases/addons/dns/dns_test.go',
    commit: '898b9f800267a757615ecfb71fc377d04d996c6b',
    minor: '1.36',
    portFile: 'test/integration/kubeadm-port/addons-dns.test.ts',
    cases: [
      u('TestCompileManifests', 'CoreDNSDeployment manifest', TEMPLATE),
      u('TestCompileManifests', 'CoreDNSConfigMap manifest', TEMPLATE),
      m('TestGetDNSIP', 'subnet mask 12'),
      m('TestGetDNSIP', 'subnet mask 26'),
      m('TestGetDNSIP', 'dual-stack ipv4 primary, subnet mask 26'),
      m('TestGetDNSIP', 'dual-stack ipv6 primary, subnet mask 112'),
      m('TestDeploymentsHaveSystemClusterCriticalPriorityClassName', 'CoreDNSDeployment'),
      ...['Empty Corefile', 'Default Corefile', 'Modified Corefile with only newdefaults needed', 'Default Corefile with rearranged plugins',
        'Remove Deprecated options', 'Update proxy plugin to forward plugin', 'Modified Corefile with no migration required']
        .map((name) => u('TestCreateCoreDNSAddon', name, COREFILE_MIGRATION)),
      u('TestDeployedDNSReplicas', 'one coredns addon deployment', FAKE_CLIENT),
      u('TestDeployedDNSReplicas', 'no coredns addon deployment', FAKE_CLIENT),
      u('TestDeployedDNSReplicas', 'multiple coredns addon deployments', FAKE_CLIENT),
      u('TestCoreDNSAddon', 'cfg is empty', FAKE_CLIENT),
      u('TestCoreDNSAddon', 'cfg is valid and not print Manifest', FAKE_CLIENT),
      m('TestCoreDNSAddon', 'cfg is valid and print Manifest'),
      u('TestEnsureDNSAddon', 'not print Manifest', FAKE_CLIENT),
      u('TestEnsureDNSAddon', 'get dns replicas failed', FAKE_CLIENT),
      m('TestEnsureDNSAddon', 'not print Manifest [printManifest: true]'),
      ...['dnsService and serviceBytes are nil', 'invalid dns', 'serviceBytes is not valid', 'dnsService is valid and serviceBytes is nil',
        'dnsService and serviceBytes are not nil and valid', 'the namespace of dnsService is not kube-system', 'the name of dnsService is not coredns']
        .map((name) => u('TestCreateDNSService', name, FAKE_CLIENT)),
      m('TestDeployedDNSAddon', 'default'),
      u('TestDeployedDNSAddon', 'no dns addon deployment', FAKE_CLIENT),
      u('TestDeployedDNSAddon', 'multiple dns addon deployment', FAKE_CLIENT),
      m('TestDeployedDNSAddon', 'with digest'),
      m('TestDeployedDNSAddon', 'without registry'),
      m('TestDeployedDNSAddon', 'without registry and tag'),
      m('TestDeployedDNSAddon', 'with explicit port'),
      m('TestDeployedDNSAddon', 'with explicit port but without tag'),
      ...['no coredns configmap', 'the key of coredns configmap data does not contain corefile', 'failed to obtain coredns version',
        'coredns information can be obtained normally'].map((name) => u('TestGetCoreDNSInfo', name, FAKE_CLIENT)),
      ...['currentInstalledCoreDNSVersion is empty', 'currentInstalledCoreDNSVersion is consistent with the standard version',
        'Coredns Configmap needs to be migrated', 'currentInstalledCoreDNSVersion is not supported']
        .map((name) => u('TestIsCoreDNSConfigMapMigrationRequired', name, COREFILE_MIGRATION)),
    ],
  },
  {
    path: 'cmd/kubeadm/app/phases/kubelet/flags_test.go',
    commit: 'd776c9b699d29a50d51d39ef976b1a6ee7a281ae',
    minor: '1.25',
    portFile: 'test/integration/kubeadm-port/kubelet-flags.test.ts',
    cases: [
      m('TestBuildKubeletArgMap', 'hostname override'),
      m('TestBuildKubeletArgMap', 'register with taints'),
      m('TestBuildKubeletArgMap', 'pause image is set'),
    ],
  },
  {
    path: 'cmd/kubeadm/app/phases/addons/proxy/proxy_test.go',
    commit: '898b9f800267a757615ecfb71fc377d04d996c6b',
    minor: '1.36',
    portFile: 'test/integration/kubeadm-port/addons-proxy.test.ts',
    cases: [
      u('TestCompileManifests', 'KubeProxyConfigMap19', TEMPLATE),
      u('TestCompileManifests', 'KubeProxyDaemonSet19', TEMPLATE),
      u('TestEnsureProxyAddon', 'Successful proxy addon', FAKE_CLIENT),
      u('TestEnsureProxyAddon', 'Simulated service account error', FAKE_CLIENT),
      u('TestEnsureProxyAddon', 'IPv6 AdvertiseAddress address', FAKE_CLIENT),
      m('TestDaemonSetsHaveSystemNodeCriticalPriorityClassName', 'KubeProxyDaemonSet19'),
      u('TestPrintOrCreateKubeProxyObjects', 'do not print manifest', FAKE_CLIENT),
      m('TestPrintOrCreateKubeProxyObjects', 'print manifest'),
    ],
  },
  {
    path: 'cmd/kubeadm/app/phases/certs/certlist_test.go',
    commit: 'unknown (index id 18738705579)',
    minor: '1.36',
    portFile: 'test/integration/kubeadm-port/certs-certlist.test.ts',
    cases: [
      m('TestCertListOrder', 'Default Certificate List'),
      m('TestCertListOrder', 'Cert list less etcd'),
      m('TestCAPointersValid', 'Default Certificate List'),
      m('TestCAPointersValid', 'Cert list less etcd'),
      u('TestMakeCertTree', '[single case]', GO_INTERNAL),
      u('TestCreateCertificateChain', '[single case]', 'creates a CA and a leaf on disk and verifies the chain; tsadm\'s chain is checked with openssl in test/unit/phases/certs/phase.test.ts'),
      ...['success', 'nil certs', 'no certs', 'error unknown ca'].map((name) => u('TestLeafCertificates', name, GO_INTERNAL)),
      ...['success', 'nil certificates', 'empty certificates', 'error nil visitor', 'visit then error'].map((name) => u('TestCertificatesVisit', name, GO_INTERNAL)),
      ...['success', 'error nil object', 'error nil cert', 'error key file exists', 'error CSR file exists', 'error permission denied while creating key']
        .map((name) => u('TestKeyAndCSRCreatorCreate', name, FILES)),
      u('TestCreateKeyAndCSRFiles', '[single case]', FILES),
    ],
  },
  {
    path: 'cmd/kubeadm/app/phases/kubeconfig/kubeconfig_test.go',
    commit: 'unknown (index id 19173823)',
    minor: '1.32',
    portFile: 'test/integration/kubeadm-port/kubeconfig.test.ts',
    cases: [
      u('TestGetKubeConfigSpecsFailsIfCADoesntExists', '[single case]', FILES),
      ...[0, 1, 2, 3, 4].flatMap((i) => ['kubernetes-admin', 'kubernetes-super-admin', 'system:node:valid-node-name', 'system:kube-controller-manager', 'system:kube-scheduler']
        .map((client) => m('TestGetKubeConfigSpecs', `${i}-${client}`))),
      u('TestBuildKubeConfigFromSpecWithClientAuth', '[single case]', 'needs a CA made by kubeadm\'s test helpers; tsadm\'s kubeconfig rendering is tested in test/unit/kubeconfig/render.test.ts'),
      u('TestBuildKubeConfigFromSpecWithTokenAuth', '[single case]', 'as TestBuildKubeConfigFromSpecWithClientAuth'),
      ...["KubeConfig doesn't exist", 'KubeConfig is invalid', 'KubeConfig refers to the same cluster', 'KubeConfig refers to the cluster with another CA',
        'KubeConfig referst to the cluster with another address'].map((name) => u('TestCreateKubeConfigFileIfNotExists', name, FILES)),
      u('TestCreateKubeconfigFilesAndWrappers', 'createKubeConfigFiles', FILES),
      u('TestCreateKubeconfigFilesAndWrappers', 'CreateJoinControlPlaneKubeConfigFiles', FILES),
      u('TestWriteKubeConfigFailsIfCADoesntExists', 'WriteKubeConfigWithClientCert', FILES),
      u('TestWriteKubeConfigFailsIfCADoesntExists', 'WriteKubeConfigWithToken', FILES),
      u('TestWriteKubeConfig', 'WriteKubeConfigWithClientCert', FILES),
      u('TestWriteKubeConfig', 'WriteKubeConfigWithToken', FILES),
      ...["kubeconfig don't exist", 'kubeconfig exist and has invalid ca', 'kubeconfig exist and has a different server url', 'kubeconfig exist and is valid',
        'kubeconfig exist and is valid even if its CA contains whitespace', 'kubeconfig exist and is valid even if its CA is provided as an external file']
        .map((name) => u('TestValidateKubeConfig', name, FILES)),
      ...["files don't exist", "some files don't exist", 'some files have invalid CA', 'some files have a different Server URL', 'all files are valid']
        .map((name) => u('TestValidateKubeconfigsForExternalCA', name, FILES)),
      ...['no errors', 'expect RBAC error', 'admin.conf is missing', 'super-admin.conf is missing'].map((name) => u('TestEnsureAdminClusterRoleBinding', name, FAKE_CLIENT)),
      ...['admin.conf: handle forbidden errors when the super-admin.conf client is nil',
        'admin.conf: handle forbidden error and returned CRBs, when the super-admin.conf client is nil',
        'admin.conf: CRB already exists, use the admin.conf client',
        'admin.conf: handle other errors, such as a server timeout',
        'admin.conf: CRB exists, return a client from admin.conf',
        'super-admin.conf: error while creating CRB',
        'super-admin.conf: admin.conf cannot create CRB, create CRB with super-admin.conf, return client from admin.conf',
        "super-admin.conf: admin.conf cannot create CRB, try to create CRB with super-admin.conf, encounter 'already exists' error",
      ].map((name) => u('TestEnsureAdminClusterRoleBindingImpl', name, FAKE_CLIENT)),
      ...['kubeadmConfig is nil', 'The kubeConfigDir is empty', 'The name is empty', 'The spec is empty', 'The kubeconfig file already exists',
        'The CSR or key files already exists', 'configuration is valid, expect no errors'].map((name) => u('TestCreateKubeConfigAndCSR', name, FILES)),
      ...['kubeadmConfig is empty', 'The APIEndpoint is invalid', 'The APIEndpoint is valid'].map((name) => u('TestCreateDefaultKubeConfigsAndCSRFiles', name, FILES)),
    ],
  },
  {
    path: 'cmd/kubeadm/app/preflight/checks_test.go',
    commit: 'unknown (index id 108067816)',
    minor: '1.36',
    portFile: 'test/integration/kubeadm-port/preflight-checks.test.ts',
    cases: [
      u('TestFileExistingCheck', "File does not exist, so it's not available", REAL_HOST),
      u('TestFileExistingCheck', 'File exists and is available', REAL_HOST),
      u('TestFileAvailableCheck', 'The file does not exist', REAL_HOST),
      u('TestFileAvailableCheck', 'The file exists', REAL_HOST),
      ...['File exists and has matching content', 'File exists, content is nil', 'File exists but has unexpected content', 'File does not exist, content is not nil',
        'File dose not exist, content is nil'].map((name) => u('TestFileContentCheck', name, REAL_HOST)),
      ...['Directory exists and is empty', 'Directory exists and has something', 'Directory does not exist'].map((name) => u('TestDirAvailableCheck', name, REAL_HOST)),
      u('TestPortOpenCheck', 'Port is available', REAL_HOST),
      u('TestPortOpenCheck', 'Port is not available', REAL_HOST),
      ...Array.from({ length: 13 }, (_, i) => u('TestRunChecks', `[row ${i + 1}]`, 'checks kubeadm\'s printed "\\t[WARNING …]" lines and error aggregation with Go Checker fakes; tsadm reports through its logger and its own runner (src/phases/preflight/run-checks.ts, tested in test/unit/phases/preflight/checks.test.ts)')),
      u('TestConfigRootCAs', '[single case]', 'internal helper of kubeadm\'s ExternalEtcdVersionCheck (TLS config from a CA file)'),
      u('TestConfigCertAndKey', '[single case]', 'internal helper of kubeadm\'s ExternalEtcdVersionCheck (TLS config from a cert and key)'),
      m('TestKubernetesVersionCheck', '[KubeadmVersion v1.6.6, KubernetesVersion v1.6.6]'),
      m('TestKubernetesVersionCheck', '[KubeadmVersion v1.6.6, KubernetesVersion v1.5.5]'),
      m('TestKubernetesVersionCheck', '[KubeadmVersion v1.6.6, KubernetesVersion v1.6.7]'),
      m('TestKubernetesVersionCheck', '[KubeadmVersion v1.6.6, KubernetesVersion v1.7.0-alpha.0]'),
      m('TestKubernetesVersionCheck', '[KubeadmVersion v1.6.6, KubernetesVersion v1.7.0]'),
      u('TestKubernetesVersionCheck', '[KubeadmVersion v0.0.0, KubernetesVersion v1.7.0]', 'kubeadm skips the check for a "super-custom" v0.0.0 build; tsadm has no build version in the check: its "kubeadm version" is its newest row, so there is no input for this case'),
      m('TestHTTPProxyCIDRCheck', '[127.0.0.0/8]'),
      m('TestHTTPProxyCIDRCheck', '[10.96.0.0/12]'),
      m('TestHTTPProxyCIDRCheck', '[192.168.0.0/16]'),
      m('TestHTTPProxyCIDRCheck', '[2001:db8::/56]'),
      m('TestHTTPProxyCIDRCheck', '[2001:db8:1::/56]'),
      m('TestHTTPProxyCheck', 'Loopback address'),
      m('TestHTTPProxyCheck', 'IPv4 direct access'),
      m('TestHTTPProxyCheck', 'IPv4 via proxy'),
      m('TestHTTPProxyCheck', 'IPv6 direct access'),
      m('TestHTTPProxyCheck', 'IPv6 via proxy'),
      m('TestHTTPProxyCheck', 'IPv6 direct access, no brackets'),
      m('TestHTTPProxyCheck', 'IPv6 via proxy, no brackets'),
      m('TestKubeletVersionCheck', 'v1.4.2'),
      m('TestKubeletVersionCheck', 'v1.1.0'),
      m('TestKubeletVersionCheck', 'v1.3.0'),
      m('TestKubeletVersionCheck', 'v1.3.5'),
      m('TestKubeletVersionCheck', 'v1.3.0#01'),
      m('TestKubeletVersionCheck', 'v1.4.0-alpha.1'),
      m('TestKubeletVersionCheck', 'v1.4.0'),
      ...['foo', 'foo#01', 'foo#02', 'foo#03', 'foo#04', 'Foo'].map((name) => u('TestSetHasItemOrAll', name, 'internal helper of kubeadm\'s --ignore-preflight-errors matching; tsadm matches inside runChecks (case-insensitive, "all"), tested in test/unit/phases/preflight/checks.test.ts')),
      u('TestNumCPUCheck', 'number of CPUs: 0', MINIMUMS),
      u('TestNumCPUCheck', 'number of CPUs: 999999999', MINIMUMS),
      u('TestMemCheck', 'MemoryCheck{0}', MINIMUMS),
      u('TestMemCheck', 'MemoryCheck{9999999999999999}', MINIMUMS),
      m('TestInitIPCheck', 'dual stack'),
      m('TestInitIPCheck', 'single stack ipv4'),
      m('TestInitIPCheck', 'single stack ipv6'),
      m('TestJoinIPCheck', 'single stack ipv4'),
      m('TestJoinIPCheck', 'single stack ipv6'),
    ],
  },
  {
    path: 'cmd/kubeadm/app/util/config/common_test.go',
    commit: 'unknown (index id 97320807)',
    minor: '1.30',
    portFile: 'test/integration/kubeadm-port/util-config-common.test.ts',
    cases: [
      ...['v1alpha1', 'v1alpha2', 'v1alpha3', 'v1beta1', 'v1beta2', 'v1beta3'].map((v) => u('TestValidateSupportedVersion', `kubeadm.k8s.io/${v}/allowDeprecated:false`, API_BY_BUILD)),
      u('TestValidateSupportedVersion', 'foo.k8s.io/v1/allowDeprecated:false', API_BY_BUILD),
      u('TestValidateSupportedVersion', 'kubeadm.k8s.io/v1beta4/allowDeprecated:false', API_BY_BUILD),
      u('TestValidateSupportedVersion', 'kubeadm.k8s.io/v1beta4/allowDeprecated:false#01', API_BY_BUILD),
      ...['empty struct', 'already lowercase', 'ip addresses and uppercase', 'punycode and uppercase'].map((name) => m('TestLowercaseSANs', name)),
      ...['valid address: IPV4', 'valid address: IPV6', 'invalid address: not a global unicast 0.0.0.0', 'invalid address: not a global unicast ::',
        'invalid address: cannot parse IPV4', 'invalid address: cannot parse IPV6'].map((name) => m('TestVerifyAPIServerBindAddress', name)),
      { test: 'TestVerifyAPIServerBindAddress', name: 'valid address 127.0.0.1', outcome: 'differs', reason: 'tsadm differs on purpose: kubeadm accepts a loopback advertise address and then looks for a global address on the loopback interface (a machine fact); tsadm validates the configuration without the machine and refuses loopback, naming the fix (src/config/validate-fields.ts validateAPIEndpoint)' },
      ...['empty file produces empty result', 'bad config produces error', 'unknown API produces error', 'InitConfiguration only gets migrated', 'ClusterConfiguration only gets migrated',
        'JoinConfiguration only gets migrated', 'Init + Cluster Configurations are migrated', 'Init + Join Configurations are migrated', 'Cluster + Join Configurations are migrated',
        'Init + Cluster + Join Configurations are migrated', 'component configs are not migrated', 'ClusterConfiguration gets migrated from experimental API',
        'ClusterConfiguration from experimental API cannot be migrated', 'ResetConfiguration gets migrated from experimental API', 'ResetConfiguration from experimental API cannot be migrated',
      ].map((name) => u('TestMigrateOldConfig', name, API_BY_BUILD)),
      ...['invalid subdomain', 'unknown API GVK', 'legacy API GVK', 'unknown field', 'valid', 'valid: experimental API', 'invalid: experimental API', 'valid ResetConfiguration',
        'invalid field in ResetConfiguration', 'experimental API is not allowed in ResetConfiguration'].map((name) => u('TestValidateConfig', name, API_BY_BUILD)),
      ...['invalid versionInfo', 'kubeadm is not a prerelease version', 'mcpVersion is equal to k8sVersion', 'k8sVersion is 1 MINOR version older than mcpVersion',
        'k8sVersion is 2 MINOR versions older than mcpVersion'].map((name) => u('TestIsKubeadmPrereleaseVersion', name, 'judges kubeadm\'s own build version (a pre-release kubeadm may deploy the next minor); tsadm has no build version in this decision: pre-releases are the preview row\'s (src/versions/release.ts)')),
      ...['normal version, default image repository', 'normal version, custom image repository', 'ci version, default image repository', 'ci version, custom image repository',
        'unsupported old version'].map((name) => u('TestNormalizeKubernetesVersion', name, 'the "ci/" version prefix and its CI image repository, and a minimum checked against kubeadm\'s own constants; tsadm deploys released versions (and named pre-releases) of its table only')),
      ...['mutate InitConfiguration', 'mutate JoinConfiguration', 'diff when mutating InitConfiguration', 'expect an error for a missing mutator']
        .map((name) => u('TestDefaultMigrateMutators', name, 'kubeadm\'s internal mutators on its internal types (v1beta3 timeouts moved to v1beta4 Timeouts); tsadm\'s conversion is tested on documents in test/unit/config/upconvert.test.ts')),
      ...[' Wrong Group value', 'Empty Group value', 'Nil value', 'Correct Group value 1', 'Correct Group value 2']
        .map((name) => u('TestIsKubeadmConfigPresent', name, 'an internal helper on kubeadm\'s DocumentMap; tsadm sorts documents by kind in src/config/documents.ts')),
    ],
  },
];

/**
 * The generated part of docs/kubeadm-test-port.md (between its ledger markers): the count table
 * and every case that is not a match, with its reason. ./ledger.test.ts checks the document holds
 * exactly this text.
 */
export function ledgerMarkdown(ledger: readonly LedgerFile[] = LEDGER): string {
  const count = (f: LedgerFile, o?: Outcome): number => f.cases.filter((c) => o === undefined || c.outcome === o).length;
  const mapped = (f: LedgerFile): number => count(f, 'match') + count(f, 'differs');
  const rev = (commit: string): string => (/^[0-9a-f]{40}$/.test(commit) ? commit.slice(0, 8) : commit);
  const rows = ledger.map((f) => `| ${f.path.replace('cmd/kubeadm/app/', '')} | ${rev(f.commit)} | ${f.minor} | ${count(f)} | ${mapped(f)} | ${count(f, 'match')} | ${count(f, 'differs')} | ${count(f, 'unmapped')} |`);
  const sum = (fn: (f: LedgerFile) => number): number => ledger.reduce((n, f) => n + fn(f), 0);
  const total = `| **total** | | | ${sum((f) => count(f))} | ${sum(mapped)} | ${sum((f) => count(f, 'match'))} | ${sum((f) => count(f, 'differs'))} | ${sum((f) => count(f, 'unmapped'))} |`;
  const lines = [
    '| source (cmd/kubeadm/app/…) | revision | tsadm row | cases | mapped | matched | differ | not mapped |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    total,
    '',
  ];
  for (const f of ledger) {
    const others = f.cases.filter((c) => c.outcome !== 'match');
    if (others.length === 0) continue;
    lines.push(`### ${f.path.replace('cmd/kubeadm/app/', '')}`, '');
    // One line per test function, outcome and reason: the cases it covers, then the reason once.
    const groups = new Map<string, { outcome: Outcome; test: string; reason: string; names: string[] }>();
    for (const c of others) {
      const key = JSON.stringify([c.outcome, c.test, c.reason ?? '']);
      const group = groups.get(key) ?? { outcome: c.outcome, test: c.test, reason: c.reason ?? '', names: [] };
      group.names.push(`"${c.name}"`);
      groups.set(key, group);
    }
    for (const g of groups.values()) {
      lines.push(`- ${g.outcome === 'differs' ? '**differs**' : 'not mapped'}: ${g.test} ${g.names.join(', ')}: ${g.reason}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
