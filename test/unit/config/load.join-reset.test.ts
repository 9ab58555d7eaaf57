import { resolveJoinConfig, resolveResetConfig } from '../../../src/config/load.js';
import type { ResolvedJoinConfig } from '../../../src/config/types.js';
import { ENV, errorLines, withConfig } from './support.js';

const HASH = `sha256:${'0a'.repeat(32)}`;
const TOKEN = 'abcdef.0123456789abcdef';

describe('join', () => {
  test('the usual worker command line', () => {
    const cfg = resolveJoinConfig({
      apiServerEndpoint: '192.168.10.11:6443',
      flags: { token: TOKEN, 'discovery-token-ca-cert-hash': [HASH] },
      env: ENV,
    });
    expect(cfg).toEqual<ResolvedJoinConfig>({
      kind: 'join',
      join: {
        nodeRegistration: { name: 'cp1', criSocket: '', taints: undefined, kubeletExtraArgs: [], ignorePreflightErrors: [], imagePullPolicy: 'IfNotPresent', imagePullSerial: true },
        caCertPath: '/etc/kubernetes/pki/ca.crt',
        discovery: {
          bootstrapToken: { token: TOKEN, apiServerEndpoint: '192.168.10.11:6443', caCertHashes: [HASH], unsafeSkipCAVerification: false },
          tlsBootstrapToken: TOKEN,
          timeoutMs: 300_000,
        },
        skipPhases: [],
        timeouts: {
          controlPlaneComponentHealthCheckMs: 240_000, kubeletHealthCheckMs: 240_000, kubernetesAPICallMs: 60_000,
          etcdAPICallMs: 120_000, tlsBootstrapMs: 300_000, discoveryMs: 300_000,
        },
        dryRun: false,
      },
      warnings: [],
    });
  });

  test('--token only fills the discovery and TLS bootstrap tokens that are not given', () => {
    const other = 'zzzzzz.zzzzzzzzzzzzzzzz';
    const cfg = resolveJoinConfig({ apiServerEndpoint: 'cp.example.com:6443', flags: { token: TOKEN, 'tls-bootstrap-token': other, 'discovery-token-unsafe-skip-ca-verification': true }, env: ENV });
    expect(cfg.join.discovery.bootstrapToken?.token).toBe(TOKEN);
    expect(cfg.join.discovery.tlsBootstrapToken).toBe(other);
    const cfg2 = resolveJoinConfig({ apiServerEndpoint: 'cp.example.com:6443', flags: { token: TOKEN, 'discovery-token': other, 'discovery-token-unsafe-skip-ca-verification': true }, env: ENV });
    expect(cfg2.join.discovery.bootstrapToken?.token).toBe(other);
    expect(cfg2.join.discovery.tlsBootstrapToken).toBe(TOKEN);
  });

  test('--control-plane adds a local API endpoint defaulted like init', () => {
    const cfg = resolveJoinConfig({
      apiServerEndpoint: 'lb:6443',
      flags: { token: TOKEN, 'discovery-token-ca-cert-hash': [HASH], 'control-plane': true, 'certificate-key': 'b'.repeat(64), 'apiserver-bind-port': 7443 },
      env: ENV,
    });
    expect(cfg.join.controlPlane).toEqual({ localAPIEndpoint: { advertiseAddress: '192.168.10.11', bindPort: 7443 }, certificateKey: 'b'.repeat(64) });
    // Taints stay unset: the control-plane default is applied by mark-control-plane for the target version.
    expect(cfg.join.nodeRegistration.taints).toBeUndefined();
  });

  test('control-plane flags without --control-plane are ignored with kubeadm\'s warning', () => {
    const cfg = resolveJoinConfig({ apiServerEndpoint: 'lb:6443', flags: { token: TOKEN, 'discovery-token-unsafe-skip-ca-verification': true, 'certificate-key': 'b'.repeat(64) }, env: ENV });
    expect(cfg.join.controlPlane).toBeUndefined();
    expect(cfg.warnings).toEqual(['--control-plane is also required when passing control-plane related flags such as [certificate-key, apiserver-advertise-address, apiserver-bind-port]']);
  });

  test('file discovery', () => {
    const cfg = resolveJoinConfig({ flags: { 'discovery-file': '/etc/kubernetes/discovery.conf', 'tls-bootstrap-token': TOKEN }, env: ENV });
    expect(cfg.join.discovery).toEqual({ file: { kubeConfigPath: '/etc/kubernetes/discovery.conf' }, tlsBootstrapToken: TOKEN, timeoutMs: 300_000 });
  });

  test('no endpoint and no discovery file: kubeadm\'s discovery error', () => {
    expect(errorLines(() => resolveJoinConfig({ flags: { token: TOKEN }, env: ENV }))[0])
      .toBe('discovery: bootstrapToken or file must be set (give the control-plane endpoint with --token, or --discovery-file)');
  });

  test('no pins and no unsafe skip: kubeadm\'s message, attributed to the flags', () => {
    const lines = errorLines(() => resolveJoinConfig({ apiServerEndpoint: '10.0.0.1:6443', flags: { token: TOKEN }, env: ENV }));
    expect(lines[0]).toBe('discovery.bootstrapToken.caCertHashes: using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue');
  });

  test('bad token and hash from flags name the flag', () => {
    const lines = errorLines(() => resolveJoinConfig({ apiServerEndpoint: '10.0.0.1', flags: { token: 'bad', 'discovery-token-ca-cert-hash': ['sha256:12'] }, env: ENV }));
    expect(lines.slice(1)).toEqual([
      'discovery.bootstrapToken.apiServerEndpoint: invalid value "10.0.0.1": address 10.0.0.1: missing port in address (from the api-server-endpoint argument)',
      'discovery.bootstrapToken.caCertHashes[0]: invalid value "sha256:12": expected a 32 byte SHA-256 hash (64 hex characters), found 2 characters (from --discovery-token-ca-cert-hash)',
      expect.stringMatching(/^discovery\.bootstrapToken\.token: invalid value "bad": the bootstrap token is invalid .*\(from --token\)$/),
      expect.stringMatching(/^discovery\.tlsBootstrapToken: invalid value "bad": the bootstrap token is invalid .*\(from --token\)$/),
    ]);
  });

  test('with --config the endpoint argument is not used (kubeadm reads discovery from the file)', () => {
    const text = `apiVersion: kubeadm.k8s.io/v1beta2\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    token: ${TOKEN}\n    apiServerEndpoint: 10.0.0.1:6443\n    caCertHashes: [${HASH}]\n  timeout: 2m\n`;
    const cfg = resolveJoinConfig({ ...withConfig(text, { 'node-name': 'w1' }), apiServerEndpoint: '10.9.9.9:6443' });
    expect(cfg.join.discovery.bootstrapToken?.apiServerEndpoint).toBe('10.0.0.1:6443');
    expect(cfg.join.discovery.tlsBootstrapToken).toBe(TOKEN);
    expect(cfg.join.discovery.timeoutMs).toBe(120_000);
    expect(cfg.join.nodeRegistration.name).toBe('w1');
    expect(cfg.warnings).toEqual(['the API server endpoint argument "10.9.9.9:6443" is ignored: --config is given']);
  });

  test('a JoinConfiguration with controlPlane: {} joins a control plane with defaults', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  file:\n    kubeConfigPath: https://example.com/ci.yaml\ncontrolPlane: {}\n';
    expect(resolveJoinConfig(withConfig(text)).join.controlPlane).toEqual({ localAPIEndpoint: { advertiseAddress: '192.168.10.11', bindPort: 6443 }, certificateKey: '' });
  });
});

describe('reset', () => {
  test('defaults', () => {
    expect(resolveResetConfig({ flags: {}, env: ENV })).toEqual({
      kind: 'reset',
      reset: { certificatesDir: '/etc/kubernetes/pki', criSocket: '', force: false, ignorePreflightErrors: [], skipPhases: [], cleanupTmpDir: false, dryRun: false, unmountFlags: [] },
      warnings: [],
    });
  });

  test('flags', () => {
    const cfg = resolveResetConfig({ flags: { 'cert-dir': '/srv/pki', 'cri-socket': 'unix:///run/crio/crio.sock', force: true, 'cleanup-tmp-dir': true, 'ignore-preflight-errors': ['IsPrivilegedUser'], 'skip-phases': ['cleanup-node'] }, env: ENV });
    expect(cfg.reset).toEqual({
      certificatesDir: '/srv/pki', criSocket: 'unix:///run/crio/crio.sock', force: true, ignorePreflightErrors: ['isprivilegeduser'],
      skipPhases: ['cleanup-node'], cleanupTmpDir: true, dryRun: false, unmountFlags: [],
    });
  });

  test('a v1beta4 ResetConfiguration', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ncertificatesDir: /srv/pki\nunmountFlags: [MNT_DETACH]\ntimeouts:\n  etcdAPICall: 1m\n';
    const cfg = resolveResetConfig(withConfig(text, { 'ignore-preflight-errors': ['all'] }));
    expect(cfg.reset).toMatchObject({ force: true, certificatesDir: '/srv/pki', unmountFlags: ['MNT_DETACH'], ignorePreflightErrors: ['all'] });
    expect(cfg.reset.timeouts).toEqual({ etcdAPICallMs: 60_000 });
  });

  test('ResetConfiguration timeouts: the API and etcd call timeouts are kept; the ones reset never uses are warned about by name', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\ntimeouts:\n  kubernetesAPICall: 30s\n  etcdAPICall: 2m\n  kubeletHealthCheck: 1m\n  discovery: 1m\n';
    const cfg = resolveResetConfig(withConfig(text));
    expect(cfg.reset.timeouts).toEqual({ kubernetesAPICallMs: 30_000, etcdAPICallMs: 120_000 });
    expect(cfg.warnings).toEqual([
      "ResetConfiguration timeouts.kubeletHealthCheck has no effect on reset (kubeadm's reset does not use it either); remove it to silence this warning",
      "ResetConfiguration timeouts.discovery has no effect on reset (kubeadm's reset does not use it either); remove it to silence this warning",
    ]);
  });

  test('a ResetConfiguration without timeouts has none (reset keeps its own short API deadline)', () => {
    const cfg = resolveResetConfig(withConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\n'));
    expect(cfg.reset.timeouts).toBeUndefined();
    expect(cfg.warnings).toEqual([]);
  });

  test('timeouts a command has no use for are warned about by name: init (discovery, tlsBootstrap, upgradeManifests), join (upgradeManifests)', async () => {
    const { resolveInitConfig } = await import('../../../src/config/load.js');
    const init = resolveInitConfig(withConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\ntimeouts:\n  discovery: 1m\n  kubeletHealthCheck: 2m\n  upgradeManifests: 1m\n'));
    expect(init.warnings).toEqual([
      "InitConfiguration timeouts.discovery has no effect on init (kubeadm's init does not use it either); remove it to silence this warning",
      "InitConfiguration timeouts.upgradeManifests has no effect on init (kubeadm's init does not use it either); remove it to silence this warning",
    ]);
    expect(init.init.timeouts.kubeletHealthCheckMs).toBe(120_000);
    const join = resolveJoinConfig(withConfig([
      'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: JoinConfiguration',
      'discovery:', '  bootstrapToken:', '    token: abcdef.0123456789abcdef', '    apiServerEndpoint: 10.0.0.1:6443', '    unsafeSkipCAVerification: true',
      'timeouts:', '  discovery: 1m', '  upgradeManifests: 1m', '',
    ].join('\n')));
    expect(join.warnings).toEqual(["JoinConfiguration timeouts.upgradeManifests has no effect on join (kubeadm's join does not use it either); remove it to silence this warning"]);
  });

  test('a timeout at kubeadm\'s default is not warned about (kubeadm prints every timeout into each kind\'s defaults)', async () => {
    const { resolveInitConfig } = await import('../../../src/config/load.js');
    const init = resolveInitConfig(withConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\ntimeouts:\n  discovery: 5m0s\n  tlsBootstrap: 5m0s\n  upgradeManifests: 5m0s\n'));
    expect(init.warnings).toEqual([]);
    const reset = resolveResetConfig(withConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\ntimeouts:\n  controlPlaneComponentHealthCheck: 4m0s\n  kubeletHealthCheck: 4m0s\n  discovery: 5m0s\n  tlsBootstrap: 5m0s\n  upgradeManifests: 5m0s\n'));
    expect(reset.warnings).toEqual([]);
  });

  test('a zero ResetConfiguration timeouts.kubernetesAPICall is refused by name', () => {
    const lines = errorLines(() => resolveResetConfig(withConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\ntimeouts:\n  kubernetesAPICall: 0s\n')));
    expect(lines).toContain('timeouts.kubernetesAPICall: must be greater than zero');
  });
});
