/**
 * The `certs-auto-renew` phase: tsadm's own, last in `init` and `join` (kubeadm has no such
 * phase). With --certificate-auto-renew it does what `tsadm certs auto-renew enable` does
 * (src/certs-lifecycle/auto-renew-units.ts): writes tsadm-certs-renew.{service,timer} through
 * the host seam (so --dry-run lists them, --rootfs writes under the root, a second run changes
 * nothing) and, on the running system, enables and starts the timer. The tsadm the timer runs as
 * root (--tsadm-path, or the running one) must be one only root controls, or nothing is written.
 *
 * Off by default, as the host phases are without --prepare-host: kubeadm renews certificates
 * only during `kubeadm upgrade`, and automation written for kubeadm must not get a timer, and
 * control-plane restarts, it did not ask for. `<cmd> phase certs-auto-renew` counts as asking.
 *
 * Only control planes have certificates to renew. A worker join asking for it is refused before
 * anything is done (checkAutoRenewTarget, called by the join workflow ahead of its phases), not
 * warned about at the end: the flag asks for something this node cannot have, and automation that
 * passes it should learn so at once rather than find a joined node without the renewal it expected.
 */
import type { Phase } from '../../engine/phase.js';
import type { FlagName, FlagValues } from '../../flags.js';
import { TsadmError } from '../../errors.js';
import { enableAutoRenew } from '../../certs-lifecycle/auto-renew-units.js';
import type { BaseCtx } from '../../run/context.js';

const CERTS_AUTO_RENEW_PHASE = 'certs-auto-renew';

/** Throws the usage error of --certificate-auto-renew on a node that is not a control plane. */
export function checkAutoRenewTarget(asked: boolean, controlPlane: boolean): void {
  if (asked && !controlPlane) {
    throw new TsadmError('E_USAGE', '--certificate-auto-renew needs --control-plane: a worker has no control-plane certificates to renew (its kubelet rotates its own)', {
      hint: 'join with --control-plane (or controlPlane in the JoinConfiguration), or drop --certificate-auto-renew',
    });
  }
}

export interface CertsAutoRenewPhaseOptions<C> {
  readonly workflow: 'init' | 'join';
  /** --certificate-auto-renew given, or the phase run alone. */
  readonly asked: (ctx: C) => boolean;
  /** Whether this node is a control plane (always, for init). */
  readonly controlPlane: (ctx: C) => boolean;
  /** --tsadm-path: the tsadm the timer runs (checked in src/host/unit-program.ts). */
  readonly tsadmPath: (ctx: C) => FlagValues['tsadm-path'];
  /** Further flags the phase command needs to build its context (join: discovery, --control-plane). */
  readonly flags?: readonly FlagName[];
  /** The phase command's positional arguments (join: "[api-server-endpoint]"). */
  readonly positional?: string;
}

export function certsAutoRenewPhase<C extends BaseCtx>(o: CertsAutoRenewPhaseOptions<C>): Phase<C> {
  return {
    name: CERTS_AUTO_RENEW_PHASE,
    summary: 'Install the systemd timer that renews this control plane\'s certificates daily (opt-in: --certificate-auto-renew)',
    description: 'tsadm\'s own phase, not kubeadm\'s: writes /etc/systemd/system/tsadm-certs-renew.service and .timer (daily, RandomizedDelaySec=3600, Persistent=true) running "tsadm certs renew --auto", then enables and starts the timer, exactly as "tsadm certs auto-renew enable". '
      + `Skipped unless --certificate-auto-renew is given (kubeadm renews certificates only during upgrades); ${o.workflow === 'join' ? 'on a control-plane join only. ' : ''}`
      + 'Undo with "tsadm certs auto-renew disable".',
    example: `tsadm ${o.workflow} phase ${CERTS_AUTO_RENEW_PHASE} --dry-run`,
    flags: [...(o.flags ?? []), 'certificate-auto-renew', 'tsadm-path'],
    ...(o.positional !== undefined ? { positional: o.positional } : {}),
    skipIf: (ctx) => (o.asked(ctx) ? undefined : 'automatic certificate renewal is opt-in: pass --certificate-auto-renew, or run "tsadm certs auto-renew enable" later'),
    run: async (ctx) => {
      checkAutoRenewTarget(true, o.controlPlane(ctx));
      const tsadmPath = o.tsadmPath(ctx);
      await enableAutoRenew(ctx, typeof tsadmPath === 'string' ? { tsadmPath } : {});
    },
  };
}
