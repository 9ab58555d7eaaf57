import { isTsadmError } from '../../../src/errors.js';
import { ApiError } from '../../../src/kube/errors.js';
import { RestKubeApi } from '../../../src/kube/rest-api.js';
import type { RetryPolicy } from '../../../src/kube/retry.js';
import { ScriptedTransport, status, type Answer } from './fake-transport.js';

/** Error paths a real server cannot be made to produce: refused connections, throttling, 5xx. */
const FAST: RetryPolicy = { initialDelayMs: 1, maxDelayMs: 4, factor: 2, deadlineMs: 1000 };
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kube-system' }, data: { a: 'b' } } as const;

function api(answer: (req: { method: string; path: string }, n: number) => Answer, retry: RetryPolicy = FAST) {
  const t = new ScriptedTransport(answer);
  const slept: number[] = [];
  return { t, slept, api: new RestKubeApi(t, { retry, sleep: (ms) => { slept.push(ms); return Promise.resolve(); } }) };
}

describe('RestKubeApi retries transient failures', () => {
  test('connection refused while the API server settles, then success', async () => {
    const { t, api: a } = api((_req, n) => (n <= 2 ? { netError: 'ECONNREFUSED' } : { status: 200, body: { ...cm, metadata: { ...cm.metadata, resourceVersion: '1' } } }));
    await expect(a.get('ConfigMap', 'x', 'kube-system')).resolves.toMatchObject({ data: { a: 'b' } });
    expect(t.requests).toHaveLength(3);
  });

  test('429 and 503 are retried with growing delays', async () => {
    const { slept, api: a } = api((_req, n) => (n === 1 ? status(429, 'TooManyRequests', 'slow down') : n === 2 ? status(503, 'ServiceUnavailable', 'not ready') : { status: 200, body: cm }));
    await a.get('ConfigMap', 'x', 'kube-system');
    expect(slept).toEqual([1, 2]);
  });

  test('persistent 500 ends with one clear E_API line and a hint once the deadline passes', async () => {
    const { api: a } = api(() => status(500, 'InternalError', 'etcdserver: request timed out'), { ...FAST, deadlineMs: 10 });
    const err = await a.get('ConfigMap', 'x', 'kube-system').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isTsadmError(err) && err.code).toBe('E_API');
    expect((err as ApiError).message).toBe('get ConfigMap kube-system/x: etcdserver: request timed out');
    expect((err as ApiError).message).not.toContain('\n');
    expect((err as ApiError).hint).toMatch(/API server at https:\/\/127\.0\.0\.1:6443 failed/);
  });

  test('an unreachable server is reported with the address and what to check', async () => {
    const { api: a } = api(() => ({ netError: 'ECONNREFUSED' }), { ...FAST, deadlineMs: 5 });
    const err = (await a.list('Secret', 'kube-system').catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe('list secrets: unable to reach the API server at https://127.0.0.1:6443: connect ECONNREFUSED 127.0.0.1:6443');
    expect(err.status).toBe(0);
    expect(err.hint).toMatch(/control plane running/);
  });

  test('401 is not retried', async () => {
    const { t, api: a } = api(() => status(401, 'Unauthorized', 'Unauthorized'));
    const err = (await a.get('ConfigMap', 'x', 'kube-system').catch((e: unknown) => e)) as ApiError;
    expect(t.requests).toHaveLength(1);
    expect(err.status).toBe(401);
    expect(err.hint).toMatch(/rejected the kubeconfig's credentials/);
  });

  test('ensure re-reads and retries when the update conflicts', async () => {
    let puts = 0;
    const live = { ...cm, data: { a: 'old' }, metadata: { ...cm.metadata, resourceVersion: '7' } };
    const { t, api: a } = api((req) => {
      if (req.method === 'GET') return { status: 200, body: live };
      puts += 1;
      return puts === 1 ? status(409, 'Conflict', 'the object has been modified') : { status: 200, body: { ...cm, metadata: { ...cm.metadata, resourceVersion: '9' } } };
    });
    const res = await a.ensure(cm);
    expect(res.action).toBe('updated');
    expect(t.requests.map((r) => r.method)).toEqual(['GET', 'PUT', 'GET', 'PUT']);
    expect((t.requests[1]?.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe('7');
  });

  test('ensure survives losing a create race (AlreadyExists → compare with theirs)', async () => {
    let gets = 0;
    const { api: a } = api((req) => {
      if (req.method === 'GET') return ++gets === 1 ? status(404, 'NotFound', 'not found') : { status: 200, body: { ...cm, metadata: { ...cm.metadata, resourceVersion: '3' } } };
      return status(409, 'AlreadyExists', 'configmaps "x" already exists');
    });
    await expect(a.ensure(cm)).resolves.toMatchObject({ action: 'unchanged' });
  });

  test('healthz never throws', async () => {
    const { api: a } = api(() => ({ netError: 'ECONNREFUSED' }));
    await expect(a.healthz()).resolves.toBe(false);
  });
});
