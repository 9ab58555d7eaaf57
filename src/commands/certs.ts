import type { Argv, ArgumentsCamelCase } from 'yargs';
import { generateCertificateKey } from '../certs/kubeadm-certs-secret.js';
import type { CommandEnv } from '../run/runtime.js';
import { addFlags } from '../cli/yargs-kit.js';
import { addRootFlags } from '../cli/root-flags.js';
import { runCommand } from '../workflows/run-command.js';
import { addPlanOptions } from './plan-flags.js';
import { TsadmError } from '../errors.js';
import { addTemplateFlags, refuseTemplateFormat } from './output-flags.js';
import { parseThreshold } from '../certs-lifecycle/threshold.js';
import { renewableNames } from '../certs-lifecycle/inventory.js';
import type { ExpirationFormat } from '../certs-lifecycle/expiration-format.js';
import { runCheckExpiration, runGenerateCsr, runRenew } from '../certs-lifecycle/run.js';
import { approveKubeletServingCommand } from './approve-kubelet-serving.js';
import { runRenewAuto } from '../certs-lifecycle/auto-run.js';
import { DEFAULT_WINDOW_SECONDS } from '../certs-lifecycle/auto-select.js';
import { runAutoRenewUnits } from '../certs-lifecycle/auto-renew-units.js';
import { LeaseObserver, withLeaseLock } from '../kube/lease-lock.js';
import { rotateCaCommand } from './rotate-ca.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

/**
 * `tsadm certs …` (alias `certificates`): certificate-key, check-expiration, renew, generate-csr.
 * certificate-key prints a new key for --upload-certs, which is what the user asked for, so
 * printing it is intended. The logic is in src/certs-lifecycle; this only maps flags.
 */
export function registerCertsCommand(y: Argv, env: CommandEnv): Argv {
  return y.command(['certs', 'certificates'], 'Commands related to handling kubernetes certificates', (c) => certsSubcommands(c, env));
}

/** The subcommands, also mounted under `tsadm alpha certs` (kubeadm 1.20's spelling). */
export function certsSubcommands(c: Argv, env: CommandEnv): Argv {
  const lifecycle = c
    .command(
      'certificate-key',
      'Generate certificate keys (64 hex characters) for --upload-certs / --certificate-key',
      (o) => addRootFlags(o).strict(),
      () => {
        env.io.stdout.write(`${generateCertificateKey()}\n`);
      },
    )
    .command(
      'check-expiration',
      'Check certificates expiration for a Kubernetes cluster',
      (o) =>
        addFlags(addTemplateFlags(pathOptions(o)), ['output@check-expiration', 'expiring-within', 'kubeconfig@check-expiration'])
          .usage('Checks expiration for the certificates in the local PKI managed by tsadm (and kubeadm).')
          .strict(),
      (argv) => {
        const format = checkExpirationFormat(String(argv.output));
        return runCommand({ env, args: argv, eventOutput: false }, (rt) =>
          runCheckExpiration(rt, {
            format,
            ...paths(argv),
            ...kubeconfigOf(argv),
            ...(typeof argv['expiring-within'] === 'string' ? { thresholdSeconds: parseThreshold(argv['expiring-within']) } : {}),
          }),
        );
      },
    )
    .command(
      'renew [certificate]',
      'Renew certificates for a Kubernetes cluster',
      (o) =>
        addFlags(addPlanOptions(pathOptions(o)).positional('certificate', { type: 'string', describe: `"all", or one of: ${renewableNames().join(', ')} (not with --auto)` }), [
          'auto', 'lease-wait', 'within', 'wait', 'dry-run@certs', 'new-key', 'restart', 'output@renew', 'kubeconfig@renew',
        ])
          .usage([
            'Renew the certificate(s), regardless of their expiration date. Subject, SANs and key usages',
            '(for kubeconfigs: the identity) come from the existing certificates; the CA on disk signs.',
            'The private key is kept unless --new-key is given. Certificates whose CA key is absent',
            '(external CA) are not renewed. Restart the components named at the end (or use --restart).',
            '',
            'With --auto, only what expires within --within (default 90d) is renewed, with the same key;',
            'control planes take turns through a Lease; CAs are never renewed (a warning when one has',
            'less than a year left). "tsadm certs auto-renew enable" runs it daily from a systemd timer.',
          ].join('\n'))
          .example('tsadm certs renew all', 'renew everything now, as kubeadm does')
          .example('tsadm certs renew --auto --within 30d --dry-run', 'what an automatic renewal would do now')
          .example('tsadm certs renew --auto --plan renew.json', 'record what is due; `tsadm apply renew.json` renews exactly that, under the Lease, or refuses if it changed')
          .strict(),
      async (argv) => {
        if (argv.auto === true) {
          await renewAutoCommand(argv, env);
          return;
        }
        await runCommand({ env, args: argv, runtime: { lock: 'certs renew' } }, async (rt) => {
          const name = typeof argv.certificate === 'string' ? argv.certificate : undefined;
          if (argv.plan !== undefined) throw new TsadmError('E_USAGE', '--plan goes with --auto', { hint: 'use --dry-run to see what renewing named certificates would write' });
          if (name === undefined) throw new TsadmError('E_USAGE', 'specify "all", a certificate name, or --auto', { hint: `one of: all, ${renewableNames().join(', ')}` });
          if (argv.within !== undefined) throw new TsadmError('E_USAGE', '--within goes with --auto', { hint: 'add --auto, or drop --within' });
          await runRenew(rt, {
            ...paths(argv),
            ...kubeconfigOf(argv),
            name,
            newKey: argv['new-key'] === true,
            restart: argv.restart === true,
          });
        });
      },
    )
    .command(
      'auto-renew <action>',
      'Turn the daily automatic renewal (a systemd timer running "tsadm certs renew --auto") on or off, or show it',
      (o) =>
        addFlags(addPlanOptions(o).positional('action', { type: 'string', choices: ['enable', 'disable', 'status'], describe: 'enable, disable or status' }), [
          'within@enable', 'tsadm-path@enable', 'dry-run@certs', 'rootfs', 'v@short', 'output@events',
        ])
          .usage([
            'enable writes tsadm-certs-renew.service (a oneshot running "tsadm certs renew --auto") and',
            'tsadm-certs-renew.timer (daily, randomized by up to an hour, catching up after downtime), then',
            'reloads systemd and starts the timer. disable stops it and removes both units. status says whether',
            'the units are installed and active. Off by default, as kubeadm renews only during upgrades.',
          ].join('\n'))
          .strict(),
      async (argv) => {
        const action = String(argv.action) as 'enable' | 'disable' | 'status';
        const within = typeof argv.within === 'string' ? argv.within : undefined;
        if (within !== undefined) parseWindow(within);
        const tsadmPath = typeof argv['tsadm-path'] === 'string' ? argv['tsadm-path'] : undefined;
        const runtime = action === 'status' ? {} : { lock: 'certs auto-renew' };
        await runCommand({ command: `certs auto-renew ${action}`, env, args: argv, runtime }, async (rt) => {
          await runAutoRenewUnits(rt, action, { ...(within !== undefined ? { within } : {}), ...(tsadmPath !== undefined ? { tsadmPath } : {}) });
          return { action, ...(within !== undefined ? { within } : {}) };
        });
      },
    )
    .command(
      'generate-csr',
      'Generate keys and certificate signing requests',
      (o) =>
        addFlags(pathOptions(o), ['dry-run@certs'])
          .usage([
            'Generates keys and certificate signing requests (CSRs) for all the certificates required to run the',
            'control plane, and partial kubeconfig files with the client key in "users > user > client-key-data",',
            'each with an accompanying ".csr" file (external CA mode). Sign the CSRs with your CA, save each',
            'certificate next to its key as ".crt", and put each kubeconfig certificate, base64-encoded, into',
            '"users > user > client-certificate-data".',
          ].join('\n'))
          .example('tsadm certs generate-csr --kubeconfig-dir /tmp/etc-k8s --cert-dir /tmp/etc-k8s/pki', '')
          .strict(),
      (argv) => runCommand({ env, args: argv, eventOutput: false, runtime: { lock: 'certs generate-csr' } }, (rt) => runGenerateCsr(rt, paths(argv))),
    )
  return approveKubeletServingCommand(rotateCaCommand(lifecycle, env, { pathOptions, paths }), env, approverLease)
    .demandCommand(1, 'specify a subcommand: certificate-key, check-expiration, renew, auto-renew, generate-csr, approve-kubelet-serving, rotate-ca')
    .strict();
}

const EXPIRATION_FORMATS = ['table', 'text', 'json', 'yaml', 'kyaml'];

/** --within of renew --auto and auto-renew: a Go duration or days, positive. */
function parseWindow(text: string): number {
  const seconds = parseThreshold(text, '--within');
  if (seconds <= 0) throw new TsadmError('E_USAGE', `--within must be more than zero (got "${text}")`, { hint: 'e.g. --within 90d or --within 720h' });
  return seconds;
}

function checkExpirationFormat(output: string): ExpirationFormat {
  refuseTemplateFormat(output);
  if (!EXPIRATION_FORMATS.includes(output)) {
    throw new TsadmError('E_USAGE', `unable to match a printer suitable for the output format "${output}", allowed formats are: ${EXPIRATION_FORMATS.join(',')}`, { hint: 'use -o table, -o json, -o yaml or -o kyaml' });
  }
  return (output === 'text' ? 'table' : output) as ExpirationFormat;
}

/** --kubeconfig of renew and check-expiration; a relative path is relative to the working directory. */
function kubeconfigOf(argv: Args): { kubeconfig?: string } {
  const k = argv.kubeconfig;
  if (typeof k !== 'string' || k === '') return {};
  return { kubeconfig: k.startsWith('/') ? k : `${process.cwd()}/${k}` };
}

/** --cert-dir, --kubeconfig-dir, --config, --rootfs, -v: every lifecycle command has them. */
export function pathOptions(o: Argv, opts: { kubeconfigDir?: boolean } = {}): Argv {
  return addFlags(o, ['cert-dir@certs', ...(opts.kubeconfigDir !== false ? ['kubeconfig-dir@certs' as const] : []), 'config@certs', 'rootfs', 'v@short']);
}

export function paths(argv: Args): { config?: string; certDir?: string; kubeconfigDir?: string } {
  const s = (k: string): string | undefined => (typeof argv[k] === 'string' ? argv[k] : undefined);
  const config = s('config');
  const certDir = s('cert-dir');
  const kubeconfigDir = s('kubeconfig-dir');
  return { ...(config ? { config } : {}), ...(certDir ? { certDir } : {}), ...(kubeconfigDir ? { kubeconfigDir } : {}) };
}

/**
 * `certs renew --auto`: ends with a result event (what was renewed and restarted, how the
 * cluster-wide exclusion was had), which also lets --plan write its plan.
 */
async function renewAutoCommand(argv: Args, env: CommandEnv): Promise<void> {
  const name = typeof argv.certificate === 'string' ? argv.certificate : undefined;
  if (name !== undefined) throw new TsadmError('E_USAGE', `--auto renews what is due; it takes no certificate name (got "${name}")`, { hint: 'drop the name, or drop --auto to renew that certificate now' });
  if (argv['new-key'] === true) throw new TsadmError('E_USAGE', '--auto always keeps the private keys; --new-key cannot be combined with it', { hint: 'run "tsadm certs renew <name> --new-key" for a new key' });
  const options = {
    ...paths(argv),
    ...kubeconfigOf(argv),
    windowSeconds: typeof argv.within === 'string' ? parseWindow(argv.within) : DEFAULT_WINDOW_SECONDS,
    restart: argv.restart !== false,
    planning: typeof argv.plan === 'string',
    ...(typeof argv.wait === 'string' ? { waitSeconds: parseThreshold(argv.wait, '--wait') } : {}),
  };
  const deps = typeof argv['lease-wait'] === 'string' ? { leaseGraceMs: parseThreshold(argv['lease-wait'], '--lease-wait') * 1000 } : {};
  await runCommand({ command: 'certs renew', env, args: argv, runtime: { lock: 'certs renew' } }, async (rt) => {
    const r = await runRenewAuto(rt, options, deps);
    return { renewed: r.renewed, restarted: r.restarted, due: r.selection.due.map((c) => c.name), lock: r.lock, dryRun: rt.dryRun };
  });
}

/**
 * The approver's passes on several control planes take turns through one Lease
 * (kube-system/tsadm-kubelet-serving-approver, src/kube/lease-lock.ts): a pass that finds it held
 * by another control plane does not run (the pass reports `ran: false`) rather than failing. One
 * observer for all the passes of a --watch loop: a dead approver's Lease, seen unchanged for its
 * 60 s, is taken over by the next pass.
 */
const approverLease: NonNullable<Parameters<typeof approveKubeletServingCommand>[2]> = (api, holder) => {
  const observer = new LeaseObserver();
  return async (fn) => {
    try {
      return await withLeaseLock(api, { name: 'tsadm-kubelet-serving-approver', holder, durationSeconds: 60, observer }, fn);
    } catch (err) {
      if (err instanceof TsadmError && err.code === 'E_LOCKED') return undefined;
      throw err;
    }
  };
};
