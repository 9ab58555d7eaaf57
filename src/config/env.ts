/** What the config loader needs from the machine, detected by the caller so loading stays pure. */
import type { RandomSource as RandomBytes } from '../token/bootstrap-token.js';

export interface ConfigEnv {
  /** The host's hostname (lowercased): the default node name. */
  readonly hostname: string;
  /** IP of the default-route interface: the default advertise address (none → the user must give one). */
  readonly defaultAdvertiseAddress?: string;
  readonly now: Date;
  /** Randomness for generated bootstrap tokens (tests pass a fixed source); default node:crypto. */
  readonly randomBytes?: RandomBytes;
}
