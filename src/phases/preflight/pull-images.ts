import type { NodeRegistration } from '../../config/types.js';
import { socketPath } from '../../host/cri.js';
import type { Host } from '../../host/host.js';
import type { Logger } from '../../log/events.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { SystemProbe } from '../../host/system-probe.js';
import { imagePullCheck, type ImageRuntime } from './image-pull.js';
import { runChecks } from './run-checks.js';

/** Opens the container runtime at a socket path (the real CRI client, or a test's). */
export type ConnectRuntime = (socket: string) => Promise<ImageRuntime & { close(): void }>;

/**
 * kubeadm's image pull after the preflight checks (init, and a control-plane join): three lines,
 * then the ImagePull check (its errors fatal unless ignored); a dry run only says it would pull.
 */
export async function pullRequiredImages(a: {
  host: Host; system: SystemProbe; log: Logger; dryRun: boolean; versions: VersionProfile;
  nodeRegistration: NodeRegistration; images: readonly string[]; connect: ConnectRuntime;
}): Promise<void> {
  if (a.dryRun) {
    a.log.info("Would pull the required images (like 'tsadm config images pull')");
    return;
  }
  a.log.info('Pulling images required for setting up a Kubernetes cluster');
  a.log.info('This might take a minute or two, depending on the speed of your internet connection');
  a.log.info(`You can also perform this action ${a.versions.imageCommands.pullHintInBeforehand ? 'in beforehand' : 'beforehand'} using 'tsadm config images pull'`);
  const nr = a.nodeRegistration;
  const socket = a.host.resolve(socketPath(nr.criSocket));
  const check = imagePullCheck(() => a.connect(socket), a.images, { policy: nr.imagePullPolicy, serial: nr.imagePullSerial ?? true });
  await runChecks([check], { host: a.host, system: a.system }, nr.ignorePreflightErrors, a.log);
}
