import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { controlPlanePhase } from '../../../src/phases/controlplane/phase.js';
import { etcdPhase } from '../../../src/phases/etcd/phase.js';
import { runPhases } from '../../../src/engine/runner.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { initCtxFor } from '../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { GOLDEN_DIR, golden } from '../controlplane/scenarios.js';

/**
 * Golden --patches scenarios: kubeadm v1.20.2 ran `init phase control-plane all` and `init phase
 * etcd local` with --experimental-patches on test/fixtures/manifests/v1.20.2/<scenario>/root/patches.
 * - patches: one file per patch type, a multi-document file, a sub-directory, an ignored and an
 *   empty file;
 * - patches2: strategic directives ($patch replace/delete, $retainKeys, $deleteFromPrimitiveList,
 *   $setElementOrder), list merge order, zero values a typed round trip drops, null in a merge
 *   patch, and every JSON patch operation (negative indices, escaped keys).
 */
describe.each([['patches'], ['patches2']])('--patches scenario %s against kubeadm v1.20.2', (scenario) => {
  let root: TempRoot;
  let lines: string[];
  beforeAll(async () => {
    root = tempRoot();
    cpSync(path.join(GOLDEN_DIR, scenario, 'root/patches'), root.at('/patches'), { recursive: true });
    const cfg = fixtureInitConfig({ init: { ...fixtureInitConfig().init, patches: { directory: '/patches' } } });
    const { ctx, reporter } = initCtxFor(cfg, root.dir);
    await runPhases([controlPlanePhase, etcdPhase], ctx, { filter: [], skip: [] });
    lines = reporter.events.flatMap((e) => (e.type === 'log' && e.prefix === 'patches' ? [`[patches] ${e.message}`] : []));
  });
  afterAll(() => root.cleanup());

  for (const component of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd']) {
    test(`${component}.yaml equals kubeadm's`, () => {
      expect(readFileSync(root.at(`/etc/kubernetes/manifests/${component}.yaml`), 'utf8')).toBe(golden(scenario, `${component}.yaml`));
    });
  }

  test('the [patches] notices are kubeadm\'s, with the directory read once', () => {
    // kubeadm read the directory once per process, and it ran twice (control-plane, etcd).
    const kubeadm = golden(scenario, 'kubeadm.out').split('\n').filter((l) => l.startsWith('[patches]'));
    const firstRead = kubeadm.slice(0, kubeadm.findIndex((l) => l.includes('Applied')));
    expect(lines).toEqual([...firstRead, ...kubeadm.filter((l) => l.includes('Applied'))]);
  });
});
