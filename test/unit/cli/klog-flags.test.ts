import { jest } from '@jest/globals';
import { existsSync, readFileSync, statSync, symlinkSync } from 'node:fs';
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

  // kubeadm's main keeps klog's --vmodule on every command (cmd/kubeadm/app/kubeadm.go); klog's
  // moduleSpec.Set refuses what is not comma-separated pattern=N with N >= 0.
  test.each([
    [['version', '--vmodule', 'gc*=3,proxy=2,'], 0, ''],
    [['token', 'generate', '--vmodule=x=0'], 0, ''],
    [['config', 'print', 'join-defaults', '--vmodule', ''], 0, ''],
    [['version', '--vmodule', 'proxy'], 3, 'error: invalid argument "proxy" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N'],
    [['version', '--vmodule', 'a=1,=2'], 3, 'error: invalid argument "a=1,=2" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N'],
    [['version', '--vmodule', 'a=x'], 3, 'error: invalid argument "a=x" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N'],
    [['version', '--vmodule', 'a=3000000000'], 3, 'error: invalid argument "a=3000000000" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N'],
    [['version', '--vmodule', 'a=-1'], 3, 'error: invalid argument "a=-1" for "--vmodule" flag: negative value for vmodule level'],
  ])('--vmodule, as klog reads it: %j', async (args, code, firstErrorLine) => {
    const r = await runCli(args);
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([code, firstErrorLine]);
  });

  test('every klog flag is in the help, as in kubeadm --help', async () => {
    const help = (await runCli(['init', '--help'])).stdout;
    for (const flag of ['--log-file', '--log-file-max-size', '--skip-headers', '--skip-log-headers', '--add-dir-header', '--one-output', '--vmodule']) {
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

describe('issue 27: --log-file is private and keeps no secret', () => {
  const KEY = 'ceb2711204ee32ef33900715b1aae4498b6446176f650795e06afcc932782e2f';
  const TOKEN = 'abcdef.0123456789abcdef';
  const CONFIG = `apiVersion: kubeadm.k8s.io/v1beta2\nkind: InitConfiguration\nbootstrapTokens:\n- token: ${TOKEN}\ncertificateKey: ${KEY}\n`
    + 'localAPIEndpoint:\n  advertiseAddress: 10.0.0.1\n---\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n';

  test('the bootstrap token and the certificate key reach stdout as in kubeadm, the log file only as <redacted> (unless --log-file-secrets); a loose file becomes 0600', async () => {
    const root = tempRoot({ '/config.yaml': CONFIG, '/loose.log': { content: '', mode: 0o644 } });
    try {
      const config = root.at('/config.yaml');
      expect((await runCli(['init', 'phase', 'certs', 'ca', '--config', config, '--rootfs', root.dir])).code).toBe(0);
      const file = root.at('/loose.log');
      const token = await runCli(['init', 'phase', 'bootstrap-token', '--config', config, '--rootfs', root.dir, '--dry-run', '--log-file', file]);
      const certs = await runCli(['init', 'phase', 'upload-certs', '--upload-certs', '--config', config, '--rootfs', root.dir, '--dry-run', '--log-file', file]);
      expect([token.code, certs.code]).toEqual([0, 0]);
      expect(token.stdout).toContain(`[bootstrap-token] Using token: ${TOKEN}`);
      expect(certs.stdout).toContain(`[upload-certs] Using certificate key:\n${KEY}\n`);
      const log = readFileSync(file, 'utf8');
      expect(log).toContain('[bootstrap-token] Using token: <redacted>\n');
      expect(log).toMatch(/tsadm\] <redacted>\n/);
      expect(log).not.toContain(TOKEN);
      expect(log).not.toContain(TOKEN.split('.')[1]);
      expect(log).not.toContain(KEY);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const kept = await runCli(['init', 'phase', 'bootstrap-token', '--config', config, '--rootfs', root.dir, '--dry-run', '--log-file', root.at('/secrets.log'), '--log-file-secrets']);
      expect(kept.code).toBe(0);
      expect(readFileSync(root.at('/secrets.log'), 'utf8')).toContain(`Using token: ${TOKEN}`);
    } finally {
      root.cleanup();
    }
  });

  test('a symbolic link at the --log-file path is refused, not followed; its target is untouched', async () => {
    const root = tempRoot({ '/target': 'keep\n' });
    try {
      symlinkSync(root.at('/target'), root.at('/l.log'));
      const r = await runCli([...CA, '--rootfs', root.dir, '--log-file', root.at('/l.log')]);
      expect(r.code).toBe(3);
      expect(r.stderr.split('\n')[0]).toBe(`error: --log-file ${root.at('/l.log')}: cannot open it: it is a symbolic link (tsadm does not follow one to write its log)`);
      expect(readFileSync(root.at('/target'), 'utf8')).toBe('keep\n');
      expect(statSync(root.at('/target')).mode & 0o777).toBe(0o644); // not chmod'ed through the link either
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
