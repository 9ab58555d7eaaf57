import { execFileSync } from 'node:child_process';
import { formatImagesList, imagesOf, pullControlPlaneImages, requireRuntime, resolveImagesConfig } from '../../../src/commands/images.js';
import { connectCri } from '../../../src/host/cri-client.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { referenceKubeadmPath } from '../../helpers/components.js';
import { testWithOracles, oracles } from '../../helpers/oracle.js';
import { runCli } from '../../helpers/cli.js';

const kubeadm = referenceKubeadmPath();
const refTest = testWithOracles([oracles.kubeadm]);

describe('config images list output', () => {
  const list = (flags: Record<string, string>) => imagesOf(resolveImagesConfig(flags, undefined));

  refTest.each(['text', 'json', 'yaml'])('-o %s is byte-for-byte kubeadm v1.20.2\'s', (format) => {
    const want = execFileSync(kubeadm as string, ['config', 'images', 'list', '--kubernetes-version', 'v1.20.2', '--image-repository', 'my.reg/k8s', '-o', format], { encoding: 'utf8' });
    const { images, versions } = list({ 'kubernetes-version': 'v1.20.2', 'image-repository': 'my.reg/k8s' });
    expect(formatImagesList(images, format, versions)).toBe(want);
  });

  test('apiVersion of the Images object per minor: v1alpha1, v1alpha2 from 1.23 (PR #105295), v1alpha3 from 1.31 (PR #124464)', () => {
    const api = (v: string) => JSON.parse(formatImagesList(['x'], 'json', profileFor(v))) as { apiVersion: string; kind: string };
    expect(api('v1.22.17').apiVersion).toBe('output.kubeadm.k8s.io/v1alpha1');
    expect(api('v1.23.17').apiVersion).toBe('output.kubeadm.k8s.io/v1alpha2');
    expect(api('v1.30.14').apiVersion).toBe('output.kubeadm.k8s.io/v1alpha2');
    expect(api('v1.31.13')).toEqual({ kind: 'Images', apiVersion: 'output.kubeadm.k8s.io/v1alpha3', images: ['x'] });
  });

  test('an unknown format is refused with kubeadm\'s message', () => {
    expect(() => formatImagesList(['x'], 'wide', profileFor('v1.20.2'))).toThrow('unable to match a printer suitable for the output format "wide"');
  });

  test('--config replaces the flags (kubeadm LoadOrDefaultInitConfiguration)', () => {
    const yaml = 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\nimageRepository: file.reg\n';
    const { images } = imagesOf(resolveImagesConfig({ config: 'c.yaml', 'image-repository': 'flag.reg' }, yaml));
    expect(images[0]).toBe('file.reg/kube-apiserver:v1.20.2');
  });
});

describe('config images list of a 1.38 pre-release (1.38 is not released: its preview row)', () => {
  test('--kubernetes-version v1.38.0-rc.0 lists etcd 3.7.1 (PR #141032) and CoreDNS v1.14.7 (PR #141462), and warns on stderr that the facts may change', async () => {
    const r = await runCli(['config', 'images', 'list', '--kubernetes-version', 'v1.38.0-rc.0']);
    expect(r.code).toBe(0);
    // Expected from CHANGELOG-1.38.md (v1.38.0-alpha.1): etcd and CoreDNS; the kube images carry the named version; pause 3.10.2 is 1.37's (no 1.38 note bumps it).
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      'registry.k8s.io/kube-apiserver:v1.38.0-rc.0',
      'registry.k8s.io/kube-controller-manager:v1.38.0-rc.0',
      'registry.k8s.io/kube-scheduler:v1.38.0-rc.0',
      'registry.k8s.io/kube-proxy:v1.38.0-rc.0',
      'registry.k8s.io/coredns/coredns:v1.14.7',
      'registry.k8s.io/pause:3.10.2',
      'registry.k8s.io/etcd:3.7.1-0',
    ]);
    expect(r.stderr).toContain('[WARNING] [config] Kubernetes v1.38.0-rc.0 is a pre-release of v1.38, which is not released yet');
    expect(r.stderr).toContain('may still change before v1.38.0');
  });

  test('a plain v1.38.0 and stable-1.38 are refused until release day; the default stays 1.37 without a warning', async () => {
    for (const v of ['v1.38.0', 'stable-1.38']) {
      const r = await runCli(['config', 'images', 'list', '--kubernetes-version', v]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('v1.38 is not released yet (only pre-releases exist)');
    }
    const plain = await runCli(['config', 'images', 'list']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
    expect(plain.stdout).toMatch(/^registry\.k8s\.io\/kube-apiserver:v1\.37\.\d+\n/);
  });
});

describe('config images pull', () => {
  test('prints kubeadm\'s line per image and stops at the first failure naming the image and the runtime message', async () => {
    const lines: string[] = [];
    const pulled: string[] = [];
    const runtime = {
      imageExists: () => Promise.resolve(false),
      pullImage: (image: string) => (image.includes('b') ? Promise.reject(new Error('rpc error: code = NotFound desc = not found')) : Promise.resolve(pulled.push(image))),
    };
    await expect(pullControlPlaneImages(runtime, ['r/a:1', 'r/b:1', 'r/c:1'], (l) => lines.push(l)))
      .rejects.toThrow('failed to pull image "r/b:1": rpc error: code = NotFound desc = not found');
    expect(lines).toEqual(['[config/images] Pulled r/a:1\n']);
    expect(pulled).toEqual(['r/a:1']);
  });

  test('a runtime that cannot be reached is one error naming the socket, before any pull', async () => {
    const cri = await connectCri('/nonexistent/tsadm-test.sock', 2_000);
    try {
      await expect(requireRuntime(cri, '/nonexistent/tsadm-test.sock')).rejects.toThrow(/^container runtime is not running: cannot connect to the CRI socket \/nonexistent\/tsadm-test\.sock: rpc error: code = Unavailable/);
    } finally {
      cri.close();
    }
  });
});
