/**
 * tokensFromConfig: kubeadm's RunCreateToken loads --config as an InitConfiguration, defaulted as
 * kubeadm's SetDefaults_BootstrapToken does (oracle: kubeadm's v1beta2/v1beta4 defaults.go and
 * `kubeadm config print init-defaults`: ttl 24h0m0s, usages signing+authentication, group
 * system:bootstrappers:kubeadm:default-node-token), and refuses token flags next to --config
 * with ValidateMixedArguments' message.
 */
import { tokensFromConfig } from '../../../src/token/config-tokens.js';

const base = { configPath: 'k.yaml', flagsSet: [] as string[], now: new Date('2024-01-01T00:00:00Z'), hostname: 'cp1' };

describe('tokensFromConfig', () => {
  test('no bootstrapTokens: one default token, generated', () => {
    const { tokens } = tokensFromConfig({ ...base, configText: 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n' });
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ ttlMs: 24 * 3600_000, usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'] });
    expect(tokens[0]!.token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  });

  test('entries keep their fields; a missing token is generated, missing ttl/usages/groups defaulted', () => {
    const { tokens } = tokensFromConfig({
      ...base,
      configText: [
        'apiVersion: kubeadm.k8s.io/v1beta3', 'kind: InitConfiguration', 'bootstrapTokens:',
        '- token: abcdef.0123456789abcdef', '  ttl: 1h', '  description: one', '  usages: [authentication]', '  groups: [system:bootstrappers:extra]',
        '- description: two',
        // A target that reads v1beta3 (kubeadm 1.37 no longer does, PR #136016).
        '---', 'apiVersion: kubeadm.k8s.io/v1beta3', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.34.1', '',
      ].join('\n'),
    });
    expect(tokens[0]).toMatchObject({ token: 'abcdef.0123456789abcdef', ttlMs: 3600_000, description: 'one', usages: ['authentication'], groups: ['system:bootstrappers:extra'] });
    expect(tokens[1]).toMatchObject({ description: 'two', ttlMs: 24 * 3600_000, usages: ['signing', 'authentication'] });
    expect(tokens[1]!.token).not.toBe(tokens[0]!.token);
  });

  test('token flags next to --config: kubeadm\'s message, sorted as pflag visits them; allowed flags pass', () => {
    expect(() => tokensFromConfig({ ...base, configText: 'kind: InitConfiguration\n', flagsSet: ['usages', 'ttl', 'certificate-key', 'kubeconfig'] }))
      .toThrow("can not mix '--config' with arguments [certificate-key ttl usages]");
    expect(() => tokensFromConfig({ ...base, configText: 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n', flagsSet: ['kubeconfig', 'print-join-command', 'dry-run'] })).not.toThrow();
  });

  test('an invalid token in the file is refused by the configuration check', () => {
    expect(() => tokensFromConfig({ ...base, configText: 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nbootstrapTokens:\n- token: not-a-token\n' })).toThrow(/bootstrapTokens/);
  });
});
