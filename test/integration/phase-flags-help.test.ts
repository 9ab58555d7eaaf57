/**
 * Flags the built CLI's help lists where kubeadm has them: --patches on `init phase addon coredns`
 * and `upgrade apply phase addon coredns`, --config on `token create`.
 */
import { describeBuilt, tsadm } from '../helpers/built-cli.js';

describeBuilt('phase and command flags in the built CLI\'s help', () => {
  test('the addon coredns phases take --patches', async () => {
    for (const args of [['init', 'phase', 'addon', 'coredns', '--help'], ['upgrade', 'apply', 'phase', 'addon', 'coredns', '--help']]) {
      const h = await tsadm(args);
      expect([args.join(' '), h.stdout.includes('--patches')]).toEqual([args.join(' '), true]);
    }
    const create = await tsadm(['token', 'create', '--help']);
    expect(create.stdout).toContain('--config');
  });
});
