import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TestApiServer } from './apiserver.js';
import type { TempRoot } from './temp-root.js';

/** The hash FakeKubelet publishes for a manifest (the kubelet's own is a hash of the Pod object). */
export const manifestHash = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * The kubelet's part of a static Pod upgrade, for tests against a real API server: the mirror
 * Pod of each component carries the hash of the manifest it runs. Every 100 ms it reads the
 * manifests under the root and, for a component not in `broken`, publishes a changed file's
 * hash on the mirror Pod (as the kubelet does once it runs the new manifest).
 */
export class FakeKubelet<C extends string = string> {
  readonly broken = new Set<C>();
  private readonly published = new Map<C, string>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  constructor(private readonly server: TestApiServer, private readonly root: TempRoot, private readonly node: string, private readonly components: readonly C[]) {}

  async createMirrorPods(): Promise<void> {
    for (const c of this.components) {
      const hash = manifestHash(readFileSync(this.root.at(`/etc/kubernetes/manifests/${c}.yaml`)));
      const created = await this.server.request('POST', '/api/v1/namespaces/kube-system/pods', {
        auth: 'admin',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `${c}-${this.node}`,
            namespace: 'kube-system',
            labels: { component: c, tier: 'control-plane' },
            annotations: { 'kubernetes.io/config.hash': hash, 'kubernetes.io/config.mirror': hash, 'kubernetes.io/config.source': 'file' },
          },
          spec: { nodeName: this.node, containers: [{ name: c, image: `k8s.gcr.io/${c}:test` }] },
        },
      });
      if (created.status !== 201) throw new Error(`creating the mirror Pod of ${c}: ${created.status} ${created.text}`);
      const status = await this.server.request('PATCH', `/api/v1/namespaces/kube-system/pods/${c}-${this.node}/status`, {
        auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { phase: 'Running' } },
      });
      if (status.status !== 200) throw new Error(`setting the mirror Pod of ${c} Running: ${status.status} ${status.text}`);
      this.published.set(c, hash);
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.sync(), 100);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async hashOf(c: C): Promise<string> {
    const r = await this.server.request('GET', `/api/v1/namespaces/kube-system/pods/${c}-${this.node}`, { auth: 'admin' });
    return r.body.metadata.annotations['kubernetes.io/config.hash'] ?? '';
  }

  private async sync(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (const c of this.components) {
        if (this.broken.has(c)) continue;
        const hash = manifestHash(readFileSync(this.root.at(`/etc/kubernetes/manifests/${c}.yaml`)));
        if (this.published.get(c) === hash) continue;
        // (The API server keeps config.mirror immutable; the real kubelet makes a new mirror Pod instead.)
        const r = await this.server.request('PATCH', `/api/v1/namespaces/kube-system/pods/${c}-${this.node}`, {
          auth: 'admin', contentType: 'application/merge-patch+json', body: { metadata: { annotations: { 'kubernetes.io/config.hash': hash } } },
        });
        if (r.status === 200) this.published.set(c, hash);
      }
    } finally {
      this.busy = false;
    }
  }
}
