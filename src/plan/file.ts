import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { TsadmError, errorMessage } from '../errors.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { privateFileProblem } from '../host/private-file.js';
import { approvalStepProblem, execStepProblem } from './trust.js';
import { PLAN_API_VERSION, PLAN_KIND, type Plan } from './types.js';
import { isPlainObject } from '../util/plain-object.js';

/**
 * The plan file on the machine running tsadm (like --config: relative to the working directory,
 * not under --rootfs). A plan with key material is created 0600 from the start (atomic write
 * with the final mode), a review copy 0644.
 */
export async function writePlanFile(file: string, plan: Plan): Promise<void> {
  const target = path.resolve(file);
  try {
    await writeFileAtomic(target, `${JSON.stringify(plan, null, 2)}\n`, plan.keyMaterial ? 0o600 : 0o644);
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `cannot write the plan to ${file}: ${errorMessage(err)}`, {
      cause: err,
      hint: 'pass --plan a path in an existing, writable directory',
    });
  }
}

const STEP_TYPES = new Set(['file', 'mkdir', 'remove', 'symlink', 'exec', 'service', 'wait', 'object', 'etcd-snapshot', 'etcd-snapshot-restore', 'certs-renew-auto', 'certs-rotate-ca-node']);

/** The largest plan apply reads (a plan carrying binaries from a --bundle is the largest kind). */
const MAX_PLAN_BYTES = 1024 * 1024 * 1024;

/**
 * Reads a plan for `tsadm apply`: opened once without following a symbolic link, and refused
 * unless it is a regular file owned by root and writable by no one else (src/plan/trust.ts);
 * the bytes checked are the bytes read.
 */
export async function readPlanFile(file: string): Promise<Plan> {
  let text: string;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = await handle.stat();
    const problem = privateFileProblem({ isFile: st.isFile(), mode: st.mode, uid: st.uid }, process.geteuid?.() ?? 0);
    if (problem !== undefined) {
      throw new TsadmError('E_TRUST', `refusing to apply the plan ${file}: ${problem}`, {
        hint: 'a plan is run as root: keep it owned by root and writable only by its owner (chown root: <plan>; chmod 600 <plan>), or make a new one',
      });
    }
    if (st.size > MAX_PLAN_BYTES) throw invalid(file, `larger than ${MAX_PLAN_BYTES} bytes`);
    text = (await handle.readFile()).toString('utf8');
  } catch (err) {
    if (err instanceof TsadmError) throw err;
    const why = (err as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symbolic link' : errorMessage(err);
    throw new TsadmError((err as NodeJS.ErrnoException).code === 'ELOOP' ? 'E_TRUST' : 'E_USAGE', `cannot read the plan ${file}: ${why}`, { cause: err, hint: 'make one with `tsadm init --dry-run --plan <file>`' });
  } finally {
    await handle?.close();
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw invalid(file, `not JSON (${errorMessage(err)})`);
  }
  return validatePlan(data, file);
}

/** Pure: the shape checks apply relies on (a hand-edited or foreign file fails here, not half-way). */
export function validatePlan(data: unknown, file = 'plan'): Plan {
  if (!isPlainObject(data)) throw invalid(file, 'not a JSON object');
  if (data.kind !== PLAN_KIND || data.apiVersion !== PLAN_API_VERSION) {
    throw invalid(file, `apiVersion/kind are ${String(data.apiVersion)}/${String(data.kind)}, want ${PLAN_API_VERSION}/${PLAN_KIND}`);
  }
  if (typeof data.keyMaterial !== 'boolean' || typeof data.command !== 'string' || !Array.isArray(data.steps) || !isPlainObject(data.preconditions)) {
    throw invalid(file, 'keyMaterial, command, steps or preconditions is missing');
  }
  if (typeof data.rootfs !== 'string' || !data.rootfs.startsWith('/')) {
    throw invalid(file, 'rootfs (the root it was made for) is missing');
  }
  const pre = data.preconditions;
  if (!Array.isArray(pre.files) || !Array.isArray(pre.clusters) || !Array.isArray(pre.objects)) throw invalid(file, 'preconditions.files, .clusters or .objects is missing');
  data.steps.forEach((s, i) => {
    if (!isPlainObject(s) || typeof s.type !== 'string' || !STEP_TYPES.has(s.type)) throw invalid(file, `steps[${i}] has no known type`);
    if ((s.type === 'file' || s.type === 'mkdir' || s.type === 'remove' || s.type === 'symlink') && (typeof s.path !== 'string' || !s.path.startsWith('/'))) {
      throw invalid(file, `steps[${i}].path must be an absolute host path`);
    }
    if (s.type === 'symlink' && (typeof s.target !== 'string' || s.target === '')) throw invalid(file, `steps[${i}].target must name what the link points to`);
    if ((s.type === 'file' || s.type === 'mkdir') && (typeof s.mode !== 'string' || !/^0[0-7]{3,4}$/.test(s.mode))) throw invalid(file, `steps[${i}].mode must be octal like "0644"`);
    if (s.type === 'file' && (typeof s.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(s.sha256))) throw invalid(file, `steps[${i}].sha256 is not a sha256`);
    if (s.type === 'wait' && s.for === 'static-pod' && (typeof s.manifest !== 'string' || !s.manifest.startsWith('/') || typeof s.backup !== 'string' || !s.backup.startsWith('/')
      || typeof s.component !== 'string' || typeof s.node !== 'string' || typeof s.kubeconfig !== 'string' || typeof s.healthUrl !== 'string' || typeof s.timeoutSeconds !== 'number')) {
      throw invalid(file, `steps[${i}]: a static-pod wait needs component, node, kubeconfig, manifest, backup, healthUrl and timeoutSeconds`);
    }
    if (s.type === 'etcd-snapshot' && (typeof s.path !== 'string' || !s.path.startsWith('/') || typeof s.certDir !== 'string' || !s.certDir.startsWith('/')
      || typeof s.endpoint !== 'string' || !/^https:\/\/[^\s/]+\/?$/.test(s.endpoint))) {
      throw invalid(file, `steps[${i}]: an etcd snapshot needs an absolute path and certDir, and an https:// endpoint`);
    }
    if (s.type === 'etcd-snapshot-restore' && (typeof s.snapshot !== 'string' || !s.snapshot.startsWith('/') || typeof s.certDir !== 'string' || !s.certDir.startsWith('/')
      || typeof s.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(s.sha256) || typeof s.timeoutSeconds !== 'number' || !(s.timeoutSeconds > 0)
      || (s.criSocket !== undefined && (typeof s.criSocket !== 'string' || s.criSocket === '')))) {
      throw invalid(file, `steps[${i}]: a restore needs an absolute snapshot path and certDir, the snapshot's sha256 and a timeout`);
    }
    if (s.type === 'certs-renew-auto' && (typeof s.windowSeconds !== 'number' || !(s.windowSeconds > 0) || typeof s.restart !== 'boolean'
      || !Array.isArray(s.due) || s.due.some((n) => typeof n !== 'string') || !Array.isArray(s.pending) || s.pending.some((n) => typeof n !== 'string')
      || ['config', 'certDir', 'kubeconfigDir', 'kubeconfig'].some((k) => s[k] !== undefined && (typeof s[k] !== 'string' || !s[k].startsWith('/'))))) {
      throw invalid(file, `steps[${i}]: a renewal needs windowSeconds, restart, due and pending, and absolute paths`);
    }
    if (s.type === 'certs-rotate-ca-node' && (typeof s.id !== 'string' || typeof s.rotationPhase !== 'string' || typeof s.nodeName !== 'string' || s.nodeName === ''
      || ['rotationKeyFile', 'config', 'certDir', 'kubeconfigDir', 'kubeconfig'].some((k) => s[k] !== undefined && (typeof s[k] !== 'string' || !s[k].startsWith('/'))))) {
      throw invalid(file, `steps[${i}]: a CA rotation node step needs id, rotationPhase and nodeName, and absolute paths`);
    }
    if (s.type === 'exec') {
      const problem = execStepProblem(s.command, s.args);
      if (problem !== undefined) throw new TsadmError('E_TRUST', `${file}: steps[${i}]: ${problem}; refusing to apply the plan`, { hint: 'apply runs only the commands tsadm itself plans (/usr/share/doc/tsadm/docs/plan.md, "Trust"); make a new plan' });
    }
    if (s.type === 'object' && (typeof s.kubeconfig !== 'string' || typeof s.kind !== 'string' || typeof s.name !== 'string')) {
      throw invalid(file, `steps[${i}] needs kubeconfig, kind and name`);
    }
    if (s.type === 'object' && s.verb === 'approval') {
      const problem = approvalStepProblem(s);
      if (problem !== undefined) throw new TsadmError('E_TRUST', `${file}: steps[${i}]: ${problem}; refusing to apply the plan`, { hint: 'apply writes only the decisions tsadm\'s approver plans (/usr/share/doc/tsadm/docs/plan.md, "Trust"); make a new plan' });
    }
  });
  return data as unknown as Plan;
}

function invalid(file: string, why: string): TsadmError {
  return new TsadmError('E_CONFIG_INVALID', `${file} is not a usable tsadm plan: ${why}`, { hint: 'make a new plan with `tsadm init --dry-run --plan <file>`' });
}

