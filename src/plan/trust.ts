/**
 * What `tsadm apply` trusts a plan file for (decision 48; docs/plan.md, "Trust"). A plan
 * is a list of writes, API calls and commands that apply carries out as root, so:
 *
 * - the file must be as private as a key ssh would use: a regular file (not a symbolic link),
 *   owned by root (or by the user running tsadm, as ssh allows), writable by nobody else
 *   (no group or world write bit) — else anyone who could write it could run commands as root;
 * - it is applied to the root it was made for: a plan made with --rootfs DIR applies to DIR, and
 *   a different --rootfs is an error; only a plan made for the machine itself ("/") may be given
 *   another root (a plan made on a machine, replayed into an image being built);
 * - its exec steps are limited to the commands tsadm itself plans, by name and by the shape of
 *   their arguments (PLANNED_COMMANDS): a plan can never carry `/bin/sh -c …`;
 * - its approval steps are limited to what tsadm's approver decides: kubelet serving certificate
 *   requests, Approved or Denied. A plan can never approve a client certificate (system:masters).
 * Pure checks; src/plan/file.ts and src/commands/apply.ts apply them. The first is the rule of any
 * file tsadm acts on as root (src/host/private-file.ts), which a restore's snapshot gets too.
 */
import path from 'node:path';
import { KUBELET_SERVING_SIGNER } from '../constants.js';

/**
 * The commands tsadm's phases run as mutating host commands, so the only ones a plan may hold:
 * src/host/running-system.ts (modprobe NAME, sysctl -w KEY=VALUE, swapoff -a) and
 * src/phases/reset/cleanup-node.ts (umount [-f] [-l] MOUNTPOINT).
 */
const PLANNED_COMMANDS: Readonly<Record<string, (args: readonly string[]) => boolean>> = {
  modprobe: (a) => a.length === 1 && /^[A-Za-z0-9_-]+$/.test(a[0] ?? ''),
  sysctl: (a) => a.length === 2 && a[0] === '-w' && /^[a-z0-9_.\-/]+=[^\n]*$/i.test(a[1] ?? ''),
  swapoff: (a) => a.length === 1 && a[0] === '-a',
  umount: (a) => {
    const point = a[a.length - 1] ?? '';
    const options = a.slice(0, -1);
    return point.startsWith('/') && !point.includes('\n') && options.every((o) => o === '-f' || o === '-l') && new Set(options).size === options.length;
  },
};

/** Why an exec step may not run (undefined: it is one tsadm plans). */
export function execStepProblem(command: unknown, args: unknown): string | undefined {
  if (typeof command !== 'string' || !Array.isArray(args) || args.some((a) => typeof a !== 'string')) return 'an exec step needs a command and string arguments';
  const check = Object.hasOwn(PLANNED_COMMANDS, command) ? PLANNED_COMMANDS[command] : undefined;
  if (check === undefined) {
    return `exec of "${command}" is not a command tsadm plans (only ${Object.keys(PLANNED_COMMANDS).join(', ')})`;
  }
  if (!check(args as string[])) return `exec of "${command}" with arguments ${JSON.stringify(args)} is not how tsadm runs it`;
  return undefined;
}

/** Why an approval step may not be written (undefined: it is one tsadm's approver plans). */
export function approvalStepProblem(step: Readonly<Record<string, unknown>>): string | undefined {
  const obj = step.object as { kind?: unknown; metadata?: { name?: unknown }; spec?: { signerName?: unknown } } | undefined;
  const decision = step.decision as { type?: unknown } | undefined;
  if (step.kind !== 'CertificateSigningRequest' || obj?.kind !== 'CertificateSigningRequest' || obj.metadata?.name !== step.name) {
    return 'an approval step must be of the CertificateSigningRequest it names';
  }
  if (obj.spec?.signerName !== KUBELET_SERVING_SIGNER) return `an approval of a request to signer "${String(obj.spec?.signerName)}" is not one tsadm plans (only ${KUBELET_SERVING_SIGNER})`;
  if (decision?.type !== 'Approved' && decision?.type !== 'Denied') return 'an approval step must approve or deny';
  return undefined;
}

/** The live request an approval step writes must be the kubelet-serving one the plan shows (apply checks before writing). */
export function liveApprovalProblem(live: { spec?: { signerName?: unknown } } | undefined, name: string): string | undefined {
  if (!live) return `CertificateSigningRequest ${name} is gone`;
  if (live.spec?.signerName !== KUBELET_SERVING_SIGNER) return `CertificateSigningRequest ${name} is not to signer ${KUBELET_SERVING_SIGNER}`;
  return undefined;
}

/**
 * The root a plan made for PLAN_ROOT ("/" or an absolute directory) is applied to, given
 * --rootfs FLAG (undefined when not given); a string problem when they disagree.
 */
export function applyRoot(planRoot: string, flag: string | undefined): { root: string } | { problem: string } {
  if (flag === undefined || flag === '') return { root: planRoot };
  const wanted = path.resolve(flag);
  if (planRoot === '/' || wanted === planRoot) return { root: wanted };
  return { problem: `the plan was made for --rootfs ${planRoot}, not ${wanted}` };
}
