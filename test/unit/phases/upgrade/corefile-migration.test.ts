import { kubeadmObjects, findObject } from '../../../helpers/kubeadm-fixtures.js';
import type { ConfigMapObject } from '../../../../src/kube/types.js';
import { corefileDecision, imageTag } from '../../../../src/phases/upgrade/corefile-migration.js';

/**
 * The Corefile decision of kubeadm's createCoreDNSAddon: the default Corefile is replaced by the
 * target's, a customised one is retained (kubeadm migrates it only across CoreDNS versions, and
 * says so when it cannot). The default is the one kubeadm v1.20.2 itself printed (dry-run fixture).
 */
const kubeadm120Corefile = (findObject(kubeadmObjects('kubeadm-1.20-addon-objects.yaml'), 'ConfigMap', 'coredns') as ConfigMapObject).data?.Corefile ?? '';
const custom = '.:53 {\n    errors\n    forward . 1.1.1.1\n}\n';

describe('corefileDecision', () => {
  test('kubeadm 1.20\'s default Corefile is replaced, whatever the versions', () => {
    expect(kubeadm120Corefile).toContain('kubernetes cluster.local in-addr.arpa ip6.arpa');
    expect(corefileDecision({ corefile: kubeadm120Corefile, installedTag: '1.7.0', targetTag: 'v1.8.0' })).toEqual({ action: 'replace' });
    expect(corefileDecision({ corefile: kubeadm120Corefile.replaceAll('cluster.local', 'example.internal'), installedTag: '1.7.0', targetTag: '1.7.0' })).toEqual({ action: 'replace' });
  });

  test('no Corefile (empty or no ConfigMap key): the target\'s default is written', () => {
    expect(corefileDecision({ corefile: undefined, installedTag: '1.7.0', targetTag: 'v1.8.0' })).toEqual({ action: 'replace' });
    expect(corefileDecision({ corefile: '', installedTag: undefined, targetTag: 'v1.8.0' })).toEqual({ action: 'replace' });
  });

  test('a customised Corefile on the same CoreDNS version is kept silently ("v" prefix of 1.21+ tags ignored)', () => {
    expect(corefileDecision({ corefile: custom, installedTag: '1.7.0', targetTag: '1.7.0' })).toEqual({ action: 'retain' });
    expect(corefileDecision({ corefile: custom, installedTag: 'v1.8.0', targetTag: '1.8.0' })).toEqual({ action: 'retain' });
    // One edit of the default is enough to make it the user's.
    expect(corefileDecision({ corefile: kubeadm120Corefile.replace('cache 30', 'cache 60'), installedTag: '1.7.0', targetTag: '1.7.0' })).toEqual({ action: 'retain' });
  });

  test('a customised Corefile across CoreDNS versions is kept with kubeadm\'s not-migrated warning', () => {
    const d = corefileDecision({ corefile: custom, installedTag: '1.7.0', targetTag: 'v1.8.0' });
    expect(d.action).toBe('retain');
    expect(d).toHaveProperty('warning');
    const warning = (d as { warning: string }).warning;
    expect(warning).toMatch(/^the CoreDNS Configuration was not migrated: .*1\.7\.0.*1\.8\.0.*\. The existing CoreDNS Corefile configuration has been retained\.$/);
  });
});

describe('imageTag', () => {
  test('the tag of kubeadm\'s CoreDNS images, none for a digest or a registry port alone', () => {
    expect(imageTag('k8s.gcr.io/coredns:1.7.0')).toBe('1.7.0');
    expect(imageTag('k8s.gcr.io/coredns/coredns:v1.8.0')).toBe('v1.8.0');
    expect(imageTag('registry.local:5000/coredns')).toBeUndefined();
    expect(imageTag('registry.local:5000/coredns@sha256:abcd')).toBeUndefined();
    expect(imageTag('registry.local:5000/coredns:1.7.0@sha256:abcd')).toBe('1.7.0');
  });
});
