/**
 * What the generated workflow commands accept and list: flags only tsadm's own opt-in phases read
 * are accepted by the workflow and listed in those phases' help (issue 40), and a long alias
 * (--experimental-patches) is an accepted spelling of its flag.
 */
import { flagValuesFrom, ownPhaseFlags } from '../../../src/cli/yargs-kit.js';
import { initPhases } from '../../../src/workflows/init.js';
import { prepareWorkflow } from '../../../src/workflows/prepare.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { runCli } from '../../helpers/cli.js';

async function help(words: readonly string[]): Promise<string> {
  const r = await runCli([...words, '--help']);
  expect([words.join(' '), r.code]).toEqual([words.join(' '), 0]);
  return r.stdout;
}

test('ownPhaseFlags: the flags of host and certs-auto-renew that no kubeadm phase or opt-in switch reads', () => {
  const flags = ownPhaseFlags({ phases: initPhases(profileFor(DEFAULT_KUBERNETES_VERSION)), extraFlags: ['prepare-host', 'certificate-auto-renew'] });
  expect([...flags].sort()).toEqual(['bundle', 'override-host-settings', 'restart-container-runtime', 'swap-off', 'tsadm-path']);
  // A workflow of tsadm's phases alone lists every flag it has.
  expect(ownPhaseFlags(prepareWorkflow({ io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {} }, logFile: () => undefined })).size).toBe(0);
});

test('flagValuesFrom reads --experimental-patches as --patches; --patches wins when both are given', () => {
  expect(flagValuesFrom({ _: [], $0: 'tsadm', 'experimental-patches': '/p' }, ['patches'])).toEqual({ patches: '/p' });
  expect(flagValuesFrom({ _: [], $0: 'tsadm', patches: '/new', 'experimental-patches': '/old' }, ['patches'])).toEqual({ patches: '/new' });
});

test('a flag only tsadm\'s own phases read is accepted, listed in the phase\'s help and not in init\'s', async () => {
  const init = await help(['init']);
  expect(init).not.toContain('--tsadm-path');
  expect(init).not.toContain('--bundle');
  expect(init).toContain('--certificate-auto-renew'); // the opt-in switch itself stays
  expect(init).toContain('--prepare-host');
  expect(await help(['init', 'phase', 'certs-auto-renew'])).toContain('--tsadm-path');
  expect(await help(['init', 'phase', 'host'])).toContain('--bundle');
  // `prepare` is only tsadm's host phase: its flags are its own.
  expect(await help(['prepare'])).toContain('--bundle');
  const accepted = await runCli(['init', '--tsadm-path', '/usr/bin/tsadm', '--bundle', '/nowhere', '--kubernetes-version', 'v1.20.2', '--rootfs', '/nonexistent-h40']);
  expect(accepted.stderr).not.toMatch(/unknown flag/);
  // The same command line with a flag nobody declares does fail on it: the check above can fail.
  const refused = await runCli(['init', '--tsadm-pathx', '/usr/bin/tsadm', '--kubernetes-version', 'v1.20.2', '--rootfs', '/nonexistent-h40']);
  expect(refused.stderr).toMatch(/unknown flag --tsadm-pathx/);
});

