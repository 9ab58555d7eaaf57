/**
 * Bootstrap tokens: the token string, its Secret, the JWS cluster-info signature, and the
 * `tsadm token` commands (create / list / delete / generate) as functions the CLI calls.
 */
export { tokenCreate, tokenList, tokenDelete, tokenGenerate, tokenFromOptions, TOKEN_CREATE_DEFAULTS, type TokenCreateOptions, type TokenListResult } from './commands.js';
export { generateToken, parseToken, formatToken, isValidToken, isValidTokenId, tokenSecretName, type BootstrapTokenString } from './bootstrap-token.js';
export { tokenToSecret, secretToToken, TOKEN_SECRET_TYPE, TOKEN_NAMESPACE, type TokenInfo } from './secret.js';
export { computeDetachedSignature, verifyDetachedSignature } from './jws.js';
export { renderJoinCommand, flattenJoinCommand, joinTargetFromKubeconfig, caCertHashes, type JoinCommandInput, type JoinTarget } from './join-command.js';
export { formatTokenTable, formatTokenObjects, type TokenListFormat } from './list-format.js';
export { validateUsages, validateGroups, KNOWN_USAGES } from './validate.js';
