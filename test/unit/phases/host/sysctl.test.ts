/**
 * The sysctl host leaf (src/phases/host/sysctl.ts) on a --rootfs temp tree with a fake running
 * system (test/helpers/host-phase.ts): a user's own k8s.conf kept or reported, another sysctl
 * file that wins at boot reported. Expected contents are written out here, not taken from render.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { bare, hostPhaseRootEachTest, SYSCTLS } from '../../../helpers/host-phase.js';

const h = hostPhaseRootEachTest();
const { run, read } = h;

test('a user\'s own k8s.conf that does the job is kept; one that does not is reported and nothing is written', async () => {
  h.reset({ '/etc/sysctl.d/k8s.conf': 'net.bridge.bridge-nf-call-iptables=1\nnet.bridge.bridge-nf-call-ip6tables=1\nnet.ipv4.ip_forward=1\n# mine\n' });
  await run(bare(), { only: 'host/sysctl' });
  expect(read('/etc/sysctl.d/k8s.conf')).toContain('# mine');

  writeFileSync(h.root.at('/etc/sysctl.d/k8s.conf'), 'net.ipv4.ip_forward=0\n');
  await expect(run(bare(), { only: 'host/sysctl' })).rejects.toThrow(/\/etc\/sysctl.d\/k8s.conf is not tsadm's and it does not set .*net.ipv4.ip_forward=1/);
  expect(read('/etc/sysctl.d/k8s.conf')).toBe('net.ipv4.ip_forward=0\n');
  // --override-host-settings replaces it.
  await run(bare(), { only: 'host/sysctl', flags: { 'override-host-settings': true } });
  expect(read('/etc/sysctl.d/k8s.conf')).toBe(SYSCTLS);
});

test('another sysctl file that wins at boot is reported; with the override flag the value is set now and the file left alone', async () => {
  h.reset({ '/etc/sysctl.conf': 'net.ipv4.ip_forward = 0\n' });
  const state = bare();
  await expect(run(state, { only: 'host/sysctl' })).rejects.toThrow(/\/etc\/sysctl.conf sets net.ipv4.ip_forward=0, applied after \/etc\/sysctl.d\/k8s.conf/);
  expect(existsSync(h.root.at('/etc/sysctl.d/k8s.conf'))).toBe(false);
  const { reporter } = await run(state, { only: 'host/sysctl', flags: { 'override-host-settings': true } });
  expect(state.sysctls.get('net.ipv4.ip_forward')).toBe('1');
  expect(read('/etc/sysctl.conf')).toBe('net.ipv4.ip_forward = 0\n');
  expect(reporter.lines().join('\n')).toMatch(/\/etc\/sysctl.conf sets net.ipv4.ip_forward=0 and wins at boot/);
});
