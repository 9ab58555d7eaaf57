import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configMapHash } from '../../../src/kube/configmap-hash.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { kubeProxyConfigMap, kubeProxyConfiguration } from '../../../src/phases/addons/kube-proxy-render.js';
import { fullKubeProxyFields, kubeProxyTypesOf } from '../../../src/versions/kube-proxy-config.js';
import { SUPPORTED_MINORS, type SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { findObject, kubeadmObjects } from '../../helpers/kubeadm-fixtures.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/kube-proxy');
const server = 'https://cp.example.com:6443';

/** config.conf as the kube-proxy addon writes it for kubeadm's defaults (pod subnet 10.244.0.0/16, IPv4). */
function configConf(minor: SupportedMinor, user: Record<string, unknown> = {}): string {
  const { config } = kubeProxyConfiguration({ user, podSubnet: '10.244.0.0/16', advertiseAddress: '192.168.10.11', featureGates: {}, versions: VERSION_TABLE[minor] });
  return kubeProxyConfigMap(config, server, true).data?.['config.conf'] ?? '';
}

function golden(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8').replace(/\n$/, '');
}

describe('kube-proxy config.conf: the whole KubeProxyConfiguration, as kubeadm marshals it', () => {
  test('1.20: byte-identical to kubeadm v1.20.2\'s ConfigMap, and so the same component-config hash', () => {
    const theirs = findObject(kubeadmObjects('kubeadm-1.20-addon-objects.yaml'), 'ConfigMap', 'kube-proxy') as KubeObject & {
      readonly data: Readonly<Record<string, string>>; readonly metadata: { readonly annotations: Readonly<Record<string, string>> };
    };
    const { config } = kubeProxyConfiguration({ user: {}, podSubnet: '10.244.0.0/16', advertiseAddress: '192.168.10.11', featureGates: {}, versions: VERSION_TABLE['1.20'] });
    const ours = kubeProxyConfigMap(config, server, true);
    expect(ours.data?.['config.conf']).toBe(theirs.data['config.conf']);
    expect(ours.metadata.annotations).toEqual(theirs.metadata.annotations);
    expect(configMapHash(ours.data ?? {})).toBe(theirs.metadata.annotations['kubeadm.kubernetes.io/component-config.hash']);
  });

  // Golden files written from k8s.io/kube-proxy config/v1alpha1/types.go at v0.35.0, v0.36.0 and
  // v0.37.0-beta.0 and component-base logs/api/v1 (test/fixtures/kube-proxy/README.md).
  test.each([
    ['1.35', 'config-1.36.conf'],
    ['1.36', 'config-1.36.conf'],
    ['1.37', 'config-1.37.conf'],
  ] as const)('%s: byte-identical to the golden config.conf (%s)', (minor, file) => {
    expect(configConf(minor)).toBe(golden(file));
  });

  test('fields follow the types of each release: detectLocal from 1.24, udpIdleTimeout until 1.25, logging from 1.28, nftables from 1.29, logging text options from 1.30', () => {
    const keys = (minor: SupportedMinor): Record<string, unknown> => fullKubeProxyFields(kubeProxyTypesOf(VERSION_TABLE[minor]), {});
    expect(keys('1.23')).not.toHaveProperty('detectLocal');
    expect(keys('1.24')).toMatchObject({ detectLocal: { bridgeInterface: '', interfaceNamePrefix: '' }, winkernel: { rootHnsEndpointName: '', forwardHealthCheckVip: false } });
    expect(keys('1.25')).toMatchObject({ udpIdleTimeout: '0s' });
    expect(keys('1.26')).not.toHaveProperty('udpIdleTimeout');
    expect(keys('1.26')).toMatchObject({ iptables: { localhostNodePorts: null } });
    expect(keys('1.27')).not.toHaveProperty('logging');
    expect(keys('1.28')).toEqual(expect.objectContaining({ logging: { flushFrequency: 0, verbosity: 0, options: { json: { infoBufferSize: '0' } } } }));
    expect(keys('1.28')).not.toHaveProperty('nftables');
    expect(keys('1.29')).toMatchObject({ nftables: { masqueradeBit: null }, conntrack: { tcpBeLiberal: false, udpTimeout: '0s', udpStreamTimeout: '0s' } });
    expect(keys('1.30')).toMatchObject({ logging: { options: { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } } } });
    // windowsRunAsService (1.31) and featureGates are omitempty: absent unless set.
    expect(keys('1.37')).not.toHaveProperty('windowsRunAsService');
    expect(keys('1.37')).not.toHaveProperty('featureGates');
  });

  test('every supported minor writes the whole object with kubeadm\'s three values', () => {
    for (const minor of SUPPORTED_MINORS) {
      const text = configConf(minor);
      expect(text).toContain('bindAddressHardFail: false');
      expect(text).toContain('clusterCIDR: 10.244.0.0/16');
      expect(text).toContain('  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf');
    }
  });

  test('user values replace the zero values; durations in Go\'s form; fields the type lacks dropped; omitempty fields kept when set', () => {
    const user = {
      mode: 'ipvs',
      iptables: { syncPeriod: '1m', masqueradeBit: 14 },
      conntrack: { tcpCloseWaitTimeout: '1h', maxPerCore: 0 },
      ipvs: { excludeCIDRs: ['10.0.0.0/8'] },
      logging: { format: 'json', flushFrequency: '5s' },
      windowsRunAsService: true,
      udpIdleTimeout: '250ms',
      notAField: 1,
    };
    const full = fullKubeProxyFields('1.30', user);
    expect(full).toMatchObject({
      mode: 'ipvs',
      iptables: { syncPeriod: '1m0s', masqueradeBit: 14, minSyncPeriod: '0s', localhostNodePorts: null, masqueradeAll: false },
      conntrack: { tcpCloseWaitTimeout: '1h0m0s', maxPerCore: 0, min: null },
      ipvs: { excludeCIDRs: ['10.0.0.0/8'], scheduler: '' },
      logging: { format: 'json', flushFrequency: '5s', verbosity: 0 },
      windowsRunAsService: true,
    });
    expect(full).not.toHaveProperty('udpIdleTimeout');
    expect(full).not.toHaveProperty('notAField');
    expect(fullKubeProxyFields('1.20', user)).toMatchObject({ udpIdleTimeout: '250ms' });
    // Text Go cannot parse is passed on for validation to report, not rewritten.
    expect(fullKubeProxyFields('1.30', { configSyncPeriod: 'soon' })).toMatchObject({ configSyncPeriod: 'soon' });
  });
});
