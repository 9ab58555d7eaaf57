/** The `swap` host leaf: active swap reported, turned off only with --swap-off; /etc/fstab never edited. */
import type { CheckFinding } from '../../engine/phase.js';
import type { RunningSystem } from '../../host/running-system.js';
import { activeSwaps } from '../../host/system-probe.js';
import type { BaseCtx } from '../../run/context.js';
import { swapCheck } from '../preflight/checks.js';
import type { HostPrepInput } from './input.js';
import { PREFIX, preflightFindings, readText, type HostLeaf } from './leaf.js';
import { fstabSwapEntries } from './render.js';

async function swap(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  if (!sys.live) return void ctx.log.info('--rootfs: swap of the running system is not that root\'s; not checked', { prefix: PREFIX });
  const active = activeSwaps(await sys.procSwaps());
  if (active.length === 0) return void ctx.log.info('Swap is off', { prefix: PREFIX, verbosity: 1 });
  if (input.swapAllowed) return void ctx.log.info(`Swap is on (${active.join(', ')}); the kubelet is configured to run with it (failSwapOn: false)`, { prefix: PREFIX });
  if (!input.swapOff) {
    ctx.log.warn(`Swap is on (${active.join(', ')}) and the kubelet refuses to run with it (preflight check Swap): pass --swap-off to turn it off now, or set failSwapOn: false in the KubeletConfiguration`, { prefix: PREFIX });
    return;
  }
  ctx.log.info(`Turning swap off: swapoff -a (${active.join(', ')})`, { prefix: PREFIX });
  await sys.swapoff();
  const atBoot = fstabSwapEntries(await readText(ctx.host, '/etc/fstab') ?? '');
  if (atBoot.length > 0) {
    ctx.log.warn(`/etc/fstab turns swap on again at boot (${atBoot.join(', ')}); tsadm does not edit it: comment those lines out (or mask their .swap units)`, { prefix: PREFIX });
  }
}

async function swapLive(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  // Preflight's Swap check: an error with swap on, a warning when the kubelet may run with it (failSwapOn: false).
  return preflightFindings(ctx, sys, [[swapCheck(input.swapAllowed), 'swap is off']]);
}

export const swapLeaf: HostLeaf = {
  name: 'swap',
  summary: 'Check swap; turn it off with --swap-off',
  description: 'Report active swap when the kubelet requires swap off (failSwapOn); with --swap-off turn it off now (swapoff -a). /etc/fstab is never edited: its swap entries are reported.',
  flags: ['swap-off'],
  run: swap,
  live: swapLive,
};
