/**
 * The one notion of a phase's exit check that `tsadm check` and `init --resume` share: declared
 * on the phase (verify, noExitCheck), otherwise "running it again would change nothing".
 */
import { createApiSeam, type ApiSeam } from '../../../src/kube/seam.js';
import { flatten, type CheckFinding, type Phase, type PhaseAt } from '../../../src/engine/phase.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { exitCheckOf, unchangedAndAnswering } from '../../../src/verify/exit-check.js';
import { initPhases } from '../../../src/workflows/init.js';
import { DEFAULT_PATCH, SUPPORTED_MINORS } from '../../../src/versions/minors.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

type Ctx = { readonly host: RootedHost; readonly api: ApiSeam; readonly log: PhaseLogger; readonly dryRun: boolean };

let root: TempRoot;
let ctx: Ctx;
beforeEach(() => {
  root = tempRoot();
  ctx = { host: new RootedHost(root.dir), api: createApiSeam(new RootedHost(root.dir), false), log: new PhaseLogger(new MemoryReporter()), dryRun: false };
});
afterEach(() => root.cleanup());

const writer: Phase<Ctx> = {
  name: 'writer',
  summary: 'writes /etc/thing',
  run: async (c) => {
    await c.host.writeFile('/etc/thing', 'v1\n', { mode: 0o644, kind: 'config', description: 'thing' });
  },
};

describe('exitCheckOf', () => {
  test('a parent, and a leaf that declares noExitCheck, have none', () => {
    expect(exitCheckOf('parent', { name: 'parent', summary: '', children: [writer] })).toBeUndefined();
    expect(exitCheckOf('waits', { ...writer, noExitCheck: 'always-runs' })).toBeUndefined();
    expect(exitCheckOf('checks', { ...writer, noExitCheck: 'trusted-once-passed' })).toBeUndefined();
  });

  test('a leaf\'s own verify is called with where it sits in the tree', async () => {
    const seen: PhaseAt<Ctx>[] = [];
    const finding: CheckFinding = { check: 'own', ok: true };
    const phase: Phase<Ctx> = { ...writer, verify: (_c, self) => { seen.push(self); return Promise.resolve([finding]); } };
    await expect(exitCheckOf('group/writer', phase)!(ctx)).resolves.toEqual([finding]);
    expect(seen).toEqual([{ path: 'group/writer', phase }]);
  });

  test('otherwise: running the phase again as a dry run would change nothing', async () => {
    const check = exitCheckOf('writer', writer)!;
    await expect(check(ctx)).resolves.toEqual([{ check: '/etc/thing', ok: false, detail: 'missing or different (the writer phase would write it)' }]);
    await writer.run!(ctx);
    await expect(check(ctx)).resolves.toEqual([{ check: '/etc/thing', ok: true, detail: 'present and as expected' }]);
    expect(ctx.host.writes).toHaveLength(1); // the checks wrote nothing
  });
});

test('unchangedAndAnswering: the dry re-run and the component\'s health, not asked on a root folder', async () => {
  const phase: Phase<Ctx> = { ...writer, verify: unchangedAndAnswering(() => ({ component: 'thingd', url: 'http://127.0.0.1:1/healthz' })) };
  await writer.run!(ctx);
  const findings = await exitCheckOf('writer', phase)!(ctx);
  expect(findings).toEqual([
    { check: '/etc/thing', ok: true, detail: 'present and as expected' },
    { check: 'thingd running', ok: true, warning: true, detail: `not checked on a root folder (${root.dir})` },
  ]);
});

describe.each(SUPPORTED_MINORS.map((m) => [m]))('init\'s tree of %s', (minor) => {
  const leaves = flatten(initPhases(profileFor(DEFAULT_PATCH[minor]))).filter((f) => f.phase.run !== undefined);
  test('the phases that leave nothing to check say so; the rest have an exit check', () => {
    const none = leaves.filter((f) => exitCheckOf(f.path, f.phase) === undefined).map((f) => f.path);
    expect(none.sort()).toEqual(['preflight', 'show-join-command', 'wait-control-plane', 'wait-for-kubelet']);
    const alwaysRuns = leaves.filter((f) => f.phase.noExitCheck === 'always-runs').map((f) => f.path);
    expect(alwaysRuns.sort()).toEqual(['show-join-command', 'wait-control-plane', 'wait-for-kubelet']);
  });
  test('certificates, static pods, the kubelet and upload-certs declare their own', () => {
    const own = leaves.filter((f) => f.phase.verify !== undefined).map((f) => f.path);
    for (const p of ['certs/ca', 'certs/apiserver', 'certs/sa', 'etcd/local', 'control-plane/apiserver', 'control-plane/scheduler', 'kubelet-start', 'upload-certs']) expect(own).toContain(p);
    expect(own).not.toContain('kubeconfig/admin');
  });
});
