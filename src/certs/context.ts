import type { ResolvedInitConfig } from '../config/types.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/events.js';
import type { VersionProfile } from '../versions/table-types.js';
import type { PkiRunState } from './run-state.js';

/** The run's options that making certificates and kubeconfig files reads (part of init's options). */
export interface PkiOptions {
  readonly kubeconfigDir: string;
  /** --csr-only: write keys and CSRs, not certificates. */
  readonly csrOnly: boolean;
  /** --csr-dir: where those go. */
  readonly csrDir: string | undefined;
}

/** What making certificates and kubeconfig files reads from the run (init's context satisfies it, and so does the certs lifecycle's). */
export interface PkiCtx {
  readonly host: Host;
  readonly log: Pick<Logger, 'info' | 'warn'>;
  readonly cfg: ResolvedInitConfig;
  readonly versions: VersionProfile;
  readonly startTime: Date;
  readonly options: PkiOptions;
  readonly state: { readonly pki: PkiRunState };
}
