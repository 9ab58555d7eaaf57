import { umountInvocation } from '../../../src/config/unmount-flags.js';

// Oracle: umount(8) of util-linux and BusyBox: -f is MNT_FORCE, -l is MNT_DETACH (lazy).
describe('umountInvocation', () => {
  test.each([
    [[], [], false],
    [['MNT_FORCE'], ['-f'], false],
    [['MNT_DETACH'], ['-l'], false],
    [['MNT_DETACH', 'MNT_FORCE'], ['-f', '-l'], false],
    [['UMOUNT_NOFOLLOW'], [], true],
    [['UMOUNT_NOFOLLOW', 'MNT_DETACH'], ['-l'], true],
  ])('%j → options %j, noFollow %s', (flags, options, noFollow) => {
    expect(umountInvocation(flags)).toEqual({ options, noFollow, unmountsNothing: undefined });
  });

  // Oracle: umount2(2): MNT_EXPIRE's first call marks the mount point and fails with EAGAIN;
  // combined with MNT_FORCE or MNT_DETACH it fails with EINVAL. kubeadm makes one call.
  test('MNT_EXPIRE alone: kubeadm\'s one unmount2 call unmounts nothing (EAGAIN)', () => {
    expect(umountInvocation(['MNT_EXPIRE']).unmountsNothing).toMatch(/^resource temporarily unavailable \(unmountFlags has MNT_EXPIRE/);
    expect(umountInvocation(['UMOUNT_NOFOLLOW', 'MNT_EXPIRE']).unmountsNothing).toMatch(/^resource temporarily unavailable/);
  });

  test.each([[['MNT_EXPIRE', 'MNT_FORCE']], [['MNT_DETACH', 'MNT_EXPIRE']]])('%j: unmount2 refuses the combination (EINVAL)', (flags) => {
    expect(umountInvocation(flags).unmountsNothing).toMatch(/^invalid argument \(unmountFlags combines MNT_EXPIRE with MNT_FORCE or MNT_DETACH/);
  });
});
