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
 * | MNT_EXPIRE       | mark expired; only a second call unmounts        | refused when the configuration is read (umount(8) has no such option) |
 *
 * The short options are the ones util-linux's and BusyBox's umount share.
 */

const UMOUNT_OPTION: Readonly<Record<string, string>> = { MNT_FORCE: '-f', MNT_DETACH: '-l' };

/** Flags kubeadm accepts that tsadm cannot carry out, with the reason shown to the user. */
export const UNSUPPORTED_UNMOUNT_FLAGS: Readonly<Record<string, string>> = {
  MNT_EXPIRE: 'the umount program has no option for MNT_EXPIRE (and alone it never unmounts on a first call)',
};

export interface UmountInvocation {
  /** Options before the mount point, in a fixed order. */
  readonly options: readonly string[];
  /** UMOUNT_NOFOLLOW: leave a mount point that is a symbolic link. */
  readonly noFollow: boolean;
}

export function umountInvocation(flags: readonly string[]): UmountInvocation {
  const set = new Set(flags);
  return {
    options: Object.entries(UMOUNT_OPTION).filter(([flag]) => set.has(flag)).map(([, option]) => option),
    noFollow: set.has('UMOUNT_NOFOLLOW'),
  };
}
