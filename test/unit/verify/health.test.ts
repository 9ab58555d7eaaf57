import type { HealthCheck } from '../../../src/health/http-check.js';
import { checkRunning } from '../../../src/verify/health.js';

const target = { component: 'kube-scheduler', url: 'https://127.0.0.1:10259/healthz' };

test('on the machine itself the health endpoint is asked once', async () => {
  const asked: string[] = [];
  const answers = (ok: boolean): HealthCheck => (url) => {
    asked.push(url);
    return Promise.resolve(ok ? { ok: true, detail: '200 OK' } : { ok: false, detail: 'connection refused' });
  };
  await expect(checkRunning({ host: { root: '/' } }, target, answers(true))).resolves.toEqual([
    { check: 'kube-scheduler running', ok: true, detail: 'https://127.0.0.1:10259/healthz answers' },
  ]);
  await expect(checkRunning({ host: { root: '/' } }, target, answers(false))).resolves.toEqual([
    { check: 'kube-scheduler running', ok: false, detail: 'https://127.0.0.1:10259/healthz: connection refused' },
  ]);
  expect(asked).toEqual([target.url, target.url]);
});

test('on a root folder nothing runs: a warning, and nothing asked', async () => {
  let asked = false;
  const never: HealthCheck = () => {
    asked = true;
    return Promise.resolve({ ok: true, detail: '200 OK' });
  };
  await expect(checkRunning({ host: { root: '/mnt/node' } }, target, never)).resolves.toEqual([
    { check: 'kube-scheduler running', ok: true, warning: true, detail: 'not checked on a root folder (/mnt/node)' },
  ]);
  expect(asked).toBe(false);
});
