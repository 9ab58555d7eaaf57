import { RootedHost } from '../../../../src/host/rooted-host.js';
import type { KubeObject } from '../../../../src/kube/types.js';
import { corednsDeploymentPatcher } from '../../../../src/phases/addons/coredns-patch.js';
import { corednsDeployment } from '../../../../src/phases/addons/coredns-render.js';
import { newPatchCache } from '../../../../src/patches/run.js';
import type { SupportedMinor } from '../../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { tempRoot } from '../../../helpers/temp-root.js';

/*
 * Oracle: kubeadm 1.31's dns.go (PR #124820) applies the "corednsdeployment" patches to the
 * apps/v1 Deployment it rendered with strategic merge on the Deployment's Go types: containers
 * merge by name (the image stays), tolerations (no patch strategy) are replaced whole.
 */
const STRATEGIC = [
  'spec:',
  '  template:',
  '    spec:',
  '      containers:',
  '      - name: coredns',
  '        resources:',
  '          limits:',
  '            memory: 300Mi',
  '      tolerations:',
  '      - key: dedicated',
  '        operator: Exists',
  '',
].join('\n');
const JSON_PATCH = '[{"op":"replace","path":"/spec/replicas","value":3}]\n';

function setup(minor: SupportedMinor) {
  const root = tempRoot({ '/srv/patches/corednsdeployment+strategic.yaml': STRATEGIC, '/srv/patches/corednsdeployment1+json.json': JSON_PATCH });
  const messages: string[] = [];
  const log = { info: (m: string) => messages.push(m), warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };
  const ctx = { host: new RootedHost(root.dir), log, state: { patches: newPatchCache() } };
  const versions = VERSION_TABLE[minor];
  const rendered = corednsDeployment({ versions, image: 'registry.k8s.io/coredns/coredns:v1.11.3', dnsDomain: 'cluster.local', dnsIp: '10.96.0.10', replicas: 2 });
  return { root, messages, ctx, versions, rendered };
}

type Dep = { spec: { replicas: number; template: { spec: { containers: Array<{ name: string; image: string; resources: { limits: Record<string, string> } }>; tolerations: unknown[] } } } };

describe('corednsDeploymentPatcher', () => {
  test('1.31: the Deployment is patched in file order (strategic, then json) and the patches are reported', async () => {
    const { root, messages, ctx, versions, rendered } = setup('1.31');
    try {
      const patcher = corednsDeploymentPatcher(ctx, '/srv/patches', versions);
      expect(patcher).toBeDefined();
      const out = (await patcher!(rendered)) as unknown as Dep;
      expect(out.spec.replicas).toBe(3);
      const [container] = out.spec.template.spec.containers;
      expect(container?.image).toBe('registry.k8s.io/coredns/coredns:v1.11.3');
      expect(container?.resources.limits).toEqual({ memory: '300Mi' });
      expect(out.spec.template.spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Exists' }]);
      expect(messages).toContain('Applied patch of type "application/strategic-merge-patch+json" to target "corednsdeployment"');
      expect(messages).toContain('Applied patch of type "application/json-patch+json" to target "corednsdeployment"');
      // the rendered object is left as it was
      expect((rendered as unknown as Dep).spec.replicas).toBe(2);
    } finally {
      root.cleanup();
    }
  });

  test('1.30: no such target, so no patcher (the files are skipped by the directory reader as unknown)', () => {
    const { root, ctx, versions } = setup('1.30');
    try {
      expect(corednsDeploymentPatcher(ctx, '/srv/patches', versions)).toBeUndefined();
    } finally {
      root.cleanup();
    }
  });

  test('no --patches directory: no patcher', () => {
    const { root, ctx, versions } = setup('1.34');
    try {
      expect(corednsDeploymentPatcher(ctx, undefined, versions)).toBeUndefined();
    } finally {
      root.cleanup();
    }
  });

  test('a patch that leaves no object is refused with a message naming the target', async () => {
    const root = tempRoot({ '/p/corednsdeployment+json.json': '[{"op":"replace","path":"","value":"x"}]\n' });
    try {
      const log = { info: () => undefined, warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };
      const ctx = { host: new RootedHost(root.dir), log, state: { patches: newPatchCache() } };
      const patcher = corednsDeploymentPatcher(ctx, '/p', VERSION_TABLE['1.31'])!;
      const rendered: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'coredns' } };
      await expect(patcher(rendered)).rejects.toThrow(/corednsdeployment|CoreDNS Deployment/);
    } finally {
      root.cleanup();
    }
  });
});
