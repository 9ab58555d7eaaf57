/**
 * The kubelet-service host leaf (src/phases/host/kubelet-service.ts) on a --rootfs temp tree with
 * a fake running system (test/helpers/host-phase.ts): packaged units used as they are, a user's
 * different drop-in kept.
 */
import { existsSync } from 'node:fs';
import { bare, hostPhaseRootEachTest } from '../../../helpers/host-phase.js';

const h = hostPhaseRootEachTest();
const { run, read } = h;

test('kubelet-service: a packaged unit and drop-in are used as they are; a different drop-in of the user is kept', async () => {
  h.reset({
    '/usr/bin/kubelet': '',
    '/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet\n',
    '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --mine\n',
  });
  const state = bare();
  const { changed, reporter } = await run(state, { only: 'host/kubelet-service' });
  expect(changed).toEqual([]);
  expect(existsSync(h.root.at('/etc/systemd/system/kubelet.service'))).toBe(false);
  expect(read('/etc/systemd/system/kubelet.service.d/10-kubeadm.conf')).toContain('--mine');
  expect(reporter.lines().join('\n')).toMatch(/Keeping \/etc\/systemd\/system\/kubelet.service.d\/10-kubeadm.conf/);
  expect(state.calls).toEqual(['enable kubelet']);
});

test('kubelet-service: "enabled" is the init system\'s answer, not systemd\'s symlink; with no init system the enable is tried (and warns)', async () => {
  const files = { '/usr/bin/kubelet': '', '/lib/systemd/system/kubelet.service': '[Service]\n', '/lib/systemd/system/kubelet.service.d/10-kubeadm.conf': '[Service]\n' };
  h.reset(files);
  const enabledElsewhere = { ...bare(), kubeletEnabled: true };
  await run(enabledElsewhere, { only: 'host/kubelet-service' });
  expect(enabledElsewhere.calls).toEqual([]);
  expect(existsSync(h.root.at('/etc/systemd/system/multi-user.target.wants/kubelet.service'))).toBe(false);

  h.reset(files);
  const noInit = { ...bare(), initSystem: false };
  await run(noInit, { only: 'host/kubelet-service' });
  expect(noInit.calls).toEqual(['enable kubelet']);
});
