import { argsModeOf, buildArgs } from '../../../src/manifest/args.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { NO_HOST_FACTS } from '../../../src/manifest/inputs.js';
import { fixtureConfigWith, renderControlPlanePod, commandFlags, fixtureCluster } from '../../helpers/control-plane-pod.js';
import { staticPodConfigFromInit } from '../../../src/manifest/inputs.js';
import { renderStaticPod } from '../../../src/manifest/render.js';
import { profileFor } from '../../../src/versions/resolve.js';

describe('extraArgs', () => {
  const defaults = [{ name: 'b', value: '1' }, { name: 'a', value: '1' }, { name: 'c', value: '1' }];

  test('map semantics (≤1.30): a user value replaces the default of that name; result sorted by name', () => {
    expect(buildArgs(defaults, [{ name: 'c', value: '2' }, { name: 'z', value: '0' }], 'map')).toEqual(['--a=1', '--b=1', '--c=2', '--z=0']);
  });

  test('list semantics (≥1.31): an override replaces every default of its name; repeats sorted by value', () => {
    const d = [...defaults, { name: 'a', value: '0' }];
    expect(buildArgs(d, [{ name: 'a', value: 'y' }, { name: 'a', value: 'x' }], 'list')).toEqual(['--a=x', '--a=y', '--b=1', '--c=1']);
  });

  test('user order (≥1.36, kubeadm PR #135400): the remaining defaults sorted by (name, value), then the user\'s args exactly as written', () => {
    const d = [...defaults, { name: 'a', value: '0' }];
    const user = [{ name: 'z', value: '9' }, { name: 'c', value: '2' }, { name: 'a', value: 'y' }, { name: 'z', value: '1' }];
    // kubeadm's ArgumentsToCommand: sortArgsSlice(base), drop base names present in the overrides, append the overrides.
    expect(buildArgs(d, user, 'list-user-order')).toEqual(['--b=1', '--z=9', '--c=2', '--a=y', '--z=1']);
    expect(buildArgs(d, [], 'list-user-order')).toEqual(['--a=0', '--a=1', '--b=1', '--c=1']);
  });

  test('which merge each minor uses: map ≤1.30, sorted list 1.31–1.35, user order from 1.36', () => {
    expect(argsModeOf(VERSION_TABLE['1.30'])).toBe('map');
    expect(argsModeOf(VERSION_TABLE['1.31'])).toBe('list');
    expect(argsModeOf(VERSION_TABLE['1.35'])).toBe('list');
    expect(argsModeOf(VERSION_TABLE['1.36'])).toBe('list-user-order');
    expect(argsModeOf(VERSION_TABLE['1.37'])).toBe('list-user-order');
  });

  test('the issue behind PR #135400: repeated --service-account-issuer keep the user\'s order from 1.36 (the first one signs tokens)', () => {
    const extraArgs = [{ name: 'service-account-issuer', value: 'https://new.example' }, { name: 'service-account-issuer', value: 'https://kubernetes.default.svc.cluster.local' }];
    const apiServer = { ...fixtureCluster.apiServer, extraArgs };
    const issuers = (minor: '1.35' | '1.36'): string[] => commandFlags(renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer }, minor), NO_HOST_FACTS, minor))
      .filter((f) => f.startsWith('--service-account-issuer='));
    expect(issuers('1.35')).toEqual(['--service-account-issuer=https://kubernetes.default.svc.cluster.local', '--service-account-issuer=https://new.example']);
    expect(issuers('1.36')).toEqual(['--service-account-issuer=https://new.example', '--service-account-issuer=https://kubernetes.default.svc.cluster.local']);
  });

  test('patch releases: the cherry-picks of PR #135400 keep the user order from v1.35.1 (#135853), v1.34.4, v1.33.8 and v1.32.12; the patch before sorts', () => {
    for (const [before, after] of [['v1.35.0', 'v1.35.1'], ['v1.34.3', 'v1.34.4'], ['v1.33.7', 'v1.33.8'], ['v1.32.11', 'v1.32.12']] as const) {
      expect([argsModeOf(profileFor(before)), argsModeOf(profileFor(after))]).toEqual(['list', 'list-user-order']);
    }
    const extraArgs = [{ name: 'service-account-issuer', value: 'https://new.example' }, { name: 'service-account-issuer', value: 'https://kubernetes.default.svc.cluster.local' }];
    const issuers = (version: string): string[] => {
      const cfg = fixtureConfigWith({ apiServer: { ...fixtureCluster.apiServer, extraArgs }, kubernetesVersion: version });
      return commandFlags(renderStaticPod('kube-apiserver', staticPodConfigFromInit(cfg), profileFor(version), NO_HOST_FACTS)).filter((f) => f.startsWith('--service-account-issuer='));
    };
    expect(issuers('v1.35.0')).toEqual(['--service-account-issuer=https://kubernetes.default.svc.cluster.local', '--service-account-issuer=https://new.example']);
    expect(issuers('v1.35.1')).toEqual(['--service-account-issuer=https://new.example', '--service-account-issuer=https://kubernetes.default.svc.cluster.local']);
  });

  test('1.36: without extraArgs the apiserver command is sorted, --authorization-mode among the defaults (kubeadm sets it in defaultArguments); a user value comes last, as written', () => {
    const plain = commandFlags(renderControlPlanePod('kube-apiserver', fixtureConfigWith({}, '1.36'), NO_HOST_FACTS, '1.36'));
    expect(plain).toEqual([...plain].sort());
    expect(plain).toContain('--authorization-mode=Node,RBAC');
    const apiServer = { ...fixtureCluster.apiServer, extraArgs: [{ name: 'v', value: '2' }, { name: 'authorization-mode', value: 'RBAC,Node' }] };
    const flags = commandFlags(renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer }, '1.36'), NO_HOST_FACTS, '1.36'));
    expect(flags.slice(-2)).toEqual(['--v=2', '--authorization-mode=RBAC,Node']);
    expect(flags.filter((f) => f.startsWith('--authorization-mode='))).toEqual(['--authorization-mode=RBAC,Node']);
    expect(flags.slice(0, -2)).toEqual([...flags.slice(0, -2)].sort());
  });

  test('the apiserver uses map semantics in 1.30 and list semantics in 1.31', () => {
    const extra = [{ name: 'v', value: '2' }, { name: 'v', value: '4' }];
    const apiServer = { ...fixtureCluster.apiServer, extraArgs: extra };
    expect(commandFlags(renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer }, '1.30'), NO_HOST_FACTS, '1.30')).filter((f) => f.startsWith('--v='))).toEqual(['--v=4']);
    expect(commandFlags(renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer }, '1.31'), NO_HOST_FACTS, '1.31')).filter((f) => f.startsWith('--v='))).toEqual(['--v=2', '--v=4']);
  });

  test('a user --secure-port overrides the default; the probes still follow the bind port', () => {
    const pod = renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer: { ...fixtureCluster.apiServer, extraArgs: [{ name: 'secure-port', value: '7443' }] } }));
    expect(commandFlags(pod)).toContain('--secure-port=7443');
    expect(commandFlags(pod)).not.toContain('--secure-port=6443');
  });
});
