import { buildArgs } from '../../../src/manifest/args.js';
import { NO_HOST_FACTS } from '../../../src/manifest/inputs.js';
import { fixtureConfigWith, renderControlPlanePod, commandFlags, fixtureCluster } from '../../helpers/control-plane-pod.js';

describe('extraArgs', () => {
  const defaults = [{ name: 'b', value: '1' }, { name: 'a', value: '1' }, { name: 'c', value: '1' }];

  test('map semantics (≤1.30): a user value replaces the default of that name; result sorted by name', () => {
    expect(buildArgs(defaults, [{ name: 'c', value: '2' }, { name: 'z', value: '0' }], 'map')).toEqual(['--a=1', '--b=1', '--c=2', '--z=0']);
  });

  test('list semantics (≥1.31): an override replaces every default of its name; repeats sorted by value', () => {
    const d = [...defaults, { name: 'a', value: '0' }];
    expect(buildArgs(d, [{ name: 'a', value: 'y' }, { name: 'a', value: 'x' }], 'list')).toEqual(['--a=x', '--a=y', '--b=1', '--c=1']);
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
