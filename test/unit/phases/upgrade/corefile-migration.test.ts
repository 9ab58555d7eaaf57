import { kubeadmObjects, findObject } from '../../../helpers/kubeadm-fixtures.js';
import type { ConfigMapObject } from '../../../../src/kube/types.js';
import { corefileDecision, imageTag, removedOptions, uncheckable } from '../../../../src/phases/upgrade/corefile-migration.js';

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

  test('a customised Corefile without removed options is kept silently across versions (no notice in the library\'s tables)', () => {
    expect(corefileDecision({ corefile: custom, installedTag: '1.7.0', targetTag: 'v1.8.0' })).toEqual({ action: 'retain' });
    expect(corefileDecision({ corefile: custom, installedTag: 'v1.8.0', targetTag: 'v1.11.3' })).toEqual({ action: 'retain' });
  });

  const withKubernetes = (option: string): string =>
    `.:53 {\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       ${option}\n    }\n    forward . /etc/resolv.conf\n}\n`;

  test('kubernetes "transfer" removed in CoreDNS 1.8.0 (plugins.go "v8 remove transfer option"): kubeadm would migrate; tsadm keeps it and says why', () => {
    const d = corefileDecision({ corefile: withKubernetes('transfer to *'), installedTag: '1.7.0', targetTag: 'v1.8.0' });
    expect(d.action).toBe('retain');
    const warning = (d as { warning?: string }).warning ?? '';
    expect(warning).toMatch(/^the CoreDNS Configuration was not migrated: .*\. The existing CoreDNS Corefile configuration has been retained\.$/);
    expect(warning).toContain('option "transfer" of plugin "kubernetes" (removed in 1.8.0)');
  });

  test('"resyncperiod" and "upstream" are removed in 1.7.1 (kubernetes v7), so a walk from 1.7.0 reports them', () => {
    expect(removedOptions(withKubernetes('upstream'), '1.7.0', '1.8.0')).toEqual([{ option: 'upstream', version: '1.7.1' }]);
    expect(removedOptions(withKubernetes('resyncperiod 30s'), '1.7.0', '1.11.3')).toEqual([{ option: 'resyncperiod', version: '1.7.1' }]);
  });

  test('after 1.8.0 nothing is reported as removed (the library only flags an option in the release that removed it)', () => {
    expect(removedOptions(withKubernetes('transfer to *'), '1.8.0', '1.11.3')).toEqual([]);
    expect(corefileDecision({ corefile: withKubernetes('transfer to *'), installedTag: 'v1.8.0', targetTag: 'v1.8.4' })).toEqual({ action: 'retain' });
  });

  test('"transfer" of another plugin is not the kubernetes option', () => {
    const file = '.:53 {\n    kubernetes cluster.local {\n       pods insecure\n    }\n    file db.example.org example.org {\n       transfer to *\n    }\n}\n';
    expect(removedOptions(file, '1.7.0', '1.8.0')).toEqual([]);
  });

  test('versions outside the library\'s table: kept with the not-migrated warning (the check cannot be made)', () => {
    const d = corefileDecision({ corefile: custom, installedTag: 'v1.11.3', targetTag: 'v1.12.0' });
    expect(d.action).toBe('retain');
    expect((d as { warning?: string }).warning).toContain('cannot check a customised Corefile for the upgrade from CoreDNS 1.11.3 to 1.12.0');
    expect(removedOptions(custom, '1.8.0', '1.7.0')).toBeUndefined();
  });
});

/**
 * The upgrade paths of issue 26 (CoreDNS per minor from the golden facts: 1.34 v1.12.1, 1.35
 * v1.13.1, 1.36 v1.14.2, 1.37 v1.14.6). The library knows all of them (its ValidVersions, in
 * corefile-tool/cmd/validversions_test.go at coredns/corefile-migration 04f4560c: … 1.12.1, 1.12.2,
 * 1.12.3, 1.12.4. 1.13.0, 1.13.1, 1.13.2, 1.14.0, 1.14.1, 1.14.2, 1.14.3, 1.14.4, 1.14.6), but its
 * plugin tables after 1.11.3 were not readable: only 1.12.2 and 1.12.3 are known to need no
 * migration (the library's PRs #91 and #92). So tsadm keeps a customised Corefile and says it
 * could not check it, naming the first release on the way whose table it lacks.
 */
describe('the upgrades 1.34 → 1.35 → 1.36 → 1.37 (CoreDNS v1.12.1 → v1.13.1 → v1.14.2 → v1.14.6)', () => {
  const withTransfer = '.:53 {\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       transfer to *\n    }\n    forward . /etc/resolv.conf\n}\n';

  test.each([
    ['v1.12.1', 'v1.13.1', '1.12.4'],
    ['v1.13.1', 'v1.14.2', '1.13.2'],
    ['v1.14.2', 'v1.14.6', '1.14.3'],
  ])('%s → %s: a customised Corefile is retained with the not-migrated warning naming CoreDNS %s', (installedTag, targetTag, unread) => {
    const d = corefileDecision({ corefile: custom, installedTag, targetTag });
    expect(d).toEqual({
      action: 'retain',
      warning: `the CoreDNS Configuration was not migrated: tsadm cannot check a customised Corefile for the upgrade from CoreDNS ${installedTag.slice(1)} to ${targetTag.slice(1)} `
        + `(tsadm has not read corefile-migration's plugin table of CoreDNS ${unread}). The existing CoreDNS Corefile configuration has been retained.`,
    });
    expect(removedOptions(custom, installedTag.slice(1), targetTag.slice(1))).toBeUndefined();
  });

  test('each step\'s default Corefile is still replaced by the target\'s (nothing to check)', () => {
    for (const [installedTag, targetTag] of [['v1.12.1', 'v1.13.1'], ['v1.13.1', 'v1.14.2'], ['v1.14.2', 'v1.14.6']] as const) {
      expect(corefileDecision({ corefile: kubeadm120Corefile, installedTag, targetTag })).toEqual({ action: 'replace' });
      expect(corefileDecision({ corefile: '', installedTag, targetTag })).toEqual({ action: 'replace' });
    }
  });

  test('the same CoreDNS on both sides (a patch upgrade within a minor) keeps a customised Corefile silently', () => {
    expect(corefileDecision({ corefile: custom, installedTag: 'v1.14.6', targetTag: 'v1.14.6' })).toEqual({ action: 'retain' });
  });

  test('1.12.1 → 1.12.3 can be checked (PRs #91, #92: no migrations), and nothing of 1.8.0 is reported again', () => {
    expect(uncheckable('1.12.1', '1.12.3')).toBeUndefined();
    expect(removedOptions(withTransfer, '1.12.1', '1.12.3')).toEqual([]);
    expect(corefileDecision({ corefile: withTransfer, installedTag: 'v1.12.1', targetTag: 'v1.12.3' })).toEqual({ action: 'retain' });
  });

  test('the chain after 1.11.3 is the library\'s: 1.11.4 comes next, 1.14.5 is not a release it knows, 1.13.x are on the way', () => {
    expect(uncheckable('1.11.3', '1.11.4')).toBe("tsadm has not read corefile-migration's plugin table of CoreDNS 1.11.4");
    expect(uncheckable('1.14.4', '1.14.5')).toBe("CoreDNS 1.14.5 is not in corefile-migration's release chain as tsadm knows it");
    expect(uncheckable('1.14.7', '1.14.6')).toBe("CoreDNS 1.14.7 is not in corefile-migration's release chain as tsadm knows it");
    expect(uncheckable('1.14.6', '1.14.2')).toBe('CoreDNS 1.14.2 is not newer than 1.14.6');
    expect(uncheckable('1.12.3', '1.14.6')).toBe("tsadm has not read corefile-migration's plugin table of CoreDNS 1.12.4");
    // Up to 1.11.3 every table was read.
    expect(uncheckable('1.7.0', '1.11.3')).toBeUndefined();
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
