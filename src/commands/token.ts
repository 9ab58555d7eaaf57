import type { Argv, ArgumentsCamelCase } from 'yargs';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { KubeApi } from '../kube/types.js';
import { TOKEN_CREATE_DEFAULTS, tokenCreate, tokenDelete, tokenGenerate, tokenList } from '../token/commands.js';
import type { TokenListFormat } from '../token/list-format.js';
import { addFlags } from '../cli/yargs-kit.js';
import { addRootFlags } from '../cli/root-flags.js';
import { readConfigFile, type CommandEnv, type Runtime } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';
import type { BootstrapToken } from '../config/types.js';
import { nodeHostname } from '../host/network.js';
import { tokensFromConfig } from '../token/config-tokens.js';
import { addTemplateFlags, refuseTemplateFormat } from './output-flags.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

/**
 * `tsadm token create|list|delete|generate`, kubeadm's flags. The token secret is printed only by
 * `create` (that is what it is for) and `list` (as kubeadm shows it).
 */
export function registerTokenCommand(y: Argv, env: CommandEnv): Argv {
  const common = (c: Argv): Argv => addFlags(c, ['kubeconfig', 'dry-run@token', 'rootfs', 'v@short']);
  return y.command('token', 'Manage bootstrap tokens', (t) =>
    t
      .command(
        'create [token]',
        'Create bootstrap tokens on the server',
        (c) =>
          addFlags(common(c), ['ttl', 'usages', 'groups', 'description', 'print-join-command@token', 'certificate-key@token', 'config@token']).strict(),
        (argv) =>
          withApi(argv, env, async (api, rt, kubeconfigText) => {
            const fromConfig = await configTokens(argv, rt);
            await tokenCreate(
              {
                ...(typeof argv.token === 'string' ? { token: argv.token } : {}),
                ttl: typeof argv.ttl === 'string' ? argv.ttl : TOKEN_CREATE_DEFAULTS.ttl,
                usages: argv.usages === undefined ? [...TOKEN_CREATE_DEFAULTS.usages] : splitList(argv.usages),
                groups: argv.groups === undefined ? [...TOKEN_CREATE_DEFAULTS.groups] : splitList(argv.groups),
                description: typeof argv.description === 'string' ? argv.description : TOKEN_CREATE_DEFAULTS.description,
                ...(fromConfig ? { fromConfig } : {}),
                printJoinCommand: argv['print-join-command'] === true,
                ...(typeof argv['certificate-key'] === 'string' ? { certificateKey: argv['certificate-key'] } : {}),
                ...(kubeconfigText !== undefined ? { kubeconfig: kubeconfigText } : {}),
              },
              api,
              rt.log,
            );
          }),
      )
      .command(
        'list',
        'List bootstrap tokens on the server',
        (c) => addTemplateFlags(addFlags(common(c), ['output@printers'])).strict(),
        (argv) => {
          refuseTemplateFormat(String(argv.output));
          return withApi(argv, env, async (api, rt) => {
            const result = await tokenList(api, String(argv.output) as TokenListFormat);
            for (const w of result.warnings) rt.log.warn(w, { prefix: 'token' });
            rt.log.output(result.output);
          });
        },
      )
      .command(
        'delete [token-value..]',
        'Delete bootstrap tokens on the server',
        (c) => common(c).strict(),
        (argv) =>
          withApi(argv, env, async (api, rt) => {
            await tokenDelete(splitList(argv['token-value']), api, (line) => rt.log.output(line));
          }),
      )
      .command('generate', 'Generate and print a bootstrap token, but do not create it on the server', (c) => generateFlags(c).strict(), () => {
        env.io.stdout.write(`${tokenGenerate()}\n`);
      })
      .demandCommand(1, 'specify a subcommand: create, list, delete, generate')
      .strict(),
  );
}

/**
 * kubeadm's `token` declares --kubeconfig and --dry-run as persistent flags (cmd/kubeadm/app/cmd/
 * token.go), so `token generate` accepts them too, and its RunGenerateToken(out) reads neither:
 * accepted here and unused, as there. --rootfs and -v are every kubeadm command's (src/cli/root-flags.ts).
 */
function generateFlags(c: Argv): Argv {
  return addFlags(addRootFlags(c), ['kubeconfig@token-generate', 'dry-run@token-generate']);
}

/** The flags of `token create` a user can set, as named on the command line. */
const TOKEN_CREATE_FLAGS = ['ttl', 'usages', 'groups', 'description', 'print-join-command', 'certificate-key', 'kubeconfig', 'dry-run', 'rootfs', 'v'] as const;

/** With --config: the configuration's bootstrap tokens (kubeadm's RunCreateToken), else undefined. */
async function configTokens(argv: Args, rt: Runtime): Promise<BootstrapToken[] | undefined> {
  if (typeof argv.config !== 'string') return undefined;
  const flagsSet = TOKEN_CREATE_FLAGS.filter((f) => argv[f] !== undefined && argv[f] !== false);
  const { tokens, warnings } = tokensFromConfig({
    configPath: argv.config,
    configText: await readConfigFile(argv.config),
    flagsSet,
    now: rt.startTime,
    hostname: nodeHostname(),
  });
  for (const w of warnings) rt.log.warn(w, { prefix: 'token' });
  if (typeof argv.token === 'string') {
    rt.log.warn('the token argument is not used: --config is given, and its bootstrapTokens are created (set bootstrapTokens[0].token there)', { prefix: 'token' });
  }
  return tokens;
}

async function withApi(argv: Args, env: CommandEnv, fn: (api: KubeApi, rt: Runtime, kubeconfigText: string | undefined) => Promise<void>): Promise<void> {
  const kubeconfigPath = typeof argv.kubeconfig === 'string' ? argv.kubeconfig : DEFAULT_ADMIN_KUBECONFIG;
  // token's -o (list's) is a print format, not the event stream.
  await runCommand({ env, args: argv, eventOutput: false }, async (rt) => {
    const api = await rt.api.open({ path: hostPathOf(kubeconfigPath) }, { log: rt.log });
    const text = (await rt.host.readFile(hostPathOf(kubeconfigPath)))?.toString('utf8');
    await fn(api, rt, text);
  });
}

/** A relative --kubeconfig is relative to the working directory (host paths are absolute). */
function hostPathOf(p: string): string {
  if (p.startsWith('/')) return p;
  return `${process.cwd()}/${p}`;
}

function splitList(value: unknown): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out = list.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean);
  if (out.some((s) => s.includes(' '))) throw new TsadmError('E_USAGE', `invalid list value "${out.join(',')}"`);
  return out;
}
