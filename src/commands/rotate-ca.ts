/**
 * `tsadm certs rotate-ca start | node | status | abort`: replacing the cluster's CAs node by node
 * (docs/certs.md, "Rotating the cluster's CAs"). Flags only; the logic is in
 * src/certs-lifecycle/rotate-ca.
 */
import { readFile } from 'node:fs/promises';
import type { Argv, ArgumentsCamelCase } from 'yargs';
import { TsadmError } from '../errors.js';
import { parseThreshold } from '../certs-lifecycle/threshold.js';
import { runAbort, runNode, runStart, runStatus, type RotateOptions } from '../certs-lifecycle/rotate-ca/run.js';
import { parseRotated, ROTATABLE } from '../certs-lifecycle/rotate-ca/state.js';
import { createRuntime, finishCommand, type CommandEnv } from '../run/runtime.js';
import { runtimeFlagValues } from './runtime-flags.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

/** The path flags every certs command shares, handed in by src/commands/certs.ts (which registers this command). */
export interface PathFlags {
  readonly pathOptions: (o: Argv) => Argv;
  readonly paths: (argv: Args) => { config?: string; certDir?: string; kubeconfigDir?: string };
}

const DEFAULT_SA_GRACE = '24h';

function common(f: PathFlags, o: Argv): Argv {
  return f.pathOptions(o)
    .option('kubeconfig', { type: 'string', requiresArg: true, describe: 'The kubeconfig to reach the cluster with.', defaultDescription: '/etc/kubernetes/admin.conf on a control plane, /etc/kubernetes/kubelet.conf on a worker' })
    .option('node-name', { type: 'string', requiresArg: true, describe: 'This node\'s Node name.', defaultDescription: 'the hostname' })
    .option('output', { alias: 'o', type: 'string', requiresArg: true, describe: 'Output format: text, or json (one event per line, /usr/share/doc/tsadm/docs/events.md).' });
}

function rotateOptions(f: PathFlags, argv: Args): RotateOptions {
  const s = (k: string): string | undefined => (typeof argv[k] === 'string' && argv[k] !== '' ? argv[k] : undefined);
  const kubeconfig = s('kubeconfig');
  const nodeName = s('node-name');
  return { ...f.paths(argv), ...(kubeconfig ? { kubeconfig: kubeconfig.startsWith('/') ? kubeconfig : `${process.cwd()}/${kubeconfig}` } : {}), ...(nodeName ? { nodeName } : {}) };
}

async function rotationKeyOf(argv: Args): Promise<string | undefined> {
  if (typeof argv['rotation-key'] === 'string') return argv['rotation-key'];
  if (typeof argv['rotation-key-file'] !== 'string') return undefined;
  try {
    return (await readFile(argv['rotation-key-file'], 'utf8')).trim();
  } catch (err) {
    throw new TsadmError('E_USAGE', `cannot read --rotation-key-file ${argv['rotation-key-file']}: ${(err as Error).message}`);
  }
}

/**
 * `events`: -o is the event stream's text|json (start, node, abort); status's -o json is its own
 * report instead, as check-expiration's is.
 */
async function run(argv: Args, env: CommandEnv, command: string, opts: { lock: boolean; events: boolean }, body: (rt: Awaited<ReturnType<typeof createRuntime>>) => Promise<Readonly<Record<string, unknown>>>): Promise<void> {
  const rt = await createRuntime(runtimeFlagValues(argv, { output: opts.events }), env, opts.lock ? { lock: 'certs rotate-ca' } : {});
  await finishCommand(rt, command, () => body(rt));
}

export function rotateCaCommand(c: Argv, env: CommandEnv, f: PathFlags): Argv {
  return c.command(
    'rotate-ca',
    'Replace the cluster\'s certificate authorities node by node, the API never away (start, node, status, abort)',
    (r) =>
      r
        .command(
          'start',
          'Make the new CAs on this control plane, hand their keys to the others, and record the rotation in the cluster',
          (o) =>
            common(f, o)
              .option('ca', { type: 'string', requiresArg: true, default: 'all', describe: `What to rotate: all, or a comma-separated list of ${ROTATABLE.join(', ')}.` })
              .option('sa-grace', { type: 'string', requiresArg: true, default: DEFAULT_SA_GRACE, describe: 'How long tokens signed with the old service-account key stay trusted once every API server signs with the new one (the kubelet refreshes projected tokens within 24h).' })
              .option('rotation-key-file', { type: 'string', requiresArg: true, describe: 'Write the rotation key to this file (0600) instead of printing it.' })
              .option('dry-run', { type: 'boolean', describe: "Don't change anything; show what would be written." })
              .usage([
                'Makes new CAs (and a new service-account key pair) for --ca, stages their private keys on this',
                'control plane, stores them for the other control planes encrypted with a new rotation key (printed once,',
                'never stored in the cluster; the Secret expires after 2 hours), and records the rotation in the ConfigMap',
                'kube-system/tsadm-rotate-ca. Then run "tsadm certs rotate-ca node" on every node, control planes first.',
              ].join(' '))
              .strict(),
          (argv) => run(argv, env, 'certs rotate-ca start', { lock: true, events: true }, async (rt) => {
            const sa = parseThreshold(String(argv['sa-grace']), '--sa-grace');
            const keyFile = typeof argv['rotation-key-file'] === 'string' ? argv['rotation-key-file'] : undefined;
            return runStart(rt, { ...rotateOptions(f, argv), items: parseRotated(String(argv.ca)), saGraceSeconds: sa, ...(keyFile ? { rotationKeyFile: keyFile } : {}) });
          }),
        )
        .command(
          'node',
          'Bring this node to the rotation\'s current step; the last node at a step moves the rotation on',
          (o) =>
            common(f, o)
              .option('rotation-key', { type: 'string', requiresArg: true, describe: 'The rotation key start printed (control planes, during trust-both, to fetch the new keys).' })
              .option('rotation-key-file', { type: 'string', requiresArg: true, describe: 'Read the rotation key from this file.' })
              .option('dry-run', { type: 'boolean', describe: "Don't change anything; show what would be written and restarted." })
              .usage([
                'Steps: trust-both (every CA file and kubeconfig trusts old and new), sign-new (control planes re-issue',
                'every certificate with the new CAs; control planes first), trust-new (the old CAs leave). Files are',
                'backed up under /etc/kubernetes/tmp/tsadm-rotate-ca-<id>/ and written atomically; what reads them restarts',
                'one at a time. Run it on every node, one at a time, and again until status says the rotation is complete.',
              ].join(' '))
              .strict(),
          (argv) => run(argv, env, 'certs rotate-ca node', { lock: true, events: true }, async (rt) => {
            const rotationKey = await rotationKeyOf(argv);
            return runNode(rt, { ...rotateOptions(f, argv), ...(rotationKey !== undefined ? { rotationKey } : {}) });
          }),
        )
        .command(
          'status',
          'Every node and its step, what to run where next; exits 0 only when the rotation is complete (4 while something is left)',
          (o) => common(f, o).option('output', { alias: 'o', type: 'string', requiresArg: true, choices: ['text', 'json'], describe: 'Output format: text, or json (the report as one object: phase, nodes, next, abort, exitCode).' }).strict(),
          (argv) => run(argv, env, 'certs rotate-ca status', { lock: false, events: false }, async (rt) => {
            const report = await runStatus(rt, { ...rotateOptions(f, argv), json: argv.output === 'json' });
            return { ...report };
          }),
        )
        .command(
          'abort',
          'Go back to the old CAs, as long as no node signs with the new ones yet',
          (o) => common(f, o).strict(),
          (argv) => run(argv, env, 'certs rotate-ca abort', { lock: true, events: true }, async (rt) => runAbort(rt, rotateOptions(f, argv))),
        )
        .demandCommand(1, 'specify a subcommand: start, node, status, abort')
        .strict(),
  );
}
