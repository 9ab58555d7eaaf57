import type { Argv, ArgumentsCamelCase } from 'yargs';
import { generateCertificateKey } from '../phases/cluster/upload-certs-render.js';
import type { CommandEnv } from '../run/runtime.js';
import { VERBOSITY_OPTION } from '../cli/workflow-command.js';
import { createRuntime, type Runtime } from '../run/runtime.js';
import type { FlagValues } from '../flags.js';
import { TsadmError } from '../errors.js';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { addTemplateFlags, refuseTemplateFormat } from './output-flags.js';
import { EXIT_EXPIRING, parseThreshold } from '../certs-lifecycle/threshold.js';
import { renewableNames } from '../certs-lifecycle/inventory.js';
import type { ExpirationFormat } from '../certs-lifecycle/expiration-format.js';
import { runCheckExpiration, runGenerateCsr, runRenew } from '../certs-lifecycle/run.js';
import { approveKubeletServingCommand } from './approve-kubelet-serving.js';

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
      (o) => o.strict(),
      () => {
        env.io.stdout.write(`${generateCertificateKey()}\n`);
      },
    )
    .command(
      'check-expiration',
      'Check certificates expiration for a Kubernetes cluster',
      (o) =>
        addTemplateFlags(pathOptions(o))
          .option('output', { alias: 'o', type: 'string', requiresArg: true, default: 'table', describe: 'Output format: table (or text), json, yaml, kyaml (docs/certs.md); kubeadm\'s template formats are refused.' })
          .option('expiring-within', { type: 'string', requiresArg: true, describe: `Exit with status ${EXIT_EXPIRING} when a certificate or CA expires within this duration (e.g. 720h, 30d), for monitoring.` })
          .option('kubeconfig', { type: 'string', requiresArg: true, describe: 'The kubeconfig file to read the cluster\'s ClusterConfiguration (kubeadm-config ConfigMap) through when --config is not given.', defaultDescription: DEFAULT_ADMIN_KUBECONFIG })
          .usage('Checks expiration for the certificates in the local PKI managed by tsadm (and kubeadm).')
          .strict(),
      (argv) => {
        const format = checkExpirationFormat(String(argv.output));
        return withRuntime(argv, env, (rt) =>
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
      'renew <certificate>',
      'Renew certificates for a Kubernetes cluster',
      (o) =>
        pathOptions(o)
          .positional('certificate', { type: 'string', describe: `"all", or one of: ${renewableNames().join(', ')}` })
          .option('dry-run', { type: 'boolean', describe: "Don't write anything; show what would be written." })
          .option('new-key', { type: 'boolean', describe: 'Issue each certificate for a newly generated private key (kubeadm\'s behaviour) instead of keeping the existing key.' })
          .option('restart', { type: 'boolean', describe: 'Restart the control-plane static pods that read the renewed certificates, one by one, each until its liveness probe passes again.' })
          .option('kubeconfig', { type: 'string', requiresArg: true, describe: 'The kubeconfig file to read the cluster\'s ClusterConfiguration (kubeadm-config ConfigMap) through when --config is not given.', defaultDescription: DEFAULT_ADMIN_KUBECONFIG })
          .usage([
            'Renew the certificate(s), regardless of their expiration date. Subject, SANs and key usages',
            '(for kubeconfigs: the identity) come from the existing certificates; the CA on disk signs.',
            'The private key is kept unless --new-key is given. Certificates whose CA key is absent',
            '(external CA) are not renewed. Restart the components named at the end (or use --restart).',
          ].join('\n'))
          .strict(),
      (argv) =>
        withRuntime(argv, env, async (rt) => {
          await runRenew(rt, {
            ...paths(argv),
            ...kubeconfigOf(argv),
            name: String(argv.certificate),
            newKey: argv['new-key'] === true,
            restart: argv.restart === true,
          });
        }, 'certs renew'),
    )
    .command(
      'generate-csr',
      'Generate keys and certificate signing requests',
      (o) =>
        pathOptions(o)
          .option('dry-run', { type: 'boolean', describe: "Don't write anything; show what would be written." })
          .usage([
            'Generates keys and certificate signing requests (CSRs) for all the certificates required to run the',
            'control plane, and partial kubeconfig files with the client key in "users > user > client-key-data",',
            'each with an accompanying ".csr" file (external CA mode). Sign the CSRs with your CA, save each',
            'certificate next to its key as ".crt", and put each kubeconfig certificate, base64-encoded, into',
            '"users > user > client-certificate-data".',
          ].join('\n'))
          .example('tsadm certs generate-csr --kubeconfig-dir /tmp/etc-k8s --cert-dir /tmp/etc-k8s/pki', '')
          .strict(),
      (argv) => withRuntime(argv, env, (rt) => runGenerateCsr(rt, paths(argv)), 'certs generate-csr'),
    );
  // The lead wires the Lease lock here: approveKubeletServingCommand(lifecycle, env, (api, holder) => guard).
  return approveKubeletServingCommand(lifecycle, env)
    .demandCommand(1, 'specify a subcommand: certificate-key, check-expiration, renew, generate-csr, approve-kubelet-serving')
    .strict();
}

const EXPIRATION_FORMATS = ['table', 'text', 'json', 'yaml', 'kyaml'];

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
  o.option('cert-dir', { type: 'string', requiresArg: true, describe: 'The path where the certificates are stored (wins over certificatesDir from --config).', defaultDescription: '/etc/kubernetes/pki' });
  if (opts.kubeconfigDir !== false) {
    o.option('kubeconfig-dir', { type: 'string', requiresArg: true, describe: 'The path where the kubeconfig files are stored.', defaultDescription: '/etc/kubernetes' });
  }
  return o
    .option('config', { type: 'string', requiresArg: true, describe: 'Path to a kubeadm configuration file (InitConfiguration/ClusterConfiguration).' })
    .option('rootfs', { type: 'string', requiresArg: true, describe: 'Path to the real host root filesystem: every host path resolves under it.' })
    .option('v', { ...VERBOSITY_OPTION, describe: 'Log level verbosity.' });
}

export function paths(argv: Args): { config?: string; certDir?: string; kubeconfigDir?: string } {
  const s = (k: string): string | undefined => (typeof argv[k] === 'string' ? argv[k] : undefined);
  const config = s('config');
  const certDir = s('cert-dir');
  const kubeconfigDir = s('kubeconfig-dir');
  return { ...(config ? { config } : {}), ...(certDir ? { certDir } : {}), ...(kubeconfigDir ? { kubeconfigDir } : {}) };
}

/** `lock`: the command changes the machine, so it takes the machine lock (not in dry-run). */
export async function withRuntime(argv: Args, env: CommandEnv, fn: (rt: Runtime) => Promise<void>, lock?: string): Promise<void> {
  const rootfs = argv.rootfs;
  if (rootfs !== undefined && typeof rootfs !== 'string') throw new TsadmError('E_USAGE', '--rootfs takes a path');
  const flags: FlagValues = {
    ...(argv['dry-run'] === true ? { 'dry-run': true } : {}),
    ...(typeof rootfs === 'string' ? { rootfs } : {}),
    ...(typeof argv.v === 'number' ? { v: argv.v } : {}),
  };
  const rt = await createRuntime(flags, env, lock ? { lock } : {});
  try {
    await fn(rt);
  } finally {
    rt.api.close();
    await rt.reporter.close();
  }
}
