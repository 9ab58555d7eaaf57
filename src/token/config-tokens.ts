/**
 * `token create --config`: kubeadm's RunCreateToken loads the file with
 * LoadOrDefaultInitConfiguration and creates every token of the InitConfiguration's
 * bootstrapTokens (defaulted: a missing token is generated, ttl 24h, the default usages and
 * groups; an empty list becomes one default token), printing the first. The token flags cannot
 * be mixed with --config (kubeadm's ValidateMixedArguments); a token given as argument is not
 * used either, and tsadm says so.
 */
import { isAllowedWithConfig } from '../config/flag-overlay.js';
import { resolveInitConfig } from '../config/load.js';
import type { BootstrapToken } from '../config/types.js';
import { TsadmError } from '../errors.js';

/** The node's address does not matter for tokens: RFC 5737's TEST-NET-1 address stands in, as for the certs commands. */
const PLACEHOLDER_ADDRESS = '192.0.2.1';

export interface ConfigTokensInput {
  readonly configPath: string;
  readonly configText: string | undefined;
  /** The token-create flags the user set (names as on the command line). */
  readonly flagsSet: readonly string[];
  readonly now: Date;
  readonly hostname: string;
}

/** kubeadm's error when --config is combined with token flags ("can not mix '--config' with arguments [groups ttl]"). */
function refuseMixedTokenFlags(flagsSet: readonly string[]): void {
  const mixed = flagsSet.filter((f) => !isAllowedWithConfig(f)).sort();
  if (mixed.length === 0) return;
  throw new TsadmError('E_CONFIG_INVALID', `can not mix '--config' with arguments [${mixed.join(' ')}]`, {
    hint: 'put the token settings into bootstrapTokens of the InitConfiguration, or drop --config',
  });
}

export function tokensFromConfig(input: ConfigTokensInput): { tokens: BootstrapToken[]; warnings: readonly string[] } {
  refuseMixedTokenFlags(input.flagsSet);
  if (input.configText === undefined) {
    throw new TsadmError('E_CONFIG_INVALID', `unable to read config from "${input.configPath}"`, { hint: 'check the --config path' });
  }
  const cfg = resolveInitConfig({
    configText: input.configText,
    configPath: input.configPath,
    flags: { config: input.configPath },
    env: { hostname: input.hostname, defaultAdvertiseAddress: PLACEHOLDER_ADDRESS, now: input.now },
    // Reads the tokens; stores no ClusterConfiguration (src/config/stored-fields.ts).
    storedFields: 'skip',
  });
  return { tokens: [...cfg.init.bootstrapTokens], warnings: cfg.warnings };
}
