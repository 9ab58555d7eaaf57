import { containerEnv, proxyEnvFrom } from '../../../src/manifest/env.js';
import { NO_HOST_FACTS } from '../../../src/manifest/inputs.js';
import { fixtureConfigWith, renderControlPlanePod, firstContainer, fixtureCluster } from '../../helpers/control-plane-pod.js';

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
    const apiServer = { ...fixtureCluster.apiServer, extraEnvs: extra };
    const pod = renderControlPlanePod('kube-apiserver', fixtureConfigWith({ apiServer }, '1.31'), { ...NO_HOST_FACTS, proxyEnv: proxy }, '1.31');
    expect(firstContainer(pod).env?.map((e) => e.name)).toEqual(['GOGC', 'HTTP_PROXY', 'no_proxy']);
  });

  test('etcd never gets the proxy variables', () => {
    expect(firstContainer(renderControlPlanePod('etcd', fixtureConfigWith({}), { ...NO_HOST_FACTS, proxyEnv: [{ name: 'HTTP_PROXY', value: 'x' }] })).env).toBeUndefined();
  });
});
