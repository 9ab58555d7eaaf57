import type { ResolvedInitConfig } from '../../config/types.js';
import type { Host } from '../../host/host.js';
import type { Logger } from '../../log/events.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { InitOptions } from '../../run/context.js';
import type { PkiRunState } from './run-state.js';

/** What the certs and kubeconfig phases read from the run (InitCtx satisfies it). */
export interface PkiCtx {
  readonly host: Host;
  readonly log: Pick<Logger, 'info' | 'warn'>;
  readonly cfg: ResolvedInitConfig;
  readonly versions: VersionProfile;
  readonly startTime: Date;
  readonly options: Pick<InitOptions, 'csrOnly' | 'csrDir' | 'kubeconfigDir'>;
  readonly state: { readonly pki: PkiRunState };
}
