/**
 * The pure readings of the host phases: modules-load and sysctl files as systemd and procps read
 * them, the order `sysctl --system` applies files in (procps: a name in /etc/sysctl.d hides the
 * same name further down, files by name, /etc/sysctl.conf last), /proc/swaps and fstab.
 */
import {
  fstabSwapEntries, parseModulesLoad, parseProcSwaps, parseSysctlFile, sysctlApplyOrder, sysctlConflicts,
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

test('/proc/swaps and /etc/fstab swap entries', () => {
  expect(parseProcSwaps('Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap.img                               file\t\t2097148\t\t0\t\t-2\n')).toEqual(['/swap.img']);
  expect(parseProcSwaps('Filename\tType\tSize\tUsed\tPriority\n')).toEqual([]);
  expect(fstabSwapEntries('UUID=a / ext4 defaults 0 1\n#/old none swap sw 0 0\n/swap.img none swap sw 0 0\n')).toEqual(['/swap.img']);
});
