/**
 * reset's admin client: ResetConfiguration timeouts.kubernetesAPICall bounds its API calls (kubeadm
 * makes the ResetConfiguration's timeouts the active ones of the run); without it, reset keeps its
 * short default. Proven against a closed loopback port: the call fails after the deadline, not sooner.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { realResetDeps } from '../../../../src/phases/reset/deps.js';
import { adminApi } from '../../../../src/phases/reset/state.js';
import { buildResetContext } from '../../../../src/workflows/reset.js';
import { testRuntime } from '../../../helpers/phase-ctx.js';

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('reset adminApi', () => {
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-reset-state-'));
    const port = await closedPort();
    mkdirSync(path.join(root, 'etc/kubernetes'), { recursive: true });
    writeFileSync(path.join(root, 'etc/kubernetes/admin.conf'), [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      'clusters:', '- name: k', '  cluster:', `    server: https://127.0.0.1:${port}`, '    insecure-skip-tls-verify: true',
      'contexts:', '- name: c', '  context: {cluster: k, user: u}',
      'users:', '- name: u', '  user: {token: abcdef.0123456789abcdef}', '',
    ].join('\n'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function failAfterMs(resetTimeouts: string | undefined): Promise<number> {
    const configPath = path.join(root, `reset-${resetTimeouts ?? 'none'}.yaml`);
    writeFileSync(configPath, `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\n${resetTimeouts ?? ''}`);
    const host = new RootedHost(root);
    const rt = testRuntime(host);
    const ctx = await buildResetContext({ config: configPath }, rt, realResetDeps(Readable.from([])));
    try {
      const api = await adminApi(ctx);
      expect(api).toBeDefined();
      const start = Date.now();
      await expect(api!.get('ConfigMap', 'kubeadm-config', 'kube-system')).rejects.toThrow();
      return Date.now() - start;
    } finally {
      rt.api.close();
    }
  }

  test('timeouts.kubernetesAPICall: 1s gives up after about a second', async () => {
    const ms = await failAfterMs('timeouts:\n  kubernetesAPICall: 1s\n');
    // withRetry throws only once now() - its start >= the deadline, and its start is after ours.
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(5000);
  }, 20_000);

  test('timeouts.kubernetesAPICall: 4s retries for about four seconds', async () => {
    const ms = await failAfterMs('timeouts:\n  kubernetesAPICall: 4s\n');
    expect(ms).toBeGreaterThanOrEqual(4000);
    expect(ms).toBeLessThan(9000);
  }, 20_000);
});
