import type { LocalEtcd, ResolvedInitConfig } from '../../../src/config/types.js';
import { staticPodConfigFromInit } from '../../../src/manifest/inputs.js';
import type { Container, Pod } from '../../../src/manifest/pod.js';
import { podToJson } from '../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { etcdProbeTarget, renderEtcdPod } from '../../../src/manifest/etcd.js';
import { DEFAULT_PATCH, type SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

const localEtcd = (fixtureInitConfig().cluster.etcd as LocalEtcd);

function cfgWith(etcd: Partial<LocalEtcd>, minor: SupportedMinor = '1.20', advertiseAddress = '192.168.10.11'): ResolvedInitConfig {
  const base = fixtureInitConfig();
  return {
    ...base,
    init: { ...base.init, localAPIEndpoint: { advertiseAddress, bindPort: 6443 } },
    cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], etcd: { ...localEtcd, ...etcd } },
  };
}

function render(cfg: ResolvedInitConfig, minor: SupportedMinor = '1.20', members?: Array<{ name: string; peerURL: string }>): Pod {
  return renderEtcdPod(staticPodConfigFromInit(cfg), VERSION_TABLE[minor], members ? { initialCluster: members } : {});
}

const c0 = (pod: Pod): Container => pod.spec.containers[0] as Container;
const flags = (pod: Pod): string[] => c0(pod).command.slice(1);

describe('etcd static pod', () => {
  test('refuses external etcd with a clear error', () => {
    const base = fixtureInitConfig();
    const cfg = { ...base, cluster: { ...base.cluster, etcd: { mode: 'external' as const, endpoints: ['https://e:2379'], caFile: '', certFile: '', keyFile: '' } } };
    expect(() => renderEtcdPod(staticPodConfigFromInit(cfg), VERSION_TABLE['1.20'], {})).toThrow(/cannot be generated for cluster using external etcd/);
  });

  test('image: etcd imageRepository/imageTag override the cluster repository and the table tag', () => {
    expect(c0(render(cfgWith({}))).image).toBe('k8s.gcr.io/etcd:3.4.13-0');
    expect(c0(render(cfgWith({ imageRepository: 'my.reg/etcd', imageTag: '3.5.9-0' }))).image).toBe('my.reg/etcd/etcd:3.5.9-0');
  });

  test('IPv6: loopback ::1 and bracketed URLs', () => {
    const pod = render(cfgWith({}, '1.20', 'fd00::5'));
    expect(flags(pod)).toEqual(expect.arrayContaining([
      '--listen-client-urls=https://[::1]:2379,https://[fd00::5]:2379',
      '--listen-metrics-urls=http://[::1]:2381',
      '--initial-cluster=cp1=https://[fd00::5]:2380',
    ]));
    expect(c0(pod).livenessProbe?.httpGet).toEqual({ host: '::1', path: '/health', port: 2381, scheme: 'HTTP' });
    expect(pod.metadata.annotations).toEqual({ 'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://[fd00::5]:2379' });
  });

  test('probe endpoint follows the first listen-metrics-urls URL', () => {
    const t = (urls: string): ReturnType<typeof etcdProbeTarget> => etcdProbeTarget({ ...localEtcd, extraArgs: [{ name: 'listen-metrics-urls', value: urls }] }, '10.0.0.1');
    expect(t('https://10.0.0.1:2382,http://127.0.0.1:2381')).toEqual({ host: '10.0.0.1', port: 2382, scheme: 'HTTPS' });
    expect(t('http://[::1]:80')).toEqual({ host: '::1', port: 80, scheme: 'HTTP' });
    expect(t('http://:2390')).toEqual({ host: '127.0.0.1', port: 2390, scheme: 'HTTP' });
    expect(t('not a url')).toEqual({ host: '127.0.0.1', port: 2381, scheme: 'HTTP' });
  });

  test('joining member: initial cluster from the members, state existing', () => {
    const pod = render(cfgWith({}), '1.20', [{ name: 'cp0', peerURL: 'https://10.0.0.1:2380' }, { name: 'cp1', peerURL: 'https://192.168.10.11:2380' }]);
    expect(flags(pod)).toEqual(expect.arrayContaining(['--initial-cluster=cp0=https://10.0.0.1:2380,cp1=https://192.168.10.11:2380', '--initial-cluster-state=existing']));
  });

  test('1.34 uses the etcd 3.6 spelling, unless the image tag is an older etcd', () => {
    expect(flags(render(cfgWith({}, '1.34'), '1.34'))).toEqual(expect.arrayContaining(['--feature-gates=InitialCorruptCheck=true', '--watch-progress-notify-interval=5s']));
    const old = flags(render(cfgWith({ imageTag: '3.5.21-0' }, '1.34'), '1.34'));
    expect(old).toEqual(expect.arrayContaining(['--experimental-initial-corrupt-check=true', '--experimental-watch-progress-notify-interval=5s']));
    expect(old.some((f) => f.startsWith('--feature-gates'))).toBe(false);
  });

  test('from 1.36 the etcd 3.6 spelling whatever the image tag, without refusing or warning (kubeadm PR #135701); 1.35 still follows the tag', () => {
    for (const minor of ['1.36', '1.37'] as const) {
      for (const imageTag of ['', '3.5.21-0', '3.4.13-0', 'custom']) {
        const f = flags(render(cfgWith({ imageTag }, minor), minor));
        expect(f).toEqual(expect.arrayContaining(['--feature-gates=InitialCorruptCheck=true', '--watch-progress-notify-interval=5s']));
        expect(f.filter((x) => x.startsWith('--experimental-'))).toEqual([]);
      }
    }
    // The pinned tag is used as written: no refusal, no substitution.
    expect(c0(render(cfgWith({ imageTag: '3.5.21-0' }, '1.36'), '1.36')).image).toMatch(/\/etcd:3\.5\.21-0$/);
    const f135 = flags(render(cfgWith({ imageTag: '3.5.21-0' }, '1.35'), '1.35'));
    expect(f135).toEqual(expect.arrayContaining(['--experimental-initial-corrupt-check=true', '--experimental-watch-progress-notify-interval=5s']));
  });

  test('1.36: user extraArgs come after the sorted defaults, in the order written (kubeadm PR #135400)', () => {
    const f = flags(render(cfgWith({ extraArgs: [{ name: 'snapshot-count', value: '5000' }, { name: 'auto-compaction-retention', value: '8' }] }, '1.36'), '1.36'));
    expect(f.slice(-2)).toEqual(['--snapshot-count=5000', '--auto-compaction-retention=8']);
    expect(f.slice(0, -2)).toEqual([...f.slice(0, -2)].sort());
    expect(f).not.toContain('--snapshot-count=10000');
  });

  test('extraArgs override defaults; extraEnvs become the env (sorted from 1.31)', () => {
    const pod = render(cfgWith({ extraArgs: [{ name: 'snapshot-count', value: '5000' }], extraEnvs: [{ name: 'Z', value: '1' }, { name: 'A', value: '2' }] }, '1.31'), '1.31');
    expect(flags(pod)).toContain('--snapshot-count=5000');
    expect(flags(pod)).not.toContain('--snapshot-count=10000');
    expect(c0(pod).env).toEqual([{ name: 'A', value: '2' }, { name: 'Z', value: '1' }]);
  });

  test('mounts keep kubeadm\'s data-then-certs order; volumes are sorted by name; both read-write', () => {
    const yaml = toKubeYaml(podToJson(render(cfgWith({ dataDir: '/data/etcd' }))));
    expect(yaml).toContain('    volumeMounts:\n    - mountPath: /data/etcd\n      name: etcd-data\n    - mountPath: /etc/kubernetes/pki/etcd\n      name: etcd-certs\n');
    expect(yaml).toContain('  volumes:\n  - hostPath:\n      path: /etc/kubernetes/pki/etcd\n      type: DirectoryOrCreate\n    name: etcd-certs\n  - hostPath:\n      path: /data/etcd\n');
  });

  test('startup probe covers the control-plane timeout', () => {
    const base = cfgWith({});
    const cfg = { ...base, cluster: { ...base.cluster, apiServer: { ...base.cluster.apiServer, timeoutForControlPlaneMs: 61_000 } } };
    expect(c0(render(cfg)).startupProbe?.failureThreshold).toBe(7);
  });
});
