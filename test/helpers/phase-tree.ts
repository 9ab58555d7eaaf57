/** Shared by the engine tests: a small phase tree shaped like init's (parents, flags, skipIf, aliases). */
import type { Phase } from '../../src/engine/phase.js';
import type { PhaseLogger } from '../../src/log/logger.js';

export type TreeCtx = { log: PhaseLogger; ran: string[]; external?: boolean };

/** A leaf that records its name in ctx.ran when it runs. */
export const leaf = (name: string, extra: Partial<Phase<TreeCtx>> = {}): Phase<TreeCtx> => ({
  name, summary: name, run: (c) => { c.ran.push(name); return Promise.resolve(); }, ...extra,
});

export const phaseTree: Phase<TreeCtx>[] = [
  leaf('preflight'),
  { name: 'certs', summary: 'certs', children: [leaf('ca', { flags: ['cert-dir'] }), leaf('apiserver', { flags: ['cert-dir', 'apiserver-cert-extra-sans'] })] },
  { name: 'etcd', summary: 'etcd', skipIf: (c) => (c.external ? 'external etcd' : undefined), children: [leaf('local')] },
  leaf('bootstrap-token', { aliases: ['bootstraptoken'] }),
  { name: 'addon', summary: 'addons', children: [leaf('coredns'), leaf('kube-proxy')] },
];
