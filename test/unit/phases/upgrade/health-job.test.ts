import { describeWithApiServer, startApiServer, type TestApiServer } from '../../../helpers/apiserver.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { upgradeCtxFor } from '../../../helpers/upgrade-ctx.js';
import { profileFor } from '../../../../src/versions/resolve.js';
import { adminApi } from '../../../../src/phases/upgrade/state.js';
import { createJobCheck, healthCheckJob, runHealthCheckJob } from '../../../../src/phases/upgrade/health-job.js';

/**
 * kubeadm's CreateJob upgrade health check (kubeadm 1.20 phases/upgrade/health.go createJob)
 * against a real kube-apiserver v1.20.2 with the garbage collector (foreground deletion). No
 * kubelet runs here, so the test plays the Job controller: it marks the Job Complete through the
 * status subresource, as the controller would once the Pod exited.
 */
const JOB_PATH = '/apis/batch/v1/namespaces/kube-system/jobs/upgrade-health-check';
const PAUSE = 'k8s.gcr.io/pause:3.2';

describe('healthCheckJob', () => {
  test('kubeadm 1.20\'s Job: pause -v, never restarted, non-root 999, tolerating the master taint', () => {
    expect(healthCheckJob(PAUSE, profileFor('v1.20.3'))).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'upgrade-health-check', namespace: 'kube-system' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            securityContext: { runAsUser: 999, runAsGroup: 999, runAsNonRoot: true },
            tolerations: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }],
            containers: [{ name: 'upgrade-health-check', image: PAUSE, args: ['-v'] }],
          },
        },
      },
    });
  });

  test('the tolerations follow the control-plane taints of the target minor (KEP-2067: both in 1.24, control-plane only from 1.25)', () => {
    const tolerations = (v: string) => (healthCheckJob(PAUSE, profileFor(v)) as unknown as { spec: { template: { spec: { tolerations: unknown } } } }).spec.template.spec.tolerations;
    expect(tolerations('v1.24.17')).toEqual([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    expect(tolerations('v1.25.16')).toEqual([{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  });
});

describeWithApiServer('CreateJob on a real API server', () => {
  let server: TestApiServer;
  let root: TempRoot;
  beforeAll(async () => {
    server = await startApiServer({ controllers: ['garbagecollector'] });
    root = tempRoot({ '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 } });
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  const jobGone = async (): Promise<boolean> => {
    for (let i = 0; i < 100; i++) {
      if ((await server.request('GET', JOB_PATH, { auth: 'admin' })).status === 404) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  test('a Job that completes passes; the Job is stored as built and deleted afterwards', async () => {
    const { ctx } = upgradeCtxFor(root.dir);
    const api = await adminApi(ctx);
    let stored: unknown;
    const controller = (async () => {
      for (let i = 0; i < 100; i++) {
        const r = await server.request('GET', JOB_PATH, { auth: 'admin' });
        if (r.status === 200) {
          stored = r.body;
          const done = await server.request('PATCH', `${JOB_PATH}/status`, {
            auth: 'admin',
            contentType: 'application/merge-patch+json',
            body: { status: { conditions: [{ type: 'Complete', status: 'True' }] } },
          });
          expect(done.status).toBe(200);
          return;
        }
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    await runHealthCheckJob(api, healthCheckJob(PAUSE, profileFor('v1.20.3')), { timeoutMs: 10_000, intervalMs: 100 });
    await controller;
    expect(stored).toMatchObject({ spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ image: PAUSE, args: ['-v'] }] } } } });
    expect(await jobGone()).toBe(true);
  }, 30_000);

  test('a Job that never completes fails the check after the timeout, and is deleted', async () => {
    const { ctx } = upgradeCtxFor(root.dir);
    const api = await adminApi(ctx);
    await expect(runHealthCheckJob(api, healthCheckJob(PAUSE, profileFor('v1.20.3')), { timeoutMs: 1_000, intervalMs: 100 }))
      .rejects.toThrow('Job "upgrade-health-check" in the namespace "kube-system" did not complete in 1s: no condition of type Complete');
    expect(await jobGone()).toBe(true);
  }, 30_000);

  test('a dry run only says what it would do (kubeadm\'s line) and creates nothing', async () => {
    const { ctx, reporter } = upgradeCtxFor(root.dir, { dryRun: true });
    const result = await createJobCheck(ctx).run({ host: ctx.host, system: ctx.system });
    expect(result).toEqual({ warnings: [], errors: [] });
    expect(reporter.lines()).toEqual(['Would create the Job "upgrade-health-check" in namespace "kube-system" and wait until it completes']);
    expect((await server.request('GET', JOB_PATH, { auth: 'admin' })).status).toBe(404);
  });
});
