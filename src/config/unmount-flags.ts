/**
 * ResetConfiguration `unmountFlags` (v1beta4, kubeadm 1.31) on the `umount` program. kubeadm calls
 * unmount2(2) with the flags OR-ed together for every mount under /var/lib/kubelet; Node has no
 * unmount2, so tsadm runs umount(8) through the host seam (dry-run lists the commands) with:
 *
 * | kubeadm flag     | umount2 meaning                                  | tsadm                                      |
 * |------------------|--------------------------------------------------|--------------------------------------------|
 * | MNT_FORCE        | force the unmount (busy NFS and the like)        | `umount -f`                                |
 * | MNT_DETACH       | lazy: detach now, clean up when no longer busy   | `umount -l`                                |
 * | UMOUNT_NOFOLLOW  | do not follow the target if it is a symlink      | a mount point that is a symlink is not unmounted (unmount2 would fail on it with EINVAL), reported as failed |
 * | MNT_EXPIRE       | mark expired; only a second call unmounts        | nothing is unmounted; each mount point is reported as not unmounted, as kubeadm's one call fails with EAGAIN |
 *
 * The short options are the ones util-linux's and BusyBox's umount share.
 *
 * MNT_EXPIRE is accepted as kubeadm accepts it. umount(8) has no option for it, and what kubeadm's
 * single unmount2 call does with it is known without making it (umount2(2)): a mount point that is
 * not yet marked is marked and the call fails with EAGAIN, so nothing is unmounted and kubeadm
 * prints the failures as a warning. With MNT_FORCE or MNT_DETACH beside it unmount2 fails with
 * EINVAL. tsadm reports the same failures without running umount. The one case it does not
 * reproduce: a mount point something else had already marked expired, which kubeadm's call would
 * unmount; it then stays mounted, reported, and reset leaves the kubelet directory's contents.
 */

const UMOUNT_OPTION: Readonly<Record<string, string>> = { MNT_FORCE: '-f', MNT_DETACH: '-l' };

export interface UmountInvocation {
  /** Options before the mount point, in a fixed order. */
  readonly options: readonly string[];
  /** UMOUNT_NOFOLLOW: leave a mount point that is a symbolic link. */
  readonly noFollow: boolean;
  /**
   * Why kubeadm's unmount2 call with these flags unmounts nothing (MNT_EXPIRE, alone or with
   * flags it cannot be combined with): every mount point is then reported with it, and no umount runs.
   */
  readonly unmountsNothing: string | undefined;
}

export function umountInvocation(flags: readonly string[]): UmountInvocation {
  const set = new Set(flags);
  let unmountsNothing: string | undefined;
  if (set.has('MNT_EXPIRE')) {
    unmountsNothing = set.has('MNT_FORCE') || set.has('MNT_DETACH')
      ? 'invalid argument (unmountFlags combines MNT_EXPIRE with MNT_FORCE or MNT_DETACH, which unmount2 refuses)'
      : 'resource temporarily unavailable (unmountFlags has MNT_EXPIRE: a first unmount2 call only marks the mount point expired)';
  }
  return {
    options: Object.entries(UMOUNT_OPTION).filter(([flag]) => set.has(flag)).map(([, option]) => option),
    noFollow: set.has('UMOUNT_NOFOLLOW'),
    unmountsNothing,
  };
}
