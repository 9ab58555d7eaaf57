import type { ClusterConfiguration, ResolvedInitConfig } from '../../../src/config/types.js';
import { buildArgs } from '../../../src/manifest/args.js';
import { NO_HOST_FACTS, staticPodConfigFromInit, type HostFacts } from '../../../src/manifest/inputs.js';
import type { Container, Pod } from '../../../src/manifest/pod.js';
import { renderStaticPod, type StaticPodComponent } from '../../../src/phases/controlplane/render.js';
import { DEFAULT_PATCH, VERSION_TABLE, type SupportedMinor } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

function cfgWith(cluster: Partial<ClusterConfiguration>, minor: SupportedMinor = '1.20'): ResolvedInitConfig {
  const base = fixtureInitConfig();
  return { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], ...cluster } };
}

function render(component: StaticPodComponent, cfg: ResolvedInitConfig, facts: HostFacts = NO_HOST_FACTS, minor: SupportedMinor = '1.20'): Pod {
  return renderStaticPod(component, staticPodConfigFromInit(cfg), VERSION_TABLE[minor], facts);
}

const c0 = (pod: Pod): Container => pod.spec.containers[0] as Container;
const flags = (pod: Pod): string[] => c0(pod).command.slice(1);
const base = fixtureInitConfig().cluster;

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
    const apiServer = { ...base.apiServer, extraArgs: extra };
    expect(flags(render('kube-apiserver', cfgWith({ apiServer }, '1.30'), NO_HOST_FACTS, '1.30')).filter((f) => f.startsWith('--v='))).toEqual(['--v=4']);
    expect(flags(render('kube-apiserver', cfgWith({ apiServer }, '1.31'), NO_HOST_FACTS, '1.31')).filter((f) => f.startsWith('--v='))).toEqual(['--v=2', '--v=4']);
  });

  test('a user --secure-port overrides the default; the probes still follow the bind port', () => {
    const pod = render('kube-apiserver', cfgWith({ apiServer: { ...base.apiServer, extraArgs: [{ name: 'secure-port', value: '7443' }] } }));
    expect(flags(pod)).toContain('--secure-port=7443');
    expect(flags(pod)).not.toContain('--secure-port=6443');
  });
});
