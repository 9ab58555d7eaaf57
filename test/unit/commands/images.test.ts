import { execFileSync } from 'node:child_process';
import { formatImagesList, imagesOf, pullControlPlaneImages, requireRuntime, resolveImagesConfig } from '../../../src/commands/images.js';
import { connectCri } from '../../../src/host/cri-client.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { referenceKubeadmPath } from '../../helpers/components.js';
import { testWithOracles, oracles } from '../../helpers/oracle.js';

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
