/**
 * --resume and the phases' own declarations: a phase that always runs is never skipped, one
 * trusted once passed is, and one with an exit check is run again when that check fails.
 */
import { createApiSeam, type ApiSeam } from '../../../src/kube/seam.js';
import type { CheckFinding, Phase } from '../../../src/engine/phase.js';
import { runPhases } from '../../../src/engine/runner.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { startResumableRun } from '../../../src/resume/session.js';
import { exitCheckOf } from '../../../src/verify/exit-check.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

type Ctx = { readonly host: RootedHost; readonly api: ApiSeam; readonly log: PhaseLogger; readonly dryRun: boolean };

let root: TempRoot;
beforeEach(() => {
  root = tempRoot();
});
afterEach(() => root.cleanup());

async function runTree(tree: Phase<Ctx>[], resume: boolean): Promise<{ ran: string[]; skipped: string[] }> {
  const reporter = new MemoryReporter();
  const ctx: Ctx = { host: new RootedHost(root.dir), api: createApiSeam(new RootedHost(root.dir), false), log: new PhaseLogger(reporter), dryRun: false };
  const session = await startResumableRun(ctx, { command: 'init', resume, inputs: () => ({}), verify: (path, phase, c) => exitCheckOf(path, phase)?.(c) });
  await runPhases(tree, ctx, { filter: [], skip: [], hooks: session.hooks });
  await session.complete();
  const finished = reporter.events.flatMap((e) => (e.type === 'phase-finish' ? [e] : []));
  return { ran: finished.filter((e) => e.status === 'ok').map((e) => e.phase), skipped: finished.filter((e) => e.status === 'skipped').map((e) => e.phase) };
}

test('on --resume: always-runs runs again, trusted-once-passed is skipped, a failing exit check runs again', async () => {
  let healthy = true;
  const verify = (): Promise<CheckFinding[]> => Promise.resolve([{ check: 'thing', ok: healthy }]);
  const noop = (): Promise<void> => Promise.resolve();
  const tree: Phase<Ctx>[] = [
    { name: 'preflight', summary: '', run: noop, noExitCheck: 'trusted-once-passed' },
    { name: 'make', summary: '', run: noop, verify },
    { name: 'wait', summary: '', run: noop, noExitCheck: 'always-runs' },
  ];
  expect((await runTree(tree, false)).ran).toEqual(['preflight', 'make', 'wait']);
  expect(await runTree(tree, true)).toEqual({ ran: ['wait'], skipped: ['preflight', 'make'] });
  healthy = false;
  expect(await runTree(tree, true)).toEqual({ ran: ['make', 'wait'], skipped: ['preflight'] });
});
