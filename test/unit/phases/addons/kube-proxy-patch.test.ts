import { RootedHost } from '../../../../src/host/rooted-host.js';
import type { KubeObject } from '../../../../src/kube/types.js';
import { kubeProxyDaemonSetPatcher } from '../../../../src/phases/addons/kube-proxy-patch.js';
import { kubeProxyDaemonSet } from '../../../../src/phases/addons/kube-proxy-render.js';
import { newPatchCache } from '../../../../src/patches/run.js';
import type { SupportedMinor } from '../../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { tempRoot } from '../../../helpers/temp-root.js';

/*
 * Oracle: kubeadm 1.37's proxy.go (PR #138090) applies the "kubeproxydaemonset" patches to the
 * apps/v1 DaemonSet it rendered, with strategic merge on the DaemonSet's Go types (as dns.go does
 * for "corednsdeployment"): containers merge by name (image and command stay), env merges by
 * name, tolerations (no patch strategy) are replaced whole. Kubernetes' strategic merge rules
 * for these tags are those of k8s.io/api core/v1 and apps/v1 types.go.
 */
const STRATEGIC = [
  'spec:',
  '  template:',
  '    spec:',
  '      containers:',
  '      - name: kube-proxy',
  '        env:',
  '        - name: EXTRA',
  '          value: "1"',
  '        resources:',
  '          requests:',
  '            cpu: 50m',
  '      tolerations:',
  '      - key: dedicated',
  '        operator: Exists',
  '',
].join('\n');
const JSON_PATCH = '[{"op":"add","path":"/metadata/labels/patched","value":"yes"}]\n';

const silent = { warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };

function setup(minor: SupportedMinor) {
  const root = tempRoot({ '/srv/patches/kubeproxydaemonset+strategic.yaml': STRATEGIC, '/srv/patches/kubeproxydaemonset1+json.json': JSON_PATCH });
  const messages: string[] = [];
  const ctx = { host: new RootedHost(root.dir), log: { ...silent, info: (m: string) => messages.push(m) }, state: { patches: newPatchCache() } };
  const rendered = kubeProxyDaemonSet('registry.k8s.io/kube-proxy:v1.37.0', []);
  return { root, messages, ctx, versions: VERSION_TABLE[minor], rendered };
}

type Ds = {
  metadata: { labels: Record<string, string> };
  spec: { template: { spec: { containers: Array<{ name: string; image: string; command: string[]; env: Array<{ name: string; value?: string }>; resources?: unknown }>; tolerations: unknown[] } } };
};

describe('kubeProxyDaemonSetPatcher', () => {
  test('1.37: the DaemonSet is patched in file order (strategic, then json) and the patches are reported', async () => {
    const { root, messages, ctx, versions, rendered } = setup('1.37');
    try {
      const patcher = kubeProxyDaemonSetPatcher(ctx, '/srv/patches', versions);
      expect(patcher).toBeDefined();
      const out = (await patcher!(rendered)) as unknown as Ds;
      expect(out.metadata.labels).toEqual({ 'k8s-app': 'kube-proxy', patched: 'yes' });
      const [container] = out.spec.template.spec.containers;
      expect(container?.image).toBe('registry.k8s.io/kube-proxy:v1.37.0');
      expect(container?.command).toEqual(['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)']);
      // env merges by name: both variables are there (their order is the strategic-merge module's concern).
      expect(container?.env.map((e) => e.name).sort()).toEqual(['EXTRA', 'NODE_NAME']);
      expect(container?.resources).toEqual({ requests: { cpu: '50m' } });
      expect(out.spec.template.spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Exists' }]);
      expect(messages).toContain('Applied patch of type "application/strategic-merge-patch+json" to target "kubeproxydaemonset"');
      expect(messages).toContain('Applied patch of type "application/json-patch+json" to target "kubeproxydaemonset"');
      // the rendered object is left as it was
      expect((rendered as unknown as Ds).metadata.labels).toEqual({ 'k8s-app': 'kube-proxy' });
    } finally {
      root.cleanup();
    }
  });

  test('1.34–1.36: no such target, so no patcher (the files are skipped by the directory reader as unknown)', () => {
    for (const minor of ['1.34', '1.35', '1.36'] as const) {
      const { root, ctx, versions } = setup(minor);
      try {
        expect(kubeProxyDaemonSetPatcher(ctx, '/srv/patches', versions)).toBeUndefined();
      } finally {
        root.cleanup();
      }
    }
  });

  test('no --patches directory: no patcher', () => {
    const { root, ctx, versions } = setup('1.37');
    try {
      expect(kubeProxyDaemonSetPatcher(ctx, undefined, versions)).toBeUndefined();
    } finally {
      root.cleanup();
    }
  });

  test('a patch that leaves no object is refused with a message naming the target', async () => {
    const root = tempRoot({ '/p/kubeproxydaemonset+json.json': '[{"op":"replace","path":"","value":"x"}]\n' });
    try {
      const ctx = { host: new RootedHost(root.dir), log: { ...silent, info: () => undefined }, state: { patches: newPatchCache() } };
      const patcher = kubeProxyDaemonSetPatcher(ctx, '/p', VERSION_TABLE['1.37'])!;
      const rendered: KubeObject = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'kube-proxy' } };
      await expect(patcher(rendered)).rejects.toThrow(/kubeproxydaemonset.*|kube-proxy DaemonSet/);
    } finally {
      root.cleanup();
    }
  });
});
