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
    expect(umountInvocation(flags)).toEqual({ options, noFollow });
  });
});
