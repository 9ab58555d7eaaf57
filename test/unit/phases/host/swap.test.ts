/**
 * The swap host leaf (src/phases/host/swap.ts) on a --rootfs temp tree with a fake running
 * system (test/helpers/host-phase.ts): swap reported, turned off only with --swap-off, /etc/fstab
 * reported and never edited.
 */
import { bare, cfgFor, hostPhaseRootEachTest } from '../../../helpers/host-phase.js';

const h = hostPhaseRootEachTest();
const { run, read } = h;

test('swap: reported without --swap-off, turned off with it; /etc/fstab is reported, never edited', async () => {
  const fstab = 'UUID=1 / ext4 defaults 0 1\n/swap.img none swap sw 0 0\n';
  h.reset({ '/etc/fstab': fstab });
  const state = bare();
  state.swaps = ['/swap.img'];
  const first = await run(state, { only: 'host/swap' });
  expect(state.calls).toEqual([]);
  expect(first.reporter.lines().join('\n')).toMatch(/pass --swap-off/);
  const second = await run(state, { only: 'host/swap', flags: { 'swap-off': true } });
  expect(state.calls).toEqual(['swapoff -a']);
  expect(second.reporter.lines().join('\n')).toMatch(/\/etc\/fstab turns swap on again at boot \(\/swap.img\)/);
  expect(read('/etc/fstab')).toBe(fstab);
  // failSwapOn: false: swap may stay on.
  const allowed = bare();
  allowed.swaps = ['/swap.img'];
  await run(allowed, { only: 'host/swap', flags: { 'swap-off': true }, cfg: cfgFor('v1.20.2', { failSwapOn: false }) });
  expect(allowed.calls).toEqual([]);
});
