import type { Argv, ArgumentsCamelCase } from 'yargs';
import { addFlags } from '../cli/yargs-kit.js';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { approvalPass, runApprover, type PassGuard, type PassSummary } from '../csr-approval/pass.js';
import { APPROVER_UNIT, APPROVER_UNIT_PATH, approverStatus, disableApprover, enableApprover } from '../csr-approval/service-unit.js';
import { TsadmError } from '../errors.js';
import { nodeHostname } from '../host/network.js';
import type { KubeApi } from '../kube/types.js';
import type { CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';
import { addPlanOptions } from './plan-flags.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

const COMMAND = 'certs approve-kubelet-serving';

/**
 * The lock every pass runs in, built from the opened client and this machine's name: with several
 * control planes, a Lease in kube-system (src/kube/lease-lock.ts) so two approvers never act at
 * once. Undefined: every pass runs unguarded.
 */
type GuardFactory = (api: KubeApi, holder: string) => PassGuard | undefined;

/**
 * `tsadm certs approve-kubelet-serving [--watch]`: approves the kubelet serving-certificate
 * requests (signer kubernetes.io/kubelet-serving) that name only the requesting node's own
 * addresses, denies every other one (src/csr-approval/policy.ts, docs/safety.md).
 */
export function approveKubeletServingCommand(c: Argv, env: CommandEnv, guardFactory?: GuardFactory): Argv {
  return c.command(
    'approve-kubelet-serving [action]',
    'Approve kubelet serving certificate requests that name only the requesting node\'s own addresses; deny the rest',
    (o) =>
      addFlags(addPlanOptions(o).positional('action', { type: 'string', choices: ['enable', 'disable', 'status'], describe: `Install (enable), remove (disable) or show (status) the systemd service ${APPROVER_UNIT} that runs the approver with --watch; without it: approve now.` }), [
        'kubeconfig@approve', 'watch', 'interval', 'tsadm-path@enable', 'dry-run@approve', 'output@events', 'v@short',
      ])
        .usage([
          'With serverTLSBootstrap: true the kubelet asks for its serving certificate through a CertificateSigningRequest',
          '(signer kubernetes.io/kubelet-serving) that nothing in a kubeadm cluster approves. This command approves such a',
          'request only when it comes from the node itself (system:node:<name>, group system:nodes), its subject is',
          'CN=system:node:<name>, O=system:nodes, its usages are the serving ones, and every DNS name and IP it asks for is',
          'one of that Node\'s status.addresses. Every other kubelet-serving request is denied with the rule it broke; other',
          'signers\' requests are left alone. Run it on a control plane (admin.conf), once or with --watch.',
        ].join(' '))
        .example('tsadm certs approve-kubelet-serving --dry-run', 'Show what would be approved or denied')
        .example('tsadm certs approve-kubelet-serving --watch', 'Keep approving as kubelets ask')
        .example('tsadm certs approve-kubelet-serving --plan pass.json', 'Record one pass\'s decisions for review; `tsadm apply pass.json` writes exactly them, or refuses if a request changed')
        .example('tsadm certs approve-kubelet-serving enable', `Run the approver as the systemd service ${APPROVER_UNIT} on this control plane`)
        .example('tsadm certs approve-kubelet-serving disable', 'Stop the service and remove it')
        .strict(),
    (argv) => (typeof argv.action === 'string' ? manageService(argv, env, argv.action) : approve(argv, env, guardFactory)),
  );
}

async function approve(argv: Args, env: CommandEnv, guardFactory: GuardFactory | undefined): Promise<void> {
  if (argv.plan !== undefined && argv.watch === true) {
    throw new TsadmError('E_USAGE', '--plan records one pass: it cannot go with --watch', { hint: 'drop --watch; `tsadm apply` then writes exactly the decisions of that pass, or refuses if a request changed' });
  }
  const intervalMs = parseInterval((typeof argv.interval === 'string' ? argv.interval : '10s'));
  const kubeconfig = kubeconfigOf(argv);
  await runCommand({ command: COMMAND, env, args: argv }, async (rt) => {
    const api = await rt.api.open({ path: kubeconfig }, { log: rt.log, requestTimeoutMs: 10_000 });
    // A dry run (and so a plan) decides nothing: it takes no lock. An applied plan writes each
    // decision with the resourceVersion it was made on, which the API server checks instead.
    const guard = rt.dryRun ? undefined : guardFactory?.(api, nodeHostname());
    const base = { log: rt.log, dryRun: rt.dryRun, ...(guard ? { guard } : {}) };
    let data: Record<string, unknown>;
    if (argv.watch === true) {
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGTERM', () => resolve());
        process.once('SIGINT', () => resolve());
      });
      rt.log.info(`watching CertificateSigningRequests at ${api.server} every ${intervalMs / 1000}s`, { prefix: 'csr' });
      const passes = await runApprover(api, { ...base, intervalMs, stopped, onPass: (s) => { if (s.approved.length + s.denied.length > 0) rt.log.info(summaryLine(s, rt.dryRun), { prefix: 'csr' }); } });
      data = { passes, dryRun: rt.dryRun };
    } else {
      const summary = await approvalPass(api, base);
      rt.log.info(summaryLine(summary, rt.dryRun), { prefix: 'csr' });
      if (summary.unwritten.length > 0) {
        throw new TsadmError('E_API', `${summary.unwritten.length} decision(s) were not written (first: ${summary.unwritten[0]!.csr}: ${summary.unwritten[0]!.error})`, {
          hint: 'run the command again: it reads the requests anew',
        });
      }
      data = { ...summary, dryRun: rt.dryRun };
    }
    return data;
  });
}

/** enable|disable|status of the approver's systemd service (src/csr-approval/service-unit.ts). */
async function manageService(argv: Args, env: CommandEnv, action: string): Promise<void> {
  const interval = (typeof argv.interval === 'string' ? argv.interval : '10s');
  parseInterval(interval);
  const command = `certs approve-kubelet-serving ${action}`;
  await runCommand({ command, env, args: argv }, async (rt) => {
    let data: Record<string, unknown>;
    if (action === 'enable') {
      const r = await enableApprover(rt.host, { kubeconfig: kubeconfigOf(argv), interval, ...(typeof argv['tsadm-path'] === 'string' ? { tsadmPath: argv['tsadm-path'] } : {}) });
      rt.log.info(`${r.unchanged ? 'Kept' : rt.dryRun ? '[dry-run] Would write' : 'Wrote'} ${APPROVER_UNIT_PATH}; the service runs "tsadm certs approve-kubelet-serving --watch"`, { prefix: 'csr' });
      for (const f of r.failed) rt.log.warn(`the service manager could not ${f}; start ${APPROVER_UNIT} yourself`, { prefix: 'csr' });
      data = { unit: APPROVER_UNIT, path: APPROVER_UNIT_PATH, failed: r.failed, dryRun: rt.dryRun };
    } else if (action === 'disable') {
      const r = await disableApprover(rt.host);
      rt.log.info(r.removed ? `${rt.dryRun ? '[dry-run] Would stop' : 'Stopped'} ${APPROVER_UNIT} and ${rt.dryRun ? 'remove' : 'removed'} ${APPROVER_UNIT_PATH}` : `${APPROVER_UNIT} is not installed; nothing to do`, { prefix: 'csr' });
      for (const f of r.failed) rt.log.warn(`the service manager could not ${f}`, { prefix: 'csr' });
      data = { unit: APPROVER_UNIT, removed: r.removed, failed: r.failed, dryRun: rt.dryRun };
    } else {
      const st = await approverStatus(rt.host);
      rt.log.output(st.installed ? `${APPROVER_UNIT}: installed, ${st.active ? 'active' : 'not active'}\nExecStart=${st.execStart ?? '(none)'}\n` : `${APPROVER_UNIT}: not installed\n`);
      data = { unit: APPROVER_UNIT, ...st };
    }
    return data;
  });
}

function kubeconfigOf(argv: Args): string {
  return typeof argv.kubeconfig === 'string' && argv.kubeconfig !== ''
    ? (argv.kubeconfig.startsWith('/') ? argv.kubeconfig : `${process.cwd()}/${argv.kubeconfig}`)
    : DEFAULT_ADMIN_KUBECONFIG;
}

function summaryLine(s: PassSummary, dryRun: boolean): string {
  if (!s.ran) return 'another approver holds the lock: nothing done';
  const would = dryRun ? 'would be ' : '';
  return `kubelet-serving requests: ${s.approved.length} ${would}approved, ${s.denied.length} ${would}denied, ${s.alreadyDecided} already decided; ${s.otherSigners} of other signers left alone`;
}

/** "10s", "2m", "500ms", or plain seconds; at least 1 s. */
function parseInterval(text: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!Number.isFinite(ms) || ms < 1000) {
    throw new TsadmError('E_USAGE', `--interval "${text}" is not a duration of at least 1s`, { hint: 'e.g. --interval 10s or --interval 1m' });
  }
  return ms;
}
