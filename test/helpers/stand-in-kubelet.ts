/**
 * A stand-in for the kubelet running one static pod: while the manifest exists under the root, a
 * real HTTP server answers its liveness probe on a loopback port; each time the manifest comes
 * back, a new "container" starts (counted, with its start time). For restart tests without a
 * kubelet; the real kubelet is exercised by the e2e tests. Several stand-ins (one per static pod)
 * can share one EVENTS list to show the order of starts and stops across pods.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { TempRoot } from './temp-root.js';
import { freePort } from './free-port.js';

export const SCHEDULER_MANIFEST = '/etc/kubernetes/manifests/kube-scheduler.yaml';

/** A static pod manifest (kube-scheduler's by default) whose liveness probe is HTTP on loopback PORT. */
export const probedPodManifest = (port: number, name = 'kube-scheduler'): string => [
  'apiVersion: v1', 'kind: Pod', 'metadata:', `  name: ${name}`, '  namespace: kube-system', 'spec:', '  containers:', `  - name: ${name}`,
  '    livenessProbe:', '      httpGet:', '        host: 127.0.0.1', '        path: /healthz', `        port: ${port}`, '        scheme: HTTP', '',
].join('\n');


export interface StandInOptions {
  /** "start NAME" and "stop NAME" are appended here as they happen (NAME: the manifest's file name without .yaml). */
  readonly events?: string[];
  /** The server keeps answering after the manifest is gone (a component the kubelet cannot stop). */
  readonly neverStops?: boolean;
  /** Only the first start happens: once stopped, the component never serves again. */
  readonly neverRestarts?: boolean;
}

export class StandInKubelet {
  /** When each "container" started (ms). */
  readonly startTimes: number[] = [];
  private server: http.Server | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly name: string;
  constructor(private readonly root: Pick<TempRoot, 'at'>, readonly port: number, private readonly manifest = SCHEDULER_MANIFEST, private readonly opts: StandInOptions = {}) {
    this.name = path.basename(manifest, '.yaml');
  }

  get starts(): number {
    return this.startTimes.length;
  }

  /** Writes kube-scheduler's manifest (0600) with this stand-in's probe port. */
  writeSchedulerManifest(): void {
    mkdirSync(path.dirname(this.root.at(this.manifest)), { recursive: true });
    writeFileSync(this.root.at(this.manifest), probedPodManifest(this.port), { mode: 0o600 });
  }

  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync(), 20);
  }

  private async sync(): Promise<void> {
    const present = existsSync(this.root.at(this.manifest));
    if (present && !this.server && !(this.opts.neverRestarts && this.starts > 0)) {
      this.startTimes.push(Date.now());
      this.opts.events?.push(`start ${this.name}`);
      const server = http.createServer((_q, res) => res.end('ok'));
      this.server = server;
      await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
    } else if (!present && this.server && !this.opts.neverStops) {
      const server = this.server;
      this.server = undefined;
      this.opts.events?.push(`stop ${this.name}`);
      await new Promise((r) => server.close(r));
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise((r) => s.close(r));
  }
}

export { freePort };
