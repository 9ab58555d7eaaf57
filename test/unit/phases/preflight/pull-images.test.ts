import { resolveInitConfig } from '../../../../src/config/load.js';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import type { Logger } from '../../../../src/log/events.js';
import { pullRequiredImages } from '../../../../src/phases/preflight/pull-images.js';
import { realSystem } from '../../../../src/host/system-probe.js';
import { profileFor } from '../../../../src/versions/resolve.js';

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    debug: () => undefined,
    output: () => undefined,
    event: () => undefined,
  };
}

const ENV = { hostname: 'node', defaultAdvertiseAddress: '10.0.0.1', now: new Date(0) };
const nodeRegistration = (ignore: string[] = []) =>
  resolveInitConfig({ flags: { 'kubernetes-version': 'v1.20.2', 'cri-socket': '/run/x.sock', ...(ignore.length ? { 'ignore-preflight-errors': ignore } : {}) }, env: ENV }).init.nodeRegistration;

/** A runtime where every pull fails as containerd reports an unknown image. */
const failingRuntime = (socketSeen: string[]) => (socket: string) => {
  socketSeen.push(socket);
  return Promise.resolve({
    imageExists: () => Promise.resolve(false),
    pullImage: () => Promise.reject(new Error('rpc error: code = NotFound desc = not found')),
    close: () => undefined,
  });
};

describe('pullRequiredImages (kubeadm RunPullImagesCheck in init/join preflight)', () => {
  test('kubeadm\'s three lines: "in beforehand" until 1.30, "beforehand" from 1.31; a dry run only says it would pull', async () => {
    for (const [version, hint] of [['v1.30.14', 'in beforehand'], ['v1.31.13', 'beforehand']] as const) {
      const log = recordingLog();
      await pullRequiredImages({ host: new RootedHost('/'), system: realSystem, log, dryRun: false, versions: profileFor(version), nodeRegistration: { ...nodeRegistration(), imagePullPolicy: 'Never' }, images: ['r/a:1'], connect: failingRuntime([]) });
      expect(log.lines).toEqual([
        'info Pulling images required for setting up a Kubernetes cluster',
        'info This might take a minute or two, depending on the speed of your internet connection',
        `info You can also perform this action ${hint} using 'tsadm config images pull'`,
      ]);
    }
    const dry = recordingLog();
    const seen: string[] = [];
    await pullRequiredImages({ host: new RootedHost('/'), system: realSystem, log: dry, dryRun: true, versions: profileFor('v1.20.2'), nodeRegistration: nodeRegistration(), images: ['r/a:1'], connect: failingRuntime(seen) });
    expect(dry.lines).toEqual(["info Would pull the required images (like 'tsadm config images pull')"]);
    expect(seen).toEqual([]);
  });

  test('a failed pull is a fatal [ERROR ImagePull] naming the image; --ignore-preflight-errors=ImagePull makes it a warning', async () => {
    const seen: string[] = [];
    const args = { host: new RootedHost('/srv/root'), system: realSystem, dryRun: false, versions: profileFor('v1.20.2'), images: ['r/a:1'], connect: failingRuntime(seen) };
    await expect(pullRequiredImages({ ...args, log: recordingLog(), nodeRegistration: nodeRegistration() }))
      .rejects.toThrow('[preflight] Some fatal errors occurred: [ERROR ImagePull]: failed to pull image r/a:1: rpc error: code = NotFound desc = not found');
    // The socket is reached under --rootfs.
    expect(seen).toEqual(['/srv/root/run/x.sock']);
    const log = recordingLog();
    await pullRequiredImages({ ...args, log, nodeRegistration: nodeRegistration(['ImagePull']) });
    expect(log.lines.at(-1)).toBe('warn [WARNING ImagePull]: failed to pull image r/a:1: rpc error: code = NotFound desc = not found');
  });
});
