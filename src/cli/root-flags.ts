/**
 * kubeadm's root command has one persistent flag, --rootfs, so every kubeadm command accepts it:
 * cmd/kubeadm/app/cmd/cmd.go adds it with options.AddKubeadmOtherFlags(cmds.PersistentFlags(), …)
 * and chroots into it in the root's PersistentPreRunE, before any subcommand runs (a path that is
 * not a directory fails there, whatever the command). kubeadm's main (cmd/kubeadm/app/kubeadm.go)
 * also puts klog's -v on every command. tsadm declares both on each command that reads them, so its
 * --help lists what the command does with them; this module holds the pieces the commands that
 * touch no host file share (`version`, `completion`, `certs certificate-key`, `token generate`,
 * the `config` commands). tsadm resolves host paths under --rootfs instead of chrooting
 * (docs/decisions.md 6).
 */
import type { Argv } from 'yargs';
import { addFlags } from './yargs-kit.js';
import { resolveRootfs } from '../host/rootfs.js';

/**
 * Declares --rootfs (with what it does on this command: by default nothing, it reads and writes no
 * host file, so kubeadm's chroot changes nothing it does) and -v/--v on a command.
 */
export function addRootFlags<T>(o: Argv<T>, rootfs: 'rootfs@unused' | 'rootfs@config' = 'rootfs@unused', opts: { global?: boolean } = {}): Argv<T> {
  return addFlags(o, [rootfs, 'v@stack'], new Set(), opts);
}

/**
 * kubeadm's root PersistentPreRunE: a --rootfs that is not a directory fails every command before
 * it runs, those that touch no host file included. (Those that do check it again when they build
 * their runtime; the message is the same.)
 */
export function registerRootfsCheck(y: Argv): Argv {
  return y.middleware(async (argv) => {
    if (argv.rootfs !== undefined) await rootOf(argv);
  });
}

/**
 * The root --rootfs names, checked as kubeadm's chroot checks it ("/" when unset): an absolute
 * path, or a usage error when it is not a directory.
 */
export async function rootOf(argv: Readonly<Record<string, unknown>>): Promise<string> {
  const given = Array.isArray(argv.rootfs) ? (argv.rootfs as unknown[]).at(-1) : argv.rootfs;
  return resolveRootfs(typeof given === 'string' ? given : undefined);
}
