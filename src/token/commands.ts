import type { BootstrapToken } from '../config/types.js';
import { DEFAULTS } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { Logger } from '../log/events.js';
import type { KubeApi, SecretObject } from '../kube/types.js';
import { generateToken, isValidToken, isValidTokenId, parseToken, tokenSecretName, TOKEN_ID_PATTERN, TOKEN_PATTERN, type RandomSource } from './bootstrap-token.js';
import { parseDuration } from '../duration.js';
import { flattenJoinCommand, joinTargetFromKubeconfig, renderJoinCommand } from './join-command.js';
import { formatTokenObjects, formatTokenTable, type TokenListFormat } from './list-format.js';
import { secretToToken, tokenToSecret, TOKEN_NAMESPACE, TOKEN_SECRET_TYPE } from './secret.js';
import { validateGroups, validateGroupsNeedAuthentication, validateUsages } from './validate.js';

/** `tsadm token generate`: a random token, no API call. */
export function tokenGenerate(random?: RandomSource): string {
  return generateToken(random);
}

export interface TokenCreateOptions {
  /** Given token, or undefined to generate one. */
  readonly token?: string;
  /** Go duration string ("24h0m0s", "0" = never) or milliseconds. */
  readonly ttl: string | number;
  readonly usages: readonly string[];
  readonly groups: readonly string[];
  readonly description: string;
  readonly printJoinCommand: boolean;
  /** Only with printJoinCommand: print the control-plane join command. */
  readonly certificateKey?: string;
  /**
   * The bootstrapTokens of a --config file (already defaulted and validated): all are created and
   * the first is printed; token, ttl, usages, groups and description above are then not used.
   */
  readonly fromConfig?: readonly BootstrapToken[];
  /** Text of the kubeconfig in use: the join command takes its server and CA from it. */
  readonly kubeconfig?: string;
  readonly now?: Date;
  readonly random?: RandomSource;
}

function parseTtl(text: string): number {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new TsadmError('E_CONFIG_INVALID', `invalid --ttl "${text}": ${(err as Error).message}`, { hint: 'use a duration such as 24h0m0s, 90m or 1h30m (0 = never expires)' });
  }
}

/** Checked before anything is sent, so a bad flag never leaves a half-made token behind. */
function tokenFromOptions(o: TokenCreateOptions): BootstrapToken {
  if (o.certificateKey && !o.printJoinCommand) {
    throw new TsadmError('E_USAGE', 'cannot use --certificate-key without --print-join-command', { hint: 'add --print-join-command' });
  }
  const token = o.token ?? generateToken(o.random);
  if (!isValidToken(token)) {
    throw new TsadmError('E_CONFIG_INVALID', `the bootstrap token is invalid: it does not match "${TOKEN_PATTERN}"`, {
      hint: 'a token looks like "abcdef.0123456789abcdef"; omit it to have one generated',
    });
  }
  const ttlMs = typeof o.ttl === 'number' ? o.ttl : parseTtl(o.ttl);
  if (ttlMs < 0) throw new TsadmError('E_CONFIG_INVALID', `invalid --ttl "${String(o.ttl)}": it must not be negative`, { hint: 'use 0 for a token that never expires' });
  validateUsages(o.usages);
  validateGroups(o.groups);
  validateGroupsNeedAuthentication(o.usages, o.groups);
  return { token, ttlMs, description: o.description, usages: [...o.usages], groups: [...o.groups] };
}

function tokensOfConfig(o: TokenCreateOptions): BootstrapToken[] {
  if (o.certificateKey && !o.printJoinCommand) {
    throw new TsadmError('E_USAGE', 'cannot use --certificate-key without --print-join-command', { hint: 'add --print-join-command' });
  }
  const tokens = [...(o.fromConfig ?? [])];
  if (tokens.length === 0) throw new TsadmError('E_INTERNAL', 'token create --config: the configuration has no bootstrap token');
  const ids = tokens.map((t) => parseToken(t.token).id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup !== undefined) throw new TsadmError('E_CONFIG_INVALID', `bootstrapTokens: the token id "${dup}" appears twice`, { hint: 'give every bootstrap token its own id' });
  return tokens;
}

/**
 * `tsadm token create`: fails if a token with that id exists (kubeadm's CreateNewTokens), prints
 * the token — or the join command — because that is what the user asked for.
 */
export async function tokenCreate(o: TokenCreateOptions, api: KubeApi, log: Pick<Logger, 'output'>): Promise<string> {
  const tokens = o.fromConfig ? tokensOfConfig(o) : [tokenFromOptions(o)];
  // Every id is checked before the first Secret is written, so a clash leaves nothing half-made.
  for (const t of tokens) {
    const { id } = parseToken(t.token);
    if (await api.get('Secret', tokenSecretName(id), TOKEN_NAMESPACE)) {
      throw new TsadmError('E_CONFLICT', `a token with id "${id}" already exists`, { hint: 'pick another token, or delete the old one with `tsadm token delete`' });
    }
  }
  for (const t of tokens) await api.ensure(tokenToSecret(t, o.now ?? new Date()));
  const bt = tokens[0]!;
  let printed = bt.token;
  if (o.printJoinCommand) {
    if (o.kubeconfig === undefined) throw new TsadmError('E_INTERNAL', 'token create --print-join-command needs the kubeconfig text');
    const target = joinTargetFromKubeconfig(o.kubeconfig);
    printed = flattenJoinCommand(renderJoinCommand({
      endpoint: target.endpoint,
      token: bt.token,
      caCertHashes: target.caCertHashes,
      controlPlane: Boolean(o.certificateKey),
      ...(o.certificateKey ? { certificateKey: o.certificateKey } : {}),
    }));
  }
  log.output(printed);
  return printed;
}

export interface TokenListResult {
  /** What to print on stdout. */
  readonly output: string;
  /** Token Secrets that could not be parsed (kubeadm prints these on stderr and goes on). */
  readonly warnings: readonly string[];
}

/** `tsadm token list`: every Secret of type bootstrap.kubernetes.io/token in kube-system. */
export async function tokenList(api: KubeApi, format: TokenListFormat = 'text', now: Date = new Date()): Promise<TokenListResult> {
  if (format !== 'text' && format !== 'json' && format !== 'yaml' && format !== 'kyaml') {
    throw new TsadmError('E_USAGE', `unable to match a printer suitable for the output format "${String(format)}", allowed formats are: json,kyaml,text,yaml`, { hint: 'use -o text, -o json, -o yaml or -o kyaml' });
  }
  const secrets = await api.list<SecretObject>('Secret', TOKEN_NAMESPACE, { fieldSelector: `type=${TOKEN_SECRET_TYPE}` });
  const tokens = [];
  const warnings: string[] = [];
  for (const s of secrets) {
    try {
      tokens.push(secretToToken(s));
    } catch (err) {
      warnings.push((err as Error).message);
    }
  }
  const output = format === 'text' ? formatTokenTable(tokens, now) : formatTokenObjects(tokens, format);
  return { output, warnings };
}

/**
 * `tsadm token delete <id|token>...`: all arguments are checked before the first deletion; a
 * token that does not exist is an error (kubeadm: "…secrets "bootstrap-token-x" not found").
 */
export async function tokenDelete(idsOrTokens: readonly string[], api: KubeApi, out: (line: string) => void = () => undefined): Promise<string[]> {
  if (idsOrTokens.length === 0) {
    throw new TsadmError('E_USAGE', `missing argument; 'token delete' is missing token of form "${TOKEN_PATTERN}" or "${TOKEN_ID_PATTERN}"`, { hint: 'pass token ids as shown by `tsadm token list`' });
  }
  const ids = idsOrTokens.map((arg) => {
    if (isValidTokenId(arg)) return arg;
    if (isValidToken(arg)) return parseToken(arg).id;
    throw new TsadmError('E_USAGE', `given token didn't match pattern "${TOKEN_PATTERN}" or "${TOKEN_ID_PATTERN}"`, { hint: 'pass a token id (6 characters) or a whole token' });
  });
  const deleted: string[] = [];
  for (const id of ids) {
    const name = tokenSecretName(id);
    if (!(await api.delete('Secret', name, TOKEN_NAMESPACE))) {
      throw new TsadmError('E_API', `failed to delete bootstrap token "${id}": secrets "${name}" not found`, { hint: 'list existing tokens with `tsadm token list`' });
    }
    const line = `bootstrap token "${id}" deleted`;
    out(line);
    deleted.push(line);
  }
  return deleted;
}

/** Defaults of `token create` flags, for the CLI. */
export const TOKEN_CREATE_DEFAULTS = {
  ttl: '24h0m0s',
  usages: [...DEFAULTS.tokenUsages],
  groups: [...DEFAULTS.tokenGroups],
  description: '',
} as const;
