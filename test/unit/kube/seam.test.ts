/**
 * The run's API seam (src/kube/seam.ts): one client per kubeconfig (and way of calling) for the
 * run, a failed open tried again, the first-open preparation done once, every client closed
 * with the seam. No request is sent: dry-run clients without a kubeconfig, and real clients of
 * a kubeconfig are only made, never used.
 */
import { jest } from '@jest/globals';
import { DryRunKubeApi } from '../../../src/kube/dry-run-api.js';
import { RestKubeApi } from '../../../src/kube/rest-api.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import { NO_RETRY } from '../../../src/kube/retry.js';
import type { KubeApi } from '../../../src/kube/types.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';

const log = new PhaseLogger(new MemoryReporter());
const KUBECONFIG = [
  'apiVersion: v1', 'kind: Config', 'clusters:', '- cluster:', '    server: https://127.0.0.1:1', '    insecure-skip-tls-verify: true', '  name: c',
  'contexts:', '- context:', '    cluster: c', '    user: u', '  name: c', 'current-context: c', 'users:', '- name: u', '  user:', '    token: t', '',
].join('\n');

function hostWith(files: Record<string, string>) {
  return {
    readFile: (p: string) => {
      const text = files[p];
      return Promise.resolve(text === undefined ? undefined : Buffer.from(text));
    },
  };
}

test('a dry-run seam makes dry-run clients, once per kubeconfig, and closes them all', async () => {
  const seam = createApiSeam(hostWith({}), true);
  expect(seam.dryRun).toBe(true);
  const a = await seam.open({ path: '/etc/kubernetes/admin.conf' }, { log });
  expect(a).toBeInstanceOf(DryRunKubeApi);
  expect(await seam.open({ path: '/etc/kubernetes/admin.conf' }, { log })).toBe(a);
  const b = await seam.open({ path: '/etc/kubernetes/super-admin.conf' }, { log });
  expect(b).not.toBe(a);
  // Another way of calling (here: no retries) is another client.
  const quick = await seam.open({ path: '/etc/kubernetes/admin.conf' }, { log, retry: NO_RETRY });
  expect(quick).not.toBe(a);
  const closed = [a, b, quick].map((api) => jest.spyOn(api, 'close'));
  seam.close();
  for (const c of closed) expect(c).toHaveBeenCalledTimes(1);
  // After close, a new open makes a new client.
  expect(await seam.open({ path: '/etc/kubernetes/admin.conf' }, { log })).not.toBe(a);
});

test('a real seam: a missing kubeconfig is an error naming it, and the next open tries again', async () => {
  const files: Record<string, string> = {};
  const seam = createApiSeam(hostWith(files), false);
  await expect(seam.open({ path: '/etc/kubernetes/admin.conf' }, { log })).rejects.toMatchObject({
    code: 'E_PRECONDITION', message: "couldn't read the kubeconfig /etc/kubernetes/admin.conf: no such file",
  });
  files['/etc/kubernetes/admin.conf'] = KUBECONFIG;
  const api = await seam.open({ path: '/etc/kubernetes/admin.conf' }, { log });
  expect(api).toBeInstanceOf(RestKubeApi);
  expect(api.server).toBe('https://127.0.0.1:1');
  // Credentials in hand are a client of their own.
  expect(await seam.open({ text: KUBECONFIG, source: 'the TLS bootstrap credentials' }, { log })).not.toBe(api);
  seam.close();
});

test('prepare runs once, on the first open; when it fails the open fails and is tried again', async () => {
  const seam = createApiSeam(hostWith({}), true);
  let calls = 0;
  const prepare = (_api: KubeApi): Promise<void> => {
    calls += 1;
    return calls === 1 ? Promise.reject(new Error('forbidden')) : Promise.resolve();
  };
  await expect(seam.open({ path: '/a.conf' }, { log, prepare })).rejects.toThrow('forbidden');
  const api = await seam.open({ path: '/a.conf' }, { log, prepare });
  expect(await seam.open({ path: '/a.conf' }, { log, prepare })).toBe(api);
  expect(calls).toBe(2);
  seam.close();
});

test('a dry run whose kubeconfig only its own plan holds (init\'s admin.conf) asks no cluster, and names the file\'s server', async () => {
  const files: Record<string, string> = { '/etc/kubernetes/admin.conf': KUBECONFIG.replace('https://127.0.0.1:1', 'https://10.1.2.3:6443/') };
  const host = { ...hostWith(files), plansOnly: (p: string) => Promise.resolve(p === '/etc/kubernetes/admin.conf') };
  const api = await createApiSeam(host, true).open({ path: '/etc/kubernetes/admin.conf' }, { log });
  expect(api).toBeInstanceOf(DryRunKubeApi);
  expect(api.server).toBe('https://10.1.2.3:6443');
  // No reader behind it: the version is not asked of any server.
  await expect(api.serverVersion()).rejects.toThrow('the dry run has no cluster to ask (https://10.1.2.3:6443)');
  expect(await api.get('ConfigMap', 'kubeadm-config', 'kube-system')).toBeUndefined();
});
