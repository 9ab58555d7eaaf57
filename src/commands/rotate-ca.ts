/**
 * `tsadm certs rotate-ca start | node | status | abort`: replacing the cluster's CAs node by node
 * (docs/certs.md, "Rotating the cluster's CAs"). Flags only; the logic is in
 * src/certs-lifecycle/rotate-ca.
 */
import path from 'node:path';
import type { Argv, ArgumentsCamelCase } from 'yargs';
import { TsadmError } from '../errors.js';
import { parseThreshold } from '../certs-lifecycle/threshold.js';
import { readRotationKey, runAbort, runNode, runStart, runStatus, type RotateOptions } from '../certs-lifecycle/rotate-ca/run.js';
import { parseRotated } from '../certs-lifecycle/rotate-ca/state.js';
import type { CommandEnv, Runtime } from '../run/runtime.js';
import { addFlags } from '../cli/yargs-kit.js';
import { addPlanOptions } from './plan-flags.js';
import { runCommand } from '../workflows/run-command.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

/** The path flags every certs command shares, handed in by src/commands/certs.ts (which registers this command). */
export interface PathFlags {
  readonly pathOptions: (o: Argv) => Argv;
  readonly paths: (argv: Args) => { config?: string; certDir?: string; kubeconfigDir?: string };
}


function common(f: PathFlags, o: Argv): Argv {
  return addFlags(f.pathOptions(o), ['kubeconfig@rotate-ca', 'node-name@rotate-ca']);
}

function rotateOptions(f: PathFlags, argv: Args): RotateOptions {
  const s = (k: string): string | undefined => (typeof argv[k] === 'string' && argv[k] !== '' ? argv[k] : undefined);
  const kubeconfig = s('kubeconfig');
  const nodeName = s('node-name');
  return { ...f.paths(argv), ...(kubeconfig ? { kubeconfig: kubeconfig.startsWith('/') ? kubeconfig : `${process.cwd()}/${kubeconfig}` } : {}), ...(nodeName ? { nodeName } : {}) };
}

async function rotationKeyOf(argv: Args): Promise<string | undefined> {
  if (typeof argv['rotation-key'] === 'string') return argv['rotation-key'];
  return typeof argv['rotation-key-file'] === 'string' ? readRotationKey(argv['rotation-key-file']) : undefined;
}

/**
 * `events`: -o is the event stream's text|json (start, node, abort); status's -o json is its own
 * report instead, as check-expiration's is.
 */
function run(argv: Args, env: CommandEnv, command: string, opts: { lock: boolean; events: boolean }, body: (rt: Runtime) => Promise<Readonly<Record<string, unknown>>>): Promise<void> {
  return runCommand({ command, env, args: argv, eventOutput: opts.events, ...(opts.lock ? { runtime: { lock: 'certs rotate-ca' } } : {}) }, body);
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
            addFlags(addPlanOptions(common(f, o)), ['output@rotate-ca', 'ca', 'from', 'sa-grace', 'rotation-key-file', 'dry-run@certs'])
              .usage([
                'Makes new CAs (and a new service-account key pair) for --ca, or takes them from --from DIR (an external CA;',
                'each checked: a CA, its own key, valid, not the CA in use), stages their private keys on this',
                'control plane, stores them for the other control planes encrypted with a new rotation key (printed once,',
                'never stored in the cluster; the Secret expires after 2 hours), and records the rotation in the ConfigMap',
                'kube-system/tsadm-rotate-ca. Then run "tsadm certs rotate-ca node" on every node, control planes first.',
              ].join(' '))
              .strict(),
          (argv) => run(argv, env, 'certs rotate-ca start', { lock: true, events: true }, async (rt) => {
            const sa = parseThreshold(String(argv['sa-grace']), '--sa-grace');
            const keyFile = typeof argv['rotation-key-file'] === 'string' ? argv['rotation-key-file'] : undefined;
            const from = typeof argv.from === 'string' && argv.from !== '' ? path.resolve(argv.from) : undefined;
            const planWithKeys = typeof argv.plan === 'string' && argv['plan-without-keys'] !== true;
            return runStart(rt, {
              ...rotateOptions(f, argv), items: parseRotated(String(argv.ca)), saGraceSeconds: sa,
              ...(keyFile ? { rotationKeyFile: keyFile } : {}), ...(from ? { fromDir: from } : {}), ...(planWithKeys ? { planWithKeys } : {}),
            });
          }),
        )
        .command(
          'node',
          'Bring this node to the rotation\'s current step; the last node at a step moves the rotation on',
          (o) =>
            addFlags(addPlanOptions(common(f, o)), ['output@rotate-ca', 'rotation-key', 'rotation-key-file@read', 'dry-run@rotate-ca-node'])
              .usage([
                'Steps: trust-both (every CA file and kubeconfig trusts old and new), sign-new (control planes re-issue',
                'every certificate with the new CAs; control planes first), trust-new (the old CAs leave). Files are',
                'backed up under /etc/kubernetes/tmp/tsadm-rotate-ca-<id>/ and written atomically; what reads them restarts',
                'one at a time. Run it on every node, one at a time, and again until status says the rotation is complete.',
              ].join(' '))
              .strict(),
          (argv) => run(argv, env, 'certs rotate-ca node', { lock: true, events: true }, async (rt) => {
            const planning = typeof argv.plan === 'string';
            if (planning && typeof argv['rotation-key'] === 'string') {
              throw new TsadmError('E_USAGE', '--plan does not take --rotation-key: give --rotation-key-file (the plan names the file, never the key)');
            }
            const rotationKey = await rotationKeyOf(argv);
            const keyFile = typeof argv['rotation-key-file'] === 'string' ? path.resolve(argv['rotation-key-file']) : undefined;
            return runNode(rt, { ...rotateOptions(f, argv), ...(rotationKey !== undefined ? { rotationKey } : {}), ...(keyFile ? { rotationKeyFile: keyFile } : {}), ...(planning ? { planning } : {}) });
          }),
        )
        .command(
          'status',
          'Every node and its step, what to run where next; exits 0 only when the rotation is complete (4 while something is left)',
          (o) => addFlags(common(f, o), ['output@rotate-ca-status']).strict(),
          (argv) => run(argv, env, 'certs rotate-ca status', { lock: false, events: false }, async (rt) => {
            const report = await runStatus(rt, { ...rotateOptions(f, argv), json: argv.output === 'json' });
            return { ...report };
          }),
        )
        .command(
          'abort',
          'Go back to the old CAs, as long as no node signs with the new ones yet',
          (o) => addFlags(common(f, o), ['output@rotate-ca']).strict(),
          (argv) => run(argv, env, 'certs rotate-ca abort', { lock: true, events: true }, async (rt) => runAbort(rt, rotateOptions(f, argv))),
        )
        .demandCommand(1, 'specify a subcommand: start, node, status, abort')
        .strict(),
  );
}
