import { jest } from '@jest/globals';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { logFileSettingsFrom } from '../../../src/cli/klog-flags.js';
import { TsadmError } from '../../../src/errors.js';
import { tempRoot } from '../../helpers/temp-root.js';
import { runCli } from '../../helpers/cli.js';

// RSA keys come from OpenSSL's generator, which takes seconds on a busy 2-core machine.
jest.setTimeout(60_000);

const CA = ['init', 'phase', 'certs', 'ca', '--kubernetes-version', 'v1.20.2'];

describe("kubeadm's klog flags", () => {
  test('--log-file writes the log there with klog headers; stdout is unchanged', async () => {
    const root = tempRoot();
    try {
      const file = root.at('/tsadm.log');
      const r = await runCli([...CA, '--rootfs', root.dir, '--log-file', file, '-v', '1']);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toContain('[certs] Generating "ca" certificate and key');
      const log = readFileSync(file, 'utf8');
      expect(log).toMatch(/^Log file created at: \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\nRunning on machine: .+\nBinary: tsadm .+\nLog line format: /);
      expect(log).toMatch(/\nI\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ tsadm\] \[certs\] Generating "ca" certificate and key\n/);
      expect(log).toMatch(/tsadm\] \[certs\] wrote \/etc\/kubernetes\/pki\/ca\.key \(0600\)\n/); // -v 1 applies to the file too
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      root.cleanup();
    }
  });

  test('--skip-headers and --skip-log-headers leave the plain lines; a second run appends', async () => {
    const root = tempRoot();
    try {
      const file = root.at('/tsadm.log');
      const flags = ['--rootfs', root.dir, '--log-file', file, '--skip-headers', '--skip-log-headers', '--add-dir-header', '--one-output', '--log-file-max-size', '10'];
      expect((await runCli([...CA, ...flags])).code).toBe(0);
      const first = readFileSync(file, 'utf8');
      expect(first).toBe('[certs] Using certificateDir folder "/etc/kubernetes/pki"\n[certs] Generating "ca" certificate and key\n');
      expect((await runCli([...CA, ...flags])).code).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(`${first}[certs] Using certificateDir folder "/etc/kubernetes/pki"\n[certs] Using existing ca certificate authority\n`);
    } finally {
      root.cleanup();
    }
  });

  test.each([
    [['version', '--skip-headers', '--one-output', '--add-dir-header', '--skip-log-headers', '--log-file-max-size', '5']],
    [['token', 'generate', '--skip-headers']],
    [['config', 'print', 'init-defaults', '--one-output']],
    [['completion', 'bash', '--add-dir-header']],
  ])('accepted on every command, as kubeadm does: %j', async (args) => {
    const r = await runCli(args);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  test('every klog flag is in the help, as in kubeadm --help', async () => {
    const help = (await runCli(['init', '--help'])).stdout;
    for (const flag of ['--log-file', '--log-file-max-size', '--skip-headers', '--skip-log-headers', '--add-dir-header', '--one-output']) {
      expect([flag, help.includes(flag)]).toEqual([flag, true]);
    }
  });

  test('a bad --log-file-max-size or an unopenable --log-file is a usage error; nothing is written', async () => {
    const root = tempRoot();
    try {
      const bad = await runCli([...CA, '--rootfs', root.dir, '--log-file', root.at('/l.log'), '--log-file-max-size', 'big']);
      expect(bad.code).toBe(3);
      expect(bad.stderr).toMatch(/^error: invalid argument "big" for "--log-file-max-size" flag/);
      const nodir = await runCli([...CA, '--rootfs', root.dir, '--log-file', root.at('/no/such/dir/l.log')]);
      expect(nodir.code).toBe(3);
      expect(nodir.stderr).toMatch(/^error: --log-file .*\/no\/such\/dir\/l\.log: cannot open it: .*ENOENT/);
      expect(existsSync(root.at('/etc/kubernetes/pki/ca.key'))).toBe(false);
    } finally {
      root.cleanup();
    }
  });
});

describe('logFileSettingsFrom', () => {
  test('klog defaults: 1800 MB, headers on; no file without --log-file or with it empty', () => {
    expect(logFileSettingsFrom({ 'log-file': '/var/log/tsadm.log' })).toEqual({ file: '/var/log/tsadm.log', maxSizeMb: 1800, skipHeaders: false, skipLogHeaders: false });
    expect(logFileSettingsFrom({ 'log-file': 'a', 'log-file-max-size': '0', 'skip-headers': true, 'skip-log-headers': true })).toEqual({ file: 'a', maxSizeMb: 0, skipHeaders: true, skipLogHeaders: true });
    expect(logFileSettingsFrom({ 'log-file': ['a', 'b'] })?.file).toBe('b'); // the last one wins, as with pflag
    expect(logFileSettingsFrom({})).toBeUndefined();
    expect(logFileSettingsFrom({ 'log-file': '' })).toBeUndefined();
    expect(() => logFileSettingsFrom({ 'log-file-max-size': '-1' })).toThrow(TsadmError);
  });
});
