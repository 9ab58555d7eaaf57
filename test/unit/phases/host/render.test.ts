/**
 * The pure readings of the host phases: modules-load and sysctl files as systemd and procps read
 * them, the order `sysctl --system` applies files in (procps: a name in /etc/sysctl.d hides the
 * same name further down, files by name, /etc/sysctl.conf last), fstab.
 */
import {
  fstabSwapEntries, isPackagedConffile, parseModulesLoad, parseSysctlFile, sysctlApplyOrder, sysctlConflicts,
} from '../../../../src/phases/host/render.js';

test('modules-load.d: one module a line, # and ; comments', () => {
  expect([...parseModulesLoad('# k8s\noverlay\n; x\n  br_netfilter  \n\n')]).toEqual(['overlay', 'br_netfilter']);
});

test('sysctl.d: key = value, "/" spelled keys, "-" prefixes, comments', () => {
  const m = parseSysctlFile('# c\nnet/ipv4/ip_forward=1\n-net.bridge.bridge-nf-call-iptables = 0\n; x = 2\nnot a setting\n');
  expect([...m]).toEqual([['net.ipv4.ip_forward', '1'], ['net.bridge.bridge-nf-call-iptables', '0']]);
});

test('sysctl --system order: /etc hides /usr/lib of the same name, names sorted, /etc/sysctl.conf last', () => {
  const order = sysctlApplyOrder([
    { path: '/etc/sysctl.conf', text: '' },
    { path: '/usr/lib/sysctl.d/50-default.conf', text: '' },
    { path: '/etc/sysctl.d/50-default.conf', text: '' },
    { path: '/etc/sysctl.d/k8s.conf', text: '' },
    { path: '/usr/lib/sysctl.d/99-z.conf', text: '' },
  ]).map((f) => f.path);
  expect(order).toEqual(['/etc/sysctl.d/50-default.conf', '/usr/lib/sysctl.d/99-z.conf', '/etc/sysctl.d/k8s.conf', '/etc/sysctl.conf']);
});

test('conflicts: a file after k8s.conf wins at boot, one before it does not', () => {
  const c = sysctlConflicts([
    { path: '/etc/sysctl.d/10-early.conf', text: 'net.ipv4.ip_forward = 0\n' },
    { path: '/etc/sysctl.d/zz-late.conf', text: 'net.bridge.bridge-nf-call-iptables=0\n' },
    { path: '/etc/sysctl.d/20-same.conf', text: 'net.ipv4.ip_forward = 1\n' },
  ]);
  expect(c).toEqual([
    { key: 'net.ipv4.ip_forward', want: '1', file: '/etc/sysctl.d/10-early.conf', value: '0', winsAtBoot: false },
    { key: 'net.bridge.bridge-nf-call-iptables', want: '1', file: '/etc/sysctl.d/zz-late.conf', value: '0', winsAtBoot: true },
  ]);
});

test('/etc/fstab swap entries (/proc/swaps: test/unit/host/system-probe.test.ts)', () => {
  expect(fstabSwapEntries('UUID=a / ext4 defaults 0 1\n#/old none swap sw 0 0\n/swap.img none swap sw 0 0\n')).toEqual(['/swap.img']);
});

test('a conffile is the package\'s while its md5 is the one dpkg recorded (not when obsolete, not another path)', () => {
  // Debian bookworm's containerd: its config.toml and the status entry dpkg keeps for it.
  const text = 'version = 2\n\n[plugins]\n  [plugins."io.containerd.grpc.v1.cri"]\n    [plugins."io.containerd.grpc.v1.cri".cni]\n      bin_dir = "/usr/lib/cni"\n      conf_dir = "/etc/cni/net.d"\n  [plugins."io.containerd.internal.v1.opt"]\n    path = "/var/lib/containerd/opt"\n';
  const status = 'Package: containerd\nConffiles:\n /etc/containerd/config.toml 773cf1c5a249197a8ef37a08ac168414\nDescription: x\n /etc/containerd/config.toml is not a conffile line here\n';
  expect(isPackagedConffile(status, '/etc/containerd/config.toml', Buffer.from(text))).toBe(true);
  expect(isPackagedConffile(status, '/etc/containerd/config.toml', Buffer.from(`${text}# mine\n`))).toBe(false);
  expect(isPackagedConffile(status, '/etc/other.toml', Buffer.from(text))).toBe(false);
  expect(isPackagedConffile(status.replace('68414', '68414 obsolete'), '/etc/containerd/config.toml', Buffer.from(text))).toBe(false);
});
