/**
 * The container-runtime host leaf (src/phases/host/container-runtime.ts) on a --rootfs temp tree
 * with a fake running system (test/helpers/host-phase.ts): restarts only with the flag, packaged
 * and administrators' config.toml files reported or kept aside. The Debian package's file and its
 * dpkg md5 are copied from bookworm's containerd 1.6.20.
 */
import { existsSync } from 'node:fs';
import { bare, cfgFor, hostPhaseRootEachTest } from '../../../helpers/host-phase.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';

const h = hostPhaseRootEachTest();
const { run, read } = h;

test('container-runtime: a running containerd is restarted only with --restart-container-runtime; 1.30 gets systemd and its pause image', async () => {
  const state = bare();
  const cfg = cfgFor('v1.30.0', { cgroupDriver: 'systemd' });
  const first = await run(state, { only: 'host/container-runtime', cfg });
  expect(state.calls).toEqual([]);
  expect(first.reporter.lines().join('\n')).toMatch(/--restart-container-runtime/);
  expect(read('/etc/containerd/conf.d/k8s.toml')).toContain('SystemdCgroup = true');
  expect(read('/etc/containerd/conf.d/k8s.toml')).toContain('sandbox_image = "k8s.gcr.io/pause:3.9"'); // the fixture's repository, 1.30's pause tag
  // Changed again (the image repository), now with the flag: restarted.
  const other = fixtureInitConfig({ cluster: { kubernetesVersion: 'v1.30.0', imageRepository: 'mirror.example/k8s' } });
  await run(state, { only: 'host/container-runtime', cfg: { ...other, componentConfigs: cfg.componentConfigs }, flags: { 'restart-container-runtime': true } });
  expect(state.calls).toEqual(['restart containerd']);
});

test('container-runtime: containerd.io\'s packaged config.toml (CRI disabled) is reported, and replaced only with the override, the original kept', async () => {
  const packaged = '#   Copyright 2018-2022 Docker Inc.\n\ndisabled_plugins = ["cri"]\n';
  h.reset({ '/etc/containerd/config.toml': packaged });
  await expect(run(bare(), { only: 'host/container-runtime' })).rejects.toThrow(/disables the CRI plugin/);
  expect(read('/etc/containerd/config.toml')).toBe(packaged);
  expect(existsSync(h.root.at('/etc/containerd/conf.d/k8s.toml'))).toBe(false);
  await run(bare(), { only: 'host/container-runtime', flags: { 'override-host-settings': true } });
  expect(read('/etc/containerd/config.toml.tsadm-orig')).toBe(packaged);
  expect(read('/etc/containerd/config.toml')).toContain('imports = ["/etc/containerd/conf.d/*.toml"]');
  // Idempotent afterwards, without the flag.
  const again = await run(bare(), { only: 'host/container-runtime' });
  expect(again.changed).toEqual([]);
});

/** Debian bookworm's containerd 1.6.20 package: its config.toml and the md5 dpkg records for it (/var/lib/dpkg/status). */
const DEBIAN_CONFIG = 'version = 2\n\n[plugins]\n  [plugins."io.containerd.grpc.v1.cri"]\n    [plugins."io.containerd.grpc.v1.cri".cni]\n      bin_dir = "/usr/lib/cni"\n      conf_dir = "/etc/cni/net.d"\n  [plugins."io.containerd.internal.v1.opt"]\n    path = "/var/lib/containerd/opt"\n';
const DEBIAN_STATUS = 'Package: containerd\nStatus: install ok installed\nConffiles:\n /etc/containerd/config.toml 773cf1c5a249197a8ef37a08ac168414\nDescription: open and reliable container runtime\n';

test('container-runtime: Debian\'s packaged config.toml, unmodified, gets the import line (kept aside first); the 1.x drop-in carries its CRI section', async () => {
  h.reset({ '/etc/containerd/config.toml': DEBIAN_CONFIG, '/var/lib/dpkg/status': DEBIAN_STATUS });
  const first = await run(bare(), { only: 'host/container-runtime' });
  expect(first.changed.sort()).toEqual(['/etc/containerd/conf.d/k8s.toml', '/etc/containerd/config.toml', '/etc/containerd/config.toml.tsadm-orig']);
  expect(read('/etc/containerd/config.toml.tsadm-orig')).toBe(DEBIAN_CONFIG);
  // Only a line added: everything of the package's file is still there, byte for byte.
  const edited = read('/etc/containerd/config.toml');
  expect(edited.replace(/^# imports: added by tsadm.*\nimports = \["\/etc\/containerd\/conf.d\/\*.toml"\]\n/m, '')).toBe(DEBIAN_CONFIG);
  expect(edited.split('\n').slice(0, 3)).toEqual(['version = 2', expect.stringMatching(/^# imports: added by tsadm/), 'imports = ["/etc/containerd/conf.d/*.toml"]']);
  // containerd 1.x would drop config.toml's CRI section for the drop-in's: the drop-in has both.
  const dropIn = read('/etc/containerd/conf.d/k8s.toml');
  expect(dropIn).toMatch(/bin_dir = "\/usr\/lib\/cni"/);
  expect(dropIn).toMatch(/conf_dir = "\/etc\/cni\/net.d"/);
  expect(dropIn).toMatch(/sandbox_image = "k8s.gcr.io\/pause:3.2"/);
  expect(dropIn).toMatch(/SystemdCgroup = false/);
  expect(first.reporter.lines().join('\n')).toMatch(/it is the package's file, unmodified/);
  const again = await run(bare(), { only: 'host/container-runtime' });
  expect(again.changed).toEqual([]);
});

test('container-runtime: a config.toml of the administrator without the import is reported; the override adds the import and keeps their settings', async () => {
  const mine = `${DEBIAN_CONFIG}    # mine\n`;
  h.reset({ '/etc/containerd/config.toml': mine, '/var/lib/dpkg/status': DEBIAN_STATUS });
  await expect(run(bare(), { only: 'host/container-runtime' })).rejects.toThrow(/does not import \/etc\/containerd\/conf.d\/\*.toml/);
  expect(read('/etc/containerd/config.toml')).toBe(mine);
  expect(existsSync(h.root.at('/etc/containerd/conf.d/k8s.toml'))).toBe(false);
  await run(bare(), { only: 'host/container-runtime', flags: { 'override-host-settings': true } });
  expect(read('/etc/containerd/config.toml')).toContain('# mine');
  expect(read('/etc/containerd/config.toml')).toContain('imports = ["/etc/containerd/conf.d/*.toml"]');
  expect(read('/etc/containerd/config.toml.tsadm-orig')).toBe(mine);
});
