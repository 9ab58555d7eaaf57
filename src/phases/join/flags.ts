import type { FlagName } from '../../flags.js';

/** Every flag that decides how this node finds and trusts the cluster. */
export const DISCOVERY_FLAGS: readonly FlagName[] = [
  'config', 'token', 'discovery-file', 'discovery-token', 'discovery-token-ca-cert-hash', 'discovery-token-unsafe-skip-ca-verification', 'tls-bootstrap-token',
];
