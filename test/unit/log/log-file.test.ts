import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TsadmEvent } from '../../../src/log/events.js';
import { LogFile, klogFileHeader, klogPrefix, logFileLine, redactSecrets, teeToLogFile } from '../../../src/log/log-file.js';

const AT = new Date(2026, 10, 5, 4, 3, 2, 71); // local time, as klog writes
const info = (message: string, verbosity = 0): TsadmEvent => ({ type: 'log', ts: AT.toISOString(), level: 'info', verbosity, message, phase: 'certs/ca' });

describe('klog line format', () => {
  test('prefix: severity, month and day, time to the microsecond, pid right-aligned in 7, source', () => {
    expect(klogPrefix('I', AT, 30166)).toBe('I1105 04:03:02.071000   30166 tsadm] ');
    expect(klogPrefix('W', AT, 7)).toBe('W1105 04:03:02.071000       7 tsadm] ');
  });

  test('file header as klog writes it when it opens a log file', () => {
    expect(klogFileHeader(AT, 'cp1', 'tsadm 1.0.0')).toBe(
      'Log file created at: 2026/11/05 04:03:02\nRunning on machine: cp1\nBinary: tsadm 1.0.0\nLog line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n',
    );
  });

  test('lines are what the plain reporter shows at that verbosity; warnings are W', () => {
    expect(logFileLine(info('Generating "ca" certificate and key'), 0, false, AT, 1)).toBe('I1105 04:03:02.071000       1 tsadm] [certs] Generating "ca" certificate and key\n');
    expect(logFileLine(info('detail', 1), 0, false, AT, 1)).toBeUndefined();
    expect(logFileLine(info('detail', 1), 1, true, AT, 1)).toBe('[certs] detail\n');
    const warn: TsadmEvent = { type: 'log', ts: '', level: 'warn', verbosity: 0, message: 'swap is on' };
    expect(logFileLine(warn, 0, false, AT, 1)).toBe('W1105 04:03:02.071000       1 tsadm] [WARNING] swap is on\n');
    expect(logFileLine({ type: 'output', ts: '', text: 'abcdef.0123456789abcdef\n' }, 2, true, AT, 1)).toBeUndefined(); // stdout output is not log
  });
});

describe('LogFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('tee: the inner reporter gets every event, the file the shown lines; closing closes both', async () => {
    const file = path.join(dir, 'l.log');
    const seen: TsadmEvent[] = [];
    let closed = false;
    const log = LogFile.open({ file, maxSizeMb: 0, skipHeaders: true, skipLogHeaders: true }, 'tsadm', () => AT);
    const tee = teeToLogFile({ emit: (e) => seen.push(e), close: () => { closed = true; return Promise.resolve(); } }, log, 0);
    tee.emit(info('one'));
    tee.emit(info('hidden', 2));
    await tee.close();
    expect(seen).toHaveLength(2);
    expect(closed).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('[certs] one\n');
  });

  test('the file starts over when it would grow past --log-file-max-size, as klog rotates a named file', () => {
    const file = path.join(dir, 'l.log');
    const log = LogFile.open({ file, maxSizeMb: 1, skipHeaders: true, skipLogHeaders: true }, 'tsadm', () => AT);
    const big = 'x'.repeat(600 * 1024);
    log.write(info(big), 0);
    log.write(info('after'), 0);
    expect(readFileSync(file, 'utf8')).toBe(`[certs] ${big}\n[certs] after\n`);
    log.write(info(big), 0);
    log.close();
    expect(readFileSync(file, 'utf8')).toBe(`[certs] ${big}\n`);
  });
});

describe('issue 27: secrets in the log file', () => {
  test('redactSecrets: bootstrap tokens and certificate keys become <redacted>; sha256 digests stay', () => {
    const key = 'ceb2711204ee32ef33900715b1aae4498b6446176f650795e06afcc932782e2f';
    const hash = 'sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
    expect(redactSecrets('Using token: abcdef.0123456789abcdef')).toBe('Using token: <redacted>');
    expect(redactSecrets('Using tokens: [abcdef.0123456789abcdef 123456.abcdefabcdefabcd]')).toBe('Using tokens: [<redacted> <redacted>]');
    expect(redactSecrets(`tsadm join 10.0.0.1:6443 --token abcdef.0123456789abcdef \\\n    --discovery-token-ca-cert-hash ${hash} \\\n    --control-plane --certificate-key ${key}`))
      .toBe(`tsadm join 10.0.0.1:6443 --token <redacted> \\\n    --discovery-token-ca-cert-hash ${hash} \\\n    --control-plane --certificate-key <redacted>`);
    expect(redactSecrets(key)).toBe('<redacted>');
    expect(redactSecrets(`certificateKey: ${key}`)).toBe('certificateKey: <redacted>');
    expect(redactSecrets(`tsadm certs rotate-ca node --rotation-key=${key} -v 5`)).toBe('tsadm certs rotate-ca node --rotation-key=<redacted> -v 5');
    expect(redactSecrets(`file sha256 ${key.toUpperCase()} differs`)).toBe(`file sha256 ${key.toUpperCase()} differs`);
    expect(redactSecrets('[certs] Generating "ca" certificate and key')).toBe('[certs] Generating "ca" certificate and key');
  });

  test('logFileLine redacts unless asked to keep secrets', () => {
    expect(logFileLine(info('Using token: abcdef.0123456789abcdef'), 0, true, AT, 1)).toBe('[certs] Using token: <redacted>\n');
    expect(logFileLine(info('Using token: abcdef.0123456789abcdef'), 0, true, AT, 1, true)).toBe('[certs] Using token: abcdef.0123456789abcdef\n');
  });

  test('an existing file with a looser mode is forced to 0600; a symlink or another user\'s file is refused', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-log-'));
    try {
      const file = path.join(dir, 'l.log');
      writeFileSync(file, 'old\n', { mode: 0o666 });
      chmodSync(file, 0o666);
      LogFile.open({ file, maxSizeMb: 0, skipHeaders: true, skipLogHeaders: true }, 'tsadm', () => AT).close();
      expect(statSync(file).mode & 0o7777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toBe('old\n');
      const link = path.join(dir, 'link.log');
      symlinkSync(file, link);
      expect(() => LogFile.open({ file: link, maxSizeMb: 0, skipHeaders: true, skipLogHeaders: true }, 'tsadm')).toThrow(/it is a symbolic link/);
      const theirs = path.join(dir, 'theirs.log');
      writeFileSync(theirs, '');
      chownSync(theirs, 4242, 4242);
      expect(() => LogFile.open({ file: theirs, maxSizeMb: 0, skipHeaders: true, skipLogHeaders: true }, 'tsadm')).toThrow(/owned by uid 4242/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
