import type { ClusterConfiguration, ResolvedInitConfig } from '../../../src/config/types.js';
import { containerEnv, proxyEnvFrom } from '../../../src/manifest/env.js';
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
const base = fixtureInitConfig().cluster;

describe('env', () => {
  test('proxy variables: names ending in _proxy (any case) with a value, in environment order', () => {
    expect(proxyEnvFrom([['no_proxy', 'x'], ['HTTPS_PROXY', 'y'], ['FTP_PROXY', ''], ['PATH', '/bin'], ['proxy', 'z']]))
      .toEqual([{ name: 'no_proxy', value: 'x' }, { name: 'HTTPS_PROXY', value: 'y' }]);
  });

  test('1.20 keeps environment order; 1.31 merges extraEnvs over proxy variables and sorts by name', () => {
    const proxy = [{ name: 'no_proxy', value: 'a' }, { name: 'HTTP_PROXY', value: 'b' }];
    const extra = [{ name: 'HTTP_PROXY', value: 'c' }, { name: 'GOGC', value: '50' }];
    expect(containerEnv(proxy, [], false)).toEqual([{ name: 'no_proxy', value: 'a' }, { name: 'HTTP_PROXY', value: 'b' }]);
    expect(containerEnv(proxy, extra, true)).toEqual([{ name: 'GOGC', value: '50' }, { name: 'HTTP_PROXY', value: 'c' }, { name: 'no_proxy', value: 'a' }]);
    const apiServer = { ...base.apiServer, extraEnvs: extra };
    const pod = render('kube-apiserver', cfgWith({ apiServer }, '1.31'), { ...NO_HOST_FACTS, proxyEnv: proxy }, '1.31');
    expect(c0(pod).env?.map((e) => e.name)).toEqual(['GOGC', 'HTTP_PROXY', 'no_proxy']);
  });

  test('etcd never gets the proxy variables', () => {
    expect(c0(render('etcd', cfgWith({}), { ...NO_HOST_FACTS, proxyEnv: [{ name: 'HTTP_PROXY', value: 'x' }] })).env).toBeUndefined();
  });
});
