/** The `crictl` host leaf: /etc/crictl.yaml pointing crictl at the CRI socket. */
import type { CheckFinding } from '../../engine/phase.js';
import type { RunningSystem } from '../../host/running-system.js';
import type { BaseCtx } from '../../run/context.js';
import { fileExisting } from '../preflight/checks.js';
import type { HostPrepInput } from './input.js';
import { PREFIX, preflightFindings, readText, writeDropIn, type HostLeaf } from './leaf.js';
import { CRICTL_FILE, crictlEndpoint, crictlRuntimeEndpoint, renderCrictlYaml } from './render.js';

async function crictl(ctx: BaseCtx, input: HostPrepInput): Promise<void> {
  const desired = renderCrictlYaml(input.criSocket);
  const existing = await readText(ctx.host, CRICTL_FILE);
  const endpoint = crictlEndpoint(input.criSocket);
  if (existing !== undefined && existing !== desired && !input.override) {
    const theirs = crictlRuntimeEndpoint(existing);
    if (theirs === endpoint) ctx.log.info(`Keeping ${CRICTL_FILE}: it already points at ${endpoint}`, { prefix: PREFIX });
    else ctx.log.warn(`Keeping ${CRICTL_FILE}: it points crictl at ${theirs ?? 'no runtime-endpoint'}, not ${endpoint} (--override-host-settings replaces it)`, { prefix: PREFIX });
    return;
  }
  await writeDropIn(ctx, CRICTL_FILE, desired, 'crictl configuration', () => 'it differs', input.override);
}

async function crictlLive(ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  // Preflight's FileExisting check on PATH; a warning only: tsadm needs no crictl (docs/decisions.md, decision 8).
  return preflightFindings(ctx, sys, [[fileExisting('crictl', false), 'crictl is on PATH']]);
}

export const crictlLeaf: HostLeaf = {
  name: 'crictl',
  summary: 'Point crictl at the CRI socket',
  description: `Write ${CRICTL_FILE} (runtime-endpoint and image-endpoint: the CRI socket).`,
  flags: [],
  run: crictl,
  live: crictlLive,
};
