/**
 * kubeadm's CreateJob upgrade health check (phases/upgrade/health.go createJob): a Job in
 * kube-system running the pause image, tolerating the control-plane taints, must complete within
 * 15 s; it is deleted (foreground, so its Pod goes too) before and after. This proves the
 * scheduler, the controller-manager's Job controller and a kubelet all work before anything is
 * upgraded. A dry run only says what it would do, as kubeadm's.
 */
import { TsadmError, errorMessage } from '../../errors.js';
import { isAlreadyExists } from '../../kube/errors.js';
import type { KubeApi, KubeObject } from '../../kube/types.js';
import { imageRepository } from '../../manifest/inputs.js';
import { imageRef } from '../../manifest/static-pod.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { UpgradeCtx } from './context.js';
import { parseTaint } from '../cluster/mark-control-plane.js';
import { fail, ok, type Check } from '../preflight/check.js';
import { adminApi, initView } from './state.js';

const HEALTH_CHECK_JOB = 'upgrade-health-check';
const NAMESPACE = 'kube-system';
/** kubeadm's timeout for creating the Job and for its completion, each. */
const TIMEOUT_MS = 15_000;
const INTERVAL_MS = 1_000;

/** Pure: kubeadm's Job, tolerating the taints the target minor puts on control-plane nodes. */
export function healthCheckJob(pauseImage: string, versions: VersionProfile): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: HEALTH_CHECK_JOB, namespace: NAMESPACE },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          securityContext: { runAsUser: 999, runAsGroup: 999, runAsNonRoot: true },
          tolerations: versions.controlPlane.markTaints.map(parseTaint).map((t) => ({ key: t.key, effect: t.effect })),
          containers: [{ name: HEALTH_CHECK_JOB, image: pauseImage, args: ['-v'] }],
        },
      },
    },
  };
}

export interface HealthJobTiming {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

function isComplete(job: KubeObject | undefined): boolean {
  const conditions = (job as { status?: { conditions?: { type?: string; status?: string }[] } } | undefined)?.status?.conditions ?? [];
  return conditions.some((c) => c.type === 'Complete' && c.status === 'True');
}

const deleteJob = (api: KubeApi): Promise<boolean> => api.delete('Job', HEALTH_CHECK_JOB, NAMESPACE, { propagationPolicy: 'Foreground' });

/** Creates the Job (retrying while an old one is still being deleted), waits for it to complete, deletes it. Throws on failure. */
export async function runHealthCheckJob(api: KubeApi, job: KubeObject, timing: HealthJobTiming = {}): Promise<void> {
  const timeoutMs = timing.timeoutMs ?? TIMEOUT_MS;
  const intervalMs = timing.intervalMs ?? INTERVAL_MS;
  const sleep = timing.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = timing.now ?? Date.now;
  const where = `Job "${HEALTH_CHECK_JOB}" in the namespace "${NAMESPACE}"`;
  if (await api.get('Job', HEALTH_CHECK_JOB, NAMESPACE)) await deleteJob(api);
  try {
    let start = now();
    for (;;) {
      try {
        await api.create(job);
        break;
      } catch (err) {
        // An old Job still being deleted (foreground) answers AlreadyExists until it is gone.
        if (!isAlreadyExists(err) || now() - start >= timeoutMs) {
          throw new TsadmError('E_PRECONDITION', `could not create ${where}: ${errorMessage(err)}`, { cause: err, hint: 'check that kube-system accepts Jobs' });
        }
        await sleep(intervalMs);
      }
    }
    start = now();
    while (!isComplete(await api.get('Job', HEALTH_CHECK_JOB, NAMESPACE))) {
      if (now() - start >= timeoutMs) {
        throw new TsadmError('E_PRECONDITION', `${where} did not complete in ${Math.round(timeoutMs / 1000)}s: no condition of type Complete`, {
          hint: 'check that the scheduler, the controller-manager and the kubelets work (kubectl -n kube-system describe job upgrade-health-check)',
        });
      }
      await sleep(intervalMs);
    }
  } finally {
    await deleteJob(api);
  }
}

/**
 * The check, named CreateJob for --ignore-preflight-errors. Runs against the admin client; the
 * pause image is the target version's (kubeadm's images.GetPauseImage of the upgraded config).
 */
export function createJobCheck(ctx: UpgradeCtx, timing: HealthJobTiming = {}): Check {
  return {
    name: 'CreateJob',
    run: async () => {
      // The dry-run API seam would only list the writes; kubeadm prints this line instead.
      if (ctx.dryRun) {
        ctx.log.info(`Would create the Job "${HEALTH_CHECK_JOB}" in namespace "${NAMESPACE}" and wait until it completes`, { prefix: 'dryrun' });
        return ok;
      }
      try {
        const view = await initView(ctx, 'upgrade');
        const pause = imageRef(imageRepository(view.cfg.cluster, view.versions), 'pause', view.versions.images.pauseTag);
        await runHealthCheckJob(await adminApi(ctx), healthCheckJob(pause, view.versions), timing);
        return ok;
      } catch (err) {
        return fail(errorMessage(err));
      }
    },
  };
}
